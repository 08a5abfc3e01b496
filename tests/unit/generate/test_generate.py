"""Generated campaigns: the shape SPEC 7 asks for, determinism, and honest truth files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pytest

from perfwarehouse.generate import generate
from perfwarehouse.generate.ordersage_longterm import CONFIGS_PER_TYPE, HARDWARE


@pytest.fixture(scope="module")
def longterm():
    return generate("ordersage-longterm", seed=11, scale=0.05)


def test_longterm_shape(longterm) -> None:
    t = longterm.records
    assert len(HARDWARE) == 13 and sum(CONFIGS_PER_TYPE) == 1880
    assert len(set(t.column("benchmark").to_pylist())) == 25
    assert len(set(t.column("hardware_type").to_pylist())) == 13
    kinds = pc.value_counts(t.column("order_kind")).to_pylist()
    shares = {k["values"]: k["counts"] / t.num_rows for k in kinds}
    assert set(shares) == {"fixed", "random"} and 0.35 < shares["fixed"] < 0.65
    # every run holds each test of its hardware type once: positions are a permutation
    first = t.slice(0, 5000).to_pylist()
    by_run: dict[str, set] = {}
    for r in first:
        by_run.setdefault(r["run_id"], set()).add((r["position"], r["metric"]))
    assert all(len(v) == len({p for p in v}) for v in by_run.values())


def test_full_scale_counts_are_planned() -> None:
    from perfwarehouse.generate.ordersage_longterm import _runs_per_type

    runs = _runs_per_type(9000, 2_300_000)
    trials = int(np.sum(runs * np.asarray(CONFIGS_PER_TYPE)))
    assert abs(runs.sum() - 9000) < 50 and abs(trials - 2_300_000) < 30_000


def test_values_are_long_tailed_and_positive(longterm) -> None:
    values = np.array([v[0] for v in longterm.records.column("values").to_pylist()])
    assert (values > 0).all()
    t = longterm.records
    tails = []
    for benchmark in ("npb-bt", "npb-cg", "gcc-build"):  # runtimes: lower is better
        one = t.filter(pc.and_(pc.equal(t.column("benchmark"), benchmark),
                               pc.equal(t.column("hardware_type"), "c220g5")))
        for settings in sorted(set(one.column("settings").to_pylist()))[:4]:
            cfg = one.filter(pc.equal(one.column("settings"), settings))
            x = np.array([v[0] for v in cfg.column("values").to_pylist()])
            p1, p50, p99 = np.percentile(x, [1, 50, 99])
            tails.append((p99 - p50) / (p50 - p1))
    # slow outliers: the upper tail is longer than the lower one in most configurations
    assert np.median(tails) > 1.2


def test_same_seed_same_campaign_other_seed_other(longterm) -> None:
    again = generate("ordersage-longterm", seed=11, scale=0.05)
    assert again.records.equals(longterm.records)
    assert again.truth == longterm.truth
    other = generate("ordersage-longterm", seed=12, scale=0.05)
    assert not other.records.equals(longterm.records)


def test_truth_lists_what_was_planted(longterm) -> None:
    truth = longterm.truth
    json.dumps(truth)
    assert truth["order_dependent"] and truth["drifting"] and truth["polluters"]
    periods = {s["period"] for s in truth["seasonality"]}
    assert periods == {"1 day", "7 days"}
    causes = {o["cause"] for o in truth["order_dependent"]}
    assert causes == {"position", "predecessor"}


def test_laaber_cloud_shape() -> None:
    g = generate("laaber-cloud", seed=5, scale=0.1)
    t = g.records
    assert len(set(t.column("benchmark").to_pylist())) == 19
    assert len(set(t.column("hardware_type").to_pylist())) == 10
    assert set(pc.list_value_length(t.column("values")).to_pylist()) == {50}
    assert t.num_rows == 19 * 10 * 5 * 10
    kinds = {p["kind"] for p in g.truth["pairs"]}
    assert kinds == {"stable", "noisy", "instance-dependent", "bimodal", "long-tailed"}


def test_written_file_round_trips(tmp_path: Path) -> None:
    from perfwarehouse.generate import generate_to_file

    n, truth = generate_to_file("laaber-cloud", tmp_path / "l.jsonl", seed=5, scale=0.04)
    lines = (tmp_path / "l.jsonl").read_text().splitlines()
    assert len(lines) == n
    first = json.loads(lines[0])
    assert first["v"] == 1 and isinstance(first["settings"], dict) and len(first["values"]) == 50
    assert first["started_at"].endswith("Z")
    assert json.loads(truth.read_text())["campaign"] == "laaber-cloud"
