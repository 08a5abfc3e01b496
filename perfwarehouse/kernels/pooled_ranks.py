"""Rank sums of two or more groups per configuration, from the configurations' values
pooled and sorted (steps 2-4 of :mod:`perfwarehouse.kernels.order_effects`, and the
binary-search ranks of k groups): Kruskal-Wallis for every configuration at once.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from perfwarehouse.kernels.dense_codes import _readonly

_SIGN = np.uint64(0x8000000000000000)


@njit(cache=True, inline="always")
def _order_key(bits: np.uint64) -> np.uint64:
    """The IEEE-754 bit pattern mapped so that unsigned order = numeric order."""
    if bits & _SIGN:
        return ~bits
    return bits | _SIGN


@njit(cache=True, inline="always")
def _from_order_key(key: np.uint64) -> np.uint64:
    if key & _SIGN:
        return key ^ _SIGN
    return ~key


@njit(cache=True)
def pooled_sort_keys(
    codes: np.ndarray, groups: np.ndarray, values: np.ndarray, n_configs: int, n_groups: int,
    group_bits: int, batch_bits: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Counts per (configuration, group) and the packed sort keys (step 2 above).

    Configurations are packed in batches of ``2**batch_bits`` (configuration c is
    in batch ``c >> batch_bits``): a key holds the configuration's place in its
    batch in the top ``batch_bits`` bits, then the value's order key minus the
    configuration's smallest, then the group in the low ``group_bits`` bits.
    Sorting each batch's keys sorts its rows by configuration, value and group.

    Parameters
    ----------
    codes:
        int32 configuration of each row, 0..n_configs-1.
    groups:
        uint8 group of each row, 0..n_groups-1 (ignored when ``group_bits`` is 0).
    values:
        float64, no NaN.
    group_bits:
        bits reserved for the group (1 for fixed vs random, 0 when only the
        pooled order is wanted).
    batch_bits:
        configurations per batch = 2**batch_bits, 1..16; fewer leave more bits
        to values.

    Returns
    -------
    counts:
        int64[n_configs, n_groups].
    key_min:
        uint64[n_configs], the smallest order key of each configuration.
    wide:
        bool[n_configs], configurations whose value range does not fit; their
        rows are not in ``packed``.
    packed:
        uint64 keys, batch after batch (unsorted within a batch).
    batch_offsets:
        int64[n_batches + 1], where each batch's keys start.
    """
    n = codes.size
    bits = values.view(np.uint64)
    counts = np.zeros((n_configs, n_groups), np.int64)
    key_min = np.full(n_configs, np.uint64(0xFFFFFFFFFFFFFFFF))
    key_max = np.zeros(n_configs, np.uint64)
    for i in range(n):
        c = codes[i]
        counts[c, groups[i] if group_bits else 0] += 1
        k = _order_key(bits[i])
        if k < key_min[c]:
            key_min[c] = k
        if k > key_max[c]:
            key_max[c] = k
    shift = 64 - batch_bits
    value_bits = shift - group_bits
    n_batches = (n_configs + (1 << batch_bits) - 1) >> batch_bits
    batch_offsets = np.zeros(n_batches + 1, np.int64)
    wide = np.zeros(n_configs, np.bool_)
    for c in range(n_configs):
        rows = 0
        for g in range(n_groups):
            rows += counts[c, g]
        if rows > 0 and ((key_max[c] - key_min[c]) >> np.uint64(value_bits)) != 0:
            wide[c] = True
        else:
            batch_offsets[(c >> batch_bits) + 1] += rows
    for b in range(n_batches):
        batch_offsets[b + 1] += batch_offsets[b]
    cursor = batch_offsets[:n_batches].copy()
    packed = np.empty(batch_offsets[n_batches], np.uint64)
    local_mask = (1 << batch_bits) - 1
    for i in range(n):
        c = codes[i]
        if wide[c]:
            continue
        key = (np.uint64(c & local_mask) << np.uint64(shift)) | (
            (_order_key(bits[i]) - key_min[c]) << np.uint64(group_bits))
        if group_bits:
            key |= np.uint64(groups[i])
        b = c >> batch_bits
        packed[cursor[b]] = key
        cursor[b] += 1
    return counts, key_min, wide, packed, batch_offsets


