"""A synthetic load-test campaign with ground truth (closed and open loop).

One server with a known mean service time S = 0.5 ms (service rate mu = 2000 req/s),
measured by a load generator, as "On Performance Evaluation" (blog essay, July 24,
2019) describes the two experiments every evaluation needs:

* closed loop, family ``workload=get``: N clients with think time Z = 5 ms, N = 1 ... 64.
  Throughput and response time come from exact mean value analysis of one FCFS
  exponential server with a delay station (the interactive model: X(N) = N/(R(N) + Z)),
  so throughput rises and saturates at mu (the essay's Figure 2).
* closed loop, family ``workload=get-conn``: the same with a per-connection overhead:
  the service time grows as S (1 + 0.008 max(0, N - 8)), so throughput peaks and falls.
* open loop, family ``workload=get``: offered rates around the peak rate. An M/M/1
  server's mean response time is S/(1 - lambda S), so with R_sat = 5 ms the peak rate of
  Shivam et al. ("Cutting Corners", USENIX ATC 2008) is lambda* = (1 - S/R_sat)/S = 1800
  req/s; the rates tested bracket it (1750 below, 1850 above). The response-time noise
  across trials grows with the load (as their Figure 4 shows). One rate (2400) overloads
  the server: completions fall short of arrivals (flow balance fails).

Planted inconsistencies: a few closed-loop trials have a client bottleneck (the
client's own delay between requests: throughput is 55-75 % of what N = X (R + Z)
implies while the latency measured is the server's), and every trial of the overload
rate. Consistent trials satisfy the laws to within measurement noise (< 2 %).

Every trial has its full latency distribution: per-request samples (closed loop,
400 a trial, gamma-distributed around the trial's mean) or an HdrHistogram-like
percentile spectrum with its request count (open loop, exponential quantiles).
The truth file holds the true curves, the peaks, the knees, lambda* and the list of
planted inconsistent trials.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.generate.trials import NATIVE_COLUMNS, Generated, settings_json

CAMPAIGN = "load-campaign"
HARDWARE = "lt-server"
NODE = "lt-server-01"
BENCHMARK = "kvstore"
START = datetime(2024, 6, 3, 9, 0, tzinfo=timezone.utc)
SERVICE_S = 0.0005
THINK_S = 0.005
OVERHEAD = 0.008
OVERHEAD_FROM = 8
R_SAT_MS = 5.0
DURATION_S = 30.0
TRIALS = 5
SAMPLES = 400
KNEE_FRACTION = 0.95
CLOSED_LEVELS = {"get": (1, 2, 4, 8, 12, 16, 24, 32, 48, 64),
                 "get-conn": (1, 2, 4, 8, 16, 24, 32, 48, 64)}
OPEN_RATES = (400, 800, 1200, 1400, 1600, 1700, 1750, 1850, 1900, 2400)
SPECTRUM = (0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99)
X_NOISE = 0.01
LAW_NOISE = 0.004


def mva(n_clients: int, service_s: float, think_s: float) -> tuple[float, float]:
    """Exact mean value analysis of N clients, one FCFS exponential server and a delay
    Z: (throughput req/s, mean response time s)."""
    queue = 0.0
    x = r = 0.0
    for n in range(1, n_clients + 1):
        r = service_s * (1.0 + queue)
        x = n / (r + think_s)
        queue = x * r
    return x, r


def closed_truth(workload: str) -> dict[str, Any]:
    """The true closed-loop curve of a family, its peak and knee."""
    levels = CLOSED_LEVELS[workload]
    curve = []
    for n in levels:
        s = SERVICE_S * (1 + OVERHEAD * max(0, n - OVERHEAD_FROM)) if workload == "get-conn" \
            else SERVICE_S
        x, r = mva(n, s, THINK_S)
        curve.append({"clients": n, "throughput": x, "mean_ms": r * 1e3})
    peak = max(c["throughput"] for c in curve)
    knee = min(c["clients"] for c in curve if c["throughput"] >= KNEE_FRACTION * peak)
    return {"curve": curve, "peak_throughput": peak,
            "peak_clients": [c["clients"] for c in curve if c["throughput"] >= peak * 0.995],
            "knee_clients": knee, "falls_after_peak": workload == "get-conn"}


def open_truth() -> dict[str, Any]:
    rates = [{"rate_rps": lam, "mean_ms": _mm1_ms(lam), "overload": lam * SERVICE_S >= 1}
             for lam in OPEN_RATES]
    lam_star = (1 - SERVICE_S * 1e3 / R_SAT_MS) / SERVICE_S
    under = [r["rate_rps"] for r in rates if not r["overload"] and r["mean_ms"] <= R_SAT_MS]
    return {"rates": rates, "r_sat_ms": R_SAT_MS, "lambda_star": lam_star,
            "lambda_star_tested": max(under),
            "r_sat_p99_ms": R_SAT_MS * math.log(100.0)}


def _mm1_ms(lam: float) -> float:
    rho = lam * SERVICE_S
    return SERVICE_S * 1e3 / (1 - rho) if rho < 1 else math.inf


def generate(seed: int = 1, scale: float = 1.0) -> Generated:
    """The campaign; ``scale`` scales the trials per load level (at least 3)."""
    rng = np.random.default_rng(seed)
    trials = max(3, int(round(TRIALS * scale)))
    rows: list[dict[str, Any]] = []
    planted: list[dict[str, Any]] = []
    truth: dict[str, Any] = {
        "generator": "load-campaign", "seed": seed, "scale": scale, "campaign": CAMPAIGN,
        "hardware_type": HARDWARE, "benchmark": BENCHMARK, "service_time_ms": SERVICE_S * 1e3,
        "service_rate_rps": 1 / SERVICE_S, "think_time_s": THINK_S, "trials_per_level": trials,
        "knee_fraction": KNEE_FRACTION, "closed": {}, "open": open_truth(),
    }
    clock = [0]
    for workload in CLOSED_LEVELS:
        t = closed_truth(workload)
        truth["closed"][workload] = t
        levels = [c["clients"] for c in t["curve"]]
        # the planted client bottlenecks: a few (level, sweep) pairs at N >= 16, at most
        # one per level so every level keeps consistent trials
        candidates = [i for i, n in enumerate(levels) if n >= 16]
        chosen = set(rng.choice(candidates, size=min(3, len(candidates)), replace=False).tolist())
        bottleneck = {(i, int(rng.integers(trials))) for i in chosen}
        settings = {"loop": "closed", "think_time_s": THINK_S, "workload": workload}
        for sweep in range(trials):
            run_id = f"closed-{workload}-sweep{sweep}"
            for pos, c in enumerate(t["curve"]):
                n = c["clients"]
                x_true, r_true = c["throughput"], c["mean_ms"] / 1e3
                x = x_true * (1 + rng.normal(0, X_NOISE))
                r = (n / x - THINK_S) * (1 + rng.normal(0, LAW_NOISE))
                if (pos, sweep) in bottleneck:
                    factor = float(rng.uniform(0.55, 0.75))
                    x = x_true * factor * (1 + rng.normal(0, X_NOISE))
                    r = r_true * (1 + rng.normal(0, 0.02))
                    planted.append({"run_id": run_id, "position": pos, "clients": n,
                                    "kind": "client-bottleneck", "factor": factor})
                samples = rng.gamma(1.5, 1.0, SAMPLES)
                samples *= r * 1e3 / samples.mean()  # the trial's mean response time is r
                latency = {"unit": "ms", "samples": np.round(samples, 4).tolist()}
                rows += _trial(run_id, sweep, pos, len(levels), {**settings, "clients": n}, x,
                               float(samples.mean()), samples, latency, None, clock)
    settings = {"connections": 64, "loop": "open", "workload": "get"}
    for sweep in range(trials):
        run_id = f"open-get-sweep{sweep}"
        for pos, lam in enumerate(OPEN_RATES):
            rho = lam * SERVICE_S
            arrival = lam * (1 + rng.normal(0, 0.003))
            if rho < 1:
                x = arrival * (1 + rng.normal(0, 0.003))
                sigma = 0.02 + 0.08 * rho ** 2
                r_ms = _mm1_ms(lam) * float(np.exp(rng.normal(0, sigma)))
            else:  # overload: the queue grows through the run
                x = (1 / SERVICE_S) * (1 + rng.normal(0, 0.01))
                r_ms = (arrival - x) * DURATION_S / 2 / x * 1e3 * (1 + rng.normal(0, 0.05))
                planted.append({"run_id": run_id, "position": pos, "rate_rps": lam,
                                "kind": "overload"})
            q = np.array(SPECTRUM)
            values = -r_ms * np.log1p(-q / 100.0)
            values[0] = min(0.02, float(values[1]))
            count = int(round(x * DURATION_S))
            latency = {"unit": "ms", "count": count,
                       "percentiles": [[float(a), round(float(b), 5)] for a, b in zip(q, values)]}
            rows += _trial(run_id, sweep, pos, len(OPEN_RATES), {**settings, "rate_rps": lam}, x,
                           r_ms, None, latency, arrival, clock, spectrum=values)
    truth["planted_inconsistent"] = planted
    truth["counts"] = {"trials": len({(r["run_id"], r["position"]) for r in rows}),
                       "records": len(rows)}
    return Generated(_table(rows), truth)


def _trial(run_id: str, sweep: int, pos: int, size: int, settings: dict[str, Any], x: float,
           mean_ms: float, samples: np.ndarray | None, latency: dict[str, Any],
           arrival: float | None, clock: list[int],
           spectrum: np.ndarray | None = None) -> list[dict[str, Any]]:
    """The records of one trial: throughput (with the latency distribution) and the rest."""
    started = START + timedelta(seconds=40 * clock[0])
    clock[0] += 1
    if samples is not None:
        pct = {k: float(np.quantile(samples, q)) for k, q in
               (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p99.9", 0.999))}
        pct["max"] = float(samples.max())
    else:
        assert spectrum is not None
        pct = {"p50": float(spectrum[3]), "p90": float(spectrum[5]), "p99": float(spectrum[7]),
               "p99.9": float(spectrum[8]), "max": float(spectrum[9])}
    metrics: list[tuple[str, str, bool, float]] = [
        ("throughput", "req/s", True, x), ("mean", "ms", False, mean_ms),
        *((k, "ms", False, v) for k, v in pct.items()),
        ("requests", "requests", True, float(round(x * DURATION_S))),
        ("errors", "requests", False, 0.0)]
    if arrival is not None:
        metrics.append(("arrival_rate", "req/s", True, arrival))
    base = {"v": 1, "campaign": CAMPAIGN, "run_id": run_id, "node": NODE,
            "hardware_type": HARDWARE, "run_index": sweep, "order_kind": "fixed",
            "seed": None, "position": pos, "run_size": None, "benchmark": BENCHMARK,
            "settings": settings_json(settings), "started_at": started,
            "duration_s": DURATION_S, "status": "ok", "env": None}
    return [{**base, "metric": m, "unit": u, "higher_is_better": hib, "values": [float(v)],
             "latency": json.dumps(latency, separators=(",", ":")) if m == "throughput" else None}
            for m, u, hib, v in metrics]


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    schema = pa.schema([
        ("v", pa.int64()), ("campaign", pa.string()), ("run_id", pa.string()),
        ("node", pa.string()), ("hardware_type", pa.string()), ("run_index", pa.int64()),
        ("order_kind", pa.string()), ("seed", pa.string()), ("position", pa.int64()),
        ("run_size", pa.int64()), ("benchmark", pa.string()), ("settings", pa.string()),
        ("metric", pa.string()), ("unit", pa.string()), ("higher_is_better", pa.bool_()),
        ("values", pa.list_(pa.float64())), ("started_at", pa.timestamp("us", tz="UTC")),
        ("duration_s", pa.float64()), ("status", pa.string()), ("env", pa.string()),
        ("latency", pa.string()),
    ])
    assert tuple(schema.names[:len(NATIVE_COLUMNS)]) == NATIVE_COLUMNS
    return pa.Table.from_pylist(rows, schema=schema)
