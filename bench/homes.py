"""Home folders for the benchmarks, built in a temporary directory the run deletes at the end."""

from __future__ import annotations

from pathlib import Path

from bench.content import PDF_NAME, enable_compatible_providers, long_session, make_pdf, write_session
from ensemble_tui.core.config import load_provider_configs
from ensemble_tui.core.settings import default_settings, save_settings
from ensemble_tui.core.store.home import seed_home

BUDGET_USD = 10_000.0  # simulated calls on long chats are priced cautiously; the budget guard is not measured here


def shared_pdf(root: Path) -> Path:
    """One ~1 MB paper per run, shared by every home."""
    path = root / PDF_NAME
    return path if path.exists() else make_pdf(path)


def make_home(
    root: Path, name: str, turns: int = 0, *, last_mode: str = "all", five: bool = True, math: bool = False
) -> Path:
    """A seeded home with a session of `turns` answered turns on the shared PDF.

    `five`: DeepSeek and OpenRouter are enabled too, so `All` has five proposers. `math`: the
    replies hold LaTeX.
    """
    home = root / name
    session = long_session(turns, shared_pdf(root), math=math)
    session.last_mode = last_mode
    session.cost_usd = 0.0
    write_session(home, session)
    if five:
        enable_compatible_providers(home)
    paths = seed_home(home)
    settings = default_settings(load_provider_configs(paths.configurations).configs)
    save_settings(paths.settings_file, settings.model_copy(update={"budget_usd": BUDGET_USD}))
    return home
