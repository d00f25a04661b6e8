"""The one line a user reads when a turn ends without a stored reply: why, and what to do."""

from __future__ import annotations

from pathlib import Path

from ensemble_tui.core.errors import EnsembleError
from ensemble_tui.core.provider import ProviderError
from ensemble_tui.core.turn.costs import BudgetExceeded

# A restyle's proposals answer the turn that was last when it was planned (core/records/restyle.py);
# a turn another process added since is not theirs to replace. Fits the status line at 80 columns.
RESTYLE_RACED = "Another process added a turn to this chat meanwhile: restyle the new one."


def save_failure(exc: OSError, root: Path, recovered: Path | None = None) -> str:
    """The one line for a turn that could not be stored, naming where its reply went."""
    where = exc.filename or root
    why = exc.strerror or str(exc)
    kept = f"; the reply is in {recovered}" if recovered is not None else ""
    return f"This turn was not saved: cannot write {where} ({why}){kept} - free space or fix permissions."


def transcript_failure(exc: OSError) -> str:
    return (
        f"The turn is saved, but its transcript {exc.filename} could not be written ({exc.strerror})"
        " - free space or fix permissions."
    )


def failure_message(exc: BaseException) -> str:
    """One concise line for any exception that ends a turn."""
    if isinstance(exc, ProviderError):
        return exc.message
    if isinstance(exc, (EnsembleError, BudgetExceeded)):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}: {exc}) - the chat is saved; see the log for details."
