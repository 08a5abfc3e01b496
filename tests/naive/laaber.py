"""Slow obvious twins of perfwarehouse.kernels.laaber / perfwarehouse.laaber, and an
independent plain implementation of seed 001's Algorithm 1 (SPEC 5.3).

* The *twins* replay the kernels' random draws (the same splitmix64 stream in
  pure Python integers) and compute everything with numpy/python in the most
  obvious way, so the tests can demand identical numbers.
* :func:`independent_detectable` shares nothing with the package: numpy's own
  generator, fresh draws for every r, slowed copies of the test group, the
  scan rule written out. It agrees with the package only statistically.
* :func:`kinds_campaign` makes synthetic configurations of the kinds the
  laaber-cloud generator plants (stable, noisy, instance-dependent, bimodal,
  heavy-tailed), without using that generator.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
R = (1, 2, 3, 4, 5, 10, 15, 20, 25, 50, 75, 100)


# --------------------------------------------------------------- random stream replay
def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def draw_state(seed: int, key: int, strategy: int, k: int, draw: int) -> int:
    h = mix64((seed + GOLDEN) & MASK)
    h = mix64(h ^ key)
    h = mix64(h ^ ((strategy << 32) | k))
    return mix64(h ^ draw)


class Stream:
    def __init__(self, state: int) -> None:
        self.state = state

    def below(self, n: int) -> int:
        self.state = (self.state + GOLDEN) & MASK
        u = (mix64(self.state) >> 11) * 2.0**-53
        return min(int(u * n), n - 1)

    def choose(self, pool: list[int], m: int) -> list[int]:
        work = list(pool)
        for i in range(m):
            j = i + self.below(len(work) - i)
            work[i], work[j] = work[j], work[i]
        return work[:m]


def draw_groups(stream: Stream, node_trials: list[list[int]], eligible: list[int],
                strategy: str, k: int, per_node: int,
                disjoint: bool) -> tuple[list[int], list[int]]:
    """Trial indices of control and test, with the kernel's order of random calls."""
    if strategy == "trial":
        nodes = stream.choose(eligible, k)
        control: list[int] = []
        test: list[int] = []
        for n in nodes:
            picked = stream.choose(node_trials[n], 2 * per_node)
            control += picked[:per_node]
            test += picked[per_node:]
        return control, test
    if disjoint:
        nodes = stream.choose(eligible, 2 * k)
        control = [node_trials[n][stream.below(len(node_trials[n]))] for n in nodes[:k]]
        test = [node_trials[n][stream.below(len(node_trials[n]))] for n in nodes[k:]]
        return control, test
    control = [node_trials[n][stream.below(len(node_trials[n]))]
               for n in stream.choose(eligible, k)]
    test = [node_trials[n][stream.below(len(node_trials[n]))] for n in stream.choose(eligible, k)]
    return control, test


# ----------------------------------------------------------------------- statistics
def segment_medians(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    return np.array([np.median(values[a:b]) if b > a else np.nan
                     for a, b in zip(offsets[:-1], offsets[1:])])


def segment_moments(values: np.ndarray, offsets: np.ndarray):
    count, mean, sd = [], [], []
    for a, b in zip(offsets[:-1], offsets[1:]):
        x = values[a:b]
        x = x[~np.isnan(x)]
        count.append(len(x))
        mean.append(np.mean(x) if len(x) else np.nan)
        sd.append(np.std(x, ddof=1) if len(x) > 1 else np.nan)
    return np.array(count), np.array(mean), np.array(sd)


def ranksum(x, y) -> tuple[float, float]:
    """Two-sided rank-sum test, normal approximation with tie and continuity correction."""
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    n1, n2 = len(x), len(y)
    pooled = sorted([(v, 0) for v in x] + [(v, 1) for v in y])
    ranks: list[float] = [0.0] * len(pooled)
    ties = 0.0
    i = 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j][0] == pooled[i][0]:
            j += 1
        for m in range(i, j):
            ranks[m] = (i + 1 + j) / 2.0
        t = j - i
        ties += t**3 - t
        i = j
    r1 = sum(r for r, (_v, g) in zip(ranks, pooled) if g == 0)
    u1 = r1 - n1 * (n1 + 1) / 2.0
    u = max(u1, n1 * n2 - u1)
    n = n1 + n2
    var = n1 * n2 / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return u1, 1.0
    z = (u - n1 * n2 / 2.0 - 0.5) / math.sqrt(var)
    return u1, min(1.0, math.erfc(z / math.sqrt(2.0)))


