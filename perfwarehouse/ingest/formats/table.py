"""CSV or Parquet tables with a TOML mapping.

A mapping (``ingest/mappings/*.toml``) says which column holds which trial
field, constants for fields the table lacks, and how settings are assembled::

    layout = "measurements"     # one row per value ("trials": one row per trial)
    [columns]                   # trial field = source column
    node = "instance_id"
    value = "runtime_ns"
    [constants]                 # trial field = constant
    campaign = "cloud-study"
    order_kind = "fixed"
    [settings]                  # settings key = source column
    jvm = "jvm_version"

With ``layout = "measurements"`` the rows of one trial (same campaign, run,
position, benchmark, settings and metric) are gathered into one trial, their
values ordered by the ``iteration`` column (else by row). With ``layout =
"trials"`` a ``values`` column holds a list (Parquet) of the trial's values.
Without a mapping, the columns are taken to have the native field names (the
layout follows from whether there is a ``values`` or a ``value`` column).

A mapping may also name ``revision``, ``revision_time`` and ``node`` columns, and:

* ``[times]``: how a time column reads, per field (``started_at``, ``revision_time``):
  a :func:`time.strptime` format (``"%Y.%m.%d %H:%M:%S %z"``; without ``%z`` the time
  is UTC), ``"unix_s"`` or ``"unix_ms"`` (seconds / milliseconds since 1970);
  without it a time column holds RFC 3339 text;
* ``[melt] metrics = ["m1", "m2"]`` (or ``"*"``: every column no other key names):
  a wide table (``time, commit, m1, m2``: the CSV change-point tools read) becomes one
  measurement per (row, metric column): metric = the column's name, value = the cell
  (an empty cell is no measurement);
* the pseudo-column ``"$row"`` (the row's line in the file) for fields a table has
  no column for, e.g. ``run_index``; a constant ``"{file}"`` is the file's name
  without its extension (e.g. the benchmark of a change-point CSV, one file per test).

What the command line says rides on the mapping (:mod:`.table_mapping`):
``--campaign/--revision/--revision-time`` (and ``--force-node``) hold for every row;
``--node/--hardware-type/--started-at`` fill in only where the table gives no value;
``--setting`` pairs join every row's settings. A row whose table gives no hardware type
takes its node's name. Optional columns (``optional = [...]``) and several ways of
reading a time (``[times] started_at = [...]``): see :mod:`.table_mapping`.

CSV is read as text so that every cell can be checked with its line number
(a non-numeric value is refused as ``file:line: [non-numeric] ...``).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import json_policy
from perfwarehouse.ingest.formats.table_mapping import (  # noqa: F401  (load_mapping: callers')
    DEFAULTS,
    FIELDS,
    NUMERIC,
    ROW,
    TIME_FIELDS,
    UNIX_MAX_S,
    Mapping,
    load_mapping,
)
from perfwarehouse.ingest.stage import Batch
from perfwarehouse.warehouse.sqlfiles import quote_literal


def read(batch: Batch, path: Path, mapping: Mapping) -> bool:
    """Load ``path`` through ``mapping`` into the batch's ``raw_trials`` (problems to the
    batch); returns whether the table holds no start time at all (no column, constant or
    command-line value gives one: its rows are stored without one, never invented)."""
    con = batch.con
    fmt = mapping.format or ("parquet" if path.suffix == ".parquet" else "csv")
    source = str(path)
    try:
        if fmt == "csv":  # text cells, materialised; rows DuckDB rejects become problems
            batch.add_problems(_read_csv(con, source))
            row_line = "_line"
        else:
            con.execute(f"""CREATE OR REPLACE TEMP VIEW _source AS SELECT * FROM read_parquet(
                {quote_literal(source)}, file_row_number = true)""")
            row_line = "file_row_number + 1"
        available = [r[0] for r in con.execute("DESCRIBE _source").fetchall()]
    except duckdb.Error as exc:
        raise TrialParseError(source, 0, "unreadable", str(exc).splitlines()[0]) from None
    available = [c for c in available if c not in ("file_row_number", "_line")]
    mapping = mapping.for_table(available)
    if mapping.melt is not None:
        mapping = _melt(con, mapping, available, source, row_line)
        available, row_line = [*available, "__metric", "__value"], "_line"
    mapping = _file_constants(mapping, path)
    _check_literals(con, mapping)
    columns = _resolve_columns(mapping, available, source)
    layout = mapping.layout or ("trials" if "values" in columns else "measurements")
    value_field = "values" if layout == "trials" else "value"
    if value_field not in columns and value_field not in mapping.constants:
        raise UsageError(f"{source}: no column for {value_field!r} (layout {layout}); "
                         f"columns are {', '.join(available)}")
    expressions = {name: _expression(name, columns, mapping, row_line) for name in FIELDS}
    if mapping.settings:
        missing = sorted(set(mapping.settings.values()) - set(available))
        if missing:
            raise UsageError(f"{mapping.source}: [settings] names missing column(s) {', '.join(missing)}")
        pairs = ", ".join(f"{quote_literal(k)}, {_ident(c)}" for k, c in mapping.settings.items())
        expressions["settings"] = f"CAST(json_object({pairs}) AS VARCHAR)"
    if fmt == "csv" or mapping.melt is not None:
        batch.add_problems(_type_problems(con, expressions, columns, source, row_line,
                                          mapping.times))
    expressions = _with_command_line(expressions, columns, mapping)
    select = ",\n".join(f"{expressions[name]} AS {name}" for name in FIELDS)
    con.execute(f"""CREATE OR REPLACE TEMP VIEW _mapped AS
        SELECT {row_line} AS line, {select} FROM _source""")
    if layout == "measurements" and value_field in columns:
        known = {p.line for p in batch.problems if p.source == source}
        batch.add_problems(
            TrialParseError(source, line, "missing-value",
                            f"the {columns[value_field]!r} cell of a trial with status "
                            f"{status!r} is empty")
            for line, status in con.execute(
                "SELECT line, status FROM _mapped WHERE value IS NULL AND status = 'ok' "
                "ORDER BY line LIMIT 1000").fetchall() if line not in known)
    # per row (a trial takes the earliest time of its rows, which would hide a bad one)
    known = {p.line for p in batch.problems if p.source == source}
    batch.add_problems(
        TrialParseError(source, line, "bad-timestamp", f"started_at {moment} is outside 1970-9999")
        for line, moment in con.execute(
            "SELECT line, CAST(started_at AS VARCHAR) FROM _mapped "
            "WHERE started_at < TIMESTAMPTZ '1970-01-01 00:00:00+00' "
            "OR started_at > TIMESTAMPTZ '9999-12-31 23:59:59.999999+00' "
            "ORDER BY line LIMIT 1000").fetchall() if line not in known)
    con.execute("CREATE OR REPLACE TEMP TABLE _bad_rows (line BIGINT)")
    bad_lines = sorted({p.line for p in batch.problems if p.source == source})
    if bad_lines:
        con.executemany("INSERT INTO _bad_rows VALUES (?)", [[line] for line in bad_lines])
    if layout == "trials":
        query = """SELECT line, * EXCLUDE (line, value, iteration)
                   FROM _mapped ANTI JOIN _bad_rows USING (line)"""
    else:
        query = """SELECT min(line) AS line,
                   campaign, run_id, node, hardware_type, run_index, order_kind, seed, position,
                   run_size, benchmark, settings, metric, unit, higher_is_better,
                   min(started_at) AS started_at, min(duration_s) AS duration_s, status, v,
                   min(env) AS env, min(revision) AS revision,
                   min(revision_time) AS revision_time,
                   list(value ORDER BY iteration NULLS LAST, line) FILTER (WHERE value IS NOT NULL)
                       AS "values"
                   FROM _mapped ANTI JOIN _bad_rows USING (line)
                   GROUP BY ALL"""
    con.execute(f"INSERT INTO raw_trials BY NAME SELECT {quote_literal(source)} AS source, * "
                f"FROM ({query})")
    return not any("started_at" in given for given in
                   (columns, mapping.constants, mapping.keys, mapping.fill))


def _with_command_line(expressions: dict[str, str], columns: dict[str, str],
                       mapping: Mapping) -> dict[str, str]:
    """The fields' SQL with what the command line fills in: ``mapping.fill`` where the
    table's cell is empty (or it has no column: over a constant of the mapping), a
    hardware type the table does not give = the node's name, and ``--setting`` pairs
    merged into the settings. The cells' own checks ran on the SQL before this (a bad
    cell is a problem, not a cell to fill)."""
    out = dict(expressions)
    for name, value in mapping.fill.items():
        given = f"CAST({quote_literal(value)} AS {_target(name)})"
        if name in mapping.keys:
            continue
        if name in columns and columns[name] != ROW:
            empty = (f"nullif(trim(CAST({out[name]} AS VARCHAR)), '')"
                     if _target(name) == "VARCHAR" else out[name])
            out[name] = f"CAST(COALESCE({empty}, {given}) AS {_target(name)})"
        else:
            out[name] = given
    out["hardware_type"] = (f"COALESCE(nullif(trim({out['hardware_type']}), ''), "
                            f"{out['node']})")
    if mapping.extra_settings:
        extra = quote_literal(json.dumps(dict(mapping.extra_settings), allow_nan=False))
        out["settings"] = (f"CAST(json_merge_patch(CAST({out['settings']} AS JSON), "
                           f"CAST({extra} AS JSON)) AS VARCHAR)")
    return out


_REJECTED = {"MISSING COLUMNS": "ragged-row", "TOO MANY COLUMNS": "ragged-row",
             "INVALID ENCODING": "broken-utf8", "INVALID UNICODE": "broken-utf8"}


def _read_csv(con: duckdb.DuckDBPyConnection, source: str) -> list[TrialParseError]:
    """Materialise a CSV as text cells in ``_source``, with its line in ``_line`` (header =
    line 1); a row DuckDB cannot take (ragged, not UTF-8) is a problem of its line, so
    ``--quarantine`` can set it aside and keep the others."""
    con.execute("DROP TABLE IF EXISTS _csv_rejects")
    con.execute("DROP TABLE IF EXISTS _csv_scans")
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _source AS SELECT * FROM read_csv(
        {quote_literal(source)}, all_varchar = true, header = true, store_rejects = true,
        rejects_table = '_csv_rejects', rejects_scan = '_csv_scans')""")
    rejected = con.execute("""SELECT line, min(error_type), min(csv_line) FROM _csv_rejects
                              GROUP BY line ORDER BY line""").fetchall()
    # accepted rows keep the file's order: the k-th is the k-th line not rejected
    con.execute("ALTER TABLE _source ADD COLUMN _line BIGINT")
    con.execute("""UPDATE _source SET _line = m.line FROM (
        SELECT l AS line, row_number() OVER (ORDER BY l) - 1 AS rank
        FROM range(2, (SELECT count(*) FROM _source) + ? + 2) t(l)
        WHERE NOT list_contains(?, l)) m WHERE _source.rowid = m.rank""",
                [len(rejected), [r[0] for r in rejected]])
    problems = []
    for line, error, text in rejected:
        rule = _REJECTED.get(str(error), "unreadable")
        detail = {"ragged-row": f"the row has another number of cells than the header "
                                f"({str(error).lower()})",
                  "broken-utf8": "the line is not valid UTF-8"}.get(rule, str(error).lower())
        problem = TrialParseError(source, int(line), rule, detail)
        problem.raw = text  # type: ignore[attr-defined]
        problems.append(problem)
    return problems


