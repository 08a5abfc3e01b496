"""The order-effects job's batch kernels (perfwarehouse.kernels.order_rows) against
slow twins: dict-numbered keys, bincount counts, and the ranks of the slow per-segment
twin of two_group_ranks, on random batches with NaN, left-out rows, ties, -0.0, tiny and
constant groups, "wide" ranges and more keys than the first hash table holds."""

from __future__ import annotations

import numpy as np
import pytest

from perfwarehouse.kernels import order_rows
from perfwarehouse.kernels.pooled_ranks import _order_key
from tests.naive import order_effects as naive


def random_batches(rng: np.random.Generator, n: int, n_keys: int, kind: int
                   ) -> list[order_rows.Batch]:
    pool = rng.integers(0, 2**64, n_keys, dtype=np.uint64)
    keys = pool[rng.integers(0, n_keys, n)]
    groups = rng.choice(np.array([0, 1, 2], np.uint8), n, p=[0.45, 0.45, 0.1])
    if kind == 0:
        values = rng.integers(0, 4, n).astype(float)  # many ties, zeros
    elif kind == 1:
        values = rng.normal(0, 1, n)  # mixed signs: wide configurations
        values[::9] = -0.0
    elif kind == 2:
        values = np.round(rng.lognormal(3, 0.2, n), 1)
    else:
        values = np.full(n, 2.5)  # constant groups
    values[rng.random(n) < 0.05] = np.nan
    cuts = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 4))))
    return order_rows.record_batches([np.split(keys, cuts), np.split(groups, cuts),
                                      np.split(values, cuts)])


def test_code_batches_numbers_keys_and_counts_like_the_slow_twin() -> None:
    rng = np.random.default_rng(21)
    for n, n_keys in ((0, 1), (1, 1), (40, 3), (20000, 3000)):  # 3000: the table grows
        batches = random_batches(rng, n, n_keys, 1)
        codes, code_key, counts, kept, key_min, key_max, dropped = order_rows.code_batches(batches)
        keys = np.concatenate([b[0] for b in batches])
        groups = np.concatenate([b[1] for b in batches]).astype(np.int64)
        values = np.concatenate([b[2] for b in batches])
        numbered: dict[int, int] = {}
        for key in keys.tolist():
            numbered.setdefault(key, len(numbered))
        code = np.array([numbered[k] for k in keys.tolist()], np.int64)
        assert np.concatenate([np.zeros(0, np.int32)] + codes).tolist() == code.tolist()
        assert code_key.tolist() == list(numbered)
        k = len(numbered)
        assert counts.tolist() == np.bincount(code * 3 + groups, minlength=3 * k
                                              ).reshape(k, 3).tolist()
        keep = (groups < 2) & ~np.isnan(values)
        assert dropped == int((~keep).sum())
        assert kept.tolist() == np.bincount(code[keep] * 2 + groups[keep], minlength=2 * k
                                            ).reshape(k, 2).tolist()
        for c in range(k):
            order_keys = [int(_order_key(np.float64(v).view(np.uint64)))
                          for v in values[keep & (code == c)]]
            assert int(key_min[c]) == min(order_keys, default=2**64 - 1)
            assert int(key_max[c]) == max(order_keys, default=0)


@pytest.mark.parametrize("kind", range(4))
@pytest.mark.parametrize("batch_bits", [1, 6])
def test_ranks_of_batches_equal_the_slow_twin_in_the_given_order(kind: int,
                                                                 batch_bits: int) -> None:
    rng = np.random.default_rng(10 * kind + batch_bits)
    for _ in range(6):
        n_keys = int(rng.integers(1, 30))
        batches = random_batches(rng, int(rng.integers(1, 400)), n_keys, kind)
        codes, code_key, _, kept, key_min, key_max, _ = order_rows.code_batches(batches)
        order = rng.permutation(code_key.size)
        outputs = order_rows.ranks_of_batches(batches, codes, order, kept, key_min, key_max,
                                              batch_bits)
        new_code = np.empty(order.size, np.int64)
        new_code[order] = np.arange(order.size)
        all_codes = new_code[np.concatenate(codes)]
        groups = np.concatenate([b[1] for b in batches])
        values = np.concatenate([b[2] for b in batches])
        keep = (groups < 2) & ~np.isnan(values)
        naive.assert_two_group_ranks(order.size, outputs, naive.two_group_table(
            all_codes[keep], groups[keep], values[keep]))