def layout_groups(layout) -> tuple[list[list[int]], list[list[int]]]:
    """node -> its trial indices, configuration -> its node indices (from a Layout)."""
    node_trials = [list(range(a, b))
                   for a, b in zip(layout.node_offsets[:-1], layout.node_offsets[1:])]
    config_nodes = [list(range(a, b))
                    for a, b in zip(layout.config_offsets[:-1], layout.config_offsets[1:])]
    return node_trials, config_nodes


def sample_group_statistics(layout, keys, seed: int, strategy: str, k: int, per_node: int,
                            disjoint: bool, draws: int, with_ranksum: bool):
    """Twin of kernels.sample_group_statistics (eligibility computed here too); gives the
    medians and, with ``with_ranksum``, also the rank-sum p-values of every draw."""
    node_trials, config_nodes = layout_groups(layout)
    code = {"instance": 0, "trial": 1}[strategy]
    min_trials = 2 * per_node if strategy == "trial" else 1
    need = 2 * k if (strategy == "instance" and disjoint) else k
    shape = (len(config_nodes), draws)
    mc, mt, p = np.full(shape, np.nan), np.full(shape, np.nan), np.full(shape, np.nan)

    def pooled(trials):
        return np.concatenate([layout.values[layout.trial_offsets[t]:layout.trial_offsets[t + 1]]
                               for t in trials])

    for c, nodes in enumerate(config_nodes):
        eligible = [n for n in nodes if len(node_trials[n]) >= min_trials]
        if len(eligible) < need:
            continue
        for d in range(draws):
            stream = Stream(draw_state(seed, int(keys[c]), code, k, d))
            control, test = draw_groups(stream, node_trials, eligible, strategy, k, per_node,
                                        disjoint)
            xc, xt = pooled(control), pooled(test)
            mc[c, d], mt[c, d] = np.median(xc), np.median(xt)
            if with_ranksum:
                p[c, d] = ranksum(xc, xt)[1]
    return mc, mt, p


def regression_counts_literal(layout, keys, seed, strategy, k, per_node, hib, draws, r_pct,
                              disjoint=False):
    """FP/TP counts per configuration and r with the slowed test group materialised."""
    node_trials, config_nodes = layout_groups(layout)
    code = {"instance": 0, "trial": 1}[strategy]
    min_trials = 2 * per_node if strategy == "trial" else 1
    fp = np.zeros((len(config_nodes), len(r_pct)), dtype=int)
    tp = np.zeros_like(fp)

    def pooled(trials):
        return np.concatenate([layout.values[layout.trial_offsets[t]:layout.trial_offsets[t + 1]]
                               for t in trials])

    for c, nodes in enumerate(config_nodes):
        eligible = [n for n in nodes if len(node_trials[n]) >= min_trials]
        for d in range(draws):
            stream = Stream(draw_state(seed, int(keys[c]), code, k, d))
            control, test = draw_groups(stream, node_trials, eligible, strategy, k, per_node,
                                        disjoint)
            xc, xt = pooled(control), pooled(test)
            for i, r in enumerate(r_pct):
                slowed = xt / (1 + r / 100) if hib[c] else xt * (1 + r / 100)
                threshold = r / 2 / 100 * abs(np.median(xc))
                fp[c, i] += abs(np.median(xt) - np.median(xc)) > threshold
                tp[c, i] += abs(np.median(slowed) - np.median(xc)) > threshold
    return fp, tp


