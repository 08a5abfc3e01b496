"""perfwarehouse.compare against scipy and the slow twins; verdict rules."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from scipy import stats as sps

from perfwarehouse.compare import compare_samples, compare_table, judge, more_trials, verdict_line
from tests.naive.compare import bh_naive, bonferroni_naive, change_naive, holm_naive


@pytest.mark.parametrize(("n1", "n2"), [(3, 4), (6, 6), (5, 9)])
def test_change_interval_and_p_equal_twin_and_scipy(n1: int, n2: int) -> None:
    rng = np.random.default_rng(n1 * 10 + n2)
    for _ in range(4):
        x = rng.lognormal(4.0, 0.1, n1)
        y = rng.lognormal(4.05, 0.1, n2)
        r = compare_samples(x, y, confidence=0.9)
        pct, low, high = change_naive(list(x), list(y), 0.9)
        assert r.change_pct == pytest.approx(pct, rel=1e-9)
        assert r.ci_low_pct == (None if low is None else pytest.approx(low, rel=1e-9))
        assert r.ci_high_pct == (None if high is None else pytest.approx(high, rel=1e-9))
        ref = sps.mannwhitneyu(x, y, method="exact")  # small samples: exact (issue 29)
        assert r.p_value == pytest.approx(ref.pvalue, rel=1e-12)
        assert r.median_baseline == np.median(x) and r.median_contender == np.median(y)


@pytest.mark.parametrize(("method", "twin"), [("holm", holm_naive), ("bh", bh_naive),
                                              ("bonferroni", bonferroni_naive)])
def test_adjusted_p_equal_twin(method: str, twin) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    rows = []
    for b in range(12):
        shift = 0.03 if b < 4 else 0.0
        for side, mu in (("baseline", 0.0), ("contender", shift)):
            for v in rng.normal(mu, 0.02, 8):
                rows.append({"benchmark": f"b{b}", "side": side, "value": math.exp(4 + v)})
    t = compare_table(pa.Table.from_pylist(rows), ["benchmark"], correction=method)
    p = t.column("p_value").to_pylist()
    np.testing.assert_allclose(t.column("p_adjusted").to_pylist(), twin(p), rtol=1e-12)


def test_verdicts_follow_direction_and_threshold() -> None:
    assert judge(5.0, 4.0, 6.0, 1e-4, False, 0.99, 1.0) == "slower"   # time up
    assert judge(5.0, 4.0, 6.0, 1e-4, True, 0.99, 1.0) == "faster"    # throughput up
    assert judge(-5.0, -6.0, -4.0, 1e-4, None, 0.99, 1.0) == "faster"  # unknown: like time
    assert judge(0.1, -0.5, 0.8, 0.5, False, 0.99, 1.0) == "no change"
    assert judge(1.2, 0.5, 2.0, 1e-4, False, 0.99, 1.0) == "inconclusive"
    assert judge(5.0, 4.0, 6.0, 0.05, False, 0.99, 1.0) == "inconclusive"  # not significant
    assert judge(5.0, None, None, 0.001, False, 0.99, 1.0) == "inconclusive"


def test_more_trials_settles_a_straddling_interval() -> None:
    # estimate 2 %, interval [0.5, 3.5] straddles +1 %: shrink the half-width to ~1 point
    k = more_trials(10, 10, 2.0, 0.5, 3.5, 1.0)
    assert k is not None and 20 <= k <= 60
    assert more_trials(10, 10, 1.0, 0.5, 1.5, 1.0) is None  # estimate on the threshold
    rng = np.random.default_rng(3)
    x, y = rng.normal(100, 2, 5), rng.normal(101.5, 2, 5)
    r = compare_samples(x, y, confidence=0.99, threshold=1.0)
    # issue 39: not significant and the interval holds 0 is benchstat's "~", not a request
    # for more trials
    assert r.verdict == "no significant change" and r.more_trials is None
    x, y = rng.normal(100, 0.5, 20), rng.normal(101.2, 0.5, 20)
    r = compare_samples(x, y, confidence=0.99, threshold=1.0)  # significant, straddles +1 %
    assert r.verdict == "inconclusive" and r.more_trials and r.more_trials > 0
    few = compare_samples([1.0, 2.0], [1.5, 2.5], confidence=0.99)
    assert few.ci_low_pct is None and "too few trials" in few.reason and few.more_trials


def test_table_sorted_by_size_with_verdict_line() -> None:
    rng = np.random.default_rng(11)
    rows = []
    for b, (shift, hib) in enumerate([(0.0, False), (0.05, False), (-0.10, False),
                                      (0.05, True)]):
        for side, mu in (("baseline", 0.0), ("contender", shift)):
            for v in rng.normal(mu, 0.004, 20):
                rows.append({"benchmark": f"b{b}", "higher_is_better": hib, "side": side,
                             "value": 50 * math.exp(v)})
    rows.append({"benchmark": "lonely", "higher_is_better": False, "side": "baseline",
                 "value": 1.0})
    # the settings before issue 29's defaults, under which these verdicts were written
    t = compare_table(pa.Table.from_pylist(rows), ["benchmark"], confidence=0.99, threshold=1.0,
                      correction="holm")
    assert t.column("benchmark").to_pylist() == ["b2", "b1", "b3", "b0", "lonely"]
    assert t.column("verdict").to_pylist() == ["faster", "slower", "faster", "no change",
                                               "inconclusive"]
    assert "no trials on the contender side" in t.column("reason")[4].as_py()
    assert verdict_line(t) == ("1 of 5 configurations slower, 2 faster, 1 no change, "
                               "1 inconclusive")


def test_more_trials_is_a_power_estimate_for_every_inconclusive_row() -> None:
    from perfwarehouse.compare import trials_for_power
    from tests.naive.compare import simulated_power

    rng = np.random.default_rng(17)
    seen = 0
    for _ in range(200):  # issue 39: fewer rows are inconclusive (no significant change)
        n = int(rng.integers(3, 12))
        x = rng.lognormal(0, 0.05, n)
        y = rng.lognormal(float(rng.choice([0.0, 0.01, 0.03])), 0.05, n)
        r = compare_samples(x, y)
        if r.verdict != "inconclusive":
            continue
        seen += 1
        if r.more_trials is None:  # only when the samples show no difference at all
            assert "no difference" in (r.reason or "")
        else:
            assert r.more_trials >= 1
    assert seen >= 20
    # Noether's size gives about the power it promises (simulated, lognormal shift)
    k = trials_for_power(10, 10, u1=30.0, level=0.05)  # P(Y > X) = 0.7 observed
    assert k is not None and k > 0
    total = 20 + k
    power = simulated_power(total // 2, 0.7, level=0.05, seed=5)
    assert 0.7 <= power <= 0.9


def test_ratio_beside_the_percentage() -> None:
    from perfwarehouse.compare.summary import ratio_text

    assert ratio_text(-50.0, False) == "2.00x faster"   # a time halves
    assert ratio_text(30.0, True) == "1.30x faster"     # a throughput up 30 %
    assert ratio_text(30.0, None) == "1.30x slower"     # unknown reads like a time
    assert ratio_text(-23.08, True) == "1.30x slower"
    assert ratio_text(0.0, False) == "1.00x"
    assert ratio_text(None, False) == "" and ratio_text(float("inf"), False) == ""
    assert ratio_text(-100.0, False) == ""


def test_a_side_with_few_trials_is_compared_on_its_values() -> None:
    rng = np.random.default_rng(8)
    base, cont = rng.lognormal(0, 0.02, 30), rng.lognormal(0.08, 0.02, 30)
    one_trial = pa.Table.from_pylist([
        {"benchmark": "b", "side": "baseline", "value": float(np.median(base)),
         "values": base.tolist()},
        {"benchmark": "b", "side": "contender", "value": float(np.median(cont)),
         "values": cont.tolist()}])
    row = compare_table(one_trial, ["benchmark"]).to_pylist()[0]
    assert (row["n_baseline"], row["n_contender"]) == (30, 30)
    ref = compare_samples(base, cont)
    assert row["verdict"] == ref.verdict == "slower"
    assert row["change_pct"] == pytest.approx(ref.change_pct)
    # enough trials on both sides: the trial values are the sample, whatever they hold
    many = pa.Table.from_pylist([
        {"benchmark": "b", "side": s, "value": float(v), "values": [float(v), 1e9]}
        for s, vals in (("baseline", base[:6]), ("contender", cont[:6])) for v in vals])
    row = compare_table(many, ["benchmark"]).to_pylist()[0]
    assert (row["n_baseline"], row["n_contender"]) == (6, 6)


def test_values_from_1e_minus_308_to_1e308_never_overflow() -> None:
    """Issue 31 item 6: such values (an older warehouse may hold them; the ingest now keeps
    1e-100..1e100) are compared without an OverflowError: +inf % up, -100 % down."""
    import warnings

    low = 1e-308 * (1 + 0.01 * np.arange(6))
    high = 1e308 * (1 + 0.01 * np.arange(6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's overflow in a median
        up = compare_samples(low, high, higher_is_better=False)
        down = compare_samples(high, low, higher_is_better=False)
    assert up.verdict == "slower" and up.change_pct == math.inf
    assert down.verdict == "faster" and down.change_pct == pytest.approx(-100.0)


def test_an_unchanged_pair_of_five_trials_is_no_significant_change() -> None:
    """Issue 39: benchstat prints "~" for an unchanged benchmark; compare said
    "inconclusive" and asked for up to 124 more trials. 400 unchanged pairs of 5 trials a
    side (log-normal noise of 3 %): at most the level's share is called anything else."""
    rng = np.random.default_rng(39)
    verdicts = [compare_samples(rng.lognormal(0, 0.03, 5), rng.lognormal(0, 0.03, 5)).verdict
                for _ in range(400)]
    quiet = verdicts.count("no significant change") + verdicts.count("no change")
    assert quiet >= 0.93 * len(verdicts)
    assert verdicts.count("inconclusive") <= 0.05 * len(verdicts)


def test_a_significant_row_whose_interval_reaches_zero_on_ties_says_so() -> None:
    # Heavily tied values: the rank test counts ties as half, the interval's ends fall on
    # tied differences
    x = [1.0] * 5 + [2.0] * 5
    y = [2.0] * 10
    r = compare_samples(x, y, threshold=0.0)
    assert r.p_value < 0.05 and r.ci_low_pct is not None and r.ci_low_pct <= 0.0
    assert r.verdict == "inconclusive" and "reaches 0" in r.reason and "ties" in r.reason
