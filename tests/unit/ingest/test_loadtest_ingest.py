"""Every good load-test fixture, through the command-line options, is accepted by the
warehouse's ingest validation (written as a native trial log, the common path)."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.ingest.formats.records import ImportOptions, apply_options
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.warehouse.store import Warehouse
from tests.trial_logs import write
from tests.unit.ingest import loadtest_common as common


def test_all_good_fixtures_ingest(warehouse: Warehouse, tmp_path: Path) -> None:
    rows = []
    expected = 0
    for verb in common.MODULES:
        for path in common.good(verb):
            records = common.parse(verb, path)
            apply_options(records, ImportOptions(node="loadgen-1", settings=(("site", "lab"),)),
                          str(path), "loadtests")
            for record in records:
                record["started_at"] = record["started_at"] or "2026-01-01T00:00:00Z"
            rows += records
            expected += len(records)
    summary = ingest_jsonl(warehouse, [write(tmp_path / "all.jsonl", rows)])
    assert summary.outcome == "landed"
    assert summary.trials_added == expected  # a warehouse trial is one metric record
    assert summary.values_added == expected
