"""numba kernels for variability, A/A testing and detectable regressions.

Laaber et al., "Performance Testing in the Cloud. How Bad is it Really?" (PeerJ
Preprints 2018), section 4.

Data layout (CSR, built by :mod:`perfwarehouse.laaber`): one partition's
measurements are grouped configuration -> node -> trial -> iterations, so

* ``values[trial_offsets[t]:trial_offsets[t + 1]]`` are trial ``t``'s measurements,
* ``node_offsets[n]:node_offsets[n + 1]`` are node ``n``'s trials,
* ``config_offsets[c]:config_offsets[c + 1]`` are configuration ``c``'s nodes.

Random draws use a small counter-based generator (splitmix64): the state of
each draw is a hash of ``(seed, configuration key, strategy, k, draw index)``,
so results do not depend on thread scheduling, on which other configurations
are in the partition, or on the machine. The same draw index gives the same
control and test groups for every regression size r (common random numbers).

Entry points (few, so the one-off compilation stays short): :func:`sort_segments`,
:func:`segment_medians`, :func:`segment_moments`, :func:`sample_group_statistics`; the
rank-sum test of the A/A draws is :mod:`perfwarehouse.kernels.ranksum`.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from perfwarehouse.kernels.ranksum import _ranksum_counts, ranksum_sorted

STRATEGY_INSTANCE = 0
STRATEGY_TRIAL = 1

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_INV_2_53 = 1.0 / 9007199254740992.0


# ------------------------------------------------------------------ random numbers
@njit(cache=True)
def _mix64(z: np.uint64) -> np.uint64:
    """splitmix64's finaliser: a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def draw_state(seed: np.uint64, key: np.uint64, strategy: int, k: int, draw: int) -> np.uint64:
    """The generator state of one draw, from everything that identifies it."""
    h = _mix64(np.uint64(seed) + _GOLDEN)
    h = _mix64(h ^ np.uint64(key))
    h = _mix64(h ^ ((np.uint64(strategy) << np.uint64(32)) | np.uint64(k)))
    return _mix64(h ^ np.uint64(draw))


@njit(cache=True)
def _below(state: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n) from the splitmix64 stream held in ``state[0]``."""
    state[0] = state[0] + _GOLDEN
    u = np.float64(_mix64(state[0]) >> np.uint64(11)) * _INV_2_53
    return min(int(u * n), n - 1)


@njit(cache=True)
def _shuffle_head(state: np.ndarray, work: np.ndarray, n: int, m: int) -> None:
    """Partial Fisher-Yates: afterwards ``work[:m]`` are m distinct items of ``work[:n]``."""
    for i in range(m):
        j = i + _below(state, n - i)
        work[i], work[j] = work[j], work[i]


# ------------------------------------------------------------------- order statistics
@njit(cache=True)
def _select(a: np.ndarray, k: int) -> float:
    """Quickselect: reorder ``a`` so that ``a[:k] <= a[k] <= a[k+1:]``; return ``a[k]``."""
    lo = 0
    hi = len(a) - 1
    while hi > lo:
        mid = (lo + hi) // 2
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        pivot = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return a[k]
    return a[k]


@njit(cache=True)
def median_inplace(a: np.ndarray) -> float:
    """The median of ``a`` by selection (``a`` is reordered); NaN when empty.

    Even n: the mean of the two middle values, as ``numpy.median``.
    """
    n = len(a)
    if n == 0:
        return np.nan
    upper = _select(a, n // 2)
    if n % 2 == 1:
        return upper
    lower = a[0]
    for i in range(1, n // 2):
        if a[i] > lower:
            lower = a[i]
    return (lower + upper) / 2.0


@njit(cache=True)
def _median_sorted(a: np.ndarray) -> float:
    n = len(a)
    if n == 0:
        return np.nan
    if n % 2 == 1:
        return a[n // 2]
    return (a[n // 2 - 1] + a[n // 2]) / 2.0


@njit(cache=True)
def segment_medians(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Median of each segment ``values[offsets[s]:offsets[s + 1]]`` (NaN when empty)."""
    n = len(offsets) - 1
    out = np.full(n, np.nan)
    for s in range(n):
        lo = offsets[s]
        hi = offsets[s + 1]
        if hi > lo:
            out[s] = median_inplace(values[lo:hi].copy())
    return out


@njit(cache=True)
def sort_segments(values: np.ndarray, offsets: np.ndarray) -> None:
    """Sort each segment ``values[offsets[s]:offsets[s + 1]]`` in place (insertion sort
    for short segments, the usual for long ones)."""
    for s in range(len(offsets) - 1):
        lo = offsets[s]
        hi = offsets[s + 1]
        if hi - lo > 64:
            values[lo:hi] = np.sort(values[lo:hi])
            continue
        for i in range(lo + 1, hi):
            v = values[i]
            j = i - 1
            while j >= lo and values[j] > v:
                values[j + 1] = values[j]
                j -= 1
            values[j + 1] = v


