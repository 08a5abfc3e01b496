"""The pure decisions of ``perfwarehouse bisect``: samples of trial values in, verdicts out.

A bisection walks the first-parent line from a good revision (index 0) to a bad one
(index n). Its decisions, each made with ``compare``'s test
(:func:`perfwarehouse.compare.compare_samples`: the log-scale Hodges-Lehmann shift with
its distribution-free interval and the exact Mann-Whitney test):

1. **Do the ends differ?** (:func:`judge_ends`) Good and bad, measured interleaved:
   ``differ`` when compare's verdict is ``slower`` or ``faster`` at the threshold
   ``min_change`` (the whole interval beyond +-min_change % and p below 1 - confidence),
   ``same`` when the whole interval lies inside +-min_change %, else ``not yet``.
2. **Is a middle revision like good or like bad?** (:func:`judge_middle`) The middle
   is measured interleaved with both ends, trial by trial in shuffled rounds, so that a
   machine that drifts (load, frequency, caches) moves all three samples alike. Two
   comparisons at the half-way point t = half the good-to-bad change on the log scale
   (h = |log(1 + change/100)| / 2; t = 100 (exp(h) - 1) = 16.2 % for a 35 % change):
   middle against good and bad against middle. Each votes for the far end when its
   rank test is significant (p below 1 - confidence) and its whole interval lies beyond
   h towards bad, for the near end when its whole interval stays short of h towards
   bad, and not at all otherwise (on the log scale, so a time that halves and one that
   doubles are judged alike, and swapping good and bad only renames the answers). A middle is placed when one comparison votes and the other does not
   vote against it; two that disagree, or none, is "not yet".
3. **How many more trials?** (:func:`more_rounds`) compare's answer for the
   inconclusive comparisons (``more_trials``: both sides together, for 80 % power at the
   change observed or an interval clear of the threshold), halved per revision, at
   least 2 and at most doubling the sample, within the budget ``max_trials``.

Why it holds on a busy machine: the rank test and the Hodges-Lehmann interval ignore
how far the slow outliers of a preempted trial go; the interleaving puts drift on all
sides; and a middle is only placed when its interval lies on one side of the half-way
point, so a true "like good" middle (shift 0) is called "bad" only if a 95 % interval
misses the truth by half the change (tested: none of 200 simulated middles with the
spread of wall times at load 7 is placed on the wrong side).

The search (:func:`next_index`, :func:`open_range`) is ``git bisect``'s: the commit
nearest the middle of the open range (last good, first bad), stepping over skipped
(build or command failed) and undecided commits, until the first bad follows the last
good with only such commits between.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Literal

from perfwarehouse.bisect.results import Comparison, Look, Step
from perfwarehouse.compare import compare_samples

EndsLook = Literal["differ", "same", "not yet"]
DECISIVE = ("slower", "faster")


def half_threshold(change_pct: float) -> float:
    """Half the change ``change_pct`` on the log scale, in percent (>= 0): the threshold a
    middle revision must be inside of (to be like one end) or beyond (to be like the
    other)."""
    if not math.isfinite(change_pct) or change_pct <= -100.0:
        return math.inf
    return 100.0 * math.expm1(abs(math.log1p(change_pct / 100.0)) / 2.0)


def judge_ends(good: Sequence[float], bad: Sequence[float], *, higher_is_better: bool | None,
               confidence: float, min_change: float) -> tuple[EndsLook, Comparison]:
    """Whether the bad end differs from the good end (module docstring, step 1)."""
    c = compare_samples(good, bad, higher_is_better=higher_is_better, confidence=confidence,
                        threshold=min_change)
    if c.verdict in DECISIVE:
        return "differ", c
    if c.verdict == "no change":
        return "same", c
    return "not yet", c


def judge_middle(good: Sequence[float], middle: Sequence[float], bad: Sequence[float], *,
                 ends_change_pct: float, higher_is_better: bool | None,
                 confidence: float, max_trials: int) -> Step:
    """Place a middle revision between the ends (module docstring, step 2).

    ``ends_change_pct`` is the change from good to bad (its sign says which way bad is). ``max_trials`` bounds the trials ``more`` asks for
    (per revision)."""
    t = half_threshold(ends_change_pct)
    vs_good = compare_samples(good, middle, higher_is_better=higher_is_better,
                              confidence=confidence, threshold=t)
    vs_bad = compare_samples(middle, bad, higher_is_better=higher_is_better,
                             confidence=confidence, threshold=t)
    up, h, level = ends_change_pct > 0, math.log1p(t / 100.0), 1.0 - confidence
    votes = (_vote(vs_good, h, up, level, near="good"), _vote(vs_bad, h, up, level, near="bad"))
    decided = {v for v in votes if v is not None}
    if len(decided) == 1:
        side = decided.pop()
        by = [e for e, v in zip(("good", "bad"), votes) if v is not None]
        return Step(side, vs_good, vs_bad, t, 0,
                    "by both ends" if len(by) == 2 else f"by the {by[0]} end")
    reason = ("the two ends disagree" if decided else
              "its interval still holds the half-way point against both ends")
    n = min(len(good), len(middle), len(bad))
    asked = [c.more_trials if c.more_trials is not None else _power_more(x, y, level)
             for c, (x, y) in ((vs_good, (good, middle)), (vs_bad, (middle, bad)))]
    wanted = [k for k in asked if k is not None]
    more = more_rounds(max(wanted) if wanted else None, n, max_trials)
    return Step("not yet", vs_good, vs_bad, t, more, reason)


def _power_more(x: Sequence[float], y: Sequence[float], level: float) -> int | None:
    """compare's power answer (more trials for 80 % power at the observed change) for a
    pair that compare calls "no significant change", where it asks for none (issue 39);
    a bisection still needs to know how far to go. None without any difference."""
    from perfwarehouse.compare import trials_for_power
    from perfwarehouse.stats import mannwhitneyu

    if len(x) < 2 or len(y) < 2:
        return None
    test = mannwhitneyu(x, y, method="auto")
    return trials_for_power(len(x), len(y), float(test.statistic), level)


def _vote(c: Comparison, h: float, up: bool, level: float,
          near: Literal["good", "bad"]) -> Look | None:
    """What one comparison says (baseline: the good end for ``near`` 'good', the middle
    for 'bad'), on the log scale where the half-way point h is the same distance either
    way: the far side when the test is significant (p < ``level``) and the whole interval
    lies beyond h towards bad (``up``: bad's values are the higher), the near side when
    the whole interval stays short of h towards bad, None otherwise."""
    if c.ci_low_pct is None or c.ci_high_pct is None or min(c.ci_low_pct, c.ci_high_pct) <= -100:
        return None
    low, high = math.log1p(c.ci_low_pct / 100.0), math.log1p(c.ci_high_pct / 100.0)
    beyond, short = (low > h, high < h) if up else (high < -h, low > -h)
    if beyond and c.p_value < level:
        return "bad" if near == "good" else "good"
    return near if short else None


def more_rounds(more_trials: int | None, n: int, max_trials: int) -> int:
    """Trials to add to each revision of a step (module docstring, step 3): half of
    compare's ``more_trials`` (both sides together), at least 2, at most ``n`` (the sample
    at most doubles between looks), within ``max_trials``; 0 when the budget is spent."""
    room = max(0, max_trials - n)
    want = 2 if more_trials is None else max(2, math.ceil(more_trials / 2))
    return min(want, max(n, 2), room)


def next_index(lo: int, hi: int, excluded: Collection[int]) -> int | None:
    """The commit to measure next in the open range (lo good, hi bad): the one nearest
    the middle ((lo + hi) / 2, the lower of two equally near) that is not ``excluded``
    (skipped or undecided); None when none is left."""
    middle = (lo + hi) / 2.0
    choices = [i for i in range(lo + 1, hi) if i not in excluded]
    if not choices:
        return None
    return min(choices, key=lambda i: (abs(i - middle), i))


def next_step(lo: int, hi: int, excluded: Collection[int], undecided: Collection[int],
              retried: Collection[int]) -> tuple[int | None, bool]:
    """(the commit to measure next, whether it is a retry): :func:`next_index`, and when
    only excluded commits are left in the open range, the undecided one nearest the
    middle that has not had its one retry yet (None when there is none)."""
    i = next_index(lo, hi, excluded)
    if i is not None:
        return i, False
    i = next_index(lo, hi, set(excluded) - (set(undecided) - set(retried)))
    return i, i is not None


def open_range(lo: int, hi: int) -> list[int]:
    """The commits the culprit may be: every index after the last good up to the first bad."""
    return list(range(lo + 1, hi + 1))
