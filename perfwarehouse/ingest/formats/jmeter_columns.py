"""The columns of a CSV JTL: JMeter's save-service fields, from a header, from ``--columns``,
or inferred from the values of a header-less file (issue 43).

JMeter writes the fields its ``jmeter.save.saveservice.*`` properties select, always in
the order of :data:`UNITS` (``CSVSaveService``), then the ``sample_variables`` (quoted
names in a header). ``grpThreads``/``allThreads`` and ``SampleCount``/``ErrorCount`` are
saved in pairs. A header names them in any order; without one, a *layout* (which fields,
in JMeter's order, then variables) is inferred from the first :data:`SAMPLE_ROWS` rows:

1. every layout whose fields accept every value of their column (:data:`KINDS`: an epoch-ms
   time or one of JMeter's date formats for ``timeStamp``, whole numbers for times, sizes
   and counts, ``true``/``false`` for ``success``, a 3-digit code or a ``Non HTTP response
   code: ...`` sentence for ``responseCode``, ``text``/``bin`` for ``dataType``; a text field
   never takes a column of numbers only) and whose values agree with JMeter's meaning
   (``1 <= grpThreads <= allThreads``, ``Latency`` and ``Connect`` at most ``elapsed``,
   ``ErrorCount <= SampleCount``); 1 value in 20 may misfit (not the first row's), so a
   broken row is refused on its own line when the file is read, not as "no layout";
2. of those, the one made of the fields JMeter saves most often (:data:`WEIGHT`: the
   defaults of every version first; ``sentBytes`` since 3.1, ``URL`` since 5.0, then the
   optional ones), so JMeter 2.x's 12 default columns read as themselves;
3. none: refused in one line that names what is missing and says to pass ``--columns``.

The layout read is named in the trial (attribute ``jtl_columns``) and, when inferred, in a
note, so a wrong guess is visible and ``--columns`` fixes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: JMeter's fields in the order it writes them; a tuple of two is saved together.
UNITS: tuple[tuple[str, ...], ...] = (
    ("timeStamp",), ("elapsed",), ("label",), ("responseCode",), ("responseMessage",),
    ("threadName",), ("dataType",), ("success",), ("failureMessage",), ("bytes",),
    ("sentBytes",), ("grpThreads", "allThreads"), ("URL",), ("Filename",), ("Latency",),
    ("Encoding",), ("SampleCount", "ErrorCount"), ("Hostname",), ("IdleTime",), ("Connect",))
FIELDS = tuple(name for unit in UNITS for name in unit)

#: How often each field is saved (JMeter's defaults in every version first): the
#: tie-break between layouts that fit the values equally. A variable counts 0.05.
WEIGHT = {"timeStamp": 1.0, "elapsed": 1.0, "label": 1.0, "responseCode": 1.0, "success": 1.0,
          "bytes": 0.95, "threadName": 0.9, "responseMessage": 0.9, "grpThreads": 0.45,
          "allThreads": 0.45, "Latency": 0.9, "dataType": 0.8, "failureMessage": 0.7,
          "Connect": 0.6, "IdleTime": 0.6, "sentBytes": 0.5, "URL": 0.4, "Hostname": 0.2,
          "Encoding": 0.1, "Filename": 0.05, "SampleCount": 0.05, "ErrorCount": 0.05}
VARIABLE_WEIGHT = 0.05

#: rows of a header-less file a layout is inferred from
SAMPLE_ROWS = 200

_INT = re.compile(r"\d{1,18}")
_EPOCH_MS = re.compile(r"\d{12,14}")
#: ``CSVSaveService``'s date formats (``jmeter.save.saveservice.timestamp_format``)
DATE_FORMATS = {
    re.compile(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}"): "%Y/%m/%d %H:%M:%S.%f",
    re.compile(r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d"): "%Y/%m/%d %H:%M:%S",
    re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}"): "%Y-%m-%d %H:%M:%S.%f",
    re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"): "%Y-%m-%d %H:%M:%S",
    re.compile(r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d"): "%m/%d/%y %H:%M:%S",
}
#: responseMessage of a transaction controller's row (JMeter's TransactionController)
TRANSACTION = re.compile(r"Number of samples in transaction : \d+, number of failing "
                         r"samples : \d+")
_CODE = re.compile(r"\d{3}|Non HTTP response code: .*|[A-Za-z0-9_.\-]{1,40}|")


def is_time(value: str) -> bool:
    return bool(_EPOCH_MS.fullmatch(value)) or any(p.fullmatch(value) for p in DATE_FORMATS)


def _text(value: str) -> bool:
    return True


#: field -> test of one value
KINDS: dict[str, Callable[[str], bool]] = {
    "timeStamp": is_time,
    "label": _text, "responseMessage": _text, "failureMessage": _text, "Filename": _text,
    "threadName": lambda v: bool(v.strip()),
    "responseCode": lambda v: bool(_CODE.fullmatch(v)),
    "dataType": lambda v: v in ("", "text", "bin"),
    "success": lambda v: v in ("true", "false"),
    "URL": lambda v: v in ("", "null") or "://" in v,
    "Encoding": lambda v: v == "" or bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9._:\-]*", v)),
    "Hostname": lambda v: bool(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._\-]*", v)),
}
for _name in ("elapsed", "bytes", "sentBytes", "grpThreads", "allThreads", "Latency",
              "SampleCount", "ErrorCount", "IdleTime", "Connect"):
    KINDS[_name] = lambda v: bool(_INT.fullmatch(v))
#: fields of free text: never a column of numbers only (nor a variable)
TEXT = {"label", "responseMessage", "failureMessage", "Filename", "threadName"}


@dataclass(frozen=True)
class Layout:
    """The name of every column (a variable is ``"name"``-quoted, or ``var1``...)."""

    columns: tuple[str, ...]
    how: str  # "header", "--columns", "inferred"

    def index(self, name: str) -> int | None:
        return self.columns.index(name) if name in self.columns else None


def header_layout(row: Sequence[str]) -> Layout | None:
    """The layout a first row names when it is a header: ``timeStamp`` first (JMeter's
    order), or every name one of JMeter's fields or a quoted variable and ``elapsed``
    among them; else None."""
    names = [c.strip() for c in row]
    if names[:1] == ["timeStamp"]:
        return Layout(tuple(names), "header")
    known = [n for n in names if n in FIELDS]
    if "elapsed" in known and len(known) >= 2 and all(
            n in FIELDS or (len(n) > 1 and n[0] == n[-1] == '"') for n in names):
        return Layout(tuple(names), "header")
    return None


def named_layout(text: str) -> Layout:
    """``--columns``: JMeter's field names separated by commas, ``|``, ``;`` or spaces; a
    name that is not a field is a variable. ``ValueError`` naming an unknown field when
    it differs from a field only by case (a typo, not a variable)."""
    names = [n for n in re.split(r"[,|;\s]+", text.strip()) if n]
    lower = {f.lower(): f for f in FIELDS}
    for name in names:
        if name not in FIELDS and name.lower() in lower:
            raise ValueError(f"--columns: {name!r} is not a JMeter field; did you mean "
                             f"{lower[name.lower()]!r}?")
    if "elapsed" not in names:
        raise ValueError("--columns must name elapsed (and timeStamp for times): "
                         f"JMeter's fields are {', '.join(FIELDS)}")
    return Layout(tuple(names), "--columns")


def _tolerated(n: int) -> int:
    """Values of a sampled column that may misfit a field (a broken row is then refused
    on its own line when the file is read, rather than hiding the layout): 1 in 20."""
    return n // 20


def _fits_column(name: str, values: list[str]) -> bool:
    test = KINDS[name]
    misfits = sum(1 for v in values if not test(v))
    if misfits > _tolerated(len(values)) or (values and not test(values[0])):
        return False
    return not (name in TEXT and values and all(_INT.fullmatch(v) for v in values))


def _agrees(columns: tuple[str, ...], rows: list[list[str]]) -> bool:
    """JMeter's meaning holds on every row: threads, latency and connect times, counts."""
    at = {name: i for i, name in enumerate(columns)}

    def num(row: list[str], name: str) -> int:
        text = row[at[name]]
        return int(text) if _INT.fullmatch(text) else -1

    def holds(row: list[str]) -> bool:
        if "allThreads" in at and not 1 <= num(row, "grpThreads") <= num(row, "allThreads"):
            return False
        if "elapsed" in at:
            for name in ("Latency", "Connect"):
                if name in at and num(row, name) > num(row, "elapsed"):
                    return False
        return "SampleCount" not in at or 0 <= num(row, "ErrorCount") <= num(row, "SampleCount")

    return sum(1 for row in rows if not holds(row)) <= _tolerated(len(rows))


