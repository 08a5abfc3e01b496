"""The JSON reading policy (perfwarehouse/ingest/json_policy.py): every hostile line is
refused with the rule that names its defect, by the DuckDB fast path and by the
line-by-line reference parser alike, and with --quarantine the good lines still land."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import service, stage
from perfwarehouse.ingest.formats import jsonl
from perfwarehouse.warehouse.store import Warehouse
from tests.trial_logs import records

pytestmark = pytest.mark.integration


def _line(change: dict | None = None, text: str | None = None) -> bytes:
    """Record 1 of a small log, changed (a dict merged in, or raw text replacing ``"…"``)."""
    record = records(runs=2, tests=3)[1]
    record.update(change or {})
    line = json.dumps(record)
    return (text(line) if callable(text) else line).encode()  # type: ignore[operator]


def _replace(old: str, new: str):  # type: ignore[no-untyped-def]
    return lambda line: line.replace(old, new, 1)


DEEP = "[" * 10000 + "]" * 10000
CASES = {
    # defect 1: deep nesting (past DuckDB's limit, and between ours and DuckDB's)
    "deep-settings": (_replace('"settings": {"threads": 4, "size": "L"}', '"settings": ' + DEEP),
                      "too-deep"),
    "deep-100": (_replace('"threads": 4', '"threads": ' + "[" * 100 + "]" * 100), "too-deep"),
    # defect 2, 3: numbers and booleans only where due
    "bool-values": ({"values": [True, False]}, "non-numeric"),
    "bool-position": ({"position": True}, "wrong-type"),
    "yes-direction": ({"higher_is_better": "yes"}, "wrong-type"),
    # defect 4: duplicate keys, at the top and inside settings
    "dup-key": (_replace('"position": 1', '"position": 0, "position": 1'), "duplicate-key"),
    "dup-settings": (_replace('"threads": 4', '"threads": 4, "threads": 5'), "duplicate-key"),
    # defect 5: strict RFC 8259
    "trailing-comma": (lambda line: line[:-1] + ",}", "invalid-json"),
    # defect 6: timestamps
    "year-10000": ({"started_at": "10000-01-01T00:00:00Z"}, "bad-timestamp"),
    "offset-25h": ({"started_at": "2024-05-01T10:00:00+25:00"}, "bad-timestamp"),
    "bare-date": ({"started_at": "2024-05-01"}, "bad-timestamp"),
    "before-1970": ({"started_at": "1969-12-31T23:59:59Z"}, "bad-timestamp"),
    # defect 7, 8: names and the rule named
    "long-campaign": ({"campaign": "c" * 300}, "bad-name"),
    "nul-benchmark": ({"benchmark": "\u0000./bench1.sh"}, "bad-name"),
    "lone-surrogate": (_replace('"metric": "runtime"', '"metric": "\\ud800"'), "invalid-string"),
    # the revision key and attributes (main's features) under the same policy
    "attributes-not-object": ({"attributes": 5}, "wrong-type"),
    "dup-unknown-key": (_replace('"position": 1', '"ci": 1, "ci": 2, "position": 1'),
                        "duplicate-key"),
    "dup-in-attributes": (lambda line: _replace('"k": 1', '"k": 1, "k": 2')(
        line.replace('"v": 1', '"attributes": {"a": {"k": 1}}, "v": 1', 1)), "duplicate-key"),
    "revision-time-10000": ({"revision_time": "10000-01-01T00:00:00Z"}, "bad-timestamp"),
    "nul-revision": ({"revision": "\u0000abc"}, "bad-name"),
}


def _log(tmp_path: Path, bad: bytes, at: int = 1, campaign: str = "c1") -> Path:
    lines = [json.dumps(r).encode() for r in records(campaign, runs=2, tests=3)]
    lines[at] = bad.replace(b'"campaign": "c1"', json.dumps({"campaign": campaign})[1:-1].encode())
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def _problems(log: Path, reader: str) -> list[tuple[str, int]]:
    """(rule, line) of every problem one reader (with validation) finds in ``log``."""
    batch = stage.Batch(str(log), "jsonl")
    try:
        fast = None
        if reader != "reference":  # "fast-kernel": the byte scan of large files
            kernel_from = 0 if reader == "fast-kernel" else jsonl.KERNEL_SCAN_BYTES
            with mock.patch.object(jsonl, "KERNEL_SCAN_BYTES", kernel_from):
                fast = jsonl.read_fast(batch.con, log, str(log))
        if fast is None:
            table, problems = jsonl.parse(log.read_bytes(), str(log))
            batch.add_arrow(table)
            batch.add_problems(problems)
        found = batch.problems + stage._canonicalise_settings(batch.con)
        found += stage._validate(batch.con, 100)
        return sorted((p.rule, p.line) for p in found)
    finally:
        batch.close()


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return Warehouse(tmp_path_factory.mktemp("policy") / "warehouse")


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_hostile_line_is_refused_by_its_rule_and_the_good_lines_land(
        tmp_path: Path, shared: Warehouse, case: str) -> None:
    change, rule = CASES[case]
    bad = _line(text=change) if callable(change) else _line(change)
    log = _log(tmp_path, bad, campaign=case)
    # the two readers agree, and name the defect
    assert (_problems(log, "fast") == _problems(log, "fast-kernel")
            == _problems(log, "reference") == [(rule, 2)])
    with pytest.raises(TrialParseError, match=rf"log.jsonl:2: \[{rule}\]"):
        service.ingest_jsonl(shared, [log])
    summary = service.ingest_jsonl(shared, [log], quarantine=True)
    assert (summary.trials_added, summary.quarantined) == (5, 1)
    with shared.catalog() as con:
        assert con.execute("SELECT count(*) FROM trials WHERE campaign = ?",
                           [case]).fetchone()[0] == 5


def test_a_bom_is_named(tmp_path: Path) -> None:
    log = _log(tmp_path, b"\xef\xbb\xbf" + json.dumps(records(runs=2, tests=3)[0]).encode(), at=0)
    assert _problems(log, "fast") == _problems(log, "reference") == [("bom", 1)]


def test_deep_nesting_is_one_line_error_and_quarantine_keeps_the_good_rows(
        cli, tmp_path: Path) -> None:
    log = _log(tmp_path, _line(text=CASES["deep-settings"][0]))
    refused = cli("ingest", "jsonl", str(log))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "log.jsonl:2: [too-deep]" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    cli("ingest", "jsonl", "--quarantine", str(log), check=True)
    counted = cli("sql", "SELECT count(*) AS n FROM trials", "--format", "csv", check=True)
    assert counted.stdout.split() == ["n", "5"]


def test_extreme_timestamps_that_can_be_stored_are_shown(cli, tmp_path: Path) -> None:
    recs = records(runs=2, tests=3)
    recs[0]["started_at"] = "9999-12-31T23:59:59.999999Z"
    recs[1]["started_at"] = "1970-01-01T00:00:00Z"
    recs[2]["started_at"] = "9999-12-31T10:00:00-14:00"
    log = tmp_path / "edge.jsonl"
    log.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    refused = cli("ingest", "jsonl", str(log))
    assert "edge.jsonl:3: [bad-timestamp]" in refused.stderr  # past 9999 in UTC
    cli("ingest", "jsonl", "--quarantine", str(log), check=True)
    shown = cli("sql", "SELECT started_at FROM measurements ORDER BY 1", "--format", "csv",
                check=True)
    assert "9999-12-31" in shown.stdout and "1970-01-01" in shown.stdout
    fleet = cli("report", "fleet", "--out", str(tmp_path / "fleet"))
    assert fleet.returncode == 0, fleet.stderr
