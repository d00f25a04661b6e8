"""Optional user key remapping: `Configurations/Keymap.json` maps binding ids to keys.

Example: `{"mode.all": "f9", "chat.newline": "ctrl+j,shift+enter,alt+n"}`. The ids are those
of the app's Bindings (listed in the README); Textual's keymap applies them.
"""

from __future__ import annotations

import json
from pathlib import Path

KEYMAP_FILE = "Keymap.json"


def load_keymap(path: Path) -> tuple[dict[str, str], str | None]:
    """The keymap and a one-line warning if the file exists but cannot be used."""
    if not path.exists():
        return {}, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return {}, f"{path.name} ignored: {exc}"
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        return {}, f'{path.name} ignored: it must map binding ids to key names, e.g. {{"mode.all": "f9"}}'
    return dict(data), None
