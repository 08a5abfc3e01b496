"""A load-test trial's settings read as a loop, a load and a configuration family.

Settings ``loop`` = ``closed`` (``clients`` N, ``think_time_s`` Z, optional
``outstanding``) or ``open`` (offered rate ``rate_rps``); the family is everything but
the load (``clients`` in a closed loop, ``rate_rps`` in an open one). Used by the curve
(:mod:`.curve`) and by the ``load`` job, which reads the settings of its trials.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

LOAD_KEYS = {"closed": "clients", "open": "rate_rps"}
LOOPS = ("closed", "open", None)  # codes 0, 1, 2


@dataclass(frozen=True)
class LoadSettings:
    loop: str | None
    family: str
    load: float
    clients: float
    think_time_s: float
    outstanding: float
    rate_rps: float
    generator: str | None = None


def _num(value: object) -> float:
    if isinstance(value, bool) or value is None:
        return math.nan
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def settings_object(text: str | None) -> dict[str, Any]:
    """A trial's settings (canonical JSON) as a dict; empty when there are none or the
    text is not a JSON object."""
    try:
        obj = json.loads(text) if text else {}
    except ValueError:
        return {}
    return obj if isinstance(obj, dict) else {}


def parse_settings(text: str) -> LoadSettings:
    """The load of a trial's settings (canonical JSON) and its family (the rest)."""
    obj = settings_object(text)
    loop = obj.get("loop") if obj.get("loop") in LOAD_KEYS else None
    load = _num(obj.get(LOAD_KEYS[loop])) if loop else math.nan
    generator = obj.get("generator")
    return LoadSettings(loop, _family_text(text, obj, LOAD_KEYS[loop] if loop else None), load,
                        _num(obj.get("clients")), _num(obj.get("think_time_s")),
                        _num(obj.get("outstanding")), _num(obj.get("rate_rps")),
                        generator if isinstance(generator, str) else None)


def _family_text(text: str, obj: dict[str, object], key: str | None) -> str:
    """Canonical JSON of ``obj`` without ``key``. Settings in the warehouse are canonical
    (sorted keys, compact, Python's number format), so the pair is cut out of the text
    when it is there verbatim (an escaped quote cannot form it inside a string value);
    otherwise the object is serialised again."""
    if key is None:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"))
    if key not in obj:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"))
    value = obj[key]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        shown = repr(value)  # how json.dumps writes a finite number
    else:
        shown = json.dumps(value, separators=(",", ":"))
    token = f'"{key}":{shown}'
    if text == "{" + token + "}":
        return "{}"
    for cut in (token + ",", "," + token):
        if cut in text:
            candidate = text.replace(cut, "", 1)
            if candidate.startswith("{") and candidate.endswith("}"):
                return candidate
    rest = {k: v for k, v in obj.items() if k != key}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"))