def _melt(con: duckdb.DuckDBPyConnection, mapping: Mapping, available: list[str], source: str,
          row_line: str) -> Mapping:
    """Unpivot ``_source`` (one row per table row) into one row per (row, metric column)
    with the metric's name in ``__metric`` and the cell in ``__value`` (empty cells
    dropped), the row's line kept in ``_line``; returns the mapping reading them."""
    used = set(mapping.columns.values()) | set(mapping.settings.values())
    metrics = [c for c in available if c not in used] if mapping.melt == ("*",) \
        else list(mapping.melt or ())
    missing = sorted(set(metrics) - set(available))
    if missing or not metrics:
        raise UsageError(f"{mapping.source}: [melt] metrics {', '.join(missing) or '(none)'} "
                         f"not among the columns of {source}: {', '.join(available)}")
    keep = [c for c in available if c not in metrics]
    hidden = "_line" if row_line == "_line" else "file_row_number"
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _source_wide AS
                    SELECT {row_line} AS _line, * EXCLUDE ({hidden}) FROM _source""")
    con.execute(f"DROP {'TABLE' if hidden == '_line' else 'VIEW'} _source")
    on = ", ".join(_ident(m) for m in metrics)
    keep_sql = ", ".join(["_line", *(_ident(c) for c in keep)])
    con.execute(f"""CREATE OR REPLACE TEMP TABLE _source AS
                    SELECT {keep_sql}, __metric, CAST(__value AS VARCHAR) AS __value
                    FROM (UNPIVOT _source_wide ON {on} INTO NAME __metric VALUE __value)
                    WHERE trim(CAST(__value AS VARCHAR)) <> ''""")
    from dataclasses import replace

    return replace(mapping, columns={**mapping.columns, "metric": "__metric", "value": "__value"},
                   layout="measurements")


def _file_constants(mapping: Mapping, path: Path) -> Mapping:
    """Constants ``"{file}"`` replaced by the file's name without its extension."""
    from dataclasses import replace

    if not any(v == "{file}" for v in mapping.constants.values()):
        return mapping
    stem = path.name.split(".")[0]
    return replace(mapping, constants={k: stem if v == "{file}" else v
                                       for k, v in mapping.constants.items()})


