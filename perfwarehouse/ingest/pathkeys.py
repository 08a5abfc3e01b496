"""Keys of a trial taken from its file's path (``ingest --path-pattern``).

A history is usually kept as one file per run, named by what the file itself does not
say: ``results/<machine>/<YYYYmmddHHMMSS>_<commit>.json``. A pattern names the parts::

    {node}/{started_at:%Y%m%d%H%M%S}_{revision}.json

``{FIELD}`` matches one path component's text (no ``/``), shortest first; ``{FIELD:FMT}``
with a time field matches and parses a :func:`time.strptime` format (``%s``: unix
seconds, ``%ms``: unix milliseconds); ``{*}`` matches any text (not a key), ``{**}`` any
number of directories. The pattern is matched against the end of the path (its last
components), so it does not matter where the history sits. Fields: node, hardware_type,
revision, revision_time, started_at, campaign. A time without an offset is UTC.

Pure: text in, keys out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone

from perfwarehouse.errors import UsageError

FIELDS = ("node", "hardware_type", "revision", "revision_time", "started_at", "campaign")
TIMES = ("started_at", "revision_time")
_PLACEHOLDER = re.compile(r"\{([^{}:]*)(?::([^{}]*))?\}")
# strptime directive -> the text it matches
_DIRECTIVES = {"Y": r"\d{4}", "m": r"\d{1,2}", "d": r"\d{1,2}", "H": r"\d{1,2}",
               "M": r"\d{1,2}", "S": r"\d{1,2}", "y": r"\d{2}", "j": r"\d{1,3}",
               "f": r"\d{1,6}", "z": r"(?:Z|[+-]\d{2}:?\d{2})", "b": r"[A-Za-z]{3}",
               "B": r"[A-Za-z]+", "a": r"[A-Za-z]{3}", "A": r"[A-Za-z]+", "p": r"[AaPp][Mm]",
               "I": r"\d{1,2}", "%": "%"}


@dataclass(frozen=True)
class PathPattern:
    """A compiled ``--path-pattern``: :meth:`keys` gives a path's keys (or None)."""

    text: str
    regex: re.Pattern[str]
    formats: dict[str, str]  # time field -> its format (absent: RFC 3339 text)

    def keys(self, path: str) -> dict[str, str] | None:
        """The keys ``path`` gives (times as RFC 3339), or None when it does not match.

        Raises ValueError naming the field when a matched time does not parse."""
        found = self.regex.search(path.replace("\\", "/"))
        if found is None:
            return None
        out = {}
        for name, text in found.groupdict().items():
            out[name] = parse_time(text, self.formats.get(name), name) if name in TIMES else text
        return out


def compile_pattern(text: str) -> PathPattern:
    """Compile a ``--path-pattern`` (see the module docstring); one-line UsageError."""
    parts, formats, seen, pos = [r"(?:^|/)"], {}, set(), 0
    for match in _PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[pos:match.start()]))
        pos = match.end()
        name, fmt = match.group(1).strip(), match.group(2)
        if name == "*":
            parts.append(r"[^/]*?")
            continue
        if name == "**":
            parts.append(r".*?")
            continue
        if name not in FIELDS:
            raise UsageError(f"--path-pattern: unknown field {{{name}}}; known: "
                             f"{', '.join(FIELDS)} (and {{*}}, {{**}})")
        if name in seen:
            raise UsageError(f"--path-pattern: {{{name}}} appears twice")
        seen.add(name)
        if fmt is not None and name not in TIMES:
            raise UsageError(f"--path-pattern: only {' and '.join(TIMES)} take a format, "
                             f"not {{{name}}}")
        if fmt is not None:
            formats[name] = fmt
            parts.append(f"(?P<{name}>{_time_regex(fmt)})")
        else:
            parts.append(f"(?P<{name}>[^/]+?)")
    parts.append(re.escape(text[pos:]) + "$")
    if not seen:
        raise UsageError(f"--path-pattern {text!r} names no field (e.g. {{node}}, "
                         "{revision}, {started_at:%Y%m%d})")
    return PathPattern(text, re.compile("".join(parts)), formats)


def _time_regex(fmt: str) -> str:
    if fmt in ("%s", "%ms"):
        return r"\d+(?:\.\d+)?"
    out, i = [], 0
    while i < len(fmt):
        if fmt[i] == "%" and i + 1 < len(fmt):
            directive = fmt[i + 1]
            if directive not in _DIRECTIVES:
                raise UsageError(f"--path-pattern: %{directive} is not a supported time "
                                 f"directive (use {' '.join('%' + d for d in _DIRECTIVES)})")
            out.append(_DIRECTIVES[directive])
            i += 2
        else:
            out.append(re.escape(fmt[i]))
            i += 1
    return "".join(out)


def parse_time(text: str, fmt: str | None, name: str) -> str:
    """``text`` as RFC 3339 (UTC when it names no offset): with ``fmt`` a strptime format,
    ``%s`` (unix seconds) or ``%ms`` (unix milliseconds); without, an ISO 8601 time.
    ValueError naming ``name`` when it is not one."""
    try:
        if fmt in ("%s", "%ms"):
            seconds = float(text) / (1000.0 if fmt == "%ms" else 1.0)
            stamp = datetime.fromtimestamp(seconds, timezone.utc)
        elif fmt is not None:
            stamp = datetime.strptime(text, fmt)
        else:
            stamp = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise ValueError(f"{name} {text!r} is not a time"
                         + (f" of the form {fmt}" if fmt else "")) from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=timezone.utc)
    return stamp.isoformat().replace("+00:00", "Z")