@njit(cache=True)
def _walk_config(
    vals: np.ndarray, grps: np.ndarray, n: int, c: int, rank_sum: np.ndarray,
    tie_term: np.ndarray, total: np.ndarray, by_group: np.ndarray, group_offsets: np.ndarray,
    cursor: np.ndarray,
) -> None:
    """One configuration's pooled values ``vals[:n]`` (ascending, groups ``grps``): mid-ranks
    of tie blocks into the rank sums, the tie term, the sums, the per-group sorted values."""
    cursor[0] = group_offsets[c, 0]
    cursor[1] = group_offsets[c, 1]
    i = 0
    while i < n:
        v = vals[i]
        j = i + 1
        while j < n and vals[j] == v:
            j += 1
        rank = ((i + 1) + j) / 2.0
        for q in range(i, j):
            g = grps[q]
            rank_sum[c, g] += rank
            total[c, g] += vals[q]
            by_group[cursor[g]] = vals[q]
            cursor[g] += 1
        if j - i > 1:
            tf = float(j - i)
            tie_term[c] += tf * tf * tf - tf
        i = j


@njit(cache=True, nogil=True)
def _walk_keys(
    keys: np.ndarray, low: np.uint64, shift: np.uint64, c: int, rank_sum: np.ndarray,
    tie_term: np.ndarray, total: np.ndarray, by_group: np.ndarray, group_offsets: np.ndarray,
) -> None:
    """:func:`_walk_config` of one configuration's sorted packed keys, decoding each value
    straight into its group's place in ``by_group``: the same sums in the same order
    (a tie block's rank sum as count x mid-rank, exact for half-integers below 2^52)."""
    bits = by_group.view(np.uint64)
    value_mask = (np.uint64(1) << shift) - np.uint64(1)
    one = np.uint64(1)
    cursor = np.empty(2, np.int64)  # small arrays indexed by the group: no branch on it
    cursor[0] = group_offsets[c, 0]
    cursor[1] = group_offsets[c, 1]
    sums = np.zeros(2)
    in_block = np.zeros(2, np.int64)  # of the current tie block
    rs0 = rs1 = tie = 0.0
    block = 0
    previous = 0.0
    for q in range(keys.size):
        key = keys[q]
        g = np.int64(key & one)
        pos = cursor[g]
        cursor[g] = pos + 1
        bits[pos] = _from_order_key(((key & value_mask) >> one) + low)
        v = by_group[pos]
        if q > 0 and v != previous:
            d0, d1, dt = _tie_block(in_block, block, q)
            rs0 += d0
            rs1 += d1
            tie += dt
            block = q
            in_block[0] = 0
            in_block[1] = 0
        in_block[g] += 1
        sums[g] += v
        previous = v
    if keys.size:
        d0, d1, dt = _tie_block(in_block, block, keys.size)
        rs0 += d0
        rs1 += d1
        tie += dt
    rank_sum[c, 0] = rs0
    rank_sum[c, 1] = rs1
    total[c, 0] = sums[0]
    total[c, 1] = sums[1]
    tie_term[c] = tie


@njit(cache=True, nogil=True, inline="always")
def _tie_block(in_block: np.ndarray, start: int, end: int) -> tuple[float, float, float]:
    """What the tie block of pooled positions ``start:end`` (0-based; ``in_block`` values
    of each group in it) adds to the two rank sums (count x mid-rank) and the tie term
    (t^3 - t: 0 for a block of one)."""
    rank = ((start + 1) + end) / 2.0
    t = float(end - start)
    return in_block[0] * rank, in_block[1] * rank, t * t * t - t