def _resolve_columns(mapping: Mapping, available: list[str], source: str) -> dict[str, str]:
    if mapping.columns:
        missing = sorted(set(mapping.columns.values()) - set(available) - {ROW})
        if missing:
            raise UsageError(f"{mapping.source}: the table {source} has no column(s) "
                             f"{', '.join(missing)}; it has {', '.join(available)}")
        return dict(mapping.columns)
    return {name: name for name in FIELDS if name in available}


def _ident(column: str) -> str:
    return '"' + column.replace('"', '""') + '"'


def _target(name: str) -> str:
    """The SQL type of trial field ``name``."""
    casts = {"started_at": "TIMESTAMPTZ", "revision_time": "TIMESTAMPTZ",
             "higher_is_better": "BOOLEAN", "values": "DOUBLE[]"}
    return "DOUBLE" if name in NUMERIC else casts.get(name, "VARCHAR")


def _check_literals(con: duckdb.DuckDBPyConnection, mapping: Mapping) -> None:
    """One line for a constant or a command-line key that is no value of its field's type
    (checked with DuckDB's own cast, the one the rows go through) and for a ``[times]``
    format DuckDB's strptime cannot read."""
    kinds = {"DOUBLE": "a number", "TIMESTAMPTZ": "an RFC 3339 timestamp",
             "BOOLEAN": "true or false", "DOUBLE[]": "a list of numbers"}
    for origin, values in (("constants", mapping.constants), ("keys", mapping.keys),
                           ("fill", mapping.fill)):
        for name, value in values.items():
            target = _target(name)
            if target == "VARCHAR":
                continue
            row = con.execute(f"SELECT TRY_CAST(? AS {target}) IS NULL", [str(value)]).fetchone()
            if row is not None and row[0]:
                where = (f"{mapping.source}: [constants] {name}" if origin == "constants"
                         else f"--{name.replace('_', '-')}")
                raise UsageError(f"{where} = {value!r:.80} is not {kinds[target]}")
    for name, how in ((n, w) for n, ways in mapping.times.items() for w in ways):
        if how in ("unix_s", "unix_ms", "rfc3339"):
            continue
        try:
            con.execute(f"SELECT try_strptime('2000', {quote_literal(how)})").fetchall()
        except duckdb.Error as exc:
            raise UsageError(f"{mapping.source}: [times] {name} = {how!r:.80} is not a strptime "
                             f"format ({str(exc).splitlines()[0]})") from None


