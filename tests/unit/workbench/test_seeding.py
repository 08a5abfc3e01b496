"""Seeding from the nearest finished sample (numeric settings only, categorical must agree)."""

from __future__ import annotations

import itertools

import numpy as np

from perfwarehouse.workbench import nearest_seed


def test_nearest_by_scaled_numeric_distance() -> None:
    samples = [({"disks": 1, "nfsd": 16, "fs": "ext4"}, 300.0),
               ({"disks": 4, "nfsd": 16, "fs": "ext4"}, 900.0),
               ({"disks": 4, "nfsd": 64, "fs": "ext4"}, 1200.0),
               ({"disks": 4, "nfsd": 32, "fs": "xfs"}, 5000.0)]
    choice = nearest_seed({"disks": 4, "nfsd": 32, "fs": "ext4"}, samples, 50.0)
    # distances scaled by range: nfsd 16 vs 64 are 16/48 and 32/48 away; disks equal
    assert choice.load == 900.0 and choice.source == samples[1][0]
    assert "nfsd=16" in choice.note


def test_default_when_nothing_is_comparable() -> None:
    samples = [({"disks": 1, "fs": "xfs"}, 300.0), ({"disks": 1}, 200.0),
               ({"disks": "many", "fs": "ext4"}, 100.0), ({"disks": 2, "fs": "ext4"}, float("nan"))]
    choice = nearest_seed({"disks": 4, "fs": "ext4"}, samples, 50.0)
    assert (choice.load, choice.source, choice.distance) == (50.0, None, None)
    assert "default seed" in choice.note


def test_matches_brute_force_on_random_grids() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        grid = list(itertools.product([1, 2, 4, 8], [10, 100, 1000]))
        picks = rng.choice(len(grid), size=5, replace=False)
        samples = [({"a": grid[i][0], "b": str(grid[i][1])}, float(10 + i)) for i in picks]
        target = {"a": int(rng.choice([1, 2, 4, 8])), "b": str(int(rng.choice([10, 100, 1000])))}
        values_a = [target["a"]] + [s["a"] for s, _ in samples]
        values_b = [float(target["b"])] + [float(s["b"]) for s, _ in samples]
        sa = (max(values_a) - min(values_a)) or 1
        sb = (max(values_b) - min(values_b)) or 1

        def d(s: dict) -> float:
            return (((s["a"] - target["a"]) / sa) ** 2
                    + ((float(s["b"]) - float(target["b"])) / sb) ** 2) ** 0.5

        best = min(range(len(samples)), key=lambda k: (d(samples[k][0]), k))
        assert nearest_seed(target, samples, 1.0).load == samples[best][1]
