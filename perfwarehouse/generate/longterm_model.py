"""The model of the long-term campaign (:mod:`perfwarehouse.generate.ordersage_longterm`):
its hardware types, benchmarks and tests, what is planted on each hardware type
(:class:`Model`), its runs (:class:`Runs`) and their trials as native records.

Pure functions of a :class:`numpy.random.Generator`: the caller decides the order of the
draws (the campaign draws every hardware type from one generator; an extension draws each
new day from a generator of its own, :func:`~perfwarehouse.generate.ordersage_longterm.extend`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.generate.trials import settings_json, values_column

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


@dataclass(frozen=True)
class Model:
    """What is planted on one hardware type: levels, noise, order effects, drift and
    seasonality (drawn before its runs; fixed for the whole campaign and its extensions)."""

    h: int
    hw: str
    n_nodes: int
    env: str
    tests: list[Test]
    test_of_config: np.ndarray  # configuration c belongs to test test_of_config[c]
    metric_names: list[str]
    hw_factor: float
    test_level: np.ndarray
    config_level: np.ndarray
    noise_sd: np.ndarray
    tail_p: np.ndarray
    node_sd: float
    node_offset: np.ndarray
    position_gamma: np.ndarray
    polluters: np.ndarray
    polluter_delta: np.ndarray
    drift: np.ndarray  # % per 30 days, per configuration
    season: tuple[float, float, float, float]  # daily and weekly amplitude, their phases

    @property
    def n_tests(self) -> int:
        return len(self.tests)

    @property
    def bench_of_test(self) -> np.ndarray:
        return np.array([t.bench for t in self.tests])

    @property
    def kind_memory(self) -> np.ndarray:
        return np.array([BENCHMARKS[t.bench][1] == "memory" for t in self.tests])


def draw_model(rng: np.random.Generator, h: int, hardware: tuple[Any, ...]) -> Model:
    """The :class:`Model` of hardware type ``h`` (a row of :data:`HARDWARE`)."""
    hw, n_nodes, sockets, cores, memory, cpu = hardware
    tests = _tests_for(CONFIGS_PER_TYPE[h], sockets, cores)
    n_tests = len(tests)
    metrics_of_test = [BENCHMARKS[t.bench][2] for t in tests]
    n_metrics = np.array([len(m) for m in metrics_of_test])
    test_of_config = np.repeat(np.arange(n_tests), n_metrics)
    n_configs = len(test_of_config)
    kind_memory = np.array([BENCHMARKS[t.bench][1] == "memory" for t in tests])

    # --- levels and noise -------------------------------------------------
    hw_factor = rng.lognormal(0.0, 0.3)
    test_level = np.array([
        BENCHMARKS[t.bench][5] * _threads_factor(t, BENCHMARKS[t.bench][4]) for t in tests
    ]) * hw_factor * rng.lognormal(0.0, 0.1, n_tests)
    metric_level = np.concatenate([1.0 + 0.15 * np.arange(k) for k in n_metrics])
    noise_sd = rng.uniform(0.003, 0.04, n_configs)
    tail_p = rng.uniform(0.0, 0.06, n_configs)
    node_sd = rng.uniform(0.005, 0.03)
    node_offset = rng.normal(0.0, node_sd, n_nodes)

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
    env = settings_json({"cpu_model": cpu, "memory": memory, "kernel": "5.4.0-100-generic",
                         "os": "Ubuntu 20.04 LTS"})
    return Model(h, hw, n_nodes, env, tests, test_of_config, [m for ms in metrics_of_test for m in ms],
                 hw_factor, test_level, test_level[test_of_config] * metric_level, noise_sd,
                 tail_p, node_sd, node_offset, position_gamma, polluters, polluter_delta, drift,
                 (season_daily, season_weekly, phase_d, phase_w))


@dataclass(frozen=True)
class Runs:
    """Runs of one hardware type: start (s after :data:`START`), node, fixed or random
    order, the seed of the shuffle, and ``order[r, position]`` = the test there."""

    starts: np.ndarray
    node: np.ndarray
    is_random: np.ndarray
    seeds: np.ndarray
    order: np.ndarray


def draw_runs(rng: np.random.Generator, m: Model, n_runs: int, t0: float, t1: float) -> Runs:
    """``n_runs`` runs starting uniformly in [t0, t1) seconds, each fixed or freshly
    shuffled order with equal probability."""
    starts = np.sort(rng.uniform(t0, t1, n_runs))
    run_node = rng.integers(0, m.n_nodes, n_runs)
    is_random = rng.random(n_runs) < 0.5
    seeds = rng.integers(0, 2**31 - 1, n_runs)
    order = np.empty((n_runs, m.n_tests), dtype=np.int64)
    for r in range(n_runs):
        order[r] = (
            np.random.default_rng(int(seeds[r])).permutation(m.n_tests) if is_random[r]
            else np.arange(m.n_tests)
        )
    return Runs(starts, run_node, is_random, seeds, order)


def trials_table(rng: np.random.Generator, m: Model, runs: Runs, run_names: list[str]) -> pa.Table:
    """One record per (run, configuration) of type ``m``'s ``runs``, in native columns;
    ``run_index`` is the run's rank in ``runs`` (made campaign-wide by the caller)."""
    n_runs, n_tests = len(runs.starts), m.n_tests
    n_configs = len(m.test_of_config)
    order, kind_memory, bench_of_test = runs.order, m.kind_memory, m.bench_of_test
    position_of = np.empty_like(order)
    rows = np.arange(n_runs)[:, None]
    position_of[rows, order] = np.arange(n_tests)[None, :]
    predecessor = np.full_like(order, -1)
    predecessor[:, 1:] = order[:, :-1]

    run_of = np.repeat(np.arange(n_runs), n_configs)
    config_of = np.tile(np.arange(n_configs), n_runs)
    test_of = m.test_of_config[config_of]
    pos = position_of[run_of, test_of]
    pred = predecessor[run_of, pos]
    # trial durations and start times: the run's tests run back to back
    test_duration = np.clip(np.where(kind_memory, 12.0, m.test_level / m.hw_factor / 2), 2, 600)
    dur_in_order = test_duration[order] * rng.lognormal(0, 0.05, order.shape)
    elapsed = np.cumsum(dur_in_order, axis=1) - dur_in_order
    t = runs.starts[run_of] + elapsed[run_of, pos] + 5.0 * pos
    days = t / DAY_S

    rel_pos = pos / max(n_tests - 1, 1)
    order_effect = m.position_gamma[test_of] * (0.5 - rel_pos)
    for p, d in zip(m.polluters, m.polluter_delta):
        order_effect = order_effect - d * (pred == p)
    season_daily, season_weekly, phase_d, phase_w = m.season
    env_effect = (
        m.node_offset[runs.node[run_of]]
        + rng.normal(0, 0.003, n_runs)[run_of]
        + m.drift[config_of] / 100 * days / 30
        + season_daily * np.sin(2 * np.pi * days + phase_d)
        + season_weekly * np.sin(2 * np.pi * days / 7 + phase_w)
    )
    # "good" factor > 1 means better performance; map to the metric direction
    noise = rng.lognormal(0.0, m.noise_sd[config_of])
    tail = 1.0 + (rng.random(len(config_of)) < m.tail_p[config_of]) * rng.exponential(
        8 * m.noise_sd[config_of]
    )
    good = (1.0 + order_effect) * (1.0 + env_effect) / tail
    hib_config = np.array([BENCHMARKS[bench_of_test[t]][4] for t in m.test_of_config])
    hib = hib_config[config_of]
    value = np.round(m.config_level[config_of] * np.where(hib, good, 1.0 / good) * noise, 4)

    # --- table (dictionary-encoded strings: no per-row Python objects) ---------
    first = (pos == 0) & (config_of == m.test_of_config.searchsorted(test_of, side="left"))
    started = (START.timestamp() + t) * 1e6
    n = len(run_of)
    return pa.table({
        "v": pa.array(np.ones(n, dtype=np.int8)),
        "campaign": labels(np.zeros(n), [CAMPAIGN]),
        "run_id": labels(run_of, run_names),
        "node": labels(runs.node[run_of], [f"{m.hw}-{i + 1:06d}" for i in range(m.n_nodes)]),
        "hardware_type": labels(np.zeros(n), [m.hw]),
        "run_index": pa.array(run_of.astype(np.int32)),  # local; made campaign-wide later
        "order_kind": labels(runs.is_random[run_of], ["fixed", "random"]),
        "seed": pa.array(runs.seeds[run_of].astype(np.int64)),
        "position": pa.array(pos.astype(np.int32)),
        "run_size": pa.array(np.full(n, n_configs, dtype=np.int32)),
        "benchmark": labels(bench_of_test[test_of], [b[0] for b in BENCHMARKS]),
        "settings": labels(test_of, [settings_json(t.settings) for t in m.tests]),
        "metric": labels(config_of, m.metric_names),
        "unit": labels(bench_of_test[test_of], [b[3] for b in BENCHMARKS]),
        "higher_is_better": pa.array(hib),
        "values": values_column(value, 1),
        "started_at": pa.array(started.astype(np.int64), pa.timestamp("us", tz="UTC")),
        "duration_s": pa.array(np.round(dur_in_order[run_of, pos], 3)),
        "status": labels(np.zeros(n), ["ok"]),
        "env": labels(np.zeros(n), [m.env], valid=first),
    })


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