def _expression(name: str, columns: dict[str, str], mapping: Mapping,
                row_line: str = "NULL") -> str:
    """SQL for one trial field: a typed column, a constant, a default or NULL."""
    target = _target(name)
    if name in mapping.keys:
        return f"CAST({quote_literal(mapping.keys[name])} AS {target})"
    if name in columns and columns[name] == ROW:
        return f"CAST({row_line} AS {target})"
    if name in columns:
        column = _ident(columns[name])
        ways = mapping.time_formats(name)
        if ways:  # the first way that reads the cell wins
            times = [_time_expression(column, how) for how in ways]
            return times[0] if len(times) == 1 else \
                f"TRY_CAST(COALESCE({', '.join(times)}) AS TIMESTAMPTZ)"
        if target == "DOUBLE":  # numbers stay DOUBLE; validation sees fractions
            return f"TRY_CAST({column} AS DOUBLE)"
        return f"TRY_CAST({column} AS {target})"
    if name in mapping.constants:
        return f"CAST({quote_literal(str(mapping.constants[name]))} AS {target})"
    if name in DEFAULTS:
        return f"CAST({quote_literal(str(DEFAULTS[name]))} AS {target})"
    return f"CAST(NULL AS {target})"


def _time_expression(column: str, how: str) -> str:
    """SQL reading a time cell one way: ``unix_s``/``unix_ms``, ``rfc3339`` or a strptime
    format; NULL where it does not read that way."""
    if how in ("unix_s", "unix_ms"):
        # NULL (a bad-timestamp problem of the row) unless 1970 <= time < 10000: NaN,
        # infinities and 1e300 would make to_timestamp raise for the whole table
        seconds = f"(TRY_CAST({column} AS DOUBLE){' / 1000.0' if how == 'unix_ms' else ''})"
        return (f"TRY_CAST(CASE WHEN {seconds} >= 0 AND {seconds} < {UNIX_MAX_S!r} "
                f"THEN to_timestamp({seconds}) END AS TIMESTAMPTZ)")
    if how == "rfc3339":
        return (f"TRY_CAST(CASE WHEN regexp_full_match(trim({column}), "
                f"{quote_literal(json_policy.FAST_TIMESTAMP_RE)}) THEN {column} END "
                f"AS TIMESTAMPTZ)")
    return f"TRY_CAST(try_strptime({column}, {quote_literal(how)}) AS TIMESTAMPTZ)"


