"""A synthetic cloud benchmarking study with the shape of Laaber et al. (PeerJ Preprints 2018).

Laaber et al. (PeerJ Preprints 2018), §3: 19 microbenchmarks run on 10 environments (three instance
families on each of three clouds, plus bare metal), 50 instances per
environment, 10 trials per instance, 50 iterations per trial, giving 4.75M
measurements. Every (benchmark, environment) pair gets one of the kinds of
instability the study reports (section 4.1):

* ``stable``: small noise, small instance offsets;
* ``noisy``: large iteration-to-iteration noise;
* ``instance-dependent``: large per-instance offsets (the instance is the main
  source of variability);
* ``bimodal``: instances fall into a fast and a slow group;
* ``long-tailed``: iterations with a heavy right tail (Pareto outliers).

The truth file records the kind and parameters of every pair.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa

from perfwarehouse.generate.trials import Generated, settings_json, values_column

CAMPAIGN = "laaber-cloud"
START = datetime(2017, 3, 1, tzinfo=timezone.utc)
ENVIRONMENTS = (
    ("aws-gp", "m4.large"), ("aws-cpu", "c4.large"), ("aws-mem", "r4.large"),
    ("azure-gp", "D2s_v2"), ("azure-cpu", "F2s"), ("azure-mem", "E2s_v3"),
    ("gce-gp", "n1-standard-2"), ("gce-cpu", "n1-highcpu-2"), ("gce-mem", "n1-highmem-2"),
    ("bm", "bare-metal"),
)
# (name, unit, higher_is_better, base value)
BENCHMARKS = (
    ("log4j2-1", "ns/op", False, 180.0), ("log4j2-2", "ns/op", False, 950.0),
    ("log4j2-3", "ns/op", False, 42.0), ("log4j2-4", "ns/op", False, 3100.0),
    ("log4j2-5", "ops/ms", True, 2200.0), ("rxjava-1", "ns/op", False, 65.0),
    ("rxjava-2", "ns/op", False, 15000.0), ("rxjava-3", "ops/s", True, 8.5e5),
    ("rxjava-4", "ns/op", False, 410.0), ("rxjava-5", "ns/op", False, 2.4e4),
    ("bleve-1", "ns/op", False, 7.2e4), ("bleve-2", "ns/op", False, 1.3e6),
    ("bleve-3", "ns/op", False, 880.0), ("bleve-4", "ns/op", False, 5.1e3),
    ("bleve-5", "ns/op", False, 2.2e5), ("etcd-1", "ns/op", False, 1.9e3),
    ("etcd-2", "ns/op", False, 3.3e4), ("etcd-3", "MB/s", True, 410.0),
    ("etcd-4", "ns/op", False, 760.0),
)
KINDS = ("stable", "noisy", "instance-dependent", "bimodal", "long-tailed")
INSTANCES = 50
TRIALS = 10
ITERATIONS = 50


def generate(seed: int = 1, scale: float = 1.0) -> Generated:
    """Generate the study; ``scale`` scales the number of instances per environment."""
    rng = np.random.default_rng(seed)
    instances = max(2, int(round(INSTANCES * scale)))
    truth: dict[str, Any] = {"generator": "laaber-cloud", "seed": seed, "scale": scale,
                             "campaign": CAMPAIGN, "pairs": []}
    tables = []
    for e, (env, instance_type) in enumerate(ENVIRONMENTS):
        env_noise = 1.0 if env == "bm" else rng.uniform(1.5, 3.0)
        tables.append(_environment(rng, e, env, instance_type, instances, env_noise, truth))
    records = pa.concat_tables(tables)
    truth["counts"] = {"trials": records.num_rows, "measurements": records.num_rows * ITERATIONS,
                       "benchmarks": len(BENCHMARKS), "environments": len(ENVIRONMENTS),
                       "instances_per_environment": instances}
    return Generated(records, truth)


def _environment(
    rng: np.random.Generator, e: int, env: str, instance_type: str, instances: int,
    env_noise: float, truth: dict[str, Any],
) -> pa.Table:
    n_bench = len(BENCHMARKS)
    kinds = rng.choice(len(KINDS), n_bench, p=(0.35, 0.2, 0.2, 0.1, 0.15))
    if env == "bm":
        kinds[:] = 0
    level = np.array([b[3] for b in BENCHMARKS]) * rng.lognormal(0, 0.15, n_bench)
    noise_sd = np.where(kinds == 1, rng.uniform(0.08, 0.2, n_bench),
                        rng.uniform(0.005, 0.02, n_bench) * env_noise)
    instance_sd = np.where(kinds == 2, rng.uniform(0.08, 0.2, n_bench),
                           rng.uniform(0.002, 0.01, n_bench) * env_noise)
    slow_share = rng.uniform(0.2, 0.5, n_bench)
    slow_factor = rng.uniform(1.15, 1.4, n_bench)
    tail_alpha = rng.uniform(1.6, 2.5, n_bench)
    tail_p = rng.uniform(0.05, 0.15, n_bench)
    for b in range(n_bench):
        truth["pairs"].append({
            "benchmark": BENCHMARKS[b][0], "hardware_type": env, "kind": KINDS[kinds[b]],
            "noise_sd_pct": round(100 * noise_sd[b], 3),
            "instance_sd_pct": round(100 * instance_sd[b], 3),
            **({"slow_share": round(slow_share[b], 3), "slow_factor": round(slow_factor[b], 3)}
               if kinds[b] == 3 else {}),
            **({"tail_alpha": round(tail_alpha[b], 3), "tail_p": round(tail_p[b], 3)}
               if kinds[b] == 4 else {}),
        })

    # one record per (instance, trial, benchmark); runs = (instance, trial)
    inst = np.repeat(np.arange(instances), TRIALS * n_bench)
    trial = np.tile(np.repeat(np.arange(TRIALS), n_bench), instances)
    bench = np.tile(np.arange(n_bench), instances * TRIALS)
    n = len(inst)
    offset = rng.normal(0, 1, (instances, n_bench)) * instance_sd[None, :]
    slow = rng.random((instances, n_bench)) < slow_share[None, :]
    instance_factor = (1 + offset) * np.where(slow & (kinds == 3)[None, :], slow_factor[None, :], 1.0)
    trial_factor = 1 + rng.normal(0, 0.3, n) * noise_sd[bench]
    base = level[bench] * instance_factor[inst, bench] * trial_factor
    it_noise = rng.lognormal(0.0, noise_sd[bench][:, None], (n, ITERATIONS))
    tails = (rng.random((n, ITERATIONS)) < tail_p[bench][:, None]) & (kinds[bench] == 4)[:, None]
    it_noise = it_noise * np.where(tails, 1 + rng.pareto(tail_alpha[bench][:, None], (n, ITERATIONS)) * 0.2, 1.0)
    hib = np.array([BENCHMARKS[b][2] for b in bench])
    values = np.where(hib[:, None], base[:, None] / it_noise, base[:, None] * it_noise)
    values = np.round(values, 3)

    # runs execute the 19 benchmarks in a fixed order, one run after another per instance
    duration = 30.0 + 5 * rng.random(n)
    run_start = (inst * TRIALS + trial) * (n_bench * 40.0) + e * 3600.0
    started = (START.timestamp() + run_start + bench * 40.0) * 1e6
    names = np.array([b[0] for b in BENCHMARKS], dtype=object)
    units = np.array([b[1] for b in BENCHMARKS], dtype=object)
    nodes = np.array([f"{env}-i{i:03d}" for i in range(instances)], dtype=object)
    runs = np.array([f"{env}-i{i:03d}-t{t}" for i in range(instances) for t in range(TRIALS)],
                    dtype=object)
    settings = settings_json({"jvm": "openjdk-8", "forks": 1, "iterations": ITERATIONS})
    env_text = settings_json({"cloud": env.split("-")[0], "instance_type": instance_type})
    const = np.zeros(n, dtype=np.int32)
    return pa.table({
        "v": pa.array(np.ones(n, dtype=np.int8)),
        "campaign": pa.array([CAMPAIGN]).take(const),
        "run_id": pa.array(runs[inst * TRIALS + trial], pa.string()),
        "node": pa.array(nodes[inst], pa.string()),
        "hardware_type": pa.array([env]).take(const),
        "run_index": pa.array(trial.astype(np.int32)),
        "order_kind": pa.array(["fixed"]).take(const),
        "seed": pa.array(np.full(n, 0, dtype=np.int64)),
        "position": pa.array(bench.astype(np.int32)),
        "run_size": pa.array(np.full(n, n_bench, dtype=np.int32)),
        "benchmark": pa.array(names[bench], pa.string()),
        "settings": pa.array([settings]).take(const),
        "metric": pa.array(["time" if not h else "throughput" for h in hib], pa.string()),
        "unit": pa.array(units[bench], pa.string()),
        "higher_is_better": pa.array(hib),
        "values": values_column(values.ravel(), ITERATIONS),
        "started_at": pa.array(started.astype(np.int64), pa.timestamp("us", tz="UTC")),
        "duration_s": pa.array(np.round(duration, 3)),
        "status": pa.array(["ok"]).take(const),
        "env": pa.array(np.where(bench == 0, env_text, None), pa.string()),  # type: ignore[call-overload]
    })
