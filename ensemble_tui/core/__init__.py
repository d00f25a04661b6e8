"""Headless core of ensemble-tui: session, files, prompts, costs and the engine.

Nothing in this package imports Textual; the UI and the `ask` command both drive it.
"""
