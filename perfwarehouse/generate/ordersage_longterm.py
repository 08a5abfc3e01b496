"""A synthetic long-term campaign with the shape of the OrderSage dataset.

Duplyakin et al. (OrderSage, USENIX ATC 2023), §4: about 2.3M trials of 25 CPU and
memory benchmarks in several settings on 13 CloudLab hardware types (1,880
configurations = test x hardware type), about 9,000 runs over nine months, each
run choosing fixed or freshly shuffled order with equal probability (4.4), a
reset between runs.

Values are long-tailed and non-normal, and carry, multiplicatively:

* a per-(test, hardware type) level and noise level, with a heavy tail in the
  "worse" direction (slower times, lower throughput);
* node offsets (machines of one type differ by ~0.5-3 %) and a per-run effect;
* **order effects** (planted): a position effect on memory benchmarks of some
  hardware types (caches and memory layout degrade along a run), and
  *polluter* tests that slow whichever test runs right after them;
* **drift**: a linear trend on some configurations (% per 30 days);
* **seasonality**: daily and weekly cycles on some hardware types.

The truth file lists every planted effect with its expected size, so analyses
and reports can be scored against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.generate.trials import Generated, settings_json, values_column

CAMPAIGN = "ordersage-longterm"
START = datetime(2022, 1, 3, tzinfo=timezone.utc)  # a Monday
SPAN_DAYS = 270.0
DAY_S = 86400.0

# (type, nodes, sockets, cores per socket, memory, cpu model)
HARDWARE = (
    ("m400", 180, 1, 8, "64GB", "APM X-Gene ARMv8"),
    ("m510", 150, 1, 8, "64GB", "Intel Xeon D-1548"),
    ("xl170", 190, 1, 10, "64GB", "Intel Xeon E5-2640 v4"),
    ("c6525-25g", 160, 1, 16, "128GB", "AMD EPYC 7302P"),
    ("c6220", 60, 2, 8, "64GB", "Intel Xeon E5-2650 v2"),
    ("c8220", 90, 2, 10, "256GB", "Intel Xeon E5-2660 v2"),
    ("d430", 150, 2, 8, "64GB", "Intel Xeon E5-2630 v3"),
    ("c220g1", 90, 2, 8, "128GB", "Intel Xeon E5-2630 v3"),
    ("c6320", 80, 2, 14, "128GB", "Intel Xeon E5-2683 v3"),
    ("c220g2", 160, 2, 10, "160GB", "Intel Xeon E5-2660 v3"),
    ("c6420", 70, 2, 16, "384GB", "Intel Xeon Gold 6142"),
    ("c240g5", 110, 2, 10, "192GB", "Intel Xeon Silver 4114"),
    ("c220g5", 220, 2, 10, "192GB", "Intel Xeon Silver 4114"),
)
# Configurations per hardware type (sum 1,880): machines with more sockets and
# frequency settings get more tests, and (section 4) more runs.
CONFIGS_PER_TYPE = (40, 48, 60, 72, 80, 96, 110, 130, 150, 180, 240, 300, 374)

# (name, kind, metrics, unit, higher_is_better, base value)
BENCHMARKS = (
    ("stream", "memory", ("copy", "scale", "add", "triad"), "MB/s", True, 11000.0),
    ("membench-seq-read", "memory", ("bandwidth",), "MB/s", True, 9000.0),
    ("membench-seq-write", "memory", ("bandwidth",), "MB/s", True, 7000.0),
    ("membench-rand-read", "memory", ("bandwidth",), "MB/s", True, 1500.0),
    ("membench-rand-write", "memory", ("bandwidth",), "MB/s", True, 1200.0),
    ("membench-copy", "memory", ("bandwidth",), "MB/s", True, 6000.0),
    ("membench-latency", "memory", ("latency",), "ns", False, 90.0),
    ("lmbench-bw-mem-rd", "memory", ("bandwidth",), "MB/s", True, 10000.0),
    ("lmbench-bw-mem-wr", "memory", ("bandwidth",), "MB/s", True, 8000.0),
    ("lmbench-lat-mem-rd", "memory", ("latency",), "ns", False, 75.0),
    ("npb-bt", "cpu", ("runtime",), "s", False, 60.0),
    ("npb-cg", "cpu", ("runtime",), "s", False, 25.0),
    ("npb-ep", "cpu", ("runtime",), "s", False, 15.0),
    ("npb-ft", "cpu", ("runtime",), "s", False, 30.0),
    ("npb-is", "cpu", ("runtime",), "s", False, 8.0),
    ("npb-lu", "cpu", ("runtime",), "s", False, 50.0),
    ("npb-mg", "cpu", ("runtime",), "s", False, 12.0),
    ("npb-sp", "cpu", ("runtime",), "s", False, 55.0),
    ("npb-ua", "cpu", ("runtime",), "s", False, 45.0),
    ("coremark", "cpu", ("score",), "iterations/s", True, 25000.0),
    ("sysbench-cpu", "cpu", ("runtime",), "s", False, 10.0),
    ("openssl-speed", "cpu", ("throughput",), "MB/s", True, 900.0),
    ("7zip", "cpu", ("rating",), "MIPS", True, 30000.0),
    ("linpack", "cpu", ("gflops",), "GFLOPS", True, 200.0),
    ("gcc-build", "cpu", ("runtime",), "s", False, 120.0),
)


@dataclass(frozen=True)
class Test:
    """One test of a hardware type's list: a benchmark in one setting (one position per run)."""

    bench: int
    settings: dict[str, Any]


