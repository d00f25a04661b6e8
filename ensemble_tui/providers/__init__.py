"""Provider adapters: the official OpenAI, Anthropic and Google SDKs behind one small protocol.

Importing this package is cheap: the SDKs are imported only when an adapter first talks to its
API, so `ensemble-tui --version` and the core's tests never pay for them. Use
`ensemble_tui.providers.registry.build_providers` to get the adapters a workspace can use.
"""
