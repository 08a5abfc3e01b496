"""The pure decisions of bisect (:mod:`perfwarehouse.bisect.analysis`): the half-way
threshold, the votes against both ends, the trials asked for, the next commit, and the
whole search on a simulated line against an oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfwarehouse.bisect import (
    half_threshold,
    judge_ends,
    judge_middle,
    more_rounds,
    next_index,
    open_range,
)
from perfwarehouse.bisect.analysis import next_step
from perfwarehouse.compare import compare_samples


def lognormal(rng: np.random.Generator, n: int, median: float, sd: float = 0.03) -> list[float]:
    return list(median * np.exp(rng.normal(0.0, sd, n)))


def test_half_threshold_is_half_the_change_on_the_log_scale() -> None:
    assert half_threshold(35.0) == pytest.approx(100 * (math.sqrt(1.35) - 1))
    # a time that halves and one that doubles are as far from their ends
    assert half_threshold(-50.0) == pytest.approx(half_threshold(100.0))
    assert half_threshold(0.0) == 0.0
    assert half_threshold(-100.0) == math.inf


def test_next_index_is_the_nearest_to_the_middle_not_excluded() -> None:
    def slow(lo: int, hi: int, excluded: set[int]) -> int | None:
        best = None
        for i in range(lo + 1, hi):  # ascending: the first of equally near wins
            if i not in excluded and (best is None or abs(i - (lo + hi) / 2) <
                                      abs(best - (lo + hi) / 2)):
                best = i
        return best

    rng = np.random.default_rng(3)
    for _ in range(500):
        lo = int(rng.integers(0, 20))
        hi = lo + int(rng.integers(1, 20))
        excluded = {int(i) for i in rng.integers(lo, hi + 1, size=int(rng.integers(0, 6)))}
        assert next_index(lo, hi, excluded) == slow(lo, hi, excluded)
    assert next_index(0, 47, set()) == 23
    assert next_index(0, 39, set()) == 19
    assert next_index(4, 5, set()) is None
    assert open_range(4, 7) == [5, 6, 7]


@pytest.mark.parametrize("n, culprit", [(47, 30), (47, 1), (47, 47), (2, 1), (100, 64)])
def test_the_search_finds_the_first_bad_in_log2_steps(n: int, culprit: int) -> None:
    lo, hi, steps = 0, n, 0
    while (i := next_index(lo, hi, set())) is not None:
        steps += 1
        lo, hi = (i, hi) if i < culprit else (lo, i)
    assert open_range(lo, hi) == [culprit]
    assert steps <= math.ceil(math.log2(n))


def test_skipped_commits_are_stepped_over_and_left_among_the_candidates() -> None:
    culprit, skipped = 30, {19, 25}
    lo, hi, excluded = 0, 39, set()
    while (i := next_index(lo, hi, excluded)) is not None:
        if i in skipped:
            excluded.add(i)
        elif i < culprit:
            lo = i
        else:
            hi = i
    assert open_range(lo, hi) == [culprit]
    lo, hi, excluded = 0, 39, set()
    skipped = {culprit - 1}  # the last good is skipped: the culprit is one of two
    while (i := next_index(lo, hi, excluded)) is not None:
        if i in skipped:
            excluded.add(i)
        elif i < culprit:
            lo = i
        else:
            hi = i
    assert open_range(lo, hi) == [culprit - 1, culprit]


def test_judge_ends() -> None:
    rng = np.random.default_rng(1)
    good, bad = lognormal(rng, 10, 6.0), lognormal(rng, 10, 8.1)
    look, c = judge_ends(good, bad, higher_is_better=False, confidence=0.95, min_change=3.0)
    assert (look, c.verdict) == ("differ", "slower")
    assert c == compare_samples(good, bad, higher_is_better=False, threshold=3.0)
    same = lognormal(rng, 30, 6.0, sd=0.01)
    assert judge_ends(good[:5] + same, same, higher_is_better=False, confidence=0.95,
                      min_change=3.0)[0] == "same"
    noisy = lognormal(rng, 5, 6.0, sd=0.5)
    assert judge_ends(noisy, lognormal(rng, 5, 6.0, sd=0.5), higher_is_better=False,
                      confidence=0.95, min_change=3.0)[0] == "not yet"


def middle(good: list[float], mid: list[float], bad: list[float], **kw: object) -> str:
    change = compare_samples(good, bad).change_pct
    step = judge_middle(good, mid, bad, ends_change_pct=change,
                        higher_is_better=kw.get("higher_is_better"),  # type: ignore[arg-type]
                        confidence=0.95, max_trials=60)
    assert (step.more == 0) == (step.look != "not yet")
    return step.look


def test_a_middle_like_one_end_is_placed_there() -> None:
    rng = np.random.default_rng(2)
    good, bad = lognormal(rng, 8, 6.0), lognormal(rng, 8, 8.1)
    assert middle(good, lognormal(rng, 8, 6.0), bad) == "good"
    assert middle(good, lognormal(rng, 8, 8.1), bad) == "bad"
    # half-way: neither, and more trials are asked for
    assert middle(good, lognormal(rng, 8, 6.0 * math.sqrt(1.35)), bad) == "not yet"
    # a throughput that drops (higher is better): the same answers
    assert middle(good, lognormal(rng, 8, 6.0), bad, higher_is_better=True) == "good"
    # a time that improves: bad is the faster end
    assert middle(bad, lognormal(rng, 8, 8.1), good) == "good"
    assert middle(bad, lognormal(rng, 8, 6.0), good) == "bad"


def test_the_look_does_not_depend_on_the_unit_and_mirrors_with_the_ends() -> None:
    rng = np.random.default_rng(4)
    for _ in range(30):
        shift = float(rng.choice([1.0, 1.15, 1.35]))
        n = int(rng.integers(4, 15))
        good, mid, bad = (lognormal(rng, n, 6.0, 0.1), lognormal(rng, n, 6.0 * shift, 0.1),
                          lognormal(rng, n, 8.1, 0.1))
        look = middle(good, mid, bad)
        assert middle(*[[1000 * v for v in s] for s in (good, mid, bad)]) == look
        mirrored = middle(bad, mid, good)  # bad and good swapped: the same place, renamed
        assert mirrored == {"good": "bad", "bad": "good", "not yet": "not yet"}[look]


def test_wrong_placements_are_rare_under_heavy_noise() -> None:
    """The whole adaptive step (5 trials, then what more_rounds asks, up to 60) on
    samples as noisy as wall times on the loaded machine (log sd 0.25, the change seen
    as +20 %): no middle of 200 is placed on the wrong side; 120 of them are placed
    within the budget (measured: the others end undecided and are stepped over)."""
    rng = np.random.default_rng(5)
    wrong = placed = 0
    for trial in range(200):
        truth = "good" if trial % 2 else "bad"
        g, m, b = [], [], []
        k = 5
        while k:
            g += lognormal(rng, k, 20.0, 0.25)
            m += lognormal(rng, k, 20.0 if truth == "good" else 24.0, 0.25)
            b += lognormal(rng, k, 24.0, 0.25)
            ends = compare_samples(g, b)
            step = judge_middle(g, m, b, ends_change_pct=max(ends.change_pct, 1.0),
                                higher_is_better=False, confidence=0.95, max_trials=60)
            k = step.more if step.look == "not yet" else 0
        placed += step.look != "not yet"
        wrong += step.look not in (truth, "not yet")
    assert wrong <= 2 and placed >= 100, (wrong, placed)


def test_more_rounds() -> None:
    assert more_rounds(None, 5, 60) == 2
    assert more_rounds(7, 5, 60) == 4  # half of both sides' trials
    assert more_rounds(1000, 5, 60) == 5  # at most doubling
    assert more_rounds(1000, 40, 60) == 20  # within the budget
    assert more_rounds(10, 60, 60) == 0


def test_an_undecided_commit_gets_one_retry_when_the_range_closes_on_it() -> None:
    assert next_step(0, 10, set(), set(), set()) == (5, False)
    # 29 undecided, 28 skipped: the range (27, 30] closes but for them; 29 is retried once
    assert next_step(27, 30, {28, 29}, {29}, set()) == (29, True)
    assert next_step(27, 30, {28, 29}, {29}, {29}) == (None, False)
    assert next_step(27, 30, {28}, set(), set()) == (29, False)
