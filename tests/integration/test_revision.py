"""The revision key and the attributes of a trial: native logs carry them, both readers
agree, measurements and trials show them, a run has one revision, and a warehouse of
schema version 1 is upgraded in place."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from perfwarehouse.errors import ConflictError, TrialParseError, WarehouseError
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.warehouse.store import Warehouse
from tests.trial_logs import records, write


def rows(warehouse: Warehouse, query: str) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()


def with_revisions(recs: list[dict]) -> list[dict]:
    for r in recs:
        n = int(r["run_id"].split("-")[1])
        r["revision"] = f"abc{n}"
        r["revision_time"] = f"2024-04-0{n + 1}T08:00:00+02:00"
    return recs


def test_revision_and_unknown_keys_land_and_are_queryable(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    recs = with_revisions(records(runs=2, tests=3))
    for r in recs:
        r["ci_job"] = {"id": 7, "url": "https://ci/7"}
        r["attributes"] = {"warmups": 2}
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", recs)])
    got = rows(warehouse, """SELECT DISTINCT revision, revision_time, attributes->>'$.ci_job.id',
                                    CAST(attributes->'$.warmups' AS INTEGER)
                             FROM measurements ORDER BY 1""")
    assert [(g[0], g[1].isoformat(), g[2], g[3]) for g in got] == [
        ("abc0", "2024-04-01T06:00:00+00:00", "7", 2),
        ("abc1", "2024-04-02T06:00:00+00:00", "7", 2)]
    assert rows(warehouse, "SELECT count(*), count(DISTINCT revision), count(attributes) "
                           "FROM trials") == [(6, 2, 6)]
    assert rows(warehouse, "SELECT run_id, revision FROM runs ORDER BY 1") == [
        ("run-0", "abc0"), ("run-1", "abc1")]
    # the revision is not part of a configuration: two revisions, one series
    assert rows(warehouse, "SELECT count(*) FROM configurations") == [(3,)]


def test_a_record_without_revision_or_extra_keys_has_nulls(warehouse: Warehouse,
                                                          tmp_path: Path) -> None:
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", records())])
    assert rows(warehouse, "SELECT count(revision), count(revision_time), count(attributes) "
                           "FROM trials") == [(0, 0, 0)]


@pytest.mark.parametrize("kernel_scan", [False, True])
def test_both_readers_agree_on_revision_and_attributes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel_scan: bool) -> None:
    from perfwarehouse.ingest import stage
    from perfwarehouse.ingest.formats import jsonl

    if kernel_scan:  # the byte scan of large files, on this small one
        monkeypatch.setattr(jsonl, "KERNEL_SCAN_BYTES", 0)

    recs: list = with_revisions(records(runs=3, tests=4, values=3))
    recs[1]["note"] = "odd key"
    recs[2]["attributes"] = {"a/b": [1, None], "note": "explicit wins"}
    recs[2]["note"] = "top-level"
    recs[3]["attributes"] = {}
    recs[4]["x~y"] = None
    log = write(tmp_path / "a.jsonl", [recs[0], "", *recs[1:]])
    fast = stage.Batch("x", "jsonl")
    assert jsonl.read_fast(fast.con, log, "x") == 12
    jsonl.fix_line_numbers(fast.con, log, "x")
    slow = stage.Batch("x", "jsonl")
    table, problems = jsonl.parse(log.read_bytes(), "x")
    assert problems == []
    slow.add_arrow(table)
    query = "SELECT line, revision, revision_time, attributes FROM raw_trials ORDER BY line"
    a = fast.con.execute(query).fetchall()
    b = slow.con.execute(query).fetchall()

    def norm(row: tuple) -> tuple:
        return (*row[:3], None if row[3] is None else json.loads(row[3]))

    assert [norm(r) for r in a] == [norm(r) for r in b]
    by_line = {r[0]: norm(r)[3] for r in a}
    assert by_line[3] == {"note": "odd key"}
    assert by_line[4] == {"a/b": [1, None], "note": "explicit wins"}
    assert by_line[5] is None and by_line[6] == {"x~y": None} and by_line[1] is None


@pytest.mark.parametrize("change, rule", [
    ({"attributes": [1, 2]}, "wrong-type"),
    ({"revision": 12}, "wrong-type"),
    ({"revision_time": "yesterday"}, "bad-timestamp"),
])
def test_bad_revision_fields_are_refused_by_both_readers(
    warehouse: Warehouse, tmp_path: Path, change: dict, rule: str
) -> None:
    from perfwarehouse.ingest.formats import jsonl

    recs = records()
    recs[2].update(change)
    log = write(tmp_path / "a.jsonl", recs)
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [log])
    assert (info.value.line, info.value.rule) == (3, rule)
    _, problems = jsonl.parse(log.read_bytes(), str(log))
    assert [(p.line, p.rule) for p in problems] == [(3, rule)]


def test_a_run_with_two_revisions_is_refused_naming_the_run(warehouse: Warehouse,
                                                           tmp_path: Path) -> None:
    recs = with_revisions(records(runs=2, tests=3))
    recs[4]["revision"] = "def9"
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", recs)])
    assert (info.value.line, info.value.rule) == (5, "inconsistent-revision")
    assert "run run-1 has two revisions: abc1" in str(info.value)
    assert "def9" in str(info.value)
    recs = with_revisions(records(runs=2, tests=3))
    del recs[1]["revision"]
    with pytest.raises(TrialParseError, match="inconsistent-revision"):
        ingest_jsonl(warehouse, [write(tmp_path / "b.jsonl", recs)])


def test_a_run_already_landed_with_another_revision_is_a_conflict(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", with_revisions(records()))])
    recs = with_revisions(records())
    for r in recs:
        r["revision"] = "other"
    with pytest.raises(ConflictError, match=r"run run-\d .*revision abc\d\)"):
        ingest_jsonl(warehouse, [write(tmp_path / "b.jsonl", recs)])


def _downgrade_to_version_1(warehouse: Warehouse) -> None:
    """Make ``warehouse`` look as schema version 1 wrote it (files and catalog)."""
    import duckdb

    with warehouse.catalog() as con:
        paths = [r[0] for r in con.execute("SELECT path FROM data_files").fetchall()]
    for rel in [*paths, "_schema/campaign=_/hardware_type=_/empty.parquet"]:
        path = warehouse.root / rel
        table = pq.read_table(path)
        table = table.drop_columns([c for c in ("revision", "revision_time", "attributes")
                                    if c in table.column_names])
        pq.write_table(table, path)
    con = duckdb.connect(str(warehouse.catalog_path))
    try:
        for view in ("measurements", "trials", "latest_job_runs"):
            con.execute(f"DROP VIEW IF EXISTS {view}")
        con.execute("ALTER TABLE runs DROP COLUMN revision")
        con.execute("ALTER TABLE runs DROP COLUMN revision_time")
        for column in ("revision", "revision_time", "attributes"):
            con.execute(f"ALTER TABLE valueless_trials DROP COLUMN {column}")
        con.execute("ALTER TABLE data_files DROP COLUMN file_version")
        # version 1 recorded the sizes of the files it wrote, and no checksums (issue 44)
        for rel in paths:
            con.execute("UPDATE data_files SET bytes = ? WHERE path = ?",
                        [(warehouse.root / rel).stat().st_size, rel])
        for column in ("sha256", "min_value", "max_value", "mtime_ns"):
            con.execute(f"ALTER TABLE data_files DROP COLUMN {column}")
        con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    finally:
        con.close()


def test_a_version_1_warehouse_is_upgraded_in_place(warehouse: Warehouse,
                                                    tmp_path: Path) -> None:
    recs = records(runs=2, tests=3)
    recs[0]["values"], recs[0]["status"] = [], "failed"
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", recs[:3])])
    _downgrade_to_version_1(warehouse)
    with pytest.raises(WarehouseError, match=r"schema version 1.*init"):
        rows(warehouse, "SELECT 1")
    # any write upgrades it; old trials read NULL revisions, new ones their own
    later = with_revisions(recs[3:])
    ingest_jsonl(warehouse, [write(tmp_path / "b.jsonl", later)])
    assert rows(warehouse, "SELECT run_id, count(*), count(revision) FROM trials "
                           "GROUP BY 1 ORDER BY 1") == [("run-0", 3, 0), ("run-1", 3, 3)]
    assert rows(warehouse, "SELECT value FROM meta WHERE key = 'schema_version'") == [("2",)]
    assert rows(warehouse, "SELECT count(*) FROM measurements") == [(10,)]
