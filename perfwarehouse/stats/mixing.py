"""Mixing detectors: a series or a load level that holds what should be apart.

A change-point series or a load level is meant to hold repetitions of one thing. When two
machines, two toolchains or two servers feed it, its values come in groups and every
statistic on it (a change point, a peak) answers a question nobody asked. Three rules,
each flags and, where it can, names the key that separates the groups:

* :func:`same_instant` (change-point series): several runs or revisions of one series at
  one start time. One run's trials share its start, two runs do not, unless two things
  were measured together (Go's benchseries runs tip and a fixed baseline toolchain each
  night under one ``runstamp``). Fires when at least :data:`SHARED_INSTANTS` start times
  and at least :data:`SHARED_FRACTION` of them hold trials of two or more runs or
  revisions. A clean series (one run per start time) never fires, whatever its values.
* :func:`interleaved` (change-point series): two interleaved sequences (two runners
  that both call themselves ``ubuntu-22.04``): the values, on the log scale when all are
  positive, of one node with at least :data:`INTERLEAVED_POINTS` points, split into two
  groups whose gap is more than :data:`SERIES_GAP` pooled
  within-group standard deviations (each group at least 3 points and 10 % of the
  series) and that alternate in the series' order at least :data:`SWITCHES` times and
  at least once per three points of the smaller group (a step, or a step and its fix,
  switches once or twice). Tested within each node: the nodes of a hardware type are
  meant to share a series, two runners under one node name are not.
* :func:`mixed_levels` (load levels): repetitions of one load level that disagree far
  beyond their own spread: the values split into 2 or 3 groups of >= 2 trials whose
  smallest gap is more than :data:`LEVEL_GAP` pooled within-group SDs and at least
  :data:`LEVEL_MIN_GAP` relative; a family is mixed when at least half of its levels
  with >= 4 trials are (and at least two, when two or more are eligible).

:func:`separating_key` names the candidate key (an attribute, the revision, the node)
whose values are constant within each group and differ between them.

Assumptions: within one group the values are roughly normal on the log scale (run-to-run
noise); a smooth drift or a cycle moves values continuously and leaves no gap. Thresholds
were measured (``benchmarks/mixing_calibration.py``): on stationary normal, lognormal and
Student-t (3 dof) series of 20-400 points, on series with one or two steps of 2-50 %, and
on the long-term generator's series, :func:`interleaved` fired on none of 2,000 synthetic
and 886 generator series (scale 0.05; at scale 0.2 with a 6-point minimum, 1 of 1,661 on
an 11-point node series, hence :data:`INTERLEAVED_POINTS`); the
99.9th percentile of the gap statistic of the generator's per-node series was 4.5 at
scale 0.05 and 6.6 at 0.2 (threshold 6: the alternation rule keeps those apart; 0 of
5,915 fired), and a real two-group mixture (the issue's +123 %) scores in the tens. For load levels,
clean families of 4-10 levels of 4-10 trials (CV 1-20 %, normal and t noise): the
family-level rate at :data:`LEVEL_GAP` = 5 was below 0.5 %.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

#: fewest start times shared by several runs (or revisions) for :func:`same_instant`
SHARED_INSTANTS = 3
#: least fraction of a series' start times shared by several runs
SHARED_FRACTION = 0.2
#: least gap between the two groups of :func:`interleaved`, in pooled within-group SDs
SERIES_GAP = 6.0
#: fewest alternations between the groups in series order for :func:`interleaved`
SWITCHES = 6
#: fewest points of one node's series for :func:`interleaved` (fewer: an order effect or
#: a noisy neighbour on a short series looked alike; 1 of 1,661 generator series at 11)
INTERLEAVED_POINTS = 16
#: least gap between the groups of a load level, in pooled within-group SDs
LEVEL_GAP = 5.0
#: least relative gap between the groups of a load level (0.05 = 5 %)
LEVEL_MIN_GAP = 0.05
#: attribute keys that are one trial's own (never a separating key)
PER_TRIAL_KEYS = frozenset({"line", "iterations", "intervals", "threads", "started_at",
                            "benchmark_duration_s", "duration_s", "position"})


@dataclass(frozen=True)
class Split:
    """A partition of values into contiguous (sorted) groups: ``labels`` per value (0 =
    lowest group), ``gap_sd`` = smallest gap between neighbouring groups over the pooled
    within-group SD (inf when the groups have no spread), ``gap_rel`` = that gap relative
    to the lower group's top value (on the original scale), ``sizes`` per group;
    ``ordered``: the values in the split's order, group after group, from which
    :attr:`medians` are taken when asked (most splits are judged and dropped unread)."""

    labels: np.ndarray
    gap_sd: float
    gap_rel: float
    sizes: tuple[int, ...]
    ordered: np.ndarray = field(repr=False)

    @property
    def medians(self) -> tuple[float, ...]:
        """Each group's median, on the original scale."""
        bounds = np.concatenate([[0], np.cumsum(self.sizes)])
        return tuple(float(np.median(self.ordered[a:b])) for a, b in zip(bounds, bounds[1:]))