def _type_problems(
    con: duckdb.DuckDBPyConnection, expressions: dict[str, str], columns: dict[str, str],
    source: str, row_line: str, times: dict[str, tuple[str, ...]] | None = None,
) -> list[TrialParseError]:
    """Cells of a CSV whose text does not convert to the field's type."""
    checks = []
    times = times or {}
    for name, column in columns.items():
        expr = expressions[name]
        if not expr.startswith("TRY_CAST") or column == ROW:
            continue
        checks.append(f"""SELECT {row_line} AS line, {quote_literal(name)} AS field,
                                 {_ident(column)} AS text
                          FROM _source
                          WHERE {_ident(column)} IS NOT NULL AND trim({_ident(column)}) <> ''
                            AND {expr} IS NULL""")
    if not checks:
        return []
    if "started_at" in columns and expressions["started_at"].startswith("TRY_CAST") \
            and "started_at" not in times:
        column = _ident(columns["started_at"])
        checks.append(f"""SELECT {row_line} AS line, 'started_at' AS field, {column} AS text
                          FROM _source
                          WHERE {column} IS NOT NULL AND trim({column}) <> ''
                            AND {expressions["started_at"]} IS NOT NULL
                            AND NOT regexp_full_match(trim({column}),
                                {quote_literal(json_policy.FAST_TIMESTAMP_RE)})""")
    rows = con.execute(" UNION ALL ".join(checks) + " ORDER BY line LIMIT 1000").fetchall()
    rule = {"started_at": "bad-timestamp", "revision_time": "bad-timestamp",
            "higher_is_better": "wrong-type"}
    kinds = {name: "an RFC 3339 timestamp (offsets up to +-14:00)" for name in TIME_FIELDS}
    said = {"unix_s": "a number of seconds since 1970 (years 1970-9999)",
            "unix_ms": "a number of milliseconds since 1970 (years 1970-9999)",
            "rfc3339": "an RFC 3339 timestamp"}
    for name, ways in times.items():
        kinds[name] = " nor ".join(said.get(how, f"a time of the form {how}") for how in ways)
    return [TrialParseError(source, line, rule.get(name, "non-numeric"),
                            f"{name} {text!r} is not "
                            f"{kinds.get(name, 'a number' if name in NUMERIC else 'a valid value')}")
            for line, name, text in rows]
