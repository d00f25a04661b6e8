"""Money as every part of the app shows it: the status line, the run report, `ask`'s cost line
and the history.

A demo chat's figures are what its turns would cost with real providers (the simulator reports
token counts, the configured prices turn them into dollars); nothing is spent. So they are
labelled as simulated wherever they appear, and given to the cent: a finer figure would claim a
precision that made-up token counts do not have.
"""

from __future__ import annotations

SIMULATED_LABEL = "(simulated)"


def cents(usd: float) -> str:
    """A figure to the cent, `$0.49`: a budget and what it has left are set and read in cents."""
    return f"${usd:.2f}"


def amount(usd: float, *, simulated: bool = False) -> str:
    """The bare figure: `$0.1711` below a dollar, `$12.34` above; a simulated one to the cent."""
    return cents(usd) if simulated or usd >= 1 else f"${usd:.4f}"


def money(usd: float, *, simulated: bool = False) -> str:
    """A figure as shown on its own: `$0.1711`, or `$0.17 (simulated)` for a demo's money."""
    return f"{amount(usd, simulated=True)} {SIMULATED_LABEL}" if simulated else amount(usd)


def cost_phrase(usd: float, *, simulated: bool = False) -> str:
    """What something costs, in a sentence: `cost $0.1711`, or `would cost $0.17 (simulated)`."""
    return f"would cost {money(usd, simulated=True)}" if simulated else f"cost {money(usd)}"
