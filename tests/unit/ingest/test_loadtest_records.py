"""The helpers every load-test importer shares, and the trial-log schema's ``latency``."""

from __future__ import annotations

import jsonschema
import numpy as np
import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _loadtest as lt
from tests.unit.ingest.loadtest_common import SCHEMA


@pytest.mark.parametrize("seed", range(20))
def test_nearest_rank_is_numpys_inverted_cdf(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    values = sorted(rng.integers(0, 5, n).astype(float).tolist())  # many ties
    for q in (0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0):
        expected = np.percentile(values, q, method="inverted_cdf") if q > 0 else values[0]
        assert lt.nearest_rank(values, q) == expected


@pytest.mark.parametrize("text, ms", [("776.33us", 0.77633), ("103.00us", 0.103),
                                      ("2.10s", 2100.0), ("1.00m", 60000.0), ("20.59ms", 20.59)])
def test_durations_in_ms(text: str, ms: float) -> None:
    assert lt.duration_ms(text, "f", 1, "x") == pytest.approx(ms, rel=1e-12)


def test_non_finite_values_are_refused() -> None:
    with pytest.raises(TrialParseError) as info:
        lt.number("nan", "f", 3, "rps")
    assert info.value.rule == "non-finite" and info.value.line == 3
    with pytest.raises(TrialParseError):
        lt.trial_records(run="r", position=0, benchmark="b", settings={},
                         metrics={"throughput": float("inf")})


def record(latency: object) -> dict:
    return {"v": 1, "campaign": "c", "run_id": "r", "node": "n", "hardware_type": "h",
            "run_index": 0, "order_kind": "fixed", "position": 0, "benchmark": "b",
            "settings": {"loop": "closed", "clients": 4}, "metric": "throughput",
            "values": [1.0], "started_at": "2026-01-01T00:00:00Z", "status": "ok",
            "latency": latency}


@pytest.mark.parametrize("latency", [
    {"unit": "ms", "percentiles": [[50, 1.0], [99.9, 3.5]]},
    {"unit": "ms", "samples": [1.0, 2.5]}, None])
def test_the_schema_accepts_a_latency_distribution(latency: object) -> None:
    jsonschema.validate(record(latency), SCHEMA)


@pytest.mark.parametrize("latency", [
    {"unit": "min", "samples": [1.0]}, {"unit": "ms", "percentiles": [[101, 1.0]]},
    {"unit": "ms", "percentiles": [[50]]}, {"unit": "ms", "samples": [-1.0]},
    {"unit": "ms"}, {"unit": "ms", "samples": [1.0], "percentiles": [[50, 1.0]]}])
def test_the_schema_refuses_a_bad_latency(latency: object) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record(latency), SCHEMA)
