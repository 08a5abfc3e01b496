"""The mapping of ``ingest table``: which column holds which trial field (a TOML file of
``ingest/mappings/``, read and checked here; the table itself is read by
:mod:`perfwarehouse.ingest.formats.table`).

Besides ``[columns]``, ``[constants]``, ``[settings]``, ``[times]``, ``[melt]`` and
``layout`` (see :mod:`~perfwarehouse.ingest.formats.table`), a mapping may say

* ``optional = ["commit", "branch"]``: source columns a table may lack; a table without
  one reads as if its cells were empty (a field it feeds is not set; a settings key it
  feeds is left out), so one mapping reads the variants of a layout;
* ``[times] started_at = ["%Y.%m.%d %H:%M:%S %z", "unix_s", "rfc3339"]``: several ways a
  time column may read, tried in order per cell (the first that reads wins).

What the command line says (``--campaign``, ``--node``, ``--started-at``, ``--setting``
...) rides on the mapping too: :attr:`Mapping.keys` hold over every row,
:attr:`Mapping.fill` only where the table gives no value, :attr:`Mapping.extra_settings`
are added to every row's settings.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfwarehouse.errors import UsageError

FIELDS = ("campaign", "run_id", "node", "hardware_type", "run_index", "order_kind", "seed",
          "position", "run_size", "benchmark", "settings", "metric", "unit", "higher_is_better",
          "started_at", "duration_s", "status", "value", "iteration", "values", "v", "env",
          "revision", "revision_time")
TIME_FIELDS = ("started_at", "revision_time")
ROW = "$row"  # pseudo-column: the row's line in the file
NUMERIC = ("run_index", "position", "run_size", "duration_s", "value", "iteration", "v")
NOT_ROW = (*TIME_FIELDS, "higher_is_better", "values")  # fields "$row" cannot stand for
UNIX_MAX_S = 253402300800.0  # 10000-01-01T00:00:00Z: unix times at or past it are refused
DEFAULTS = {"v": 1, "settings": "{}", "status": "ok", "metric": "result"}


@dataclass(frozen=True)
class Mapping:
    """A parsed mapping file (or the native identity mapping)."""

    columns: dict[str, str] = field(default_factory=dict)
    constants: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, str] = field(default_factory=dict)
    layout: str | None = None
    format: str | None = None
    source: str = "native names"
    #: time field -> how its column reads, in the order tried: strptime formats,
    #: "unix_s", "unix_ms", "rfc3339"
    times: dict[str, tuple[str, ...]] = field(default_factory=dict)
    melt: tuple[str, ...] | None = None  # wide table: these columns are metrics ("*": all others)
    keys: dict[str, str] = field(default_factory=dict)  # the command line's, over all else
    #: the command line's values for cells the table leaves empty (or has no column for):
    #: ``--node``, ``--hardware-type``, ``--started-at``
    fill: dict[str, str] = field(default_factory=dict)
    #: ``--setting KEY=VALUE`` pairs, added to (and over) every row's settings
    extra_settings: tuple[tuple[str, Any], ...] = ()
    #: source columns a table may lack (read as empty cells)
    optional: tuple[str, ...] = ()

    def with_keys(self, keys: dict[str, str], fill: dict[str, str] | None = None,
                  extra_settings: tuple[tuple[str, Any], ...] = ()) -> Mapping:
        """This mapping with ``keys`` (field -> value, from the command line) over whatever
        the mapping says of those fields (its columns stay columns of the table: a melted
        table does not take them for metrics), ``fill`` where the table gives no value
        and ``extra_settings`` added to the settings."""
        return replace(self, keys={**self.keys, **keys}, fill={**self.fill, **(fill or {})},
                       extra_settings=(*self.extra_settings, *extra_settings))

    def time_formats(self, name: str) -> tuple[str, ...]:
        """How the time column of field ``name`` reads, in the order tried (empty: RFC 3339)."""
        return self.times.get(name, ())

    def for_table(self, available: list[str]) -> Mapping:
        """This mapping for a table with the columns ``available``: the entries of
        ``[columns]`` and ``[settings]`` whose optional column the table lacks left out."""
        absent = set(self.optional) - set(available)
        if not absent:
            return self
        return replace(self, columns={k: c for k, c in self.columns.items() if c not in absent},
                       settings={k: c for k, c in self.settings.items() if c not in absent})


def load_mapping(path: Path | None) -> Mapping:
    """Read and check a mapping file; ``None`` means the native identity mapping."""
    if path is None:
        return Mapping()
    if not path.is_file():
        raise UsageError(f"mapping {path} does not exist")
    try:
        content = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    for name in ("columns", "constants", "settings", "times", "melt"):
        if not isinstance(content.get(name, {}), dict):
            raise UsageError(f"{path}: {name} must be a table ([{name}]), not "
                             f"{type(content[name]).__name__} {content[name]!r:.60}")
    columns = content.get("columns", {})
    constants = content.get("constants", {})
    settings = content.get("settings", {})
    for table_name, table in (("columns", columns), ("constants", constants)):
        unknown = sorted(set(table) - set(FIELDS))
        if unknown:
            raise UsageError(f"{path}: [{table_name}] has unknown field(s) {', '.join(unknown)}; "
                             f"known: {', '.join(FIELDS)}")
    for table_name, table in (("columns", columns), ("settings", settings)):
        for key, column in table.items():
            if not isinstance(column, str) or not column:
                raise UsageError(f"{path}: [{table_name}] {key} must name a column (a string), "
                                 f"not {column!r:.60}")
    for key, column in columns.items():
        if column == ROW and key in NOT_ROW:
            raise UsageError(f"{path}: [columns] {key} = \"{ROW}\": the row's line number "
                             f"is no value for {', '.join(NOT_ROW)}")
    for key, value in constants.items():
        if isinstance(value, dict) or (isinstance(value, list) and key != "values"):
            raise UsageError(f"{path}: [constants] {key} must be a string, number, boolean or "
                             f"date, not {type(value).__name__} {value!r:.60}")
    layout = content.get("layout")
    if layout not in (None, "measurements", "trials"):
        raise UsageError(f"{path}: layout must be \"measurements\" or \"trials\"")
    fmt = content.get("format")
    if fmt not in (None, "csv", "parquet"):
        raise UsageError(f"{path}: format must be \"csv\" or \"parquet\"")
    times: dict[str, tuple[str, ...]] = {}
    for name, how in content.get("times", {}).items():
        ways = tuple(how) if isinstance(how, list) else (how,)
        if name not in TIME_FIELDS or not ways or \
                not all(isinstance(w, str) and w for w in ways):
            raise UsageError(f"{path}: [times] takes {' and '.join(TIME_FIELDS)} = a strptime "
                             f"format, \"unix_s\", \"unix_ms\" or \"rfc3339\" (or a list "
                             f"of them, tried in order); got {name} = {how!r:.80}")
        times[name] = ways
    optional = content.get("optional", [])
    if not isinstance(optional, list) or not all(isinstance(c, str) and c for c in optional):
        raise UsageError(f"{path}: optional must be a list of column names, not "
                         f"{optional!r:.60}")
    melt = content.get("melt", {}).get("metrics") if "melt" in content else None
    if melt is not None:
        if melt == "*":
            melt = ("*",)
        elif not (isinstance(melt, list) and melt and all(isinstance(m, str) for m in melt)):
            raise UsageError(f"{path}: [melt] metrics must be a list of column names or \"*\"")
        clash = sorted({"metric", "value", "values"} & set(columns))
        if clash:
            raise UsageError(f"{path}: a melted table's metric and value come from its metric "
                             f"columns; [columns] must not name {', '.join(clash)}")
    return Mapping(columns=dict(columns), constants=dict(constants), settings=dict(settings),
                   layout=layout, format=fmt, source=str(path), times=times,
                   melt=tuple(melt) if melt is not None else None, optional=tuple(optional))
