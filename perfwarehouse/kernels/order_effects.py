"""Segmented rank statistics for order effects (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5).

The order-effects job compares, for every configuration of a campaign at once,
the values of its fixed-order trials with those of its random-order trials.
Everything a configuration needs (Kruskal-Wallis rank sums with tie correction,
means, every order statistic of each group) comes from its values *pooled and
sorted*, with the group of each value riding along. The kernels get there in a
few passes over all rows, without a Python loop per configuration:

1. :func:`dense_codes` numbers the rows' configurations 0..C-1 (an open
   addressing hash of a 64-bit key per (campaign, hardware type, configuration),
   seeded with the configurations' keys so that codes are their row numbers).
2. :func:`pooled_sort_keys` counts the rows of each (configuration, group) and
   packs each row into one ``uint64``: the configuration (its place in a batch
   of 64) in the high bits, the value's order-preserving bit pattern (relative
   to the configuration's smallest) in the middle and the group in the low
   bit(s). ``np.sort`` of each batch's keys (numpy's vectorised sort) then
   orders the rows by configuration, value and group, and the packing is exact,
   so the sorted keys decode back to the original values. A configuration
   whose values span too many bit patterns to fit (values of mixed sign, or a
   range wider than a factor of about 2^32) is "wide": its rows are left out of
   the packed sort and ordered by value with numpy's argsort.
3. and 4. :func:`walk_packed` decodes each configuration's sorted keys into a
   small buffer and walks them once: mid-ranks of tie blocks, the rank sum and
   the sum of each group, the tie term sum(t^3 - t), and each group's values in
   sorted order (from which any order statistic is picked by index, vectorised,
   in the caller).

For k groups: :func:`rank_sums_search` finds each value's mid-rank by binary
search in its configuration's pooled sorted values (``stats.kruskal``: few
groups); for the many small groups of the predecessor effect, rows ordered by
value (numpy's argsort) are counting-sorted by configuration and by group
(:func:`stable_segment_order`, :func:`pair_groups`), :func:`mid_ranks` ranks them, and
:func:`predecessor_tests` and :func:`exclude_sorted` find each trial's
predecessor and the rest of a configuration without its worst group.

Values are float64; NaN must be removed by the caller. Ranks are 1-based
mid-ranks (``scipy.stats.rankdata(method="average")``); sums of mid-ranks are
sums of half-integers and therefore exact, whatever the summation order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SIGN = np.uint64(0x8000000000000000)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xC2B2AE3D27D4EB4F)


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
def _code_keys(
    first: np.ndarray, second: np.ndarray, start: int, codes: np.ndarray, slot_first: np.ndarray,
    slot_second: np.ndarray, slot_code: np.ndarray, n_unique: int, bits: int,
) -> tuple[int, int]:
    """Code rows ``start:`` until the table is an eighth full; returns (next row, n_unique)."""
    mask = slot_code.size - 1
    shift = np.uint64(64 - bits)
    limit = slot_code.size // 8
    for i in range(start, first.size):
        a = first[i]
        b = second[i]
        h = np.int64(((a ^ (b * _MIX)) * _GOLDEN) >> shift)
        code = slot_code[h]
        while code >= 0 and (slot_first[h] != a or slot_second[h] != b):
            h = (h + 1) & mask
            code = slot_code[h]
        if code < 0:
            code = n_unique
            slot_code[h] = code
            slot_first[h] = a
            slot_second[h] = b
            n_unique += 1
        codes[i] = code
        if n_unique >= limit:
            return i + 1, n_unique
    return first.size, n_unique


@njit(cache=True)
def _grow(slot_first: np.ndarray, slot_second: np.ndarray, slot_code: np.ndarray, bits: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hash table re-inserted into one of 2**bits slots."""
    new_first = np.zeros(1 << bits, np.uint64)
    new_second = np.zeros(1 << bits, np.uint64)
    new_code = np.full(1 << bits, -1, np.int32)
    mask = (1 << bits) - 1
    for s in range(slot_code.size):
        if slot_code[s] < 0:
            continue
        a, b = slot_first[s], slot_second[s]
        h = np.int64(((a ^ (b * _MIX)) * _GOLDEN) >> np.uint64(64 - bits))
        while new_code[h] >= 0:
            h = (h + 1) & mask
        new_code[h] = slot_code[s]
        new_first[h] = a
        new_second[h] = b
    return new_first, new_second, new_code


