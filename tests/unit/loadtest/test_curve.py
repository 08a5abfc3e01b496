"""perfwarehouse.loadtest.curve against the straightforward twin of tests/naive/loadtest.py
on random trial tables (tiny groups, NaN, missing histograms, inconsistent trials)."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats as sps

from perfwarehouse.loadtest import curve, histograms, peak
from perfwarehouse.loadtest import settings as load_settings
from tests.naive import loadtest as naive

SCHEMA = pa.schema([
    ("campaign", pa.string()), ("hardware_type", pa.string()), ("benchmark", pa.string()),
    ("settings", pa.string()), ("run_id", pa.string()), ("position", pa.int32()),
    ("node", pa.string()), ("throughput", pa.float64()), ("arrival_rate", pa.float64()),
    ("mean_ms", pa.float64()), ("p99", pa.float64()), ("requests", pa.float64()),
    ("errors", pa.float64()), ("hist_n", pa.float64()), ("hist_index", pa.list_(pa.uint16())),
    ("hist_frac", pa.list_(pa.float64())),
])


def random_trials(seed: int, n_families: int = 6) -> list[dict]:
    rng = np.random.default_rng(seed)
    rows = []
    for f in range(n_families):
        loop = "closed" if f % 2 == 0 else "open"
        hw = f"hw{f % 3}"
        for level in range(int(rng.integers(1, 6))):
            load = float(2 ** level) if loop == "closed" else 100.0 * (level + 1)
            settings = {"loop": loop, "variant": f % 3,
                        **({"clients": load, "think_time_s": 0.001 * (f % 2)}
                           if loop == "closed" else {"rate_rps": load})}
            for t in range(int(rng.integers(1, 7))):
                r_ms = float(rng.lognormal(0, 0.5))
                x = load / (r_ms / 1000 + settings.get("think_time_s", 0)) \
                    if loop == "closed" else load * (1 + rng.normal(0, 0.01))
                if rng.random() < 0.15:
                    x *= 0.6  # inconsistent
                if rng.random() < 0.1:
                    x = math.nan
                hist = None
                if rng.random() < 0.8:
                    # odd sizes and arbitrary weights: no exact ties between the pooled
                    # CDF and p (a quantile in a gap between buckets is not unique)
                    size = int(rng.integers(15, 49)) * 2 + 1
                    h = histograms.from_latency(
                        {"samples": np.round(rng.exponential(r_ms, size), 2).tolist()})
                    hist = h
                rows.append({
                    "campaign": "c", "hardware_type": hw, "benchmark": "b",
                    "settings": json.dumps(settings, sort_keys=True, separators=(",", ":")),
                    "run_id": f"r{f}-{level}-{t}", "position": 0, "node": "n",
                    "throughput": x, "arrival_rate": None, "mean_ms": r_ms,
                    "p99": r_ms * 4.6, "requests": float(rng.integers(500, 5000)), "errors": float(rng.integers(0, 3)),
                    "hist_n": None if hist is None or rng.random() < 0.2
                    else float(rng.uniform(100, 1000)),
                    "hist_index": None if hist is None else hist.index.tolist(),
                    "hist_frac": None if hist is None else hist.frac.tolist()})
    return rows


def _table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _close(a: float | None, b: float) -> bool:
    if a is None:
        return math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_load_curve_matches_the_naive_twin(seed: int) -> None:
    rows = random_trials(seed)
    got = curve.analyse(_table(rows), curve.Options(confidence=0.9, law_tolerance=0.1))
    want = naive.load_curve([{k: (None if isinstance(v, float) and math.isnan(v) else v)
                              for k, v in r.items()} for r in rows], 0.9, 0.1,
                            histograms.N_BUCKETS, histograms.LOW_MS, histograms.PER_DECADE)
    table = got["load_curve"].to_pylist()
    assert len(table) == len(want)
    for row in table:
        w = want[(row["campaign"], row["hardware_type"], row["benchmark"], row["family"],
                  row["loop"], row["load"])]
        assert (row["n_trials"], row["n_used"], row["consistent"]) == (
            w["n_trials"], w["n_used"], w["consistent"])
        for name, cols in (("throughput", ("throughput", "throughput_low", "throughput_high")),
                           ("mean_ms", ("mean_ms", "mean_low_ms", "mean_high_ms"))):
            for c, v in zip(cols, w[name]):
                assert _close(row[c], v), (name, c, row[c], v)
        if "p50" in w:
            assert row["latency_source"] == "histogram"
            for name in ("p50", "p90", "p99", "p999"):
                for c, v in zip((f"{name}_ms", f"{name}_low_ms", f"{name}_high_ms"), w[name]):
                    assert _close(row[c], v), (name, c, row[c], v)
    checks = got["load_law_checks"].to_pylist()
    by_run = {r["run_id"]: r for r in checks}
    for r in rows:
        res = by_run[r["run_id"]]["residual"]
        x = r["throughput"]
        if math.isnan(x):
            assert res is None
        elif r["settings"].find('"closed"') >= 0:
            s = json.loads(r["settings"])
            assert res == pytest.approx(naive.closed_law_residual(
                s["clients"], s["think_time_s"], x, r["mean_ms"]))


def test_rank_method_and_peak_rate_on_a_known_curve() -> None:
    rows = []
    for n, x in ((1, 100.0), (2, 190.0), (4, 300.0), (8, 310.0), (16, 250.0)):
        for t in range(7):
            xx = x * (1 + 0.001 * (t - 3))
            rows.append({"campaign": "c", "hardware_type": "h", "benchmark": "b",
                         "settings": json.dumps({"clients": n, "loop": "closed"}),
                         "run_id": f"{n}-{t}", "position": 0, "node": "n", "throughput": xx,
                         "mean_ms": n / xx * 1000})
    out = curve.analyse(_table(rows), curve.Options(ci_method="rank"))
    (peak,) = out["peak_rate"].to_pylist()
    assert peak["peak_clients"] == 8 and peak["knee_clients"] == 4
    assert peak["falls_after_peak"] is True and peak["drop_pct"] == pytest.approx(-19.35, 0.01)
    level = [r for r in out["load_curve"].to_pylist() if r["load"] == 8][0]
    xs = np.sort([310.0 * (1 + 0.001 * (t - 3)) for t in range(7)])
    j, k, _ = (1, 7, None)  # n = 7 at 95 %: [x(1), x(7)] (coverage 0.984)
    assert (level["throughput_low"], level["throughput_high"]) == (xs[j - 1], xs[k - 1])
    assert level["throughput"] == pytest.approx(np.median(xs))
    assert sps.binom.cdf(5, 7, 0.5) - sps.binom.cdf(1, 7, 0.5) < 0.95  # [x(2), x(6)] too narrow


def test_open_loop_peak_rate_reasons() -> None:
    rows = []
    for lam, r in ((100.0, 1.0), (200.0, 2.0), (300.0, 8.0)):
        for t in range(3):
            rows.append({"campaign": "c", "hardware_type": "h", "benchmark": "b",
                         "settings": json.dumps({"loop": "open", "rate_rps": lam}),
                         "run_id": f"{lam}-{t}", "position": 0, "node": "n",
                         "throughput": lam, "mean_ms": r * (1 + 0.01 * t)})
    table = _table(rows)
    none = curve.analyse(table, curve.Options())["peak_rate"].to_pylist()[0]
    assert none["lambda_star"] is None and "--r-sat" in none["reason"]
    got = curve.analyse(table, curve.Options(r_sat_ms=4.0))["peak_rate"].to_pylist()[0]
    assert (got["lambda_star"], got["lambda_low"], got["lambda_high"]) == (200.0, 200.0, 300.0)
    assert got["region"] == "below" and "between 200 and 300" in got["reason"]
    low = curve.analyse(table, curve.Options(r_sat_ms=0.5))["peak_rate"].to_pylist()[0]
    assert low["lambda_star"] is None and "test lower loads" in low["reason"]
    high = curve.analyse(table, curve.Options(r_sat_ms=100.0))["peak_rate"].to_pylist()[0]
    assert high["lambda_star"] == 300.0 and "test higher loads" in high["reason"]


def test_empty_and_non_load_rows() -> None:
    out = curve.analyse(_table([]), curve.Options())
    assert out["load_curve"].num_rows == 0 and out["peak_rate"].num_rows == 0
    rows = [{"campaign": "c", "hardware_type": "h", "benchmark": "b",
             "settings": json.dumps({"loop": "closed"}), "run_id": "r", "position": 0,
             "node": "n", "throughput": 5.0, "mean_ms": 1.0}]
    out = curve.analyse(_table(rows), curve.Options())
    assert out["load_curve"].num_rows == 0 and out["load_law_checks"].num_rows == 1


@pytest.mark.parametrize("settings", [
    {"clients": 4, "loop": "closed"}, {"loop": "closed", "clients": 2.5, "z": [1, {"a": "b"}]},
    {"a": "\"clients\":4,", "clients": 4, "loop": "closed"}, {"clients": 1e-07, "loop": "closed"},
    {"loop": "open", "rate_rps": 1800, "connections": 64}, {"loop": "open", "rate_rps": "fast"},
    {"loop": "closed"}, {"loop": "other", "clients": 3}, {"clients": True, "loop": "closed"},
])
def test_family_is_the_settings_without_the_load(settings: dict) -> None:
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    got = load_settings.parse_settings(text)
    key = load_settings.LOAD_KEYS.get(settings.get("loop"))  # type: ignore[arg-type]
    rest = {k: v for k, v in settings.items() if k != key}
    assert got.family == json.dumps(rest, sort_keys=True, separators=(",", ":"))
    assert json.loads(got.family) == rest


def test_one_trial_per_level_establishes_no_peak_fall() -> None:
    """Issue 39: a real wrk sweep with one run per connection count (17.6k, 12.2k, 25.3k,
    14k req/s at N = 1, 2, 4, 8) is not "a peak at N = 4 that falls 56 %": no level
    has a spread, so the fall is left null and the reason asks for repetitions; with
    three runs per level the same sweep establishes it."""
    sweep = ((1, 17_600.0), (2, 12_200.0), (4, 25_300.0), (8, 14_000.0))

    def rows(repeats: int) -> list[dict]:
        return [{"campaign": "c", "hardware_type": "h", "benchmark": "wrk",
                 "settings": json.dumps({"clients": n, "loop": "closed"}),
                 "run_id": f"{n}-{t}", "position": 0, "node": "n",
                 "throughput": x * (1 + 0.002 * t), "mean_ms": n / x * 1000}
                for n, x in sweep for t in range(repeats)]

    (single,) = curve.analyse(_table(rows(1)), curve.Options())["peak_rate"].to_pylist()
    assert single["falls_after_peak"] is None and single["reason"] == peak.SINGLE_RUNS
    assert "repeat each level >= 3 times" in single["reason"]
    (repeated,) = curve.analyse(_table(rows(3)), curve.Options())["peak_rate"].to_pylist()
    assert repeated["falls_after_peak"] is True and repeated["peak_clients"] == 4
