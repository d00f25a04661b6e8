"""Optional user key remapping: `Configurations/Keymap.json` maps binding ids to keys.

Example: `{"mode.all": "f9", "chat.newline": "ctrl+j,shift+enter,alt+n"}`. The ids are those
of the app's Bindings (listed in the README); Textual's keymap applies them.

Textual ignores an id that names no binding, so a mistyped id ("mode.al") would change nothing
and say nothing. Such an entry, and one whose keys are not a string, is left out alone and named
in the warning; the rest of the file is used, as a bad value in Settings.json costs only itself.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterable
from pathlib import Path

from textual.binding import Binding
from textual.dom import DOMNode

KEYMAP_FILE = "Keymap.json"
SHAPE = 'it must map binding ids to key names, e.g. {"mode.all": "f9"}'


def load_keymap(path: Path) -> tuple[dict[str, str], str | None]:
    """The keymap and a one-line warning if the file, or some of its entries, cannot be used."""
    if not path.exists():
        return {}, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"{path.name} ignored: {exc}"
    if not isinstance(data, dict):
        return {}, f"{path.name} ignored: {SHAPE}"
    keymap = {name: keys for name, keys in data.items() if isinstance(keys, str) and keys.strip()}
    not_keys = [name for name in data if name not in keymap]
    known = binding_ids(keymap)
    unknown = [name for name in keymap if name not in known]
    problems = []
    if unknown:
        verb = "names" if len(unknown) == 1 else "name"
        problems.append(f"{quoted(unknown)} {verb} no binding (the README lists the ids)")
    if not_keys:
        verb = "is" if len(not_keys) == 1 else "are"
        problems.append(f'{quoted(not_keys)} {verb} not mapped to a key name like "f9"')
    if not problems:
        return keymap, None
    used = {name: keys for name, keys in keymap.items() if name in known}
    rest = "the rest is used" if used else "nothing else is in it"
    return used, f"{path.name}: {'; '.join(problems)}; {rest}."


def quoted(names: Iterable[str]) -> str:
    return ", ".join(json.dumps(name, ensure_ascii=False) for name in names)


def binding_ids(wanted: Iterable[str] = ()) -> set[str]:
    """Every binding id of the app's widgets and screens. The screens a key opens are imported
    when first used, not at start-up: they are imported here only if `wanted` holds an id the
    ones imported already lack (a keymap that remaps a screen's key, or a mistyped id)."""
    ids = _ids_of_imported()
    if all(name in ids for name in wanted):
        return ids
    from ensemble_tui.ui import screens

    for module in pkgutil.iter_modules(screens.__path__):
        importlib.import_module(f"{screens.__name__}.{module.name}")
    return _ids_of_imported()


def _ids_of_imported() -> set[str]:
    from ensemble_tui.ui.bindings import ACTION_BY_ID

    ids = set(ACTION_BY_ID)
    classes: list[type] = [DOMNode]
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        ids.update(item.id for item in vars(cls).get("BINDINGS", ()) if isinstance(item, Binding) and item.id)
    return ids
