"""Dialogs pushed over the main screen."""
