"""The order-effects job's rows, batch by batch as the partition query hands them over:
codes, counts and packed sort keys in two passes, without concatenating the batches.

The job's query gives one row per value: a 64-bit key per (campaign, hardware type,
configuration), the group (0 = fixed order, 1 = random order, 2 = left out but counted)
and the value. :func:`code_batches` numbers the keys 0..K-1 in order of first appearance
(open addressing, the table sparse enough to stay in the core's cache) and, in the same
pass, counts each code's rows per group (every row) and the rows the two-group
statistics keep (group 0 or 1, the value not NaN), with the kept values' smallest and
largest order keys. :func:`packed_batches` then packs the kept rows into the sort keys of
:func:`~perfwarehouse.kernels.pooled_ranks.pooled_sort_keys` (configurations renumbered
in the order of the result's rows), and :func:`ranks_of_batches` sorts and walks them:
the arrays of :func:`~perfwarehouse.kernels.pooled_ranks.two_group_ranks`, equal to
them bit for bit, in two passes over the rows where the concatenation, the hash codes,
the renumbering and the counting took five.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from perfwarehouse.kernels.dense_codes import _readonly
from perfwarehouse.kernels.pooled_ranks import _order_key, walk_batches, walk_outputs, walk_wide

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_NO_KEY = np.uint64(0xFFFFFFFFFFFFFFFF)

#: one record batch of the query: (row_key uint64, grp uint8, value float64), contiguous
Batch = tuple[np.ndarray, np.ndarray, np.ndarray]


#: the columns of the per-code statistics of pass 1 (one 64-byte row per code)
_ALL, _KEPT, _MIN, _MAX = 0, 3, 6, 7


@njit(cache=True, nogil=True)
def _code_rows(
    keys: np.ndarray, groups: np.ndarray, values: np.ndarray, start: int, codes: np.ndarray,
    slots: np.ndarray, stats: np.ndarray, code_key: np.ndarray, n_unique: int, slot_bits: int,
) -> tuple[int, int, int]:
    """Code rows ``start:`` of one batch; stops early when ``code_key`` (the capacity) is
    full. Returns (next row, n_unique, rows left out of the statistics).

    ``slots``: uint64[2 * 2**slot_bits], (key, code + 1) pairs (0 = empty), so that a
    probe reads one cache line; ``stats``: uint64[capacity, 8], rows per group (every
    row), rows kept per group, unused, smallest and largest order key of the kept values.
    """
    mask = (1 << slot_bits) - 1
    shift = np.uint64(64 - slot_bits)
    bits = values.view(np.uint64)
    dropped = 0
    one = np.uint64(1)
    for i in range(start, keys.size):
        a = keys[i]
        h = np.int64((a * _GOLDEN) >> shift)
        slot = slots[2 * h + 1]
        while slot != 0 and slots[2 * h] != a:
            h = (h + 1) & mask
            slot = slots[2 * h + 1]
        if slot == 0:
            if n_unique == code_key.size:
                return i, n_unique, dropped
            n_unique += 1
            slot = np.uint64(n_unique)
            slots[2 * h] = a
            slots[2 * h + 1] = slot
            code_key[n_unique - 1] = a
            stats[n_unique - 1, _MIN] = _NO_KEY
        code = np.int64(slot) - 1
        codes[i] = code
        g = min(groups[i], 2)
        stats[code, _ALL + g] += one
        if g == 2 or np.isnan(values[i]):
            dropped += 1
            continue
        stats[code, _KEPT + g] += one
        k = _order_key(bits[i])
        if k < stats[code, _MIN]:
            stats[code, _MIN] = k
        if k > stats[code, _MAX]:
            stats[code, _MAX] = k
    return keys.size, n_unique, dropped


@njit(cache=True, nogil=True)
def _rehash(code_key: np.ndarray, n_unique: int, slot_bits: int) -> np.ndarray:
    """The (key, code + 1) slots of :func:`_code_rows`, ``2**slot_bits`` of them, holding
    the first ``n_unique`` codes."""
    slots = np.zeros(2 << slot_bits, np.uint64)
    mask = (1 << slot_bits) - 1
    shift = np.uint64(64 - slot_bits)
    for code in range(n_unique):
        a = code_key[code]
        h = np.int64((a * _GOLDEN) >> shift)
        while slots[2 * h + 1] != 0:
            h = (h + 1) & mask
        slots[2 * h] = a
        slots[2 * h + 1] = np.uint64(code + 1)
    return slots


def _grown(a: np.ndarray, capacity: int) -> np.ndarray:
    out = np.zeros((capacity,) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out


def code_batches(batches: Sequence[Batch]) -> tuple[
        list[np.ndarray], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Pass 1: number the rows' keys 0..K-1 in order of first appearance, and count.

    ``batches``: (keys uint64, groups uint8 in 0..2, values float64) each; a group above 2
    counts as 2. Returns ``(codes, code_key, counts_all, counts_kept, key_min, key_max,
    dropped)``: int32 codes per batch; the key of each code (uint64[K]); rows per (code,
    group), every row (int64[K, 3]); rows per (code, group) that the statistics keep,
    groups 0 and 1 without NaN (int64[K, 2]); the smallest and largest order key of the
    kept values (uint64[K]; all ones and 0 for a code without any); rows left out.
    The hash table has 8 slots per code it can hold (it doubles as needed): sparser
    tables were no faster on the 2.3M-value campaign, denser ones slower.
    """
    capacity, slot_bits = 1024, 13
    slots = np.zeros(2 << slot_bits, np.uint64)  # empty (a fresh command loads no kernel for it)
    code_key = np.zeros(capacity, np.uint64)
    stats = np.zeros((capacity, 8), np.uint64)
    n_unique = dropped = 0
    codes = []
    for keys, groups, values in batches:
        out = np.empty(keys.size, np.int32)
        row = 0
        while True:
            row, n_unique, left_out = _code_rows(keys, groups, values, row, out, slots, stats,
                                                 code_key, n_unique, slot_bits)
            dropped += left_out
            if row == keys.size:
                break
            capacity, slot_bits = 2 * capacity, slot_bits + 1
            slots = _rehash(code_key, n_unique, slot_bits)
            code_key, stats = _grown(code_key, capacity), _grown(stats, capacity)
        codes.append(out)
    stats = stats[:n_unique]
    counts_all = stats[:, _ALL:_ALL + 3].astype(np.int64)
    counts_kept = stats[:, _KEPT:_KEPT + 2].astype(np.int64)
    return (codes, code_key[:n_unique], counts_all, counts_kept, stats[:, _MIN].copy(),
            stats[:, _MAX].copy(), dropped)


