"""Steps, or level shifts of a series that drifts or cycles (issue 39).

E-divisive's permutation test (:mod:`.analysis`) is calibrated for exchangeable points: a
stationary series gets any change point with probability <= alpha. A series that drifts
slowly or follows a daily or weekly cycle is not stationary, and the search cuts it into
a staircase of significant "changes" that no revision caused. This module asks, of a
series and the change points found in it, which of them are *steps* and which are level
shifts that a smooth model of time explains.

Method: least squares on the logarithms of the values (positive values; else on the
values), with three models of the series:

* ``S``: a level per segment between the change points (the search's own model);
* ``M``: a smooth model of time: of a linear trend, a daily and a weekly harmonic (sine
  and cosine; where the trials span two periods, with times given), the subset with the
  lowest BIC (none: every change point stays a step);
* ``MS``: both, reduced to the steps worth their parameters.

Each is scored by the Bayesian information criterion, ``n ln(RSS / n) + k ln n``, with
two parameters per change point (its level and its position, which the search chose).
``MS`` is first reduced by backward elimination: while a step's term is not worth its two
parameters (``t^2 < 2 ln n``), the weakest is dropped and the model refitted (a staircase
that approximates a drift is collinear with it and goes; a real step on top of the drift
stays). When the reduced ``MS`` scores better than ``S``, the smooth terms are real and
the change points it dropped are level shifts of the drift or the cycle (all of them
when it keeps none: that is ``M``). Otherwise every change point stays a step: the
permutation test has decided. Schwarz, "Estimating the dimension of a
model", Annals of Statistics 6(2), 1978.

Units: ``times_days`` in days (any origin); ``positions`` are 0-based indices of the
first point after each change, increasing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The smooth terms and their periods in days (a harmonic needs two full periods).
PERIODS_DAYS = (("daily", 1.0), ("weekly", 7.0))


@dataclass(frozen=True)
class Structure:
    """Which change points are steps (``steps[j]`` for the j-th position) and, where some
    are not, the smooth terms that explain them (``"drift"``, ``"daily"``, ``"weekly"``)."""

    steps: tuple[bool, ...]
    smooth_terms: tuple[str, ...]

    def why_not_a_step(self) -> str:
        what = {"drift": "drift", "daily": "a daily cycle", "weekly": "a weekly cycle"}
        terms = [what[t] for t in self.smooth_terms]
        joined = " and ".join(terms) if terms else "a smooth trend"
        return f"level shift of {joined}, not a step (a smooth model of time explains it)"


def response(values: np.ndarray) -> np.ndarray:
    """What the models fit: the logarithm of positive values (drift, cycles and steps act
    multiplicatively on performance, and a log-normal tail becomes symmetric), else the
    values themselves."""
    return np.log(values) if bool(np.all(values > 0)) else values.astype(np.float64)


def smooth_columns(n: int, times_days: np.ndarray | None) -> tuple[np.ndarray, tuple[str, ...]]:
    """The design columns of the smooth model (without the intercept) and their terms:
    the trend over the times (else over the index), and each harmonic whose period the
    times span twice."""
    axis = times_days if times_days is not None else np.arange(n, dtype=np.float64)
    span = float(axis.max() - axis.min()) if n else 0.0
    cols = [(axis - axis.mean()) / (span or 1.0)]
    terms = ["drift"]
    if times_days is not None:
        for name, period in PERIODS_DAYS:
            if span >= 2 * period:
                phase = 2 * np.pi * times_days / period
                cols += [np.sin(phase), np.cos(phase)]
                terms.append(name)
    return np.column_stack(cols), tuple(terms)


def step_columns(n: int, positions: Sequence[int]) -> np.ndarray:
    """One column per change point: 1 from its position on (with an intercept, the levels
    of the segments)."""
    index = np.arange(n)
    return np.column_stack([(index >= p).astype(np.float64) for p in positions]) \
        if positions else np.zeros((n, 0))


class _Normal:
    """The normal equations of the full design ``[1, smooth, steps]`` of one series, built
    once (``X'X``, ``X'y``, ``y'y``): every model below is a subset of its columns, fitted
    from them in O(k^3), whatever the length of the series."""

    def __init__(self, y: np.ndarray, columns: np.ndarray) -> None:
        design = np.column_stack([np.ones(y.size), columns])
        self.n = y.size
        self.gram = design.T @ design
        self.xty = design.T @ y
        centred = y - y.mean()
        self.yty = float(y @ y)
        self.tss = float(centred @ centred)

    def fit(self, cols: Sequence[int]) -> tuple[float, np.ndarray, np.ndarray]:
        """RSS, coefficients and standard errors of the model of the intercept and the
        design's columns ``cols`` (0-based among the non-intercept columns)."""
        idx = np.concatenate([[0], np.asarray(cols, dtype=np.int64) + 1])
        gram = self.gram[np.ix_(idx, idx)]
        inverse = np.linalg.pinv(gram)
        coef = inverse @ self.xty[idx]
        rss = max(self.yty - float(coef @ self.xty[idx]), 0.0)
        dof = max(1, self.n - idx.size)
        se = np.sqrt(np.clip(np.diag(inverse) * (rss / dof), 0.0, None))
        return rss, coef, se

    def bic(self, cols: Sequence[int], extra: int = 0) -> float:
        """BIC of that model, with ``extra`` parameters more (the steps' positions)."""
        return _bic(self.fit(cols)[0], self.n, 1 + len(cols) + extra)


def _bic(rss: float, n: int, k: int) -> float:
    return n * math.log(max(rss, 1e-12 * n) / n) + k * math.log(n)


def classify(values: np.ndarray, positions: Sequence[int],
             times_days: np.ndarray | None = None) -> Structure:
    """Which of ``positions`` (change points of ``values``) are steps; see the module
    docstring. Finite values only; ``times_days`` of the same length, or None (the index
    is the axis and no cycle is modelled)."""
    n = values.size
    positions = list(positions)
    if not positions or n < 8:
        return Structure(tuple(True for _ in positions), ())
    y = response(values)
    smooth, terms = smooth_columns(n, times_days)
    q, m = smooth.shape[1], len(positions)
    normal = _Normal(y, np.column_stack([smooth, step_columns(n, positions)]))
    smooth_cols, chosen_terms = _smooth_model(normal, terms)
    if not chosen_terms:
        return Structure(tuple(True for _ in positions), ())
    all_steps = list(range(q, q + m))
    bic_s = normal.bic(all_steps, extra=m)
    kept = _eliminate(normal, smooth_cols, all_steps)
    if bic_s <= normal.bic(smooth_cols + kept, extra=len(kept)):
        return Structure(tuple(True for _ in positions), ())
    return Structure(tuple(q + j in set(kept) for j in range(m)), chosen_terms)


def _smooth_model(normal: _Normal, terms: tuple[str, ...]) -> tuple[list[int], tuple[str, ...]]:
    """The columns and terms of the subset of the smooth terms (drift: one column, a
    harmonic: two) whose model ``M`` has the lowest BIC; none when the intercept alone
    scores best."""
    spans, start = [], 0
    for term in terms:
        width = 1 if term == "drift" else 2
        spans.append(list(range(start, start + width)))
        start += width
    best: tuple[float, list[int], tuple[str, ...]] = (_bic(normal.tss, normal.n, 1), [], ())
    for mask in range(1, 2 ** len(terms)):
        chosen = [i for i in range(len(terms)) if mask >> i & 1]
        cols = [c for i in chosen for c in spans[i]]
        score = normal.bic(cols)
        if score < best[0]:
            best = (score, cols, tuple(terms[i] for i in chosen))
    return best[1], best[2]


#: Above this many change points, backward elimination drops the weakest quarter of the
#: steps that are not worth their parameters per refit instead of the weakest one.
ONE_AT_A_TIME = 40


def _eliminate(normal: _Normal, smooth_cols: list[int], steps: list[int]) -> list[int]:
    """Backward elimination of the steps of ``MS``: while a step's t^2 is below 2 ln n (it
    is not worth its level and position by BIC), drop the weakest and refit."""
    threshold = 2 * math.log(normal.n)
    kept = list(steps)
    q = len(smooth_cols)
    while kept:
        _rss, coef, se = normal.fit(smooth_cols + kept)
        with np.errstate(divide="ignore", invalid="ignore"):
            t2 = np.nan_to_num((coef[1 + q:] / se[1 + q:]) ** 2, nan=0.0)
        weak = np.flatnonzero(t2 < threshold)
        if weak.size == 0:
            break
        order = weak[np.argsort(t2[weak])]
        drop = set((order[:1] if len(kept) <= ONE_AT_A_TIME
                    else order[:max(1, weak.size // 4)]).tolist())
        kept = [c for i, c in enumerate(kept) if i not in drop]
    return kept
