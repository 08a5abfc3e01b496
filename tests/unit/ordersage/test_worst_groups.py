"""The predecessor analysis's choice of each configuration's worst group against the
lexsort it replaced: largest shift first, ties to the smallest test."""

from __future__ import annotations

import numpy as np

from perfwarehouse.ordersage.predecessors import worst_groups


def lexsort_twin(cand: np.ndarray, group_config: np.ndarray, shift: np.ndarray,
                 group_test: np.ndarray, n_configs: int) -> np.ndarray:
    chosen = np.full(n_configs, -1, np.int64)
    if cand.size:
        order = np.lexsort((group_test[cand], -shift[cand], group_config[cand]))
        ranked = cand[order]
        firsts = np.flatnonzero(np.r_[True, np.diff(group_config[ranked]) != 0])
        chosen[group_config[ranked[firsts]]] = ranked[firsts]
    return chosen


def test_worst_groups_equal_the_lexsort() -> None:
    rng = np.random.default_rng(38)
    for _ in range(200):
        n_configs = int(rng.integers(1, 8))
        sizes = rng.integers(0, 6, n_configs)
        group_config = np.repeat(np.arange(n_configs), sizes)
        group_test = np.concatenate([rng.permutation(20)[:k] - 1 for k in sizes]
                                    ).astype(np.int64)  # distinct within a configuration
        shift = rng.choice([0.0, -0.0, 0.5, 0.25, 2.0], group_config.size)  # many ties
        cand = np.flatnonzero(rng.random(group_config.size) < 0.7)
        assert np.array_equal(worst_groups(cand, group_config, shift, group_test, n_configs),
                              lexsort_twin(cand, group_config, shift, group_test, n_configs))