def walk_packed(
    packed_sorted: np.ndarray, batch_offsets: np.ndarray, batch_bits: int, key_min: np.ndarray,
    counts: np.ndarray, wide: np.ndarray, wide_rows: np.ndarray, codes: np.ndarray,
    groups: np.ndarray, values: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Decode each configuration's sorted keys and walk them once (steps 3 and 4 above).

    Parameters
    ----------
    packed_sorted, batch_offsets, key_min:
        :func:`pooled_sort_keys`' keys (group in the low bit) with each batch sorted.
    counts:
        int64[C, 2] rows per (configuration, group).
    wide, wide_rows:
        the wide configurations, and their rows ordered by value.

    Returns
    -------
    rank_sum:
        float64[C, 2], the sum of the 1-based mid-ranks of each group's values
        in the pooled sample of its configuration.
    tie_term:
        float64[C], sum over tie blocks of t^3 - t.
    total:
        float64[C, 2], the sum of each group's values.
    by_group:
        float64[n], each configuration's group 0 values then group 1 values,
        each ascending (no NaN); segment (c, g) starts at ``group_offsets[c, g]``.
    group_offsets:
        int64[C, 2].
    """
    rank_sum, tie_term, total, by_group, group_offsets = walk_outputs(counts)
    walk_batches(packed_sorted, batch_offsets, 0, batch_offsets.size - 1, batch_bits,
                 _readonly(key_min), counts, rank_sum, tie_term, total, by_group, group_offsets)
    if wide_rows.size:
        walk_wide(_readonly(wide), _readonly(wide_rows), codes, groups, values, counts,
                  rank_sum, tie_term, total, by_group, group_offsets)
    return rank_sum, tie_term, total, by_group, group_offsets


def walk_outputs(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                              np.ndarray]:
    """:func:`walk_packed`'s outputs, zero (``by_group`` empty), with the group offsets
    (numpy: one kernel fewer to load in a fresh process)."""
    n_configs = counts.shape[0]
    ends = np.cumsum(counts.sum(axis=1))
    group_offsets = np.empty((n_configs, 2), np.int64)
    group_offsets[:, 0] = ends - counts.sum(axis=1)
    group_offsets[:, 1] = group_offsets[:, 0] + counts[:, 0]
    return (np.zeros((n_configs, 2)), np.zeros(n_configs), np.zeros((n_configs, 2)),
            np.empty(int(ends[-1]) if n_configs else 0), group_offsets)


@njit(cache=True, nogil=True)
def walk_batches(
    packed_sorted: np.ndarray, batch_offsets: np.ndarray, first: int, last: int,
    batch_bits: int, key_min: np.ndarray, counts: np.ndarray, rank_sum: np.ndarray,
    tie_term: np.ndarray, total: np.ndarray, by_group: np.ndarray, group_offsets: np.ndarray,
) -> None:
    """The walk of :func:`walk_packed` over the sorted batches ``first:last`` (each batch
    writes only its own configurations' outputs: batches can be walked on threads)."""
    shift = np.uint64(64 - batch_bits)
    for b in range(first, last):
        i, end = batch_offsets[b], batch_offsets[b + 1]
        while i < end:  # one configuration's keys are contiguous in its sorted batch
            c = (b << batch_bits) + int(packed_sorted[i] >> shift)
            n = counts[c, 0] + counts[c, 1]
            _walk_keys(packed_sorted[i:i + n], key_min[c], shift, c, rank_sum, tie_term, total,
                       by_group, group_offsets)
            i += n


@njit(cache=True, nogil=True)
def walk_wide(
    wide: np.ndarray, wide_rows: np.ndarray, codes: np.ndarray, groups: np.ndarray,
    values: np.ndarray, counts: np.ndarray, rank_sum: np.ndarray, tie_term: np.ndarray,
    total: np.ndarray, by_group: np.ndarray, group_offsets: np.ndarray,
) -> None:
    """The walk of :func:`walk_packed` over the wide configurations: their rows
    (``wide_rows``, already in value order) gathered per configuration."""
    n_configs = counts.shape[0]
    first = np.zeros(n_configs + 1, np.int64)
    for c in range(n_configs):
        first[c + 1] = first[c] + (counts[c, 0] + counts[c, 1] if wide[c] else 0)
    fill = first[:n_configs].copy()
    pooled = np.empty(wide_rows.size)
    pooled_groups = np.empty(wide_rows.size, np.uint8)
    for row in wide_rows:
        c = codes[row]
        pooled[fill[c]] = values[row]
        pooled_groups[fill[c]] = groups[row]
        fill[c] += 1
    cursor = np.empty(2, np.int64)
    for c in range(n_configs):
        if wide[c]:
            a, z = first[c], first[c + 1]
            _walk_config(pooled[a:z], pooled_groups[a:z], z - a, c, rank_sum, tie_term,
                         total, by_group, group_offsets, cursor)


@njit(cache=True)
def rank_sums_search(
    pooled: np.ndarray, pooled_offsets: np.ndarray, by_group: np.ndarray,
    group_offsets: np.ndarray, group_config: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Rank sums of k groups per configuration, by binary search in the pooled values.

    Parameters
    ----------
    pooled, pooled_offsets:
        each configuration's values sorted ascending in
        ``pooled[pooled_offsets[c]:pooled_offsets[c+1]]``.
    by_group, group_offsets:
        group s holds ``by_group[group_offsets[s]:group_offsets[s+1]]`` (any order);
        each value must be in its configuration's pooled values.
    group_config:
        int64 configuration of each group.

    Returns
    -------
    rank_sum:
        float64[S], the sum of the 1-based mid-ranks of each group's values.
    tie_term:
        float64[C], sum over the configuration's tie blocks of t^3 - t.
    """
    n_configs = pooled_offsets.size - 1
    # the mid-rank of every pooled position, and the tie terms, in one pass
    mid_rank = np.empty(pooled.size)
    tie_term = np.zeros(n_configs)
    for c in range(n_configs):
        start, end = pooled_offsets[c], pooled_offsets[c + 1]
        i = start
        while i < end:
            j = i + 1
            while j < end and pooled[j] == pooled[i]:
                j += 1
            rank = ((i - start + 1) + (j - start)) / 2.0
            for q in range(i, j):
                mid_rank[q] = rank
            if j - i > 1:
                tf = float(j - i)
                tie_term[c] += tf * tf * tf - tf
            i = j
    n_sets = group_config.size
    rank_sum = np.zeros(n_sets)
    for s in range(n_sets):
        c = group_config[s]
        a, b = pooled_offsets[c], pooled_offsets[c + 1]
        acc = 0.0
        for q in range(group_offsets[s], group_offsets[s + 1]):
            v = by_group[q]
            lo, hi = a, b  # first position with pooled >= v
            while lo < hi:
                mid = (lo + hi) >> 1
                if pooled[mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            acc += mid_rank[lo]
        rank_sum[s] = acc
    return rank_sum, tie_term


def two_group_ranks(
    codes: np.ndarray, groups: np.ndarray, values: np.ndarray, n_configs: int,
    batch_bits: int = 6,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Steps 2-4 for two groups: ``(counts, rank_sum, tie_term, total, by_group, group_offsets)``.

    ``codes`` int32 in 0..n_configs-1, ``groups`` uint8 0/1, ``values`` float64
    without NaN (all contiguous). With 64 configurations per batch, 57 bits are
    left for a value's position in its configuration's range: any positive (or
    any negative) values spanning less than a factor of about 2^32 fit.
    """
    if not 1 <= batch_bits <= 16:
        raise ValueError(f"batch_bits must be in 1..16, got {batch_bits}")
    codes, groups, values = _readonly(codes), _readonly(groups), _readonly(values)
    counts, key_min, wide, packed, batch_offsets = pooled_sort_keys(
        codes, groups, values, n_configs, 2, 1, batch_bits)
    for b in range(batch_offsets.size - 1):  # numpy's vectorised sort, once per batch
        packed[batch_offsets[b]:batch_offsets[b + 1]].sort()
    wide_rows = np.empty(0, np.int64)
    if wide.any():
        wide_rows = np.flatnonzero(wide[codes])
        wide_rows = wide_rows[np.argsort(values[wide_rows])]
    rank_sum, tie_term, total, by_group, group_offsets = walk_packed(
        packed, batch_offsets, batch_bits, key_min, counts, wide, wide_rows, codes, groups, values)
    return counts, rank_sum, tie_term, total, by_group, group_offsets
