"""The Textual front end: renders what the core emits and turns user actions into engine runs."""
