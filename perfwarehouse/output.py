"""How values read in every output, terminal and page alike: the one home of formats that
the command line and the reports share (settings as ``k=v``). Light: no third-party
imports, so a verb can use it before any heavy import."""

from __future__ import annotations

import json
from typing import Any


def format_settings(value: Any) -> str:
    """Settings (canonical JSON text or a dict) as ``k=v k=v``, the one settings format of
    every page, chart and terminal table; text that is not a JSON object is shown as it
    is."""
    parsed = value
    if isinstance(value, str):
        if not value:
            return ""
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
    if isinstance(parsed, dict):
        return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, sort_keys=True)}"
                        for k, v in parsed.items())
    return "" if parsed in (None, [], {}) else str(value)
