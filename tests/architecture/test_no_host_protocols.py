"""The app's collaborators are given one small context (ui/actions/context.py), not a Protocol that
mirrors the app or its main screen (issue 31 §7): such a Protocol grew with every member the app
gained, and each member became a one-line forward on the app."""

from __future__ import annotations

import ast
from pathlib import Path

from ensemble_tui.ui.app import EnsembleApp
from ensemble_tui.ui.main_screen import MainScreen

UI = Path(__file__).resolve().parents[2] / "ensemble_tui" / "ui"


def protocol_members(tree: ast.Module) -> dict[str, set[str]]:
    """Each Protocol class of a module, with the names it declares (attributes and methods)."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(
            isinstance(base, ast.Name) and base.id == "Protocol" for base in node.bases
        ):
            names = {
                item.target.id
                for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
            }
            names |= {item.name for item in node.body if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)}
            found[node.name] = names
    return found


def test_no_protocol_in_the_ui_mirrors_the_app_or_its_main_screen():
    own = {
        name
        for cls in (EnsembleApp, MainScreen)
        for klass in cls.__mro__
        if klass.__module__.startswith("ensemble_tui.")
        for name in vars(klass)
        if not name.startswith("__")
    }
    mirrors = {
        f"{path.relative_to(UI)}:{name}": sorted(members & own)
        for path in UI.rglob("*.py")
        for name, members in protocol_members(ast.parse(path.read_text(encoding="utf-8"))).items()
        if members & own
    }
    assert mirrors == {}
