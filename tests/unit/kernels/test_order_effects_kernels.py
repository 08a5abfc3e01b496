"""The segmented kernels of the order-effects jobs against slow per-segment twins."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.kernels import order_effects as k
from tests.naive import order_effects as naive

NO_SEED = np.empty(0, np.uint64)


def random_rows(rng: np.random.Generator, n: int, n_configs: int, kind: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    codes = rng.integers(0, n_configs, n).astype(np.int32)
    groups = rng.integers(0, 2, n).astype(np.uint8)
    if kind == 0:
        values = rng.integers(0, 5, n).astype(float)  # ties and zeros
    elif kind == 1:
        values = rng.normal(0, 1, n)  # mixed signs: "wide" configurations
    elif kind == 2:
        values = np.round(rng.lognormal(3, 0.2, n), 1)  # typical: positive, ties
    elif kind == 3:
        values = rng.lognormal(0, 8, n) * rng.choice([-1, 1], n)  # extreme ranges
        values[::5] = -0.0
        values[::7] = 0.0
    else:
        values = np.full(n, 4.25)  # everything tied
    return codes, groups, values


@pytest.mark.parametrize("kind", range(5))
@pytest.mark.parametrize("batch_bits", [1, 3, 6])
def test_pooled_sort_and_walk_equal_the_slow_twin(kind: int, batch_bits: int) -> None:
    rng = np.random.default_rng(100 * kind + batch_bits)
    for _ in range(8):
        n_configs = int(rng.integers(1, 40))
        n = int(rng.integers(0, 300))
        codes, groups, values = random_rows(rng, n, n_configs, kind)
        outputs = k.two_group_ranks(codes, groups, values, n_configs, batch_bits)
        naive.assert_two_group_ranks(n_configs, outputs,
                                     naive.two_group_table(codes, groups, values))


def test_packed_values_decode_bit_exactly() -> None:
    rng = np.random.default_rng(5)
    extremes = [5e-324, 1.7e308, 1.0, np.nextafter(1.0, 2)]
    values = np.concatenate([rng.lognormal(0, 1, 500), extremes])
    codes = np.zeros(values.size, np.int32)
    by_group = k.two_group_ranks(codes, np.zeros(values.size, np.uint8), values, 1)[4]
    assert np.array_equal(by_group.view(np.uint64), np.sort(values).view(np.uint64))


def test_dense_codes_numbers_pairs_and_honours_seeds() -> None:
    rng = np.random.default_rng(9)
    for n_unique in (1, 50, 5000):  # 5000 forces the table to grow several times
        pool_a = rng.integers(0, 2**63, n_unique, dtype=np.uint64)
        pool_b = rng.integers(0, 3, n_unique).astype(np.uint64)
        pick = rng.integers(0, n_unique, 20000)
        a, b = pool_a[pick], pool_b[pick]
        codes, first_row = k.dense_codes(a, b, NO_SEED, NO_SEED)
        pairs = list(zip(a.tolist(), b.tolist()))
        expected: dict[tuple[int, int], int] = {}
        for pair in pairs:
            expected.setdefault(pair, len(expected))
        assert codes.tolist() == [expected[p] for p in pairs]
        assert first_row.tolist() == [pairs.index(p) for p in expected]
    seeds_a = np.array([7, 8, 9], np.uint64)
    seeds_b = np.array([1, 1, 1], np.uint64)
    codes, first_row = k.dense_codes(np.array([9, 5, 7, 9], np.uint64),
                                     np.array([1, 1, 1, 2], np.uint64), seeds_a, seeds_b)
    assert codes.tolist() == [2, 3, 0, 4]
    assert first_row.tolist() == [2, -1, 0, 1, 3]


def test_rank_sums_search_equals_mid_ranks() -> None:
    rng = np.random.default_rng(4)
    for _ in range(50):
        n_configs = int(rng.integers(1, 5))
        samples = [[random_rows(rng, int(rng.integers(1, 15)), 1, int(rng.integers(0, 4)))[2]
                    for _ in range(rng.integers(1, 5))] for _ in range(n_configs)]
        pooled = np.concatenate([np.sort(np.concatenate(s)) for s in samples])
        pooled_offsets = np.cumsum([0] + [sum(x.size for x in s) for s in samples])
        by_group = np.concatenate([x for s in samples for x in s])
        group_offsets = np.cumsum([0] + [x.size for s in samples for x in s])
        group_config = np.array([c for c, s in enumerate(samples) for _ in s], np.int64)
        rank_sum, tie_term = k.rank_sums_search(pooled, pooled_offsets, by_group, group_offsets,
                                                group_config)
        g = 0
        for c, s in enumerate(samples):
            ranks = naive.midranks(list(np.concatenate(s)))
            start = 0
            for x in s:
                assert rank_sum[g] == sum(ranks[start:start + x.size])
                start += x.size
                g += 1
            assert tie_term[c] == naive.tie_term(list(np.concatenate(s)))


def test_stable_segment_order_and_mid_ranks() -> None:
    rng = np.random.default_rng(6)
    values = rng.integers(0, 8, 500).astype(float)
    segment = rng.integers(0, 23, 500).astype(np.int64)  # segment 22 may be empty
    by_value = np.argsort(values)
    rows, offsets = k.stable_segment_order(by_value, segment, 24)
    rank_of_row, tie_term = k.mid_ranks(values, rows, offsets)
    for s in range(24):
        members = rows[offsets[s]:offsets[s + 1]]
        assert sorted(members.tolist()) == np.flatnonzero(segment == s).tolist()
        # the order of by_value is kept inside each segment
        assert [int(np.flatnonzero(by_value == r)[0]) for r in members] == sorted(
            int(np.flatnonzero(by_value == r)[0]) for r in members)
        pooled = values[members].tolist()
        assert pooled == sorted(pooled)
        assert rank_of_row[members].tolist() == naive.midranks(pooled)
        assert tie_term[s] == naive.tie_term(pooled)


def test_predecessor_tests_equal_the_slow_twin() -> None:
    rng = np.random.default_rng(8)
    runs, positions, tests = [], [], []
    for run in range(40):
        order = rng.permutation(12)
        for position, test in enumerate(order):
            if rng.random() < 0.05:
                continue  # a failed trial without a row
            for _metric in range(int(rng.integers(1, 3))):
                runs.append(run)
                positions.append(position)
                tests.append(int(test))
    shuffle = rng.permutation(len(runs))
    runs_a = np.array(runs)[shuffle].astype(np.int32)
    positions_a = np.array(positions)[shuffle].astype(np.int64)
    tests_a = np.array(tests)[shuffle].astype(np.int64)
    got = k.predecessor_tests(runs_a, positions_a, tests_a, 40)
    assert got.tolist() == naive.predecessors(runs_a, positions_a, tests_a)
    assert (got == -2).any() and (got == -1).any()


def test_exclude_sorted_removes_one_copy_per_group_value() -> None:
    pooled = np.array([1.0, 2.0, 2.0, 2.0, 3.0, 5.0, 0.5, 0.5])
    pooled_offsets = np.array([0, 6, 8])
    by_group = np.array([2.0, 2.0, 5.0, 0.5])
    group_offsets = np.array([0, 3, 4])
    rest, rest_offsets = k.exclude_sorted(pooled, pooled_offsets, by_group, group_offsets,
                                          np.array([0, 1]))
    assert rest[rest_offsets[0]:rest_offsets[1]].tolist() == [1.0, 2.0, 3.0]
    assert rest[rest_offsets[1]:rest_offsets[2]].tolist() == [0.5]
    rest, rest_offsets = k.exclude_sorted(pooled, pooled_offsets, by_group, group_offsets,
                                          np.array([-1, 1]))
    assert rest_offsets.tolist() == [0, 0, 1]


def test_pair_groups() -> None:
    rng = np.random.default_rng(10)
    segment = rng.integers(0, 7, 300).astype(np.int64)
    second = rng.integers(0, 9, 300).astype(np.int64)
    rows, offsets = k.stable_segment_order(np.arange(300), segment, 7)
    group, group_segment, group_second = k.pair_groups(rows, offsets, second, 9)
    pairs = sorted({(int(a), int(b)) for a, b in zip(segment, second)})
    assert sorted(zip(group_segment.tolist(), group_second.tolist())) == pairs
    for row in range(300):
        assert (group_segment[group[row]], group_second[group[row]]) == (segment[row], second[row])
    assert np.all(np.diff(group_segment) >= 0)  # a segment's groups are consecutive