#: at most this many layouts are weighed (beyond, the fields are too free to tell)
_MAX_LAYOUTS = 5000


def infer_layout(rows: list[list[str]]) -> Layout | str:
    """The layout of header-less ``rows`` (see the module's docstring), or the reason in
    one line why none fits."""
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        return "the rows have different numbers of fields"
    columns = [[r[j].strip() for r in rows] for j in range(width)]
    if not columns or not is_time(columns[0][0]) or sum(
            1 for v in columns[0] if not is_time(v)) > _tolerated(len(rows)):
        return ("its first column is not JMeter's timeStamp (ms since 1970, or one of "
                "JMeter's date formats)")
    fits = [{name for name in FIELDS if _fits_column(name, col)} for col in columns]
    found: list[tuple[str, ...]] = []

    def walk(j: int, u: int, chosen: tuple[str, ...]) -> None:
        if len(found) >= _MAX_LAYOUTS:
            return
        if j == width:
            found.append(chosen)
            return
        if u == len(UNITS):  # the rest are sample variables (any values)
            found.append(chosen + tuple(f"var{k - j + 1}" for k in range(j, width)))
            return
        unit = UNITS[u]
        if j + len(unit) <= width and all(name in fits[j + i] for i, name in enumerate(unit)):
            walk(j + len(unit), u + 1, chosen + unit)
        if unit[0] not in ("timeStamp", "elapsed"):  # both are needed: never skipped
            walk(j, u + 1, chosen)

    walk(0, 0, ())
    sample = [[v.strip() for v in r] for r in rows]
    good = [c for c in found if _agrees(c, sample)]
    if not good:
        return ("no choice of JMeter's fields fits these values (times, sizes and counts "
                "must be whole numbers, success true or false)")

    def weight(columns_: tuple[str, ...]) -> float:
        return sum(WEIGHT.get(c, VARIABLE_WEIGHT) for c in columns_)

    best = max(good, key=weight)
    if "success" not in best and "responseCode" not in best:
        return "no column reads as success (true/false) or as a response code"
    return Layout(best, "inferred")
