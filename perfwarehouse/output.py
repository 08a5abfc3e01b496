"""How values read in every output, terminal and page alike: the one home of formats that
the command line, the reports and the refusals share (settings as ``k=v``, a file's
kind). Light: no third-party imports, so a verb can use it before any heavy import."""

from __future__ import annotations

import json
import stat
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


def file_kind(mode: int) -> str:
    """What a path that should be a regular file is, in words for a one-line refusal
    ("a FIFO", "a character device", ...), from its ``st_mode``."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"
