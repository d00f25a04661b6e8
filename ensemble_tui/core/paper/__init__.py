"""The session's PDF: its pages' text, and quotations checked against it."""