@njit(cache=True)
def segment_moments(
    values: np.ndarray, offsets: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, mean and sample standard deviation (ddof 1) of each segment, NaN ignored.

    Two passes (mean, then squared deviations). The mean is NaN for a segment
    without finite values, the standard deviation for one with fewer than two.
    """
    n = len(offsets) - 1
    count = np.zeros(n, dtype=np.int64)
    mean = np.full(n, np.nan)
    sd = np.full(n, np.nan)
    for s in range(n):
        total = 0.0
        m = 0
        for i in range(offsets[s], offsets[s + 1]):
            if not np.isnan(values[i]):
                total += values[i]
                m += 1
        count[s] = m
        if m == 0:
            continue
        mu = total / m
        mean[s] = mu
        if m < 2:
            continue
        ss = 0.0
        for i in range(offsets[s], offsets[s + 1]):
            if not np.isnan(values[i]):
                ss += (values[i] - mu) ** 2
        sd[s] = math.sqrt(ss / (m - 1))
    return count, mean, sd


# -------------------------------------------------------------------- group sampling
@njit(cache=True)
def _gather(values: np.ndarray, trial_offsets: np.ndarray, trials: np.ndarray) -> np.ndarray:
    """The pooled measurements of ``trials``."""
    size = 0
    for t in trials:
        size += trial_offsets[t + 1] - trial_offsets[t]
    out = np.empty(size)
    p = 0
    for t in trials:
        for i in range(trial_offsets[t], trial_offsets[t + 1]):
            out[p] = values[i]
            p += 1
    return out


@njit(cache=True)
def _one_trial_each(state: np.ndarray, node_offsets: np.ndarray, nodes: np.ndarray,
                    out: np.ndarray) -> None:
    for i in range(len(nodes)):
        lo = node_offsets[nodes[i]]
        out[i] = lo + _below(state, node_offsets[nodes[i] + 1] - lo)


@njit(cache=True)
def draw_groups(
    state: np.ndarray, node_offsets: np.ndarray, eligible: np.ndarray, strategy: int, k: int,
    per_node: int, disjoint: bool, control: np.ndarray, test: np.ndarray, work: np.ndarray,
) -> None:
    """Trial indices of the control and test groups of one draw, into ``control`` and ``test``.

    Instance-based (Laaber et al. (PeerJ Preprints 2018), §4.2.2): k nodes for control, each contributing one
    random trial, and k nodes for test drawn the same way, independently of the
    control nodes (``disjoint``: 2k distinct nodes, the first k for control).
    Trial-based: k nodes shared by both groups; on each node ``2 * per_node``
    distinct trials, the first ``per_node`` for control, the rest for test.
    ``eligible`` holds the nodes that may be drawn (enough trials); ``control``
    and ``test`` have room for k (instance) or k * per_node (trial) trials;
    ``work`` is scratch space for max(len(eligible), trials of any node) items.
    The order of random calls is part of the definition (the tests replay it):
    each choice of m items out of a pool is a partial Fisher-Yates shuffle of
    the pool in its stored order.
    """
    n = len(eligible)
    work[:n] = eligible
    if strategy == STRATEGY_TRIAL:
        _shuffle_head(state, work, n, k)
        nodes = work[:k].copy()
        for i in range(k):
            lo = node_offsets[nodes[i]]
            m = node_offsets[nodes[i] + 1] - lo
            for j in range(m):
                work[j] = lo + j
            _shuffle_head(state, work, m, 2 * per_node)
            control[i * per_node:(i + 1) * per_node] = work[:per_node]
            test[i * per_node:(i + 1) * per_node] = work[per_node:2 * per_node]
    elif disjoint:
        _shuffle_head(state, work, n, 2 * k)
        _one_trial_each(state, node_offsets, work[:k], control)
        _one_trial_each(state, node_offsets, work[k:2 * k], test)
    else:
        _shuffle_head(state, work, n, k)
        _one_trial_each(state, node_offsets, work[:k], control)
        work[:n] = eligible
        _shuffle_head(state, work, n, k)
        _one_trial_each(state, node_offsets, work[:k], test)


@njit(cache=True)
def _count(ranks: np.ndarray, trial_offsets: np.ndarray, trials: np.ndarray,
           counts: np.ndarray) -> None:
    for t in trials:
        for i in range(trial_offsets[t], trial_offsets[t + 1]):
            counts[ranks[i]] += 1


@njit(cache=True)
def _group_size(trial_offsets: np.ndarray, trials: np.ndarray) -> int:
    size = 0
    for t in trials:
        size += trial_offsets[t + 1] - trial_offsets[t]
    return size


def sample_group_statistics(
    values: np.ndarray, ranks: np.ndarray, distinct: np.ndarray, trial_offsets: np.ndarray,
    node_offsets: np.ndarray, eligible_offsets: np.ndarray, eligible_nodes: np.ndarray,
    config_keys: np.ndarray, seed: np.uint64, strategy: int, k: int, per_node: int,
    disjoint: bool, draws: int, with_ranksum: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Medians, or rank-sum p-values, of ``draws`` random control/test pairs per configuration.

    Parameters
    ----------
    values, trial_offsets, node_offsets:
        The partition's measurements in the CSR layout of this module.
    ranks, distinct:
        For ``with_ranksum`` only (else empty): the dense rank of each value
        among its configuration's distinct values, and the number of distinct
        values per configuration. Large groups are then tested from counts
        per distinct value (one pass over the configuration's distinct values)
        instead of by sorting; both give the same bits.
    eligible_offsets, eligible_nodes:
        Configuration ``c`` may draw the nodes
        ``eligible_nodes[eligible_offsets[c]:eligible_offsets[c + 1]]``; a
        configuration with too few of them is skipped (NaN results).
    config_keys:
        uint64 identity of each configuration (hash of hardware type,
        benchmark, settings, metric), mixed into every draw's generator state.
    strategy, k, per_node, disjoint:
        See :func:`draw_groups`.
    with_ranksum:
        False: the medians of the pooled measurements of both groups (by
        selection). True: the two-sided rank-sum p-value of the pooled
        measurements (Laaber et al. (PeerJ Preprints 2018), §4.2.1); the medians are then NaN.

    Returns
    -------
    median_control, median_test, pvalue:
        Arrays of shape (configurations, draws).
    """
    n_configs = len(config_keys)
    median_control = np.full((n_configs, draws), np.nan)
    median_test = np.full((n_configs, draws), np.nan)
    pvalue = np.full((n_configs, draws), np.nan)
    tasks = n_configs * draws
    threads = max(1, min(os.cpu_count() or 1, tasks // 64))
    bounds = [tasks * i // threads for i in range(threads + 1)]
    max_trials = int(np.max(np.diff(node_offsets))) if len(node_offsets) > 1 else 0

    def run(i: int) -> None:
        _group_statistics(values, ranks, distinct, trial_offsets, node_offsets,
                          eligible_offsets, eligible_nodes, config_keys, seed, strategy, k,
                          per_node, disjoint, draws, with_ranksum, max_trials, bounds[i],
                          bounds[i + 1], median_control, median_test, pvalue)

    # each task writes only its own cells, and its draws depend on its index only:
    # the threads change the speed, never a result
    if threads == 1:
        run(0)  # few tasks: no thread to start
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            list(pool.map(run, range(threads)))
    return median_control, median_test, pvalue


@njit(cache=True, nogil=True)
def _group_statistics(
    values: np.ndarray, ranks: np.ndarray, distinct: np.ndarray, trial_offsets: np.ndarray,
    node_offsets: np.ndarray, eligible_offsets: np.ndarray, eligible_nodes: np.ndarray,
    config_keys: np.ndarray, seed: np.uint64, strategy: int, k: int, per_node: int,
    disjoint: bool, draws: int, with_ranksum: bool, max_trials: int, start: int, stop: int,
    median_control: np.ndarray, median_test: np.ndarray, pvalue: np.ndarray,
) -> None:
    """The tasks (configuration x draw) ``start:stop`` of :func:`sample_group_statistics`."""
    need = 2 * k if (strategy == STRATEGY_INSTANCE and disjoint) else k
    for task in range(start, stop):
        c = task // draws
        d = task % draws
        lo = eligible_offsets[c]
        hi = eligible_offsets[c + 1]
        if hi - lo < need or k < 1:
            continue
        state = np.empty(1, dtype=np.uint64)
        state[0] = draw_state(seed, config_keys[c], strategy, k, d)
        size = k * per_node if strategy == STRATEGY_TRIAL else k
        control = np.empty(size, dtype=np.int64)
        test = np.empty(size, dtype=np.int64)
        work = np.empty(max(hi - lo, max_trials), dtype=np.int64)
        draw_groups(state, node_offsets, eligible_nodes[lo:hi], strategy, k, per_node, disjoint,
                    control, test, work)
        if not with_ranksum:
            median_control[c, d] = median_inplace(_gather(values, trial_offsets, control))
            median_test[c, d] = median_inplace(_gather(values, trial_offsets, test))
            continue
        n = _group_size(trial_offsets, control) + _group_size(trial_offsets, test)
        if n * math.log2(n + 1.0) > distinct[c]:
            count_x = np.zeros(distinct[c], dtype=np.int64)
            count_y = np.zeros(distinct[c], dtype=np.int64)
            _count(ranks, trial_offsets, control, count_x)
            _count(ranks, trial_offsets, test, count_y)
            pvalue[c, d] = _ranksum_counts(count_x, count_y)[1]
        else:
            xc = _gather(values, trial_offsets, control)
            xt = _gather(values, trial_offsets, test)
            xc.sort()
            xt.sort()
            pvalue[c, d] = ranksum_sorted(xc, xt)[1]
