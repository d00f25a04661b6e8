"""The seven panes of the main screen, one module each."""

# (TabPane id, tab label), in tab order; the ids are used by bindings and palette commands.
PANES: tuple[tuple[str, str], ...] = (
    ("chat", "Chat"),
    ("chatgpt", "ChatGPT"),
    ("claude", "Claude"),
    ("gemini", "Gemini"),
    ("attachments", "Attachments"),
    ("resubmissions", "Resubmissions"),
    ("settings", "Settings"),
)


def pane_id_for_provider(provider: str) -> str:
    return provider.lower()
