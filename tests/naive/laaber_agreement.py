"""Whole-campaign agreement of the detectable-regression job with the independent plain
implementation (tests/naive/laaber.independent_detectable), on a freshly generated
laaber-cloud campaign (19 benchmarks x 10 environments, 50 instances, 10 trials, 50
iterations). Slow (minutes): the tests run the same check on subsets.

    .venv/bin/python -m tests.naive.laaber_agreement SEED [independent|disjoint]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pyarrow.compute as pc

from perfwarehouse.generate import laaber_cloud
from perfwarehouse.jobs.detectable_regression import DetectableParams, compute_detectable
from tests.naive import laaber as naive
from tests.unit.test_laaber_agreement import CELLS, _explode


def main(seed: int, groups: str = "independent") -> None:
    generated = laaber_cloud.generate(seed=seed, scale=1.0)
    records = generated.records
    rng = np.random.default_rng(seed + 100)
    steps, per_kind, per_cell = [], {}, {}
    start = time.time()
    for pair in generated.truth["pairs"]:
        sub = records.filter(pc.and_(pc.equal(records.column("benchmark"), pair["benchmark"]),
                                     pc.equal(records.column("hardware_type"),
                                              pair["hardware_type"])))
        out = compute_detectable(_explode(sub), DetectableParams(seed=seed,
                                                                 instance_groups=groups))
        ours = {(r["strategy"], r["n_nodes"]): r["detectable_pct"]
                for r in out["detectable_regression"].to_pylist()}
        hib = sub.column("higher_is_better")[0].as_py()
        trials: dict[str, list[np.ndarray]] = {}
        for node, values in zip(sub.column("node").to_pylist(), sub.column("values").to_pylist()):
            trials.setdefault(node, []).append(np.array(values))
        trials_by_node = naive.remove_outliers([trials[n] for n in sorted(trials)])
        for cell in CELLS:
            theirs = naive.independent_detectable(trials_by_node, strategy=cell[0], k=cell[1],
                                                  higher_is_better=hib, rng=rng)
            d = abs(naive.step(ours[cell]) - naive.step(theirs))
            steps.append(d)
            per_kind.setdefault(pair["kind"], []).append(d)
            per_cell.setdefault(cell, []).append(d)
            if d > 1:
                print(f"  {d} steps: {pair['benchmark']} {pair['hardware_type']} "
                      f"({pair['kind']}) {cell}: job {ours[cell]}, independent {theirs}")
    d = np.array(steps)
    print(f"seed {seed}, instance groups {groups}: {len(d)} cells, within one step "
          f"{np.mean(d <= 1):.1%}, identical {np.mean(d == 0):.1%} ({time.time() - start:.0f} s)")
    for name, group in [*per_kind.items(), *per_cell.items()]:
        print(f"  {name}: {len(group)} cells, within one step {np.mean(np.array(group) <= 1):.1%}")


if __name__ == "__main__":
    main(int(sys.argv[1]), *(sys.argv[2:3]))
