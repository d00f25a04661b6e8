"""ensemble-tui: one question, several LLMs, one aggregated reply."""

__version__ = "0.1.0"