def _tests_for(n_configs: int, sockets: int, cores: int) -> list[Test]:
    """The baseline (fixed) order of a hardware type: settings-major, suites grouped.

    Takes tests until their metrics add up to ``n_configs`` configurations.
    """
    settings_pool: list[dict[str, Any]] = []
    for threads in (1, cores, cores * sockets, cores // 2 or 1):
        for socket in range(sockets):
            for freq in ("max", "base", "powersave"):
                settings_pool.append({"threads": threads, "socket": socket, "freq": freq})
    tests: list[Test] = []
    total = 0
    for settings in settings_pool:
        for b, bench in enumerate(BENCHMARKS):
            n_metrics = len(bench[2])
            if total + n_metrics > n_configs:
                continue
            kind = bench[1]
            tests.append(Test(b, {"kind": kind, **settings}))
            total += n_metrics
            if total == n_configs:
                return tests
    if total != n_configs:  # pragma: no cover - guarded by the pool size
        raise AssertionError(f"cannot build {n_configs} configurations")
    return tests


def _runs_per_type(total_runs: int, total_trials: int) -> np.ndarray:
    """Runs per hardware type, increasing with its test count, so that trials ~ ``total_trials``."""
    sizes = np.asarray(CONFIGS_PER_TYPE, dtype=float)
    lo, hi = 0.0, 4.0
    for _ in range(60):  # bisection on the exponent of the weighting
        a = (lo + hi) / 2
        runs = total_runs * sizes**a / np.sum(sizes**a)
        if np.sum(runs * sizes) < total_trials:
            lo = a
        else:
            hi = a
    return np.maximum(np.round(runs).astype(int), 4)


def generate(seed: int = 1, scale: float = 1.0) -> Generated:
    """Generate the campaign.

    Parameters
    ----------
    seed:
        Seed of every random choice; the same seed gives the same file.
    scale:
        Fraction of the runs to generate (1.0: ~9,000 runs, ~2.3M trials).
        Every configuration keeps at least 4 runs.
    """
    rng = np.random.default_rng(seed)
    runs_per_type = _runs_per_type(int(round(9000 * scale)), int(round(2_300_000 * scale)))
    truth: dict[str, Any] = {
        "generator": "ordersage-longterm", "seed": seed, "scale": scale, "campaign": CAMPAIGN,
        "order_dependent": [], "polluters": [], "drifting": [], "seasonality": [],
        "node_offset_sd_pct": {},
    }
    tables: list[pa.Table] = []
    starts: list[np.ndarray] = []
    run_counter = 0
    for h, (hw, n_nodes, sockets, cores, memory, cpu) in enumerate(HARDWARE):
        tests = _tests_for(CONFIGS_PER_TYPE[h], sockets, cores)
        table, run_starts = _generate_type(
            rng, h, hw, n_nodes, memory, cpu, tests, int(runs_per_type[h]), run_counter, truth
        )
        run_counter += int(runs_per_type[h])
        tables.append(table)
        starts.append(run_starts)
    records = _in_time_order(tables, starts)
    truth["counts"] = {
        "trials": records.num_rows,
        "runs": run_counter,
        "configurations": int(sum(CONFIGS_PER_TYPE)),
        "hardware_types": len(HARDWARE),
        "nodes": int(sum(h[1] for h in HARDWARE)),
    }
    return Generated(records, truth)


def _generate_type(
    rng: np.random.Generator, h: int, hw: str, n_nodes: int, memory: str, cpu: str,
    tests: list[Test], n_runs: int, run_offset: int, truth: dict[str, Any],
) -> pa.Table:
    n_tests = len(tests)
    bench_of_test = np.array([t.bench for t in tests])
    metrics_of_test = [BENCHMARKS[t.bench][2] for t in tests]
    n_metrics = np.array([len(m) for m in metrics_of_test])
    # configuration c belongs to test test_of_config[c]
    test_of_config = np.repeat(np.arange(n_tests), n_metrics)
    n_configs = len(test_of_config)
    hib_config = np.array([BENCHMARKS[bench_of_test[t]][4] for t in test_of_config])
    kind_memory = np.array([BENCHMARKS[t.bench][1] == "memory" for t in tests])

    # --- levels and noise -------------------------------------------------
    hw_factor = rng.lognormal(0.0, 0.3)
    test_level = np.array([
        BENCHMARKS[t.bench][5] * _threads_factor(t, BENCHMARKS[t.bench][4]) for t in tests
    ]) * hw_factor * rng.lognormal(0.0, 0.1, n_tests)
    metric_level = np.concatenate([1.0 + 0.15 * np.arange(k) for k in n_metrics])
    config_level = test_level[test_of_config] * metric_level
    noise_sd = rng.uniform(0.003, 0.04, n_configs)
    tail_p = rng.uniform(0.0, 0.06, n_configs)
    node_sd = rng.uniform(0.005, 0.03)
    node_offset = rng.normal(0.0, node_sd, n_nodes)
    truth["node_offset_sd_pct"][hw] = round(100 * node_sd, 3)

    # --- planted effects --------------------------------------------------
    position_gamma = np.zeros(n_tests)
    if rng.random() < 0.7:  # position effect on this type's memory benchmarks
        position_gamma[kind_memory] = rng.uniform(0.02, 0.12, int(kind_memory.sum()))
    polluters = rng.choice(n_tests, size=2, replace=False)
    polluter_delta = rng.uniform(0.08, 0.2, 2)
    drift = np.zeros(n_configs)
    drifting = rng.random(n_configs) < 0.06
    drift[drifting] = rng.choice([-1, 1], int(drifting.sum())) * rng.uniform(0.8, 3.0, int(drifting.sum()))
    season_daily = 0.0 if h % 4 else rng.uniform(0.02, 0.04)
    season_weekly = 0.0 if h % 5 != 2 else rng.uniform(0.02, 0.04)
    phase_d, phase_w = rng.uniform(0, 2 * np.pi, 2)

    # --- runs -------------------------------------------------------------
    starts = np.sort(rng.uniform(0, SPAN_DAYS * DAY_S, n_runs))
    run_node = rng.integers(0, n_nodes, n_runs)
    is_random = rng.random(n_runs) < 0.5
    seeds = rng.integers(0, 2**31 - 1, n_runs)
    order = np.empty((n_runs, n_tests), dtype=np.int64)  # order[r, position] = test
    for r in range(n_runs):
        order[r] = (
            np.random.default_rng(int(seeds[r])).permutation(n_tests) if is_random[r]
            else np.arange(n_tests)
        )
    position_of = np.empty_like(order)
    rows = np.arange(n_runs)[:, None]
    position_of[rows, order] = np.arange(n_tests)[None, :]
    predecessor = np.full_like(order, -1)
    predecessor[:, 1:] = order[:, :-1]

    # --- trials: one record per (run, configuration) -----------------------
    run_of = np.repeat(np.arange(n_runs), n_configs)
    config_of = np.tile(np.arange(n_configs), n_runs)
    test_of = test_of_config[config_of]
    pos = position_of[run_of, test_of]
    pred = predecessor[run_of, pos]
    # trial durations and start times: the run's tests run back to back
    test_duration = np.clip(np.where(kind_memory, 12.0, test_level / hw_factor / 2), 2, 600)
    dur_in_order = test_duration[order] * rng.lognormal(0, 0.05, order.shape)
    elapsed = np.cumsum(dur_in_order, axis=1) - dur_in_order
    t = starts[run_of] + elapsed[run_of, pos] + 5.0 * pos
    days = t / DAY_S

    rel_pos = pos / max(n_tests - 1, 1)
    order_effect = position_gamma[test_of] * (0.5 - rel_pos)
    for p, d in zip(polluters, polluter_delta):
        order_effect = order_effect - d * (pred == p)
    env_effect = (
        node_offset[run_node[run_of]]
        + rng.normal(0, 0.003, n_runs)[run_of]
        + drift[config_of] / 100 * days / 30
        + season_daily * np.sin(2 * np.pi * days + phase_d)
        + season_weekly * np.sin(2 * np.pi * days / 7 + phase_w)
    )
    # "good" factor > 1 means better performance; map to the metric direction
    noise = rng.lognormal(0.0, noise_sd[config_of])
    tail = 1.0 + (rng.random(len(config_of)) < tail_p[config_of]) * rng.exponential(
        8 * noise_sd[config_of]
    )
    good = (1.0 + order_effect) * (1.0 + env_effect) / tail
    hib = hib_config[config_of]
    value = config_level[config_of] * np.where(hib, good, 1.0 / good) * noise
    value = np.round(value, 4)

    # --- truth ------------------------------------------------------------
    _record_truth(truth, hw, tests, metrics_of_test, test_of_config, position_gamma, polluters,
                  polluter_delta, drift, season_daily, season_weekly, is_random, n_tests)

    # --- table (dictionary-encoded strings: no per-row Python objects) ---------
    first = (pos == 0) & (config_of == test_of_config.searchsorted(test_of, side="left"))
    started = (START.timestamp() + t) * 1e6
    n = len(run_of)
    metric_names = [m for ms in metrics_of_test for m in ms]
    env = settings_json({"cpu_model": cpu, "memory": memory, "kernel": "5.4.0-100-generic",
                         "os": "Ubuntu 20.04 LTS"})
    table = pa.table({
        "v": pa.array(np.ones(n, dtype=np.int8)),
        "campaign": labels(np.zeros(n), [CAMPAIGN]),
        "run_id": labels(run_of, [f"{hw}-r{run_offset + r:05d}" for r in range(n_runs)]),
        "node": labels(run_node[run_of], [f"{hw}-{i + 1:06d}" for i in range(n_nodes)]),
        "hardware_type": labels(np.zeros(n), [hw]),
        "run_index": pa.array(run_of.astype(np.int32)),  # local; made campaign-wide later
        "order_kind": labels(is_random[run_of], ["fixed", "random"]),
        "seed": pa.array(seeds[run_of].astype(np.int64)),
        "position": pa.array(pos.astype(np.int32)),
        "run_size": pa.array(np.full(n, n_configs, dtype=np.int32)),
        "benchmark": labels(bench_of_test[test_of], [b[0] for b in BENCHMARKS]),
        "settings": labels(test_of, [settings_json(t.settings) for t in tests]),
        "metric": labels(config_of, metric_names),
        "unit": labels(bench_of_test[test_of], [b[3] for b in BENCHMARKS]),
        "higher_is_better": pa.array(hib),
        "values": values_column(value, 1),
        "started_at": pa.array(started.astype(np.int64), pa.timestamp("us", tz="UTC")),
        "duration_s": pa.array(np.round(dur_in_order[run_of, pos], 3)),
        "status": labels(np.zeros(n), ["ok"]),
        "env": labels(np.zeros(n), [env], valid=first),
    })
    return table, starts


def labels(indices: np.ndarray, names: list[str], valid: np.ndarray | None = None) -> pa.Array:
    """A dictionary-encoded string column: ``names[indices]`` (null where not ``valid``)."""
    mask = None if valid is None else ~valid
    return pa.DictionaryArray.from_arrays(
        pa.array(np.asarray(indices, dtype=np.int32), mask=mask), pa.array(names, pa.string()))


def _threads_factor(test: Test, higher_is_better: bool) -> float:
    threads = test.settings["threads"]
    freq = {"max": 1.0, "base": 0.85, "powersave": 0.6}[test.settings["freq"]]
    speed = threads**0.6 * freq
    return speed if higher_is_better else 1.0 / speed


def _record_truth(
    truth: dict[str, Any], hw: str, tests: list[Test], metrics_of_test: Sequence[tuple[str, ...]],
    test_of_config: np.ndarray, position_gamma: np.ndarray, polluters: np.ndarray,
    polluter_delta: np.ndarray, drift: np.ndarray, season_daily: float, season_weekly: float,
    is_random: np.ndarray, n_tests: int,
) -> None:
    """Expected effect sizes of what was planted, in the units the analyses report.

    ``expected_delta_pct`` is the expected Δ% = (mean_fixed - mean_random)/mean_fixed
    x 100 of the *performance factor* (positive: fixed order performs better);
    for lower-is-better metrics the value moves the other way.
    """
    def key(c: int) -> dict[str, Any]:
        test = tests[test_of_config[c]]
        metric = metrics_of_test[test_of_config[c]][
            c - int(np.searchsorted(test_of_config, test_of_config[c]))
        ]
        return {"benchmark": BENCHMARKS[test.bench][0], "settings": settings_json(test.settings),
                "metric": metric, "hardware_type": hw}

    polluter_after = {int(p) + 1: float(d) for p, d in zip(polluters, polluter_delta)}
    for c in range(len(test_of_config)):
        t = int(test_of_config[c])
        fixed_pos = t / max(n_tests - 1, 1)
        position_part = position_gamma[t] * (0.5 - fixed_pos)
        # in fixed order test t always follows test t-1; in random order any
        # given predecessor occurs with probability 1/n_tests
        polluter_part = -polluter_after.get(t, 0.0) * (1 - 1 / n_tests)
        expected = 100 * (position_part + polluter_part)
        if abs(expected) >= 1.0:
            truth["order_dependent"].append({
                **key(c), "expected_delta_pct": round(expected, 3),
                "cause": "predecessor" if polluter_part else "position",
            })
        if drift[c]:
            truth["drifting"].append({**key(c), "slope_pct_per_30d": round(float(drift[c]), 3)})
    for p, d in zip(polluters, polluter_delta):
        test = tests[int(p)]
        truth["polluters"].append({
            "hardware_type": hw, "benchmark": BENCHMARKS[test.bench][0],
            "settings": settings_json(test.settings), "slows_next_by_pct": round(100 * d, 2),
        })
    if season_daily:
        truth["seasonality"].append(
            {"hardware_type": hw, "period": "1 day", "period_s": DAY_S,
             "amplitude_pct": round(100 * season_daily, 2)})
    if season_weekly:
        truth["seasonality"].append(
            {"hardware_type": hw, "period": "7 days", "period_s": 7 * DAY_S,
             "amplitude_pct": round(100 * season_weekly, 2)})


def _in_time_order(tables: list[pa.Table], starts: list[np.ndarray]) -> pa.Table:
    """One table, records in start-time order, run_index = the campaign-wide rank of a
    run's start (OrderSage 2022 style: runs of all types are interleaved in time)."""
    rank = np.empty(sum(len(s) for s in starts), dtype=np.int32)
    rank[np.argsort(np.concatenate(starts), kind="stable")] = np.arange(len(rank), dtype=np.int32)
    offsets = np.cumsum([0] + [len(s) for s in starts])
    index = tables[0].schema.get_field_index("run_index")
    tables = [t.set_column(index, "run_index",
                           pa.array(rank[o + t.column("run_index").to_numpy()]))
              for t, o in zip(tables, offsets)]
    records = pa.concat_tables(tables)
    key_time = records.column("started_at").cast(pa.int64()).to_numpy()
    key_run = records.column("run_index").to_numpy()
    key_metric = np.concatenate([c.indices.to_numpy() for c in records.column("metric").chunks])
    return records.take(np.lexsort((key_metric, key_run, key_time)))
