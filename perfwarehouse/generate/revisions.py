"""A campaign over revisions with planted changes (for compare and change points).

Each revision r (``r000``, ``r001``, ...; revision time = 2024-01-01 + r days) gets
``trials`` runs; a run executes every benchmark once (one value per trial). Benchmark b's
value is its base level x the product of the factors of its planted steps in force at that
revision x exp(N(0, noise)). Benchmarks with ``b % 5 == 4`` report a throughput
(higher is better), the others a runtime; a planted *slowdown* of s multiplies a runtime by
1 + s and divides a throughput by 1 + s. Pure: returns native trial-log records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np


def is_throughput(benchmark: int) -> bool:
    return benchmark % 5 == 4


def revision_records(*, campaign: str = "revisions", benchmarks: int = 100, revisions: int = 2,
                     trials: int = 20, noise: float = 0.01,
                     slowdowns: Mapping[int, Sequence[tuple[int, float]]] | None = None,
                     seed: int = 1, hardware_type: str = "c220g2") -> list[dict[str, Any]]:
    """Records of the campaign. ``slowdowns[b] = [(first revision, s), ...]``: from that
    revision on, benchmark b is slower by the fraction s (0.05 = 5 %; negative = faster)."""
    rng = np.random.default_rng(seed)
    slowdowns = slowdowns or {}
    base = rng.uniform(1.0, 100.0, benchmarks)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out: list[dict[str, Any]] = []
    run_index = 0
    for r in range(revisions):
        rev_time = start + timedelta(days=r)
        factor = np.ones(benchmarks)
        for b, steps in slowdowns.items():
            for first, s in steps:
                if r >= first:
                    factor[b] *= 1.0 + s
        for t in range(trials):
            run_start = rev_time + timedelta(hours=1, minutes=t * 10)
            noise_draw = np.exp(rng.normal(0.0, noise, benchmarks))
            for b in range(benchmarks):
                throughput = is_throughput(b)
                level = base[b] / factor[b] if throughput else base[b] * factor[b]
                out.append({
                    "v": 1, "campaign": campaign, "run_id": f"r{r:03d}-t{t:03d}",
                    "node": f"{hardware_type}-{t % 4:06d}", "hardware_type": hardware_type,
                    "run_index": run_index, "order_kind": "fixed", "seed": seed,
                    "position": b, "run_size": benchmarks, "benchmark": f"bench{b:03d}",
                    "settings": {}, "metric": "throughput" if throughput else "runtime",
                    "unit": "ops/s" if throughput else "s", "higher_is_better": throughput,
                    "values": [float(level * noise_draw[b])],
                    "started_at": (run_start + timedelta(seconds=b)).isoformat()
                    .replace("+00:00", "Z"),
                    "status": "ok", "revision": f"r{r:03d}",
                    "revision_time": rev_time.isoformat().replace("+00:00", "Z"),
                })
            run_index += 1
    return out
