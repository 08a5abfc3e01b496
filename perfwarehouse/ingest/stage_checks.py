"""The checks of a staged batch: the format's rules, and the batch against the warehouse.

:func:`check` runs every rule of ``sql/staging/validate.sql`` (and the JSON policy on
settings, env and attributes) over the parsed records of a batch and either refuses it
in one line or (``--quarantine``) sets the bad records aside;
:func:`compare_with_warehouse` drops the trials the warehouse holds already and refuses
a conflict, bringing a configuration saved in another scale of its unit into the
warehouse's (:mod:`perfwarehouse.ingest.units`). Both work in the batch's in-memory
DuckDB (:class:`perfwarehouse.ingest.stage.Batch`); :func:`perfwarehouse.ingest.stage.land`
calls them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pyarrow as pa

from perfwarehouse.errors import ConflictError, TrialParseError
from perfwarehouse.ingest import json_policy, latency, limits, units
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.store import fetch_arrow, fetch_one, fetch_value

MAX_REPORTED = 1000
VALUE_TOLERANCE = 1e-9  # relative; re-saved copies of a trial differ by float rounding


# ---------------------------------------------------------------- validation
def check(con: duckdb.DuckDBPyConnection, parsed: list[TrialParseError],
          record_sources: set[str], quarantine: bool,
          reporter: Reporter) -> list[TrialParseError]:
    """Every rule on a batch (``raw_trials`` in ``con``; ``parsed``: the problems its
    parsers found); refuse it, or (``quarantine``) set bad records aside. Leaves the
    valid records with their configurations (``staged_trials``). ``record_sources``:
    sources whose record numbers are not line numbers (no raw line is attached)."""
    with reporter.task("validating", total=None, unit="rows"):
        problems = parsed + _canonicalise_settings(con)
        problems += _validate(con, MAX_REPORTED if not quarantine else 2**62)
        problems += latency.convert(con)  # load-test latency distributions
    problems.sort(key=lambda p: (p.source, p.line, p.rule))
    if problems and not quarantine:
        raise _refusal(problems)
    if problems:
        _drop_lines(con, problems)
        attach_raw_lines([p for p in problems if p.source not in record_sources])
    _assign_configurations(con)
    return problems


def _refusal(problems: list[TrialParseError]) -> TrialParseError:
    first = problems[0]
    more = len(problems) - 1
    if more:
        suffix = f" (and {more}{'+' if len(problems) >= MAX_REPORTED else ''} more problem" \
                 f"{'s' if more > 1 else ''}; nothing was ingested)"
    else:
        suffix = " (nothing was ingested)"
    error = TrialParseError(first.source, first.line, first.rule, first.detail + suffix)
    error.problems = problems  # type: ignore[attr-defined]
    return error


def canonical_settings(text: str) -> str:
    """Canonical JSON of a settings object: sorted keys, compact separators.

    Raises ``ValueError`` (a :class:`~perfwarehouse.ingest.json_policy.PolicyError`
    naming the rule) when ``text`` is not a JSON object or breaks the JSON policy
    (duplicate keys, too deep).
    """
    value = json_policy.loads_text(text)
    json_policy.check_value(value, "settings", depth=2)
    if not isinstance(value, dict):
        raise json_policy.PolicyError("bad-settings", "settings is not a JSON object")
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _canonicalise_settings(con: duckdb.DuckDBPyConnection) -> list[TrialParseError]:
    """Rewrite ``raw_trials.settings`` canonically; problems for settings that are not
    objects or break the JSON policy, and for ``env`` values that break it."""
    distinct = [r[0] for r in con.execute(
        "SELECT DISTINCT settings FROM raw_trials WHERE settings IS NOT NULL").fetchall()]
    mapping, bad = [], {}
    for text in distinct:
        try:
            mapping.append((text, canonical_settings(text)))
        except json_policy.PolicyError as exc:
            bad[text] = (exc.rule, exc.detail)
        except ValueError:
            bad[text] = ("bad-settings", "settings is not a JSON object")
    if any(a != b for a, b in mapping):
        con.register("_settings_map", pa.table({
            "raw": [a for a, _ in mapping], "canonical": [b for _, b in mapping]}))
        con.execute("""UPDATE raw_trials SET settings = m.canonical FROM _settings_map m
                       WHERE raw_trials.settings = m.raw AND m.raw <> m.canonical""")
        con.unregister("_settings_map")
    # env; attributes (the merged object stands at the record's level: its values are
    # top-level keys); latency is checked where it is converted (latency.convert)
    bad_json: dict[str, dict[str, tuple[str, str]]] = {"env": {}, "attributes": {}}
    for column, depth in (("env", 2), ("attributes", 1)):
        for (text,) in con.execute(f"SELECT DISTINCT {column} FROM raw_trials "
                                   f"WHERE {column} IS NOT NULL").fetchall():
            try:
                json_policy.check_value(json_policy.loads_text(text), column, depth=depth)
            except json_policy.PolicyError as exc:
                bad_json[column][text] = (exc.rule, exc.detail)
    problems = []
    for column, broken in (("settings", bad), *bad_json.items()):
        if not broken:
            continue
        rows = con.execute(
            f"SELECT source, line, {column} FROM raw_trials WHERE list_contains(?, {column}) "
            "ORDER BY source, line LIMIT ?", [list(broken), MAX_REPORTED]).fetchall()
        for source, line, text in rows:
            rule, detail = broken[text]
            if rule == "bad-settings":
                detail = f"settings is not a JSON object: {text[:80]}"
            problems.append(TrialParseError(source, line, rule, detail))
    return problems


def _validate(con: duckdb.DuckDBPyConnection, limit: int) -> list[TrialParseError]:
    rows = con.execute(sqlfiles.load("staging/validate"),
                       {"max_problems": limit, **limits.VALIDATE_PARAMETERS}).fetchall()
    return [TrialParseError(*row) for row in rows]


def _drop_lines(con: duckdb.DuckDBPyConnection, problems: list[TrialParseError]) -> None:
    bad = pa.table({"source": [p.source for p in problems], "line": [p.line for p in problems]})
    con.register("_bad_lines", bad)
    con.execute("DELETE FROM raw_trials WHERE (source, line) IN (SELECT (source, line) FROM _bad_lines)")
    con.unregister("_bad_lines")


def config_id(benchmark: str, settings: str, metric: str) -> int:
    """Stable 64-bit identity of a configuration (benchmark, canonical settings, metric)."""
    digest = hashlib.blake2b(
        "\0".join((benchmark, settings, metric)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def _assign_configurations(con: duckdb.DuckDBPyConnection) -> None:
    """``_configs`` (one row per configuration of the batch, with its id and attributes)
    and the ``staged_trials`` view over the records."""
    combos = con.execute(
        "SELECT benchmark, settings, metric, min(unit), min(higher_is_better) "
        "FROM raw_trials GROUP BY ALL").fetchall()
    con.register("_config_ids", pa.table({
        "config_id": pa.array([config_id(*c[:3]) for c in combos], pa.uint64()),
        "benchmark": pa.array([c[0] for c in combos], pa.string()),
        "settings": pa.array([c[1] for c in combos], pa.string()),
        "metric": pa.array([c[2] for c in combos], pa.string()),
        "unit": pa.array([c[3] for c in combos], pa.string()),
        "higher_is_better": pa.array([c[4] for c in combos], pa.bool_()),
    }))
    con.execute(sqlfiles.load("staging/configs"))
    con.execute("INSERT INTO _configs SELECT * FROM _config_ids")
    con.unregister("_config_ids")
    con.execute(sqlfiles.load("staging/staged_trials"))


def compare_with_warehouse(
    con: duckdb.DuckDBPyConnection, cat: duckdb.DuckDBPyConnection
) -> int:
    """Drop trials the warehouse already has; raise on any conflict. Returns trials skipped."""
    runs = fetch_arrow(con, sqlfiles.load("staging/run_rows"), {"batch_id": 0})
    cat.register("_batch_runs", runs)
    try:
        mismatch = fetch_one(cat, sqlfiles.load("staging/conflicting_runs"))
        if mismatch:
            raise ConflictError(
                f"run {mismatch[1]} of campaign {mismatch[0]} is already in the warehouse with "
                f"another node, order kind, run index, seed or revision ({mismatch[2]}); "
                "nothing was ingested")
        _check_dimension_conflicts(con, cat)
        known_runs = fetch_value(cat, 
            "SELECT count(*) FROM _batch_runs b SEMI JOIN runs r USING (campaign, run_id)"
        )
        if not known_runs:  # trials belong to runs: nothing of this batch can be there yet
            return 0
        existing = fetch_arrow(cat, sqlfiles.load("staging/existing_trials"))
    finally:
        cat.unregister("_batch_runs")
    con.register("_existing", existing)
    try:
        conflict = fetch_one(con, sqlfiles.load("staging/conflicting_trials"),
                               {"tolerance": VALUE_TOLERANCE})
        if conflict:
            source, line, run_id, position = conflict
            raise ConflictError(
                f"{source}:{line}: [conflict] run {run_id} position {position} is already in the "
                "warehouse with different values or status; nothing was ingested")
        skipped = fetch_value(con, """
            DELETE FROM raw_trials WHERE rowid IN (
                SELECT s.record_id FROM staged_trials s
                SEMI JOIN _existing e USING (campaign, run_id, position, config_id))""")
    finally:
        con.unregister("_existing")
    return int(skipped)


def _check_dimension_conflicts(
    con: duckdb.DuckDBPyConnection, cat: duckdb.DuckDBPyConnection
) -> None:
    nodes = fetch_arrow(con, "SELECT node, min(hardware_type) AS hardware_type FROM raw_trials "
                             "GROUP BY node")
    cat.register("_batch_nodes", nodes)
    clash = fetch_one(cat, """
        SELECT b.node, n.hardware_type, b.hardware_type FROM _batch_nodes b
        JOIN nodes n USING (node) WHERE n.hardware_type <> b.hardware_type LIMIT 1""")
    cat.unregister("_batch_nodes")
    if clash:
        raise ConflictError(
            f"node {clash[0]} is of hardware type {clash[1]} in the warehouse but {clash[2]} in "
            "this batch (a node has one hardware type: fix the records' hardware_type, the "
            "mapping, or --hardware-type and --hardware-map where the command has them); "
            "nothing was ingested")
    configs = fetch_arrow(con, "SELECT * FROM _configs")
    cat.register("_batch_configs", configs)
    clashes = cat.execute("""
        SELECT b.benchmark, b.metric, c.unit, b.unit, b.settings, c.higher_is_better,
               b.higher_is_better FROM _batch_configs b
        JOIN configurations c USING (config_id)
        WHERE c.unit IS DISTINCT FROM b.unit OR c.higher_is_better IS DISTINCT FROM b.higher_is_better
        ORDER BY 1, 2, 5""").fetchall()
    cat.unregister("_batch_configs")
    clash = _convert_units(con, clashes)
    if clash:
        raise ConflictError(
            f"{clash[0]} / {clash[1]} has unit {clash[2]!r} (or another direction) in the warehouse "
            f"but {clash[3]!r} in this batch, not another scale of it (a configuration has one "
            "unit in the warehouse; ns..s, ns/op..s/op and ops/ns..ops/min are converted); "
            "nothing was ingested")


def _convert_units(con: duckdb.DuckDBPyConnection, clashes: list[tuple]) -> tuple | None:
    """Bring the batch's configurations whose unit is another scale of the unit the
    warehouse holds for them into that unit (:func:`perfwarehouse.ingest.units.conversions`);
    each conversion is noted in ``_unit_conversions``. Returns the first clash that cannot
    be converted, else None (nothing is converted then)."""
    con.execute("CREATE OR REPLACE TEMP TABLE _unit_conversions (note VARCHAR)")
    done, clash = units.conversions(clashes)
    if clash is not None:
        return clash
    where = "benchmark = ? AND settings = ? AND metric = ?"
    for c in done:
        con.execute(f"""UPDATE raw_trials SET "values" = list_transform("values", lambda x: x * ?),
                        unit = ? WHERE {where}""", [c.factor, c.unit, c.benchmark, c.settings, c.metric])
        con.execute(f"UPDATE _configs SET unit = ? WHERE {where}",
                    [c.unit, c.benchmark, c.settings, c.metric])
        con.execute("INSERT INTO _unit_conversions VALUES (?)", [c.note])
    return None


def unit_notes(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The unit conversions :func:`_convert_units` made in this batch."""
    try:
        return tuple(r[0] for r in con.execute("SELECT note FROM _unit_conversions").fetchall())
    except duckdb.CatalogException:
        return ()


def attach_raw_lines(problems: list[TrialParseError], limit: int = 10000) -> None:
    """Fill ``problem.raw`` with the offending line's text where the source is a local file."""
    wanted: dict[str, dict[int, TrialParseError]] = {}
    for problem in problems[:limit]:
        if getattr(problem, "raw", None) is None and problem.line:
            wanted.setdefault(problem.source, {})[problem.line] = problem
    for source, by_line in wanted.items():
        path = Path(source)
        if not path.is_file():
            continue
        last = max(by_line)
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                if lineno in by_line:
                    by_line[lineno].raw = raw.rstrip(b"\r\n").decode(  # type: ignore[attr-defined]
                        "utf-8", "replace")
                if lineno >= last:
                    break