def scan(passes: list[bool], r_pct) -> float | None:
    """SPEC 5.3: from the largest r down, stop at the first failure; last pass or None."""
    answer = None
    for r, ok in sorted(zip(r_pct, passes), reverse=True):
        if not ok:
            break
        answer = r
    return answer


# ----------------------------------------------------------------------- variability
def variability(values, node, run, outlier_factor=10.0) -> dict:
    """RSDs of one configuration by explicit grouping (dicts of lists)."""
    values = np.asarray(values, dtype=float)
    median = np.median(values)
    keep = values < outlier_factor * median if (outlier_factor > 0 and median > 0) \
        else np.ones(len(values), bool)
    by_node: dict = defaultdict(list)
    by_run: dict = defaultdict(list)
    for v, n, r, ok in zip(values, node, run, keep):
        if ok:
            by_node[n].append(v)
            by_run[(n, r)].append(v)
    kept = values[keep]

    def rsd(x):
        x = np.asarray(x)
        return 100 * np.std(x, ddof=1) / abs(np.mean(x)) if len(x) > 1 else np.nan

    node_rsd = [rsd(x) for x in by_node.values() if len(x) > 1]
    run_rsd = [rsd(x) for x in by_run.values() if len(x) > 1]
    grand = np.mean(kept)
    ss_nodes = sum(len(x) * (np.mean(x) - grand) ** 2 for x in by_node.values())
    ss_runs = sum(len(x) * (np.mean(x) - np.mean(by_node[n])) ** 2 for (n, _r), x in by_run.items())
    ss_within = sum(((np.asarray(x) - np.mean(x)) ** 2).sum() for x in by_run.values())
    total = ss_nodes + ss_runs + ss_within
    return {
        "n_values": len(values), "n_outliers": int((~keep).sum()), "n_nodes": len(by_node),
        "n_runs": len(by_run), "mean": grand, "median": np.median(kept),
        "rsd_total_pct": rsd(kept),
        "rsd_node_mean_pct": np.mean(node_rsd) if node_rsd else np.nan,
        "rsd_node_sd_pct": np.std(node_rsd, ddof=1) if len(node_rsd) > 1 else np.nan,
        "rsd_run_mean_pct": np.mean(run_rsd) if run_rsd else np.nan,
        "rsd_run_sd_pct": np.std(run_rsd, ddof=1) if len(run_rsd) > 1 else np.nan,
        "share_nodes_pct": 100 * ss_nodes / total if total > 0 else np.nan,
        "share_runs_pct": 100 * ss_runs / total if total > 0 else np.nan,
        "share_within_pct": 100 * ss_within / total if total > 0 else np.nan,
    }


# ----------------------------------------------------- independent implementation
def independent_detectable(
    trials_by_node: list[list[np.ndarray]], *, strategy: str, k: int, per_node: int = 5,
    higher_is_better: bool = False, rng: np.random.Generator, draws: int = 100,
    r_pct=R, max_fp: float = 0.05, min_tp: float = 0.95,
) -> float | None | str:
    """Seed 001 Algorithm 1 with SPEC 5.3's scan rule, written out plainly.

    ``trials_by_node[n]`` lists node n's trials as arrays of measurements.
    Returns the minimal detectable r, None (no r passes) or "insufficient".
    Fresh draws for every r (no common random numbers).
    """
    min_trials = 2 * per_node if strategy == "trial" else 1
    eligible = [i for i, trials in enumerate(trials_by_node) if len(trials) >= min_trials]
    if len(eligible) < k:
        return "insufficient"

    def draw():
        if strategy == "trial":
            nodes = rng.choice(eligible, size=k, replace=False)
            control, test = [], []
            for n in nodes:
                order = rng.permutation(len(trials_by_node[n]))[:2 * per_node]
                control += [trials_by_node[n][i] for i in order[:per_node]]
                test += [trials_by_node[n][i] for i in order[per_node:]]
        else:
            control = [trials_by_node[n][rng.integers(len(trials_by_node[n]))]
                       for n in rng.choice(eligible, size=k, replace=False)]
            test = [trials_by_node[n][rng.integers(len(trials_by_node[n]))]
                    for n in rng.choice(eligible, size=k, replace=False)]
        return np.concatenate(control), np.concatenate(test)

    answer = None
    for r in sorted(r_pct, reverse=True):
        fp = tp = 0
        for _ in range(draws):
            control, test = draw()
            slowed = test / (1 + r / 100) if higher_is_better else test * (1 + r / 100)
            m_c = np.median(control)
            if abs(np.median(test) - m_c) > r / 200 * m_c:
                fp += 1
            if abs(np.median(slowed) - m_c) > r / 200 * m_c:
                tp += 1
        if fp <= max_fp * draws and tp >= min_tp * draws:
            answer = r
        else:
            break
    return answer


