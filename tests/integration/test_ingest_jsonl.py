"""Native trial logs: the fast reader and the reference parser land the same rows; every
rule of SPEC 4.2 refuses a batch with file, line and rule, and nothing lands."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from perfwarehouse.errors import ConflictError, TrialParseError
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.warehouse.store import Warehouse
from tests.trial_logs import records, write


def rows(warehouse: Warehouse, query: str) -> list[tuple]:
    with warehouse.catalog() as con:
        return con.execute(query).fetchall()


def test_a_log_lands_with_every_key(warehouse: Warehouse, tmp_path: Path) -> None:
    log = write(tmp_path / "a.jsonl", records(runs=2, tests=3, values=2))
    summary = ingest_jsonl(warehouse, [log])
    assert (summary.trials_added, summary.values_added) == (6, 12)
    got = rows(warehouse, """SELECT order_kind, position, benchmark, settings, iteration, value
                             FROM measurements WHERE run_id = 'run-1' ORDER BY position, iteration""")
    # the random run ran the tests in reverse; settings are canonical JSON
    assert got[0] == ("random", 0, "./bench2.sh", '{"size":"L","threads":4}', 0, 12.1)
    assert got[1][4:] == (1, 12.11)
    assert rows(warehouse, "SELECT cpu_model, kernel, hardware_type_rule FROM nodes") == [
        ("Xeon", "6.1", "given")]
    assert rows(warehouse, "SELECT count(*), min(run_size) FROM runs") == [(2, 3)]


def test_settings_key_order_does_not_make_a_new_configuration(warehouse: Warehouse, tmp_path: Path) -> None:
    recs = records(runs=2)
    recs[4]["settings"] = {"size": "L", "threads": 4}
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", recs)])
    assert rows(warehouse, "SELECT count(*) FROM configurations") == [(3,)]


def test_blank_lines_do_not_shift_line_numbers(warehouse: Warehouse, tmp_path: Path) -> None:
    recs: list = records(runs=2)
    recs[3]["order_kind"] = "shuffled"
    lines: list = [recs[0], "", "   ", *recs[1:]]
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", lines)])
    assert (info.value.line, info.value.rule) == (6, "unknown-order-kind")


def _broken(kind: str) -> tuple[list, int, str]:
    """A log with one problem; returns (lines, 1-based line of the problem, rule)."""
    recs: list = records(runs=2, tests=3)
    line = 4
    rule = kind
    if kind == "non-numeric":
        recs[3]["values"] = [1.0, "fast"]
    elif kind == "non-finite":
        recs[3] = __import__("json").dumps(recs[3]).replace('"values": [', '"values": [NaN, ')
    elif kind == "missing-key":
        del recs[3]["run_id"]
    elif kind == "unknown-order-kind":
        recs[3]["order_kind"] = "sorted"
    elif kind == "duplicate-position":
        recs.append(copy.deepcopy(recs[3]))
        line = 7
    elif kind == "negative-duration":
        recs[3]["duration_s"] = -1.5
    elif kind == "run-size":
        for r in recs:
            r["run_size"] = 2
        line = 3
    elif kind == "bad-integer":
        recs[3]["position"] = 1.5
    elif kind == "inconsistent-run":
        recs[4]["node"] = "c220g2-000002"
        line = 5
    elif kind == "wrong-type":
        recs[3]["campaign"] = ["c1"]
    elif kind == "invalid-json":
        recs[3] = '{"v": 1, "campaign": "c1",, }'
    elif kind == "unsupported-version":
        recs[3]["v"] = 2
    return recs, line, rule


@pytest.mark.parametrize("kind", [
    "non-numeric", "non-finite", "missing-key", "unknown-order-kind", "duplicate-position",
    "negative-duration", "run-size", "bad-integer", "inconsistent-run", "wrong-type",
    "invalid-json", "unsupported-version",
])
def test_each_rule_refuses_the_batch_naming_file_line_and_rule(
    warehouse: Warehouse, tmp_path: Path, kind: str
) -> None:
    ingest_jsonl(warehouse, [write(tmp_path / "good.jsonl", records(campaign="other"))])
    lines, line, rule = _broken(kind)
    bad = write(tmp_path / "bad.jsonl", lines)
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [bad])
    assert (info.value.source, info.value.line, info.value.rule) == (str(bad), line, rule)
    assert f"bad.jsonl:{line}: [{rule}]" in str(info.value)
    assert rows(warehouse, "SELECT count(*) FROM measurements") == [(12,)]
    assert rows(warehouse, "SELECT count(*) FROM ingest_batches") == [(1,)]


def test_broken_utf8_and_a_truncated_last_line(warehouse: Warehouse, tmp_path: Path) -> None:
    import json

    text = "\n".join(json.dumps(r) for r in records()).encode()
    broken = tmp_path / "utf8.jsonl"
    lines = text.split(b"\n")
    lines[2] = lines[2].replace(b'"c1"', b'"c\xff1"')
    broken.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [broken])
    assert (info.value.line, info.value.rule) == (3, "broken-utf8")
    truncated = tmp_path / "cut.jsonl"
    truncated.write_bytes(text[:-25])
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [truncated])
    assert (info.value.line, info.value.rule) == (6, "truncated-line")
    assert not warehouse.exists() or rows(warehouse, "SELECT count(*) FROM measurements") == [(0,)]


def test_quarantine_lands_the_good_records_and_keeps_the_bad_with_reasons(
    warehouse: Warehouse, tmp_path: Path
) -> None:
    recs: list = records(runs=2, tests=3)
    recs[1]["values"] = [float("inf")]
    text = write(tmp_path / "q.jsonl", recs).read_text().replace("Infinity", "1e999")
    (tmp_path / "q.jsonl").write_text(text)
    summary = ingest_jsonl(warehouse, [tmp_path / "q.jsonl"], quarantine=True)
    assert (summary.trials_added, summary.quarantined) == (5, 1)
    assert rows(warehouse, "SELECT line, rule, raw LIKE '%run-0%' FROM quarantine") == [
        (2, "non-finite", True)]


def test_same_identity_with_other_values_is_a_conflict(warehouse: Warehouse, tmp_path: Path) -> None:
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", records())])
    changed = records()
    changed[2]["values"] = [99.0, 98.0]
    with pytest.raises(ConflictError, match=r"b\.jsonl:3: \[conflict\] run run-0 position 2"):
        ingest_jsonl(warehouse, [write(tmp_path / "b.jsonl", changed)])
    assert rows(warehouse, "SELECT count(*) FROM measurements") == [(12,)]


def test_a_node_with_another_hardware_type_is_refused_with_a_hint_that_fits(
        warehouse: Warehouse, tmp_path: Path) -> None:
    first = records()
    ingest_jsonl(warehouse, [write(tmp_path / "a.jsonl", first)])
    moved = records()
    for record in moved:
        record["run_id"] += "-later"
        record["hardware_type"] = "another-type"
    node = first[0]["node"]
    # `ingest jsonl` has no --hardware-type: the hint must not send the user to it alone
    with pytest.raises(ConflictError, match=rf"node {node} is of hardware type .* but "
                       r"another-type in this batch \(a node has one hardware type: fix the "
                       r"records' hardware_type"):
        ingest_jsonl(warehouse, [write(tmp_path / "b.jsonl", moved)])
    assert rows(warehouse, "SELECT count(*) FROM measurements") == [(12,)]


def test_overlapping_logs_add_only_the_new_trials(warehouse: Warehouse, tmp_path: Path) -> None:
    all_records = records(runs=4)
    ingest_jsonl(warehouse, [write(tmp_path / "first.jsonl", all_records[:7])])
    summary = ingest_jsonl(warehouse, [write(tmp_path / "all.jsonl", all_records)])
    assert (summary.trials_added, summary.trials_skipped) == (5, 7)
    assert rows(warehouse, "SELECT count(*) FROM trials") == [(12,)]


def test_fast_reader_and_reference_parser_agree(tmp_path: Path) -> None:
    """The DuckDB reader (first choice) and the line-by-line parser give the same rows."""
    from perfwarehouse.ingest import stage
    from perfwarehouse.ingest.formats import jsonl

    log = write(tmp_path / "a.jsonl", records(runs=3, tests=4, values=3))
    fast = stage.Batch("x", "jsonl")
    assert jsonl.read_fast(fast.con, log, "x") == 12
    slow = stage.Batch("x", "jsonl")
    table, problems = jsonl.parse(log.read_bytes(), "x")
    assert problems == []
    slow.add_arrow(table)
    query = "SELECT * FROM raw_trials ORDER BY line"
    a = fast.con.execute(query).fetchall()
    b = slow.con.execute(query).fetchall()
    # settings/env text may differ in spacing; compare them as JSON
    import json

    def norm(row: tuple) -> tuple:
        return tuple(json.loads(v) if isinstance(v, str) and v[:1] == "{" else v for v in row)

    assert [norm(r) for r in a] == [norm(r) for r in b]