@njit(cache=True, nogil=True)
def _pack_rows(codes: np.ndarray, groups: np.ndarray, values: np.ndarray, new_code: np.ndarray,
               key_min: np.ndarray, wide: np.ndarray, batch_bits: int, cursor: np.ndarray,
               packed: np.ndarray) -> None:
    """Pass 2 over one batch: the packed key of each kept row of a configuration that is
    not wide, at its batch's cursor (group in the low bit)."""
    shift = np.uint64(64 - batch_bits)
    local_mask = (1 << batch_bits) - 1
    bits = values.view(np.uint64)
    for i in range(codes.size):
        g = groups[i]
        if g >= 2 or np.isnan(values[i]):
            continue
        c = new_code[codes[i]]
        if wide[c]:
            continue
        key = ((np.uint64(c & local_mask) << shift) | ((_order_key(bits[i]) - key_min[c])
                                                        << np.uint64(1)) | np.uint64(g))
        b = c >> batch_bits
        packed[cursor[b]] = key
        cursor[b] += 1


def ranks_of_batches(
    batches: Sequence[Batch], codes: Sequence[np.ndarray], order: np.ndarray,
    counts_kept: np.ndarray, key_min: np.ndarray, key_max: np.ndarray, batch_bits: int = 6,
    threads: int = 2,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Passes 2-4: :func:`~perfwarehouse.kernels.pooled_ranks.two_group_ranks` of the kept
    rows, configuration ``r`` being code ``order[r]`` of :func:`code_batches` (whose
    ``codes``, ``counts_kept``, ``key_min`` and ``key_max`` are passed, in code order).

    Returns ``(counts, rank_sum, tie_term, total, by_group, group_offsets)`` in the order
    of ``order``. With ``threads`` > 1 the batches' sorts and walks run on two threads,
    half of the rows each (about 12 ms less wall time on the 2.3M-value campaign, idle).
    """
    if not 1 <= batch_bits <= 16:
        raise ValueError(f"batch_bits must be in 1..16, got {batch_bits}")
    n_configs = order.size
    new_code = np.empty(n_configs, np.int32)
    new_code[order] = np.arange(n_configs, dtype=np.int32)
    counts, low, high = counts_kept[order], key_min[order], key_max[order]
    rows = counts.sum(axis=1)
    value_bits = np.uint64(64 - batch_bits - 1)
    wide = (rows > 0) & (((high - low) >> value_bits) != 0)
    n_batches = (n_configs + (1 << batch_bits) - 1) >> batch_bits
    per_batch = np.bincount(np.arange(n_configs) >> batch_bits,
                            weights=np.where(wide, 0, rows), minlength=n_batches)
    batch_offsets = np.zeros(n_batches + 1, np.int64)
    np.cumsum(per_batch.astype(np.int64), out=batch_offsets[1:])
    cursor = batch_offsets[:n_batches].copy()
    packed = np.empty(batch_offsets[-1], np.uint64)
    new_code, low, wide_r = _readonly(new_code), _readonly(low), _readonly(wide)
    for (_, groups, values), batch_codes in zip(batches, codes):
        _pack_rows(batch_codes, groups, values, new_code, low, wide_r, batch_bits, cursor, packed)
    outputs = walk_outputs(counts)
    low_r = _readonly(low)

    def sort_and_walk(first: int, last: int) -> None:
        for b in range(first, last):  # numpy's vectorised sort, once per batch
            packed[batch_offsets[b]:batch_offsets[b + 1]].sort()
        walk_batches(packed, batch_offsets, first, last, batch_bits, low_r, counts, *outputs)

    # two threads, half of the rows each (the sort and the walk release the GIL)
    middle = int(np.searchsorted(batch_offsets, batch_offsets[-1] // 2))
    if threads > 1 and 0 < middle < n_batches:
        with ThreadPoolExecutor(max_workers=1) as other:
            later = other.submit(sort_and_walk, middle, n_batches)
            sort_and_walk(0, middle)
            later.result()
    else:
        sort_and_walk(0, n_batches)
    if wide.any():  # rare: rows of configurations whose range does not pack, by value
        all_codes = new_code[np.concatenate([np.asarray(c) for c in codes])]
        all_groups = np.concatenate([b[1] for b in batches])
        all_values = np.concatenate([b[2] for b in batches])
        kept = (all_groups < 2) & ~np.isnan(all_values)
        wide_rows = np.flatnonzero(wide[all_codes] & kept)
        wide_rows = wide_rows[np.argsort(all_values[wide_rows])]
        walk_wide(wide_r, _readonly(wide_rows), _readonly(all_codes), _readonly(all_groups),
                  _readonly(all_values), counts, *outputs)
    rank_sum, tie_term, total, by_group, group_offsets = outputs
    return counts, rank_sum, tie_term, total, by_group, group_offsets


def record_batches(columns: Sequence[Sequence[np.ndarray]]) -> list[Batch]:
    """(keys, groups, values) per batch from the columns' chunks, read-only and contiguous
    (numba compiles one signature), groups as uint8."""
    keys, groups, values = columns
    return [(_readonly(np.asarray(k, np.uint64)), _readonly(np.asarray(g, np.uint8)),
             _readonly(np.asarray(v, np.float64))) for k, g, v in zip(keys, groups, values)]
