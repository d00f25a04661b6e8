"""Errors the core raises; each carries one line a user can act on."""

from __future__ import annotations


class EnsembleError(Exception):
    """Base class: `str(error)` is a concise, user-facing message."""


class ConfigError(EnsembleError):
    """A configuration or settings file is missing, unreadable or malformed."""


class PromptFileError(EnsembleError):
    """A prompt file is missing or unreadable; the message names the file."""


class PdfError(EnsembleError):
    """The session PDF is missing, unreadable or not a PDF."""


class HomeError(EnsembleError):
    """The home folder cannot be created or written."""
