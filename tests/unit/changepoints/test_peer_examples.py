"""The peers' published example series at perfwarehouse's defaults (issue 29), exact
p-values for the shortest series, and p-values that do not depend on ``alpha``.

Sources (numbers written here from the peers' repositories, read with the search tool):

* Apache Otava, ``tests/analysis_test.py`` (``test_single_series``: a 20-point series
  with a change at index 10, found at ``max_pvalue=0.0001``; ``test_significance_tester``:
  two 10-point series, one flat, one dropping after index 5, significant at 0.001);
* Apache Otava, ``examples/csv/data/local_sample.csv`` (column ``metric2``: 10 points,
  -12.9 % from row 6; ``metric1`` without change);
* MongoDB signal-processing-algorithms, ``tests/test_e_divisive.py``
  (``test_default_implementation_sanity``: ``[0] * cp + [1] * cp`` gives ``[cp]`` for cp
  in 4..99 at its defaults, p 0.05).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from perfwarehouse.changepoints import analysis as changepoints
from perfwarehouse.changepoints.analysis import detect, points_needed, split_floor
from tests.naive.changepoints import q_naive

OTAVA_SINGLE = [1.02, 0.95, 0.99, 1.00, 1.12, 1.00, 1.01, 0.98, 1.01, 0.96,
                0.50, 0.51, 0.48, 0.48, 0.55, 0.50, 0.49, 0.51, 0.50, 0.49]
OTAVA_TESTER_FLAT = [1.00, 1.02, 1.05, 0.95, 0.98, 1.00, 1.02, 1.05, 0.95, 0.98]
OTAVA_TESTER_STEP = [1.00, 1.02, 1.05, 0.95, 0.98, 0.80, 0.82, 0.85, 0.79, 0.77]
OTAVA_SAMPLE_METRIC1 = [154023, 138455, 143112, 149190, 132098, 151344, 155145, 148889,
                        149466, 148209]
OTAVA_SAMPLE_METRIC2 = [10.43, 10.23, 10.29, 10.91, 10.34, 10.69, 9.23, 9.11, 9.13, 9.03]


def test_otava_single_series_found_at_the_defaults() -> None:
    result = detect(OTAVA_SINGLE)
    assert [c.position for c in result.change_points] == [10]
    assert result.change_points[0].change_pct < -45


def test_otava_significance_tester_series_at_the_defaults() -> None:
    """The 10-point step (5 | 5, every point after below every point before) is tested
    exactly: p = 2 / C(10, 5) = 0.0079 <= 0.01; the flat one has no change."""
    step = detect(OTAVA_TESTER_STEP)
    assert [c.position for c in step.change_points] == [5]
    assert step.p_value == pytest.approx(2 / math.comb(10, 5), rel=1e-12)
    flat = detect(OTAVA_TESTER_FLAT)
    assert flat.change_points == () and "no significant change" in flat.reason


def test_otava_sample_csv_says_what_would_detect_its_change() -> None:
    """metric2 drops 12.9 % after row 6 of 10: 6 | 4 points. No rank test on 10 points
    gets that split below 4 / C(10, 4) = 0.019, so at alpha 0.01 the row says so and how
    many points after the change would do; at alpha 0.05 it is found at row 6."""
    result = detect(OTAVA_SAMPLE_METRIC2)
    assert result.change_points == ()
    floor = 4 / math.comb(10, 4)
    assert split_floor(6, 4) == pytest.approx(floor)
    assert f"{floor:.3g}" in result.reason and "after point 6 of 10" in result.reason
    need = points_needed(6, 0.01)
    assert need == min(b for b in range(1, 50) if 4 / math.comb(6 + b, b) <= 0.01)
    assert f">= {need} points after it" in result.reason
    assert result.p_value is not None and result.p_value >= floor
    loose = detect(OTAVA_SAMPLE_METRIC2, alpha=0.05)
    [cp] = loose.change_points
    assert cp.position == 6 and -15 < cp.change_pct < -10
    assert detect(OTAVA_SAMPLE_METRIC1).change_points == ()
    # with 5 points after the change (the same level), the defaults find it
    longer = detect(OTAVA_SAMPLE_METRIC2 + [9.17])
    assert [c.position for c in longer.change_points] == [6]


@pytest.mark.parametrize("cp", range(4, 100))
def test_mongodb_sanity_series(cp: int) -> None:
    """[0] * cp + [1] * cp: found at cp for every cp whose exact p 2 / C(2 cp, cp) can
    reach alpha = 0.01 (cp >= 5); at cp = 4 (p >= 0.029) the row says so."""
    result = detect([0.0] * cp + [1.0] * cp)
    exact_p = 2 / math.comb(2 * cp, cp)
    if exact_p <= 0.01:
        assert [c.position for c in result.change_points] == [cp]
        assert result.change_points[0].change_pct == pytest.approx(100.0)
    else:
        assert result.change_points == ()
        assert f"{exact_p:.3g}" in result.reason
    if math.comb(2 * cp, cp) <= changepoints.EXACT_TIED_ARRANGEMENTS:  # every arrangement
        assert result.p_value == pytest.approx(exact_p, rel=1e-12)


@pytest.mark.parametrize("seed", range(12))
def test_exact_p_equals_brute_force(seed: int) -> None:
    """Short series (distinct, tied) get the share of all their distinct arrangements
    whose max Q reaches the observed one: brute force over itertools.permutations."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 9)) if seed % 2 else int(rng.integers(6, 8))  # <= 5,040 / 2
    x = rng.normal(0, 1, n) if seed % 2 else np.round(rng.normal(0, 1, n) * 1.5)
    if seed % 3 == 0:
        x[n // 2:] += 3
    min_size = 2 + seed % 2
    result = detect(x, min_size=min_size)
    from scipy.stats import rankdata
    ranks = [float(r) for r in rankdata(x)]
    if len(set(ranks)) == 1:
        return

    def best(z: list[float]) -> float:
        return max(v for v in q_naive(z, min_size) if not math.isnan(v))

    observed = best(ranks)
    every = set(itertools.permutations(ranks))
    hits = sum(1 for a in every if best(list(a)) >= observed - 1e-9 * abs(observed))
    assert result.p_value == pytest.approx(hits / len(every), rel=1e-12)


def _kinds(rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for n in (15, 40, 120, 400):
        out.append(rng.normal(100, 1, n))
        out.append(rng.standard_t(2, n))
        step = rng.normal(100, 1, n)
        step[n // 2:] += 1.0
        out.append(step)
        out.append(np.round(rng.normal(10, 1, n)))
    return out


def test_p_value_does_not_depend_on_alpha() -> None:
    rng = np.random.default_rng(7)
    for x in _kinds(rng):
        ps = {alpha: detect(x, alpha=alpha).p_value for alpha in (0.001, 0.01, 0.05, 0.3)}
        assert len(set(ps.values())) == 1, ps


def test_reported_p_is_the_p_of_every_permutation_where_it_decides() -> None:
    """The sequential p (Besag & Clifford, stopping after SEQUENTIAL_HITS maxima >= the
    observed one) equals the p of all 999 permutations of the same stream whenever either
    is <= (1 + SEQUENTIAL_HITS) / 1000; above, both are."""
    rng = np.random.default_rng(8)
    bound = (1 + changepoints.SEQUENTIAL_HITS) / 1000
    equal = 0
    for x in _kinds(rng) + _kinds(rng):
        result = detect(x)
        split, observed, ranks, n_levels = changepoints.segment_split(
            changepoints.search_values(x), changepoints.DEFAULT_MIN_SIZE)
        sorted_ranks = np.sort(ranks)
        if changepoints.arrangements(sorted_ranks, changepoints.EXACT_TIED_ARRANGEMENTS) \
                <= changepoints.EXACT_TIED_ARRANGEMENTS:
            continue
        stream = changepoints._Stream(np.arange(1.0, x.size + 1.0) if n_levels == x.size
                                      else sorted_ranks, changepoints.DEFAULT_MIN_SIZE)
        full = stream.p_value(observed - 1e-9 * abs(observed), 10**9, 999)
        assert result.p_value is not None
        if min(full, result.p_value) <= bound:
            assert result.p_value == full
            equal += 1
        else:
            assert result.p_value > bound and full > bound
    assert equal >= 6  # the planted steps of 400 points and some of 120
