"""The mixing detectors (perfwarehouse/stats/mixing.py): they fire on the shapes of issue
39 and name the separating key, and stay quiet on clean series (stationary, stepped,
drifting, seasonal)."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.stats import mixing


def _naive_split(values: np.ndarray, min_size: int) -> tuple[float, int]:
    """The best two-group cut by brute force: (score, size of the lower group)."""
    x = np.sort(np.log(values))
    best = (-1.0, 0)
    for k in range(min_size, x.size - min_size + 1):
        lo, hi = x[:k], x[k:]
        within = ((lo - lo.mean()) ** 2).sum() + ((hi - hi.mean()) ** 2).sum()
        sd = np.sqrt(within / (x.size - 2))
        score = (x[k] - x[k - 1]) / sd
        if score > best[0]:
            best = (score, k)
    return best


@pytest.mark.parametrize("seed", range(5))
def test_the_vectorised_split_agrees_with_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    v = np.exp(rng.normal(size=40) + np.repeat([0.0, 0.4 * seed], 20))
    split = mixing.best_split(v, 2, 4)
    score, k = _naive_split(v, 4)
    assert split is not None
    assert split.gap_sd == pytest.approx(score)
    assert split.sizes == (k, 40 - k)
    # three groups by the general path: the two-group cut is one of its candidates' kind
    assert mixing.best_split(v, 3, 2) is not None


@pytest.mark.parametrize("seed", range(6))
def test_a_splits_medians_are_its_groups_medians(seed: int) -> None:
    rng = np.random.default_rng(seed)
    v = np.concatenate([rng.normal(10, 1, 7 + seed), rng.normal(30, 1, 9)])
    if seed % 2:
        v = -v  # no logs: the raw values' order
    for groups in (2, 3):
        split = mixing.best_split(v, groups, 2)
        assert split is not None
        assert split.medians == tuple(float(np.median(v[split.labels == g]))
                                      for g in range(groups))


def _naive_same_instant(started: np.ndarray, runs: list, revisions: list,
                        nodes: list | None) -> tuple[int, int]:
    """(instants holding several runs or revisions, instants), by counting per (node,
    start time)."""
    seen: dict[tuple, tuple[set, set]] = {}
    for i, t in enumerate(started):
        if np.isfinite(t):
            node = None if nodes is None else nodes[i]
            here = seen.setdefault((node, float(t)), (set(), set()))
            here[0].add(runs[i])
            here[1].add(revisions[i])
    return sum(len(r) > 1 or len(v) > 1 for r, v in seen.values()), len(seen)


@pytest.mark.parametrize("seed", range(40))
def test_same_instant_fires_exactly_when_the_counted_rule_says(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    started = rng.integers(0, max(2, n // 2 + int(rng.integers(0, 20))), n).astype(float)
    started[rng.random(n) < 0.2] = np.nan
    runs = [f"r{x}" for x in rng.integers(0, 3 if seed % 3 else 40, n)]
    revisions = [None if x == 0 else f"v{x}" for x in rng.integers(0, 2, n)]
    nodes = None if seed % 4 == 0 else [["a", "b", None][x] for x in rng.integers(0, 3, n)]
    shared, instants = _naive_same_instant(started, runs, revisions, nodes)
    fires = shared >= mixing.SHARED_INSTANTS and shared >= mixing.SHARED_FRACTION * instants
    found = mixing.same_instant(started, runs, revisions, nodes)
    assert (found is not None) == fires
    if found is not None:
        assert found[:2] == (shared, instants)
        assert (found[2][np.isnan(started)] == -1).all()


def test_same_instant_fires_on_tip_and_baseline_nights_and_names_the_toolchain() -> None:
    rng = np.random.default_rng(1)
    nights = np.repeat(np.arange(12.0), 10)  # 5 trials of each toolchain per night
    runs = [f"night{int(n)}-{'b' if j % 10 < 5 else 'e'}" for j, n in enumerate(nights)]
    toolchain = ["baseline" if j % 10 < 5 else "experiment" for j in range(nights.size)]
    values = 100 * (1 + 0.01 * rng.normal(size=nights.size))
    found = mixing.detect_series(values, nights, runs, [None] * nights.size,
                                 ["node1"] * nights.size,
                                 {"attribute toolchain": toolchain,
                                  "attribute line": list(range(nights.size))})
    assert found is not None and found.kind == "same instant"
    assert found.key == "attribute toolchain"
    assert "12 of 12 start times" in found.text


def test_one_run_per_start_time_and_a_fleet_on_one_schedule_are_not_mixed() -> None:
    t = np.arange(30.0)
    assert mixing.same_instant(t, list(range(30)), [None] * 30) is None
    # two nodes of a hardware type starting together: each node has one run per time
    both = np.repeat(t, 2)
    runs = [f"r{i}" for i in range(60)]
    nodes = ["a", "b"] * 30
    assert mixing.same_instant(both, runs, [None] * 60, nodes) is None
    assert mixing.same_instant(both, runs, [None] * 60) is not None  # without nodes it would


def test_interleaved_runners_fire_and_the_cpu_separates_them() -> None:
    rng = np.random.default_rng(2)
    runner = np.tile([0, 1], 25)
    values = np.where(runner == 1, 2.232, 1.0) * (1 + 0.01 * rng.normal(size=50))
    cpu = np.where(runner == 1, "AMD EPYC 7763", "Xeon 8370C").tolist()
    found = mixing.detect_series(values, np.arange(50.0), list(range(50)), list(range(50)),
                                 ["ubuntu-22.04"] * 50, lambda: {"attribute cpu": cpu})
    assert found is not None and found.kind == "interleaved"
    assert found.key == "attribute cpu"
    assert "49 alternations" in found.text
    # without a key: it still fires and says no attribute separates them
    bare = mixing.detect_series(values, np.arange(50.0), list(range(50)), list(range(50)),
                                ["ubuntu-22.04"] * 50, {})
    assert bare is not None and bare.key is None and "no attribute" in bare.text


def test_two_nodes_of_a_hardware_type_with_an_offset_are_not_interleaved() -> None:
    rng = np.random.default_rng(3)
    node = np.tile(["n1", "n2"], 30)
    values = np.where(node == "n2", 1.3, 1.0) * (1 + 0.005 * rng.normal(size=60))
    assert mixing.interleaved(values) is not None  # one series would look mixed
    assert mixing.detect_series(values, np.arange(60.0), list(range(60)), list(range(60)),
                                node.tolist(), {}) is None  # but each node is clean


@pytest.mark.parametrize("shape", ["step", "step and fix", "drift", "daily cycle", "t noise"])
def test_clean_shapes_do_not_fire(shape: str) -> None:
    rng = np.random.default_rng(4)
    n = 300
    t = np.arange(n) / 24.0
    noise = rng.standard_t(3, n) if shape == "t noise" else rng.normal(size=n)
    level = {"step": np.where(np.arange(n) >= 150, 1.4, 1.0),
             "step and fix": np.where((np.arange(n) >= 100) & (np.arange(n) < 200), 1.4, 1.0),
             "drift": 1 + 0.002 * np.arange(n),
             "daily cycle": 1 + 0.1 * np.sin(2 * np.pi * t),
             "t noise": np.ones(n)}[shape]
    values = 100 * level * (1 + 0.01 * noise)
    assert mixing.detect_series(values, t, list(range(n)), list(range(n)), ["n"] * n,
                                {}) is None


def test_clean_series_fire_on_at_most_one_percent() -> None:
    """The acceptance: 200 clean series (stationary, stepped, drifting, seasonal, heavy
    tails), at most 1 % flagged."""
    rng = np.random.default_rng(39)
    fired = 0
    for k in range(200):
        n = int(rng.integers(20, 300))
        i = np.arange(n)
        noise = rng.standard_t(3, n) if k % 5 == 4 else rng.normal(size=n)
        level = [np.ones(n), np.where(i >= n // 2, 1 + rng.uniform(0.02, 0.5), 1.0),
                 1 + rng.uniform(0, 0.3) * i / n, 1 + 0.05 * np.sin(2 * np.pi * i / 24),
                 np.ones(n)][k % 5]
        values = 100 * level * (1 + rng.uniform(0.005, 0.1) * noise)
        fired += mixing.detect_series(values, i / 24.0, list(i), list(i), ["n"] * n,
                                      {}) is not None
    assert fired <= 2


def test_the_separating_key_is_constant_within_groups_and_skips_per_trial_keys() -> None:
    groups = np.array([0, 0, 0, 1, 1, 1])
    assert mixing.separating_key(groups, {"line": [1, 2, 3, 4, 5, 6],
                                          "host": ["a", "a", "a", "b", "b", "b"]}) == "host"
    assert mixing.separating_key(groups, {"host": ["a", "b", "a", "b", "a", "b"]}) is None
    assert mixing.separating_key(groups, {"host": ["a", "a", "a", "a", "a", "a"]}) is None
    assert mixing.separating_key(groups, {"run": list("abcdef")}) is None  # unique per trial


def test_load_levels_of_three_servers_are_mixed_and_clean_levels_are_not() -> None:
    rng = np.random.default_rng(5)
    servers = np.repeat([3950.0, 5930.0, 7900.0], 3)
    mixed = [servers * f * (1 + 0.008 * rng.normal(size=9)) for f in (0.2, 0.5, 0.8, 1.0)]
    n, eligible, splits = mixing.mixed_levels(mixed)
    assert (n, eligible) == (4, 4) and mixing.family_is_mixed(n, eligible)
    assert all(s is not None and len(s.sizes) == 3 for s in splits)
    clean = [1000 * f * (1 + 0.05 * rng.normal(size=9)) for f in (0.2, 0.5, 0.8, 1.0)]
    n, eligible, _ = mixing.mixed_levels(clean)
    assert not mixing.family_is_mixed(n, eligible)
    # three trials per level cannot show groups (two of >= 2 need 4)
    assert mixing.mixed_levels([np.array([1.0, 2.0, 3.0])])[:2] == (0, 0)


def test_family_rule() -> None:
    assert mixing.family_is_mixed(1, 1) and mixing.family_is_mixed(2, 4)
    assert not mixing.family_is_mixed(1, 4) and not mixing.family_is_mixed(1, 2)
    assert not mixing.family_is_mixed(0, 0)
