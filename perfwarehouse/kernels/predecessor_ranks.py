"""Ranks of many small groups per configuration, for the predecessor effect
(:mod:`perfwarehouse.kernels.order_effects`, last paragraph): rows ordered by value
are counting-sorted by configuration and by group (:func:`stable_segment_order`,
:func:`pair_groups`), :func:`mid_ranks` ranks them, and :func:`predecessor_tests` and
:func:`exclude_sorted` find each trial's predecessor and the rest of a configuration
without its worst group.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def stable_segment_order(order: np.ndarray, segment: np.ndarray, n_segments: int
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Counting sort of the rows ``order`` by ``segment[row]``, keeping their order inside
    each segment. Returns ``(rows int64[n], offsets int64[n_segments + 1])``."""
    offsets = np.zeros(n_segments + 1, np.int64)
    for i in range(order.size):
        offsets[segment[order[i]] + 1] += 1
    for s in range(n_segments):
        offsets[s + 1] += offsets[s]
    cursor = offsets[:n_segments].copy()
    rows = np.empty(order.size, np.int64)
    for i in range(order.size):
        row = order[i]
        s = segment[row]
        rows[cursor[s]] = row
        cursor[s] += 1
    return rows, offsets


@njit(cache=True)
def pair_groups(rows: np.ndarray, offsets: np.ndarray, second: np.ndarray, n_second: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense numbers of the pairs (segment, second[row]), segment after segment.

    ``rows[offsets[s]:offsets[s+1]]`` are segment s's rows; ``second`` takes values
    0..n_second-1. Groups are numbered in segment order and, inside a segment, in
    order of first appearance, so a segment's groups are consecutive. Returns
    ``(group int64[len(second)] by row, group_segment int64[G], group_second int64[G])``.
    A scratch array of n_second entries is reused across segments.
    """
    group = np.full(second.size, -1, np.int64)
    group_segment = np.empty(rows.size, np.int64)
    group_second = np.empty(rows.size, np.int64)
    scratch = np.full(n_second, -1, np.int64)
    n_groups = 0
    for s in range(offsets.size - 1):
        first = n_groups
        for i in range(offsets[s], offsets[s + 1]):
            row = rows[i]
            v = second[row]
            if scratch[v] < 0:
                scratch[v] = n_groups
                group_segment[n_groups] = s
                group_second[n_groups] = v
                n_groups += 1
            group[row] = scratch[v]
        for g in range(first, n_groups):  # reset only what this segment touched
            scratch[group_second[g]] = -1
    return group, group_segment[:n_groups].copy(), group_second[:n_groups].copy()


@njit(cache=True)
def mid_ranks(values: np.ndarray, rows: np.ndarray, offsets: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """1-based mid-rank of every row inside its segment, and each segment's tie term.

    ``rows[offsets[s]:offsets[s+1]]`` are segment s's rows in ascending order of
    value. Returns ``(rank float64[len(values)] by row, tie_term float64[S])``.
    """
    rank_of_row = np.zeros(values.size)
    n_segments = offsets.size - 1
    tie_term = np.zeros(n_segments)
    for s in range(n_segments):
        start, end = offsets[s], offsets[s + 1]
        i = start
        while i < end:
            v = values[rows[i]]
            j = i + 1
            while j < end and values[rows[j]] == v:
                j += 1
            rank = ((i - start + 1) + (j - start)) / 2.0
            for q in range(i, j):
                rank_of_row[rows[q]] = rank
            if j - i > 1:
                tf = float(j - i)
                tie_term[s] += tf * tf * tf - tf
            i = j
    return rank_of_row, tie_term


@njit(cache=True)
def predecessor_tests(
    run: np.ndarray, position: np.ndarray, test: np.ndarray, n_runs: int,
) -> np.ndarray:
    """The test that ran immediately before each row's trial, in the same run.

    Parameters
    ----------
    run:
        int32 dense run of each row (0..n_runs-1).
    position:
        int64 0-based position of the row's trial in its run.
    test:
        int64 test of each row (several rows share a trial when a test reports
        several metrics; they share the test).

    Returns
    -------
    int64[n]: the predecessor's test; -1 for the first trial of a run
    (position 0: it follows the reset), -2 when no row of the run sits at
    ``position - 1`` (that trial failed or was not recorded).
    """
    n = run.size
    first_position = np.zeros(n_runs, np.int64)
    last_position = np.full(n_runs, -1, np.int64)
    seen = np.zeros(n_runs, np.bool_)
    for i in range(n):
        r = run[i]
        if not seen[r] or position[i] < first_position[r]:
            first_position[r] = position[i]
        if position[i] > last_position[r]:
            last_position[r] = position[i]
        seen[r] = True
    # a table of the test at each (run, position): runs get a slice each
    base = np.zeros(n_runs + 1, np.int64)
    for r in range(n_runs):
        width = last_position[r] - first_position[r] + 1 if seen[r] else 0
        base[r + 1] = base[r] + width
    at = np.full(base[n_runs], -2, np.int64)
    for i in range(n):
        r = run[i]
        at[base[r] + position[i] - first_position[r]] = test[i]
    out = np.empty(n, np.int64)
    for i in range(n):
        r = run[i]
        p = position[i]
        if p == 0:
            out[i] = -1
        elif p - 1 < first_position[r]:
            out[i] = -2
        else:
            out[i] = at[base[r] + p - 1 - first_position[r]]
    return out


@njit(cache=True)
def exclude_sorted(
    pooled: np.ndarray, pooled_offsets: np.ndarray, by_group: np.ndarray,
    group_offsets: np.ndarray, config_group: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """For each configuration, its pooled sorted values without one of its groups.

    ``config_group[c]`` is the group (an index into ``group_offsets``) to take
    out, or -1 for none (nothing is written for that configuration). The
    group's values must be sorted and all present in the pooled sample.
    Returns ``(rest float64[...], rest_offsets int64[C+1])``, ascending.
    """
    n_configs = pooled_offsets.size - 1
    rest_offsets = np.zeros(n_configs + 1, np.int64)
    for c in range(n_configs):
        s = config_group[c]
        size = 0
        if s >= 0:
            size = (pooled_offsets[c + 1] - pooled_offsets[c]) - (
                group_offsets[s + 1] - group_offsets[s])
        rest_offsets[c + 1] = rest_offsets[c] + size
    rest = np.empty(rest_offsets[n_configs])
    for c in range(n_configs):
        s = config_group[c]
        if s < 0:
            continue
        out = rest_offsets[c]
        g, g_end = group_offsets[s], group_offsets[s + 1]
        for i in range(pooled_offsets[c], pooled_offsets[c + 1]):
            v = pooled[i]
            if g < g_end and by_group[g] == v:
                g += 1  # one copy of the value belongs to the group
            else:
                rest[out] = v
                out += 1
    return rest, rest_offsets
