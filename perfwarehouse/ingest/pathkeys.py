"""Keys of a trial taken from its file's path (``ingest --path-pattern``).

A history is usually kept as one file per run, named by what the file itself does not
say: ``results/<machine>/<YYYYmmddHHMMSS>_<commit>.json``. A pattern names the parts::

    {node}/{started_at:%Y%m%d%H%M%S}_{revision}.json

``{FIELD}`` matches one path component's text (no ``/``), shortest first; ``{FIELD:FMT}``
with a time field matches and parses a :func:`time.strptime` format (``%s``: unix
seconds, ``%ms``: unix milliseconds); ``{*}`` matches any text (not a key), ``{**}`` any
number of directories. The pattern is matched against the end of the path (its last
components), so it does not matter where the history sits. Fields: node, hardware_type,
revision, revision_time, started_at, campaign. A time without an offset is UTC; a time
in a path is at most 64 characters, a pattern has at most 32 placeholders.

The keys are those the regular expression of the pattern would give (see
:class:`PathPattern`), found in time linear in the path's length: no pattern can make
the match backtrack.

Pure: text in, keys out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Literal

from perfwarehouse.errors import UsageError

FIELDS = ("node", "hardware_type", "revision", "revision_time", "started_at", "campaign")
TIMES = ("started_at", "revision_time")
_PLACEHOLDER = re.compile(r"\{([^{}:]*)(?::([^{}]*))?\}")
# strptime directive -> the text it matches
_DIRECTIVES = {"Y": r"\d{4}", "m": r"\d{1,2}", "d": r"\d{1,2}", "H": r"\d{1,2}",
               "M": r"\d{1,2}", "S": r"\d{1,2}", "y": r"\d{2}", "j": r"\d{1,3}",
               "f": r"\d{1,6}", "z": r"(?:Z|[+-]\d{2}:?\d{2})", "b": r"[A-Za-z]{3}",
               "B": r"[A-Za-z]+", "a": r"[A-Za-z]{3}", "A": r"[A-Za-z]+", "p": r"[AaPp][Mm]",
               "I": r"\d{1,2}", "%": "%"}  # compiled re.ASCII: \d is [0-9]


MAX_PLACEHOLDERS = 32
TIME_MAX_CHARS = 64  # the longest text a {FIELD:FMT} time matches

Kind = Literal["text", "field", "any", "dirs", "time"]


@dataclass(frozen=True)
class Token:
    """One piece of a pattern: literal ``text``, a ``field`` (``[^/]+``, shortest first),
    ``any`` text in one component (``{*}``), ``dirs`` (``{**}``: any text), or a ``time``
    (``regex``, at most :data:`TIME_MAX_CHARS` characters, longest first)."""

    kind: Kind
    text: str = ""  # the literal, or the field's name
    regex: re.Pattern[str] | None = None


@dataclass(frozen=True)
class PathPattern:
    """A compiled ``--path-pattern``: :meth:`keys` gives a path's keys (or None).

    Matched as a regular expression would be (``(?:^|/)`` + pieces + ``$``, searched:
    the leftmost start, then each piece's first choice that lets the rest match), but
    without backtracking: one backward pass marks, for every piece and position, whether
    the rest of the pattern can match from there, and one forward pass takes each
    piece's first choice among the marked ones. So a path of n characters costs
    O(pieces x n) (a time piece: x :data:`TIME_MAX_CHARS`) however the pieces are placed,
    where a backtracking regex took exponential time for eight ``{**}`` and polynomial
    time of degree five for five fields in one file name (issue 44, H9)."""

    text: str
    tokens: tuple[Token, ...]
    formats: dict[str, str]  # time field -> its format (absent: RFC 3339 text)

    def keys(self, path: str) -> dict[str, str] | None:
        """The keys ``path`` gives (times as RFC 3339), or None when it does not match.

        Raises ValueError naming the field when a matched time does not parse."""
        found = self.match(path.replace("\\", "/"))
        if found is None:
            return None
        out = {}
        for name, text in found.items():
            out[name] = parse_time(text, self.formats.get(name), name) if name in TIMES else text
        return out

    def match(self, path: str) -> dict[str, str] | None:
        """The text of each field in ``path`` (None: no match); see the class docstring."""
        n = len(path)
        seg_end = [n] * (n + 1)  # the next "/" at or after each position
        for i in range(n - 1, -1, -1):
            seg_end[i] = i if path[i] == "/" else seg_end[i + 1]
        ok = [[False] * (n + 1) for _ in range(len(self.tokens) + 1)]
        ok[-1][n] = True  # the end of the pattern is the end of the path
        for t in range(len(self.tokens) - 1, -1, -1):
            _mark(self.tokens[t], path, seg_end, ok[t + 1], ok[t])
        starts = [0, *(i + 1 for i in range(n) if path[i] == "/")]
        pos = next((s for s in starts if ok[0][s]), None)
        if pos is None:
            return None
        found = {}
        for t, token in enumerate(self.tokens):
            end = _first_end(token, path, pos, seg_end, ok[t + 1])
            if token.kind in ("field", "time"):
                found[token.text] = path[pos:end]
            pos = end
        return found


def _next_true(marks: list[bool]) -> list[int]:
    """For each position, the first position at or after it that is marked (len: none)."""
    n = len(marks)
    out = [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        out[i] = i if marks[i] else out[i + 1]
    return out


def _mark(token: Token, path: str, seg_end: list[int], after: list[bool],
          here: list[bool]) -> None:
    """``here[pos]``: ``token`` matches ``path[pos:e]`` for some ``e`` with ``after[e]``."""
    n = len(path)
    if token.kind == "text":
        size = len(token.text)
        for pos in range(n - size + 1):
            here[pos] = after[pos + size] and path.startswith(token.text, pos)
        return
    if token.kind == "time":
        assert token.regex is not None
        for pos in range(n + 1):
            here[pos] = _time_end(token.regex, path, pos, after) is not None
        return
    nxt = _next_true(after)
    for pos in range(n + 1):
        if token.kind == "dirs":
            here[pos] = nxt[pos] <= n
        elif token.kind == "any":
            here[pos] = nxt[pos] <= seg_end[pos]
        else:  # field: at least one character, no "/"
            here[pos] = pos < seg_end[pos] and nxt[pos + 1] <= seg_end[pos]


def _time_end(regex: re.Pattern[str], path: str, pos: int, after: list[bool]) -> int | None:
    """The longest ``e`` (at most :data:`TIME_MAX_CHARS` on) with ``after[e]`` and the time
    ``regex`` matching ``path[pos:e]`` whole."""
    for end in range(min(len(path), pos + TIME_MAX_CHARS), pos - 1, -1):
        if after[end] and regex.fullmatch(path, pos, end):
            return end
    return None


def _first_end(token: Token, path: str, pos: int, seg_end: list[int], after: list[bool]) -> int:
    """Where ``token``, matched from ``pos``, ends at its first choice that lets the rest
    of the pattern match (``after``)."""
    if token.kind == "text":
        return pos + len(token.text)
    if token.kind == "time":
        assert token.regex is not None
        end = _time_end(token.regex, path, pos, after)
        assert end is not None
        return end
    end = pos + (token.kind == "field")
    while not after[end]:  # shortest first; marked, so it ends within reach
        end += 1
    return end


def compile_pattern(text: str) -> PathPattern:
    """Compile a ``--path-pattern`` (see the module docstring); one-line UsageError."""
    tokens: list[Token] = []
    formats: dict[str, str] = {}
    seen: set[str] = set()
    pos = 0
    placeholders = list(_PLACEHOLDER.finditer(text))
    if len(placeholders) > MAX_PLACEHOLDERS:
        raise UsageError(f"--path-pattern has {len(placeholders)} placeholders; at most "
                         f"{MAX_PLACEHOLDERS}")
    for match in placeholders:
        if match.start() > pos:
            tokens.append(Token("text", text[pos:match.start()]))
        pos = match.end()
        name, fmt = match.group(1).strip(), match.group(2)
        if name == "*":
            tokens.append(Token("any"))
            continue
        if name == "**":
            tokens.append(Token("dirs"))
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
            tokens.append(Token("time", name, re.compile(_time_regex(fmt), re.ASCII)))
        else:
            tokens.append(Token("field", name))
    if pos < len(text):
        tokens.append(Token("text", text[pos:]))
    if not seen:
        raise UsageError(f"--path-pattern {text!r} names no field (e.g. {{node}}, "
                         "{revision}, {started_at:%Y%m%d})")
    return PathPattern(text, tuple(tokens), formats)


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