def _readonly(a: np.ndarray) -> np.ndarray:
    """A read-only C-contiguous view of ``a``: numba compiles a kernel once per signature,
    and Arrow hands out read-only arrays where a filtered or concatenated column is
    writable; passing every input read-only compiles one signature, not 2^inputs."""
    view = np.ascontiguousarray(a).view()
    view.flags.writeable = False
    return view


def dense_codes(
    first: np.ndarray, second: np.ndarray, seed_first: np.ndarray, seed_second: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct pairs ``(first[i], second[i])`` (uint64) 0..K-1.

    The seed pairs are numbered first, in order (distinct seeds get 0..S-1), so
    a row whose code is below S matches the seed of that number; the other
    pairs follow in order of first appearance. Pass the same array twice to
    code single keys, and empty seeds for none.

    Returns ``(codes int32[n], first_row int64[K])``: ``first_row[k]`` is the
    first row with code k (-1 for a seed no row has).
    Open addressing with linear probing; the table doubles when it is an eighth
    full (a sparse table keeps probes short and branches predictable).
    """
    return _dense_codes(*(_readonly(a) for a in (first, second, seed_first, seed_second)))


@njit(cache=True)
def _dense_codes(
    first: np.ndarray, second: np.ndarray, seed_first: np.ndarray, seed_second: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    bits = 10
    while (1 << bits) < 8 * seed_first.size + 8:
        bits += 1
    slot_first = np.zeros(1 << bits, np.uint64)
    slot_second = np.zeros(1 << bits, np.uint64)
    slot_code = np.full(1 << bits, -1, np.int32)
    seed_codes = np.empty(seed_first.size, np.int32)
    n_unique = 0
    done, n_unique = _code_keys(seed_first, seed_second, 0, seed_codes, slot_first, slot_second,
                                slot_code, n_unique, bits)
    codes = np.empty(first.size, np.int32)
    row = 0
    while True:
        done, n_unique = _code_keys(first, second, row, codes, slot_first, slot_second,
                                    slot_code, n_unique, bits)
        if done >= first.size:
            break
        row = done
        bits += 1
        slot_first, slot_second, slot_code = _grow(slot_first, slot_second, slot_code, bits)
    first_row = np.full(n_unique, -1, np.int64)
    for i in range(first.size):
        if first_row[codes[i]] < 0:
            first_row[codes[i]] = i
    return codes, first_row


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


@njit(cache=True)
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
    n_configs = counts.shape[0]
    group_offsets = np.empty((n_configs, 2), np.int64)
    start = 0
    largest = 0
    for c in range(n_configs):
        group_offsets[c, 0] = start
        group_offsets[c, 1] = start + counts[c, 0]
        size = counts[c, 0] + counts[c, 1]
        start += size
        largest = max(largest, size)
    rank_sum = np.zeros((n_configs, 2))
    total = np.zeros((n_configs, 2))
    tie_term = np.zeros(n_configs)
    by_group = np.empty(start)
    cursor = np.empty(2, np.int64)
    buffer_bits = np.empty(largest, np.uint64)
    buffer = buffer_bits.view(np.float64)
    buffer_groups = np.empty(largest, np.uint8)
    shift = np.uint64(64 - batch_bits)
    value_mask = (np.uint64(1) << shift) - np.uint64(1)
    one = np.uint64(1)
    for b in range(batch_offsets.size - 1):
        i, end = batch_offsets[b], batch_offsets[b + 1]
        while i < end:  # one configuration's keys are contiguous in its sorted batch
            c = (b << batch_bits) + np.int64(packed_sorted[i] >> shift)  # type: ignore[assignment]
            n = counts[c, 0] + counts[c, 1]
            low = key_min[c]
            for q in range(n):
                key = packed_sorted[i + q]
                buffer_bits[q] = _from_order_key(((key & value_mask) >> one) + low)
                buffer_groups[q] = np.uint8(key & one)
            _walk_config(buffer, buffer_groups, n, c, rank_sum, tie_term, total, by_group,
                         group_offsets, cursor)
            i += n
    if wide_rows.size:
        # wide configurations: their rows, already in value order, gathered per configuration
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
        for c in range(n_configs):
            if wide[c]:
                a, z = first[c], first[c + 1]
                _walk_config(pooled[a:z], pooled_groups[a:z], z - a, c, rank_sum, tie_term,
                             total, by_group, group_offsets, cursor)
    return rank_sum, tie_term, total, by_group, group_offsets


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