def remove_outliers(trials_by_node: list[list[np.ndarray]], factor: float = 10.0):
    """Drop values >= factor x the median of all values (seed 001, section 3)."""
    median = np.median(np.concatenate([t for trials in trials_by_node for t in trials]))
    out = []
    for trials in trials_by_node:
        kept = [t[t < factor * median] for t in trials]
        kept = [t for t in kept if len(t)]
        if kept:
            out.append(kept)
    return out


def step(answer, r_pct=R) -> int:
    """Position of an answer on the ordered scale R + ["none"]."""
    ordered = sorted(r_pct)
    return len(ordered) if answer is None else ordered.index(answer)


# ------------------------------------------------------------ synthetic campaigns
KINDS = ("stable", "noisy", "instance-dependent", "bimodal", "heavy-tailed")


@dataclass(frozen=True)
class SyntheticConfig:
    name: str
    kind: str
    higher_is_better: bool
    values: np.ndarray  # (nodes, trials, iterations)

    def flat(self):
        nodes, trials, iters = self.values.shape
        node = np.repeat(np.arange(nodes), trials * iters)
        run = np.repeat(np.arange(nodes * trials), iters)
        return self.values.ravel(), node, run

    def trials_by_node(self) -> list[list[np.ndarray]]:
        return [[trial.copy() for trial in node] for node in self.values]


def kinds_campaign(seed: int, *, per_kind: int = 4, nodes: int = 50, trials: int = 10,
                   iterations: int = 20,
                   higher_is_better_share: float = 0.0) -> list[SyntheticConfig]:
    """Configurations of every instability kind with random parameters (50 nodes by default)."""
    rng = np.random.default_rng(seed)
    out = []
    for kind in KINDS:
        for i in range(per_kind):
            level = rng.uniform(50, 5000)
            noise = rng.uniform(0.1, 0.25) if kind == "noisy" else rng.uniform(0.003, 0.03)
            node_sd = (rng.uniform(0.05, 0.2) if kind == "instance-dependent"
                       else rng.uniform(0.001, 0.01))
            node_factor = 1 + rng.normal(0, node_sd, nodes)
            if kind == "bimodal":
                node_factor *= np.where(rng.random(nodes) < rng.uniform(0.2, 0.5),
                                        rng.uniform(1.1, 1.4), 1.0)
            trial_factor = 1 + rng.normal(0, 0.3 * noise, (nodes, trials))
            it = rng.lognormal(0, noise, (nodes, trials, iterations))
            if kind == "heavy-tailed":
                tail = rng.random(it.shape) < rng.uniform(0.05, 0.15)
                it = it * np.where(tail, 1 + rng.pareto(rng.uniform(1.5, 2.5), it.shape) * 0.3, 1)
            cost = level * node_factor[:, None, None] * trial_factor[:, :, None] * it
            hib = bool(rng.random() < higher_is_better_share)
            values = np.round(1e6 / cost if hib else cost, 4)
            out.append(SyntheticConfig(f"{kind}-{i}", kind, hib, values))
    return out
