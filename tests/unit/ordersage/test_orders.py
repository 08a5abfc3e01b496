"""The pure functions of the order-effects job against one-configuration-at-a-time twins."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.configurations import confidence_value, family_query_params
from perfwarehouse.ordersage import orders as oe
from perfwarehouse.stats import median_ci
from perfwarehouse.stats.corrections import adjust_pvalues
from tests.naive import order_effects as naive


def as_lists(columns: dict) -> list[dict]:
    names = list(columns)
    return [dict(zip(names, row)) for row in zip(*(columns[c].to_pylist() for c in names))]


@pytest.mark.parametrize("confidence", [None, 0.95])
def test_compare_orders_equals_the_per_configuration_twin(confidence: float | None) -> None:
    rng = np.random.default_rng(12)
    n_configs = 60
    sizes = rng.integers(0, 40, n_configs)
    codes = np.repeat(np.arange(n_configs), sizes).astype(np.int32)
    groups = rng.integers(0, 2, codes.size).astype(np.uint8)
    groups[codes == 0] = 0  # a configuration with fixed trials only
    scale = rng.lognormal(3, 1, n_configs)[codes]
    values = np.round(scale * rng.lognormal(0, 0.05, codes.size) + 0.3 * groups * scale / 10, 2)
    values[codes == 1] = 7.5  # all tied
    m = np.full(n_configs, 40)
    fast = as_lists(oe.compare_orders(codes, groups, values, n_configs, m=m, alpha=0.05,
                                      ci_confidence=confidence))
    slow = naive.compare_orders(codes, groups, values, n_configs, m, 0.05, confidence)
    for c, (f, s) in enumerate(zip(fast, slow)):
        for key, expected in s.items():
            if isinstance(expected, float):
                assert f[key] == pytest.approx(expected, rel=1e-9, abs=1e-12), (c, key)
            else:
                assert f[key] == expected, (c, key)
    assert fast[1]["all_tied"] and fast[1]["kw_p"] is None
    assert fast[0]["kw_df"] is None and not fast[0]["reject_alpha"]


def test_too_few_values_give_null_ci_and_case() -> None:
    codes = np.zeros(7, np.int32)
    groups = np.array([0, 0, 0, 1, 1, 1, 1], np.uint8)
    values = np.array([1.0, 2, 3, 4, 5, 6, 7])
    row = as_lists(oe.compare_orders(codes, groups, values, 1, m=np.array([1]), alpha=0.05,
                                     ci_confidence=0.95))[0]
    assert row["ci_fixed_low"] is None and row["ci_case"] is None
    assert row["ci_fixed_n_required"] == median_ci([1.0, 2, 3], 0.95).n_required == 6
    assert row["ci_fixed_coverage"] == pytest.approx(median_ci([1.0, 2, 3], 0.95).coverage)
    assert row["kw_p"] == pytest.approx(scipy.stats.kruskal([1, 2, 3], [4, 5, 6, 7]).pvalue)
    assert row["small_sample"]


def test_le_boudec_and_ordersage_indices() -> None:
    rng = np.random.default_rng(1)
    n = np.arange(1, 200)
    for confidence in (0.95, 0.99, 1 - 0.05 / 20):
        lo, hi, coverage = oe.interval_indices(n, confidence, "le-boudec")
        for i, size in enumerate(n):
            sample = np.sort(rng.normal(size=size))
            ref = median_ci(sample, confidence, method="le-boudec")
            if ref.low is None:
                assert lo[i] == 0
            else:
                assert (sample[lo[i] - 1], sample[hi[i] - 1]) == (ref.low, ref.high)
                assert coverage[i] == pytest.approx(ref.coverage)
        # OrderSage's get_ci, written out: 0-based ranks into the sorted sample
        lo, hi, _ = oe.interval_indices(n, confidence, "ordersage")
        eta = scipy.stats.norm.ppf((1 + confidence) / 2.0)
        for i, size in enumerate(n):
            lo_rank = max(int(np.floor(size * 0.5 - eta * np.sqrt(size * 0.5 * 0.5))), 0)
            hi_rank = min(int(np.ceil(size * 0.5 + eta * np.sqrt(size * 0.5 * 0.5)) + 1), size - 1)
            assert (lo[i] - 1, hi[i] - 1) == (lo_rank, hi_rank)


def test_ci_case_rules() -> None:
    def case(f: tuple[float, float, float], r: tuple[float, float, float]) -> int:
        ci_f = {"low": np.array([f[0]]), "high": np.array([f[2]])}
        ci_r = {"low": np.array([r[0]]), "high": np.array([r[2]])}
        return int(oe.ci_case(np.array([f[1]]), ci_f, np.array([r[1]]), ci_r)[0])

    assert case((1, 2, 3), (4, 5, 6)) == 1  # disjoint
    assert case((1, 2, 3), (3, 4, 5)) == 3  # touching, medians outside: overlap, case 3
    assert case((1, 3, 5), (2, 4, 6)) == 2  # both medians inside
    assert case((1, 2, 5), (2.5, 6, 7)) == 3  # overlap, neither median strictly inside
    assert case((1, 2, 10), (3, 4, 5)) == 2  # one median inside is enough
    assert case((1, 2, 4), (2, 3, 4)) == 2  # 3 strictly inside (1, 4)


@pytest.mark.parametrize("method", ["holm", "bh", "bonferroni"])
def test_adjusted_p_values(method: str) -> None:
    rng = np.random.default_rng(2)
    p = np.concatenate([rng.uniform(0, 1, 30), rng.uniform(0, 0.01, 10), [np.nan]])
    family = rng.integers(0, 3, p.size)
    compared = np.ones(p.size, bool)
    compared[0] = False
    got = adjust_pvalues(p, compared, family, method)
    assert math.isnan(got[0]) and math.isnan(got[-1])
    for f in range(3):
        rows = [i for i in range(p.size) if family[i] == f and compared[i]]
        pv = [1.0 if math.isnan(p[i]) else p[i] for i in rows]
        expected = ([min(1.0, x * len(pv)) for x in pv] if method == "bonferroni"
                    else naive.adjust(pv, method))
        for i, e in zip(rows, expected):
            if not math.isnan(p[i]):
                assert got[i] == pytest.approx(e, rel=1e-12)


def test_parameter_validation() -> None:
    assert family_query_params("settings.kind") == {"family_column": "settings",
                                                    "settings_path": '$."kind"'}
    assert family_query_params("benchmark")["family_column"] == "benchmark"
    for bad in ("node", "settings.", "settings.a'b", "value; DROP TABLE x", ""):
        with pytest.raises(UsageError, match="--family-by"):
            family_query_params(bad)
    assert confidence_value("95") == pytest.approx(0.95)
    assert confidence_value(0.99) == 0.99 and confidence_value(None) is None
    for bad in ("abc", "0", "100", "1.5e3", -1):
        with pytest.raises(UsageError):
            confidence_value(bad)


def test_cube_minus_does_not_overflow() -> None:
    n = np.array([0, 1, 2, 1000, 2**21 - 1, 2**21, 5 * 10**6])
    got = oe.cube_minus(n)
    for value, size in zip(got, n.tolist()):
        assert value == pytest.approx(float(size**3 - size), rel=1e-15)
    assert got[3] == 1000**3 - 1000  # exact where int64 is
