"""The `latency` key of load-test records lands in latency_histograms (or is refused in one line)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest import service
from perfwarehouse.loadtest import histograms
from perfwarehouse.warehouse.store import Warehouse
from tests.trial_logs import write


def load_records(latency: list[Any]) -> list[dict[str, Any]]:
    out = []
    for i, lat in enumerate(latency):
        base = {"v": 1, "campaign": "lt", "run_id": f"run-{i}", "node": "n1", "hardware_type": "hw",
                "run_index": i, "order_kind": "fixed", "position": 0, "benchmark": "wrk",
                "settings": {"loop": "closed", "clients": 2 ** i}, "started_at":
                "2024-05-01T10:00:00Z", "status": "ok"}
        out.append({**base, "metric": "throughput", "unit": "req/s", "higher_is_better": True,
                    "values": [100.0 * (i + 1)], **({"latency": lat} if lat is not None else {})})
        out.append({**base, "metric": "mean", "unit": "ms", "higher_is_better": False,
                    "values": [2.0]})
    return out


def histogram_rows(warehouse: Warehouse) -> list[tuple[Any, ...]]:
    with warehouse.catalog() as con:
        return con.execute("SELECT run_id, kind, n_requests, bucket_index, bucket_frac, raw "
                           "FROM latency_histograms ORDER BY run_id").fetchall()


@pytest.mark.parametrize("fast", [True, False])
def test_latency_lands_with_its_trial(tmp_path: Path, warehouse: Warehouse, fast: bool,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    if not fast:  # the reference parser (what a file DuckDB cannot read goes through)
        from perfwarehouse.ingest.formats import jsonl
        monkeypatch.setattr(jsonl, "read_fast", lambda *a, **k: None)
    samples = [1.0, 2.0, 2.5, 10.0]
    spectrum = {"unit": "us", "percentiles": [[50, 900], [99, 4000]], "count": 10}
    log = write(tmp_path / "lt.jsonl", load_records([{"unit": "ms", "samples": samples},
                                                      spectrum, None]))
    summary = service.ingest_jsonl(warehouse, [log])
    assert summary.outcome == "landed"
    rows = histogram_rows(warehouse)
    assert [r[:3] for r in rows] == [("run-0", "samples", 4.0), ("run-1", "percentiles", 10.0)]
    h = histograms.from_latency({"samples": samples})
    assert rows[0][3] == h.index.tolist() and np.allclose(rows[0][4], h.frac)
    assert json.loads(zlib.decompress(rows[1][5])) == spectrum
    # the same file again changes nothing; a new batch with the same trials is skipped
    assert service.ingest_jsonl(warehouse, [log]).outcome == "unchanged"
    assert len(histogram_rows(warehouse)) == 2


@pytest.mark.parametrize("bad, rule", [
    ({"samples": [1, -1]}, "bad-latency"),
    ({"unit": "min", "samples": [1]}, "bad-latency"),
    ([1, 2, 3], "bad-latency"),
])
def test_bad_latency_refused_in_one_line(tmp_path: Path, warehouse: Warehouse, bad: Any,
                                         rule: str) -> None:
    log = write(tmp_path / "bad.jsonl", load_records([{"samples": [1.0]}, bad]))
    with pytest.raises(TrialParseError) as err:
        service.ingest_jsonl(warehouse, [log])
    assert f"[{rule}]" in str(err.value) and ":3:" in str(err.value)
    assert "\n" not in str(err.value)


def test_two_latencies_for_one_trial_refused(tmp_path: Path, warehouse: Warehouse) -> None:
    recs = load_records([{"samples": [1.0]}])
    recs[1]["latency"] = {"samples": [2.0]}
    with pytest.raises(TrialParseError, match="duplicate-latency"):
        service.ingest_jsonl(warehouse, [write(tmp_path / "dup.jsonl", recs)])


def test_quarantine_keeps_the_good_histograms(tmp_path: Path, warehouse: Warehouse) -> None:
    log = write(tmp_path / "q.jsonl", load_records([{"samples": [1.0]}, {"samples": []}]))
    summary = service.ingest_jsonl(warehouse, [log], quarantine=True)
    assert summary.quarantined == 1
    assert [r[0] for r in histogram_rows(warehouse)] == ["run-0"]