@dataclass(frozen=True)
class Mixing:
    """A flagged series: ``kind`` (``same instant``, ``interleaved``, ``repetitions``),
    the groups' labels per value (None for same instant), the separating key (None when
    no candidate separates them) and one sentence."""

    kind: str
    labels: np.ndarray | None
    key: str | None
    text: str


def _scale(values: np.ndarray) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    return np.log(v) if v.size and (v > 0).all() else v


def best_split(values: np.ndarray, groups: int = 2, min_size: int = 2) -> Split | None:
    """The partition of ``values`` into ``groups`` contiguous groups (in sorted order) of
    at least ``min_size`` values that maximises the smallest gap between neighbours in
    pooled within-group SDs (log scale when every value is positive); None when too few.
    Two groups: every cut, O(n log n); more: every combination of cuts (small n)."""
    raw = np.asarray(values, dtype=np.float64)
    n = raw.size
    if n < groups * min_size or groups < 2:
        return None
    x = _scale(raw)
    order = np.argsort(x, kind="stable")
    s = x[order]
    c1 = np.concatenate([[0.0], np.cumsum(s)])
    c2 = np.concatenate([[0.0], np.cumsum(s * s)])

    def ss(a: int, b: int) -> float:  # sum of squares of s[a:b] about its mean
        m = b - a
        return float(c2[b] - c2[a] - (c1[b] - c1[a]) ** 2 / m)

    cuts_all = range(min_size, n - min_size + 1)
    dof = n - groups
    if groups == 2:  # every cut at once
        ks = np.arange(min_size, n - min_size + 1)
        left = c2[ks] - c1[ks] ** 2 / ks
        right = (c2[n] - c2[ks]) - (c1[n] - c1[ks]) ** 2 / (n - ks)
        sds = np.sqrt(np.maximum(left + right, 0.0) / dof)
        gaps = s[ks] - s[ks - 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = np.where(sds > 0, gaps / np.where(sds > 0, sds, 1.0),
                              np.where(gaps > 0, np.inf, 0.0))
        candidates: Sequence[tuple[int, ...]] = [(int(ks[int(np.argmax(scores))]),)]
    else:
        candidates = [c for c in combinations(cuts_all, groups - 1)
                      if all(b - a >= min_size for a, b in zip((0, *c), (*c, n)))]
    best: tuple[float, tuple[int, ...]] | None = None
    for cuts in candidates:
        bounds = (0, *cuts, n)
        within = sum(ss(a, b) for a, b in zip(bounds, bounds[1:]))
        sd = float(np.sqrt(max(within, 0.0) / dof)) if dof > 0 else 0.0
        gap = float(min(s[k] - s[k - 1] for k in cuts))
        score = gap / sd if sd > 0 else (float("inf") if gap > 0 else 0.0)
        if best is None or score > best[0]:
            best = (float(score), cuts)
    if best is None:
        return None
    score, cuts = best
    bounds = (0, *cuts, n)
    labels = np.empty(n, dtype=np.int64)
    for g, (a, b) in enumerate(zip(bounds, bounds[1:])):
        labels[order[a:b]] = g
    rs = raw[order]
    rel = min((rs[k] - rs[k - 1]) / abs(rs[k - 1]) if rs[k - 1] else np.inf for k in cuts)
    return Split(labels, score, float(rel), tuple(b - a for a, b in zip(bounds, bounds[1:])), rs)


def separating_key(groups: np.ndarray, candidates: Mapping[str, Sequence[object]],
                   agreement: float = 0.95) -> str | None:
    """The candidate key whose values are constant within each group of ``groups`` (an
    integer label per value, -1 = not in a group) and differ between groups, for at least
    ``agreement`` of the labelled values; the one with fewest distinct values, else None.
    Keys of :data:`PER_TRIAL_KEYS` and keys missing on more than 5 % of values are not
    candidates."""
    g = np.asarray(groups)
    mask = g >= 0
    n = int(mask.sum())
    found: list[tuple[int, str]] = []
    for key, column in candidates.items():
        if key in PER_TRIAL_KEYS:
            continue
        vals = [None if v is None else str(v) for v, m in zip(column, mask) if m]
        labels = g[mask]
        if n == 0 or sum(v is None for v in vals) > 0.05 * n:
            continue
        distinct = {v for v in vals if v is not None}
        if len(distinct) < 2 or len(distinct) > max(2, n // 2):
            continue
        # each value's majority group; the key separates when the values agree with it
        # and every group has its own values
        owner: dict[str, int] = {}
        for v in distinct:
            counts = np.bincount(labels[[x == v for x in vals]])
            owner[v] = int(np.argmax(counts))
        agree = sum(1 for v, lab in zip(vals, labels) if v is not None and owner[v] == lab)
        if agree >= agreement * n and len(set(owner.values())) == len(np.unique(labels)):
            found.append((len(distinct), key))
    return min(found)[1] if found else None


def same_instant(started: np.ndarray, runs: Sequence[object], revisions: Sequence[object],
                 nodes: Sequence[object] | None = None) -> tuple[int, int, np.ndarray] | None:
    """(shared start times, start times, group label per trial) when several runs or
    revisions of one series share start times on one node (see the module), else None.
    ``started``: start times as numbers (NaN: none); the labels number each trial's run
    within its start time (0, 1, ... by first appearance; -1 where it is not shared).
    Several nodes starting together (a fleet on one schedule) are not a mixing."""
    t = np.asarray(started, dtype=np.float64)
    finite = np.isfinite(t)
    ok = np.flatnonzero(finite)
    node_list = [None] * t.size if nodes is None else nodes
    columns: tuple[Sequence[object], ...] = (node_list, t.tolist(), runs, revisions)
    if not finite.all():
        columns = tuple([column[i] for i in ok.tolist()] for column in columns)
    instants = set(zip(columns[0], columns[1]))
    if len(instants) == len(set(zip(*columns))):
        return None  # one run and revision per start time: the usual case, in one pass
    by_time: dict[tuple[object, float], list[int]] = {}
    for i in ok.tolist():
        by_time.setdefault((None if nodes is None else nodes[i], float(t[i])), []).append(i)
    labels = np.full(t.size, -1, dtype=np.int64)
    shared = 0
    for idx in by_time.values():
        runs_here = list(dict.fromkeys(runs[i] for i in idx))
        revs_here = {revisions[i] for i in idx}
        if len(runs_here) > 1 or len(revs_here) > 1:
            shared += 1
            for i in idx:
                labels[i] = runs_here.index(runs[i])
    if shared >= SHARED_INSTANTS and shared >= SHARED_FRACTION * len(by_time):
        return shared, len(by_time), labels
    return None


def switches(labels: np.ndarray) -> int:
    """How many times consecutive values change group."""
    lab = np.asarray(labels)
    return int(np.count_nonzero(lab[1:] != lab[:-1]))


def interleaved(values: np.ndarray) -> Split | None:
    """The two-group split of a series (in its order) when its groups lie more than
    :data:`SERIES_GAP` within-group SDs apart and alternate at least :data:`SWITCHES`
    times (see the module), else None."""
    v = np.asarray(values, dtype=np.float64)
    if v.size < INTERLEAVED_POINTS or not np.isfinite(v).all():
        return None
    split = best_split(v, 2, max(3, int(np.ceil(0.1 * v.size))))
    if split is None or not split.gap_sd > SERIES_GAP:
        return None
    minority = min(split.sizes)
    return split if switches(split.labels) >= max(SWITCHES, minority / 3) else None


def detect_series(values: np.ndarray, started: np.ndarray, runs: Sequence[object],
                  revisions: Sequence[object], nodes: Sequence[object],
                  candidates: Mapping[str, Sequence[object]]
                  | Callable[[], Mapping[str, Sequence[object]]]) -> Mixing | None:
    """The mixing of one change-point series (values in series order), if any: same
    instant first, then interleaved within one node; the key from ``candidates`` (key ->
    value per trial, or a function that makes them, called only for a mixed series)
    that separates the groups."""

    def keys() -> Mapping[str, Sequence[object]]:
        return candidates() if callable(candidates) else candidates

    shared = same_instant(started, runs, revisions, nodes)
    if shared is not None:
        n_shared, n_times, labels = shared
        key = separating_key(labels, keys())
        by = f"; split by {key}" if key else "; no attribute separates them"
        return Mixing("same instant", labels, key,
                      f"several runs at one start time ({n_shared:,} of {n_times:,} start "
                      f"times){by}")
    v = np.asarray(values, dtype=np.float64)
    per_node: dict[object, list[int]] = {}
    for i, node in enumerate(nodes):
        per_node.setdefault(node, []).append(i)
    for node, members in per_node.items():
        if len(members) < INTERLEAVED_POINTS:
            continue
        where = np.asarray(members)
        split = interleaved(v[where])
        if split is None:
            continue
        labels = np.full(v.size, -1, dtype=np.int64)
        labels[where] = split.labels
        key = separating_key(labels, keys())
        lo, hi = split.medians
        by = f"; split by {key}" if key else "; no attribute separates them"
        return Mixing("interleaved", labels, key,
                      f"two interleaved groups on node {node} ({split.sizes[0]:,} points "
                      f"near {lo:.4g}, {split.sizes[1]:,} near {hi:.4g}, "
                      f"{switches(split.labels):,} alternations){by}")
    return None


def level_split(values: np.ndarray) -> Split | None:
    """The split of one load level's repetitions into 2 or 3 groups of >= 2 that lie
    more than :data:`LEVEL_GAP` SDs and :data:`LEVEL_MIN_GAP` apart, else None."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    best: Split | None = None
    for k in (2, 3):
        if v.size > 40 and k > 2:
            break
        s = best_split(v, k, 2)
        if s is not None and s.gap_sd > LEVEL_GAP and s.gap_rel >= LEVEL_MIN_GAP \
                and (best is None or s.gap_sd > best.gap_sd):
            best = s
    return best


def mixed_levels(levels: Sequence[np.ndarray]) -> tuple[int, int, list[Split | None]]:
    """(mixed levels, eligible levels, split per level) of one load-test family: a level
    is eligible with >= 4 finite values; the family is mixed when
    :func:`family_is_mixed` says so."""
    splits = [level_split(v) if np.isfinite(np.asarray(v, float)).sum() >= 4 else None
              for v in levels]
    eligible = sum(1 for v in levels if np.isfinite(np.asarray(v, float)).sum() >= 4)
    return sum(s is not None for s in splits), eligible, splits


def family_is_mixed(mixed: int, eligible: int) -> bool:
    """At least half the eligible levels mixed, and two of them when two are eligible."""
    return mixed >= 1 and 2 * mixed >= eligible and (eligible < 2 or mixed >= 2)
