"""The core must stay free of Textual (and of the provider SDKs) so it runs headless and starts fast."""

import subprocess
import sys


def test_core_imports_without_textual_or_sdks() -> None:
    code = (
        "import sys, ensemble_tui.core.turn.engine, ensemble_tui.core.workspace;"
        "bad = [m for m in ('textual', 'openai', 'anthropic', 'google.genai') if m in sys.modules];"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
