"""Compare two sets of trials (a baseline and a contender) per configuration.

For each configuration (and hardware type) the unit of observation is a **trial value**
(the median of the trial's iterations: trials are the independent repetitions), and:

* ``median_baseline``/``median_contender``: the medians of the two sides;
* ``change_pct`` with ``ci_low_pct``/``ci_high_pct``: the Hodges-Lehmann shift of the
  **log** values (Hodges & Lehmann, Annals of Mathematical Statistics 34, 1963) with its
  distribution-free interval from the Mann-Whitney null distribution (Hollander, Wolfe &
  Chicken, "Nonparametric Statistical Methods", 3rd ed., 2014, section 4.3), mapped to
  percent by 100 (exp(.) - 1). On the log scale a shift is a ratio, so the change is the
  ratio of the contender's typical value to the baseline's (the ratio of medians when the
  two distributions differ by a factor), the interval is asymmetric as a ratio should be,
  and neither heavy tails nor outliers move it much. Exact without ties for up to 2,500
  pairs, else the normal approximation (see :mod:`perfwarehouse.stats.shift`). Values
  <= 0 (where logs do not exist) use the shift of the raw values divided by the
  baseline median.
* ``p_value``: two-sided Mann-Whitney rank-sum test, exact for small samples (with ties
  the exact permutation distribution; :func:`perfwarehouse.stats.mannwhitneyu` with
  ``method="auto"``), ``p_adjusted``: adjusted over every configuration compared
  (Benjamini-Hochberg by default; ``holm``, ``bonferroni``, ``none``).
* ``verdict`` with ``threshold`` t (percent, default 1) and level 1 - confidence (default
  0.05, benchstat's): ``slower``/``faster`` when the whole interval lies beyond +-t on one
  side and the adjusted p-value is below 1 - confidence (the direction from
  ``higher_is_better``: throughput up is faster; unknown direction counts as
  lower-is-better, like time); ``no change`` when the interval lies inside [-t, t];
  ``no significant change`` (benchstat's "~") when the adjusted p-value is not below the
  level and the interval holds 0; otherwise ``inconclusive``, with ``more_trials``: about how many more trials (both
  sides together, in the current proportion) would give the test 80 % power against the
  change observed at the level the row must reach after the correction (Noether's sample
  size), or shrink the interval past +-t, whichever is larger; None only where the two
  sides show no difference at all.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, replace

import numpy as np
import pyarrow as pa

from perfwarehouse.compare.parameters import (
    DEFAULT_CONFIDENCE,
    DEFAULT_CORRECTION,
    DEFAULT_THRESHOLD,
    MIN_TRIALS,
    ONE_INVOCATION,
    POWER,
    check_correction,
)
from perfwarehouse.compare.results import FIELDS, VERDICTS, Comparison
from perfwarehouse.stats import mannwhitneyu
from perfwarehouse.stats.corrections import adjust_pvalues
from perfwarehouse.stats.shift import hodges_lehmann, interval_index


def _pct(log_ratio: float) -> float:
    """Percent change of a log ratio; +inf where the ratio exceeds the largest float
    (values from 1e-308 to 1e308 give log ratios up to 1418)."""
    return 100.0 * math.expm1(log_ratio) if log_ratio < 709.0 else math.inf


def change_interval(baseline: np.ndarray, contender: np.ndarray, confidence: float
                    ) -> tuple[float, float | None, float | None]:
    """(change %, CI low %, CI high %) of the contender relative to the baseline."""
    if np.all(baseline > 0) and np.all(contender > 0):
        s = hodges_lehmann(np.log(baseline), np.log(contender), confidence)
        if s.low is None or s.high is None:
            return _pct(s.estimate), None, None
        return _pct(s.estimate), _pct(s.low), _pct(s.high)
    s = hodges_lehmann(baseline, contender, confidence)
    scale = abs(float(np.median(baseline)))
    if scale == 0:
        return math.nan, None, None
    if s.low is None or s.high is None:
        return 100 * s.estimate / scale, None, None
    return 100 * s.estimate / scale, 100 * s.low / scale, 100 * s.high / scale


def _more_trials_for_interval(n1: int, n2: int, confidence: float) -> int | None:
    """Fewest extra trials (same proportion) for any interval at ``confidence``."""
    for k in range(1, 10_000):
        m1 = n1 + math.ceil(k * n1 / (n1 + n2))
        m2 = n2 + k - (m1 - n1)
        if interval_index(m1, max(m2, 1), confidence)[0] > 0:
            return k
    return None


def more_trials(n1: int, n2: int, change: float, low: float, high: float,
                threshold: float) -> int | None:
    """Extra trials (both sides together) after which the interval around ``change``
    would no longer straddle +-``threshold`` (percent), if the estimate and the spread
    stay; None when the estimate sits on the threshold."""
    if not all(math.isfinite(v) and v > -100.0 for v in (change, low, high)):
        return None  # a ratio of 0 or beyond the largest float: no log-scale spread
    to_log = math.log1p
    est, lo, hi = to_log(change / 100), to_log(low / 100), to_log(high / 100)
    half = (hi - lo) / 2.0
    bounds = [to_log(b / 100) for b in (-threshold, threshold)]
    straddled = [b for b in bounds if lo <= b <= hi]
    if not straddled or half <= 0:
        return 0
    gap = min(abs(est - b) for b in straddled)
    if gap == 0:
        return None
    factor = (half / gap) ** 2
    if factor <= 1:
        return 0
    return int(math.ceil(n1 * factor) - n1 + math.ceil(n2 * factor) - n2)


def judge(change: float, low: float | None, high: float | None, p_adjusted: float,
          higher_is_better: bool | None, confidence: float, threshold: float) -> str:
    """The verdict of one row (module docstring)."""
    if low is None or high is None or math.isnan(change):
        return "inconclusive"
    if -threshold <= low and high <= threshold:
        return "no change"
    significant = not math.isnan(p_adjusted) and p_adjusted < 1.0 - confidence
    up, down = low > threshold, high < -threshold
    if significant and (up or down):
        return "faster" if up == bool(higher_is_better) else "slower"
    if not significant and low <= 0.0 <= high:
        return "no significant change"  # benchstat's "~": no evidence of a change
    return "inconclusive"


def trials_for_power(n1: int, n2: int, u1: float, level: float, power: float = POWER
                     ) -> int | None:
    """Extra trials (both sides together, in the current proportion) for the two-sided
    Mann-Whitney test at ``level`` to reach ``power`` against the effect observed,
    P(Y > X) = 1 - U1/(n1 n2) (Noether's sample size, JASA 82, 1987:
    N = (z_{1-level/2} + z_power)^2 / (12 c (1 - c) (P(Y > X) - 1/2)^2), c = n1/N);
    at least 1 (the row is inconclusive now). None when the samples show no effect at
    all (P(Y > X) = 1/2: no number of trials would settle it)."""
    from statistics import NormalDist

    effect = (1.0 - u1 / (n1 * n2)) - 0.5
    if effect == 0.0 or not 0.0 < level < 1.0:
        return None
    c = n1 / (n1 + n2)
    z = NormalDist().inv_cdf(1.0 - level / 2.0) + NormalDist().inv_cdf(power)
    total = z * z / (12.0 * c * (1.0 - c) * effect * effect)
    return max(1, math.ceil(total) - (n1 + n2))


def compare_samples(baseline: object, contender: object, *, higher_is_better: bool | None = None,
                    confidence: float = DEFAULT_CONFIDENCE, threshold: float = DEFAULT_THRESHOLD,
                    p_adjusted: float | None = None) -> Comparison:
    """Compare two samples of trial values (NaN dropped). ``p_adjusted`` defaults to the
    unadjusted p-value (one comparison)."""
    if not 0.5 <= confidence < 1.0:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence}")
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    x = np.asarray(baseline, dtype=np.float64).ravel()
    y = np.asarray(contender, dtype=np.float64).ravel()
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    n1, n2 = int(x.size), int(y.size)
    if n1 == 0 or n2 == 0:
        side = "baseline" if n1 == 0 else "contender"
        med = [float(np.median(v)) if v.size else math.nan for v in (x, y)]
        return Comparison(n1, n2, med[0], med[1], math.nan, None, None, math.nan, math.nan,
                          "inconclusive", None, f"no trials on the {side} side")
    test = mannwhitneyu(x, y, method="auto")
    p = float(test.pvalue)
    p_adj = p if p_adjusted is None else p_adjusted
    change, low, high = change_interval(x, y, confidence)
    verdict = judge(change, low, high, p_adj, higher_is_better, confidence, threshold)
    more, reason = None, None
    if verdict == "inconclusive":
        if low is None or high is None:
            more = _more_trials_for_interval(n1, n2, confidence)
            reason = f"too few trials ({n1} + {n2}) for a {100 * confidence:g} % interval"
        else:
            level = 1.0 - confidence
            # the level this row's raw p must reach after the correction (p/p_adj scales it)
            row_level = level * p / p_adj if p_adj > 0 and p > 0 else level
            by_test = trials_for_power(n1, n2, test.statistic, row_level)
            by_width = more_trials(n1, n2, change, low, high, threshold)
            wanted = [k for k in (by_test, by_width) if k]
            more = max(wanted) if wanted else None
            if more is None:
                reason = "no difference between the sides: more trials would not show one"
            elif not p_adj < level:
                reason = (f"p = {p:.2g}{f' (adjusted {p_adj:.2g})' if p_adj != p else ''} "
                          f"above {level:g}: about {more} more trials for "
                          f"{100 * POWER:g} % power at the observed change")
            elif low <= 0.0 <= high:
                tied = x.size + y.size > np.unique(np.concatenate([x, y])).size
                reason = (f"p{' adjusted' if p_adj != p else ''} = {p_adj:.2g} is below "
                          f"{level:g}, but the interval [{low:+.2f}, {high:+.2f}] % reaches 0"
                          + (" (ties: the interval's ends fall on tied differences, the "
                             "rank test counts ties as half)" if tied else ""))
            else:
                reason = f"interval straddles +-{threshold:g} %"
    return Comparison(n1, n2, float(np.median(x)), float(np.median(y)), change, low, high,
                      p, p_adj, verdict, more, reason)


def one_invocation(side: np.ndarray, lists: list[list[float] | None] | None) -> bool:
    """Whether :func:`sample_of` takes a side's sample from the repetitions of a single
    trial (one invocation of the tool, e.g. one hyperfine run per command)."""
    base, cont = int((side == "baseline").sum()), int((side == "contender").sum())
    return lists is not None and min(base, cont) < MIN_TRIALS and min(base, cont) == 1


def sample_of(value: np.ndarray, side: np.ndarray, lists: list[list[float] | None] | None
              ) -> tuple[np.ndarray, np.ndarray]:
    """(baseline, contender) sample of one configuration's rows (``value`` and ``side``
    per row, ``lists`` each row's own values or None): the trial values, or, where either
    side has fewer than :data:`MIN_TRIALS` trials and the rows carry their values (each
    trial's own values), every value of the side's trials."""
    base, cont = side == "baseline", side == "contender"
    enough = min(int(base.sum()), int(cont.sum())) >= MIN_TRIALS
    if enough or lists is None:
        return value[base], value[cont]

    def flat(mask: np.ndarray) -> np.ndarray:
        chosen = [v for v, m in zip(lists, mask) if m and v is not None]
        if not chosen:
            return np.empty(0)
        return np.concatenate([np.asarray(v, dtype=np.float64) for v in chosen])

    return flat(base), flat(cont)


def _notes(lists: list[list[float] | None] | None, side: np.ndarray, baseline: np.ndarray,
           contender: np.ndarray) -> list[str]:
    """Warm-up and two-modes notes of one configuration (:mod:`.summary`)."""
    from perfwarehouse.compare.summary import sample_notes

    trials: dict[str, list[list[float]]] = {}
    if lists is not None:
        for name in ("baseline", "contender"):
            trials[name] = [v for v, s in zip(lists, side) if s == name and v is not None]
    return sample_notes(trials, {"baseline": baseline, "contender": contender})


def _groups(trials: pa.Table, keys: Sequence[str]) -> list[np.ndarray]:
    """The row indices of each distinct ``keys`` of ``trials`` (None a key of its own),
    groups in order of first appearance, rows in table order. A dict over the rows (one
    per trial: 0.3 s per million) rather than polars' or Arrow's grouping, whose imports
    (pyarrow.compute builds its functions' signatures) would cost ``perfwarehouse
    compare`` of a suite more than its statistics."""
    index: dict[tuple[object, ...], list[int]] = {}
    columns = [trials.column(k).to_pylist() for k in keys]
    for i, key in enumerate(zip(*columns)):
        rows = index.get(key)
        if rows is None:
            index[key] = [i]
        else:
            rows.append(i)
    return [np.asarray(rows, dtype=np.int64) for rows in index.values()]


def adjust(p: np.ndarray, compared: np.ndarray, correction: str) -> np.ndarray:
    """The p-values of the compared rows adjusted over them (``none``: as they are; NaN
    for rows not compared)."""
    if correction == "none":
        return np.where(compared, p, np.nan)
    return adjust_pvalues(p, compared, np.zeros(p.size, dtype=np.int64), correction)


def compare_table(trials: pa.Table, keys: Sequence[str], *,
                  confidence: float = DEFAULT_CONFIDENCE, threshold: float = DEFAULT_THRESHOLD,
                  correction: str = DEFAULT_CORRECTION) -> pa.Table:
    """One row per distinct ``keys`` of ``trials`` (columns ``keys``, ``side`` =
    'baseline'|'contender', ``value``, and ``higher_is_better`` if present): the key
    columns then :data:`FIELDS`, sorted by |change| (largest first)."""
    check_correction(correction)
    out_keys: list[dict[str, object]] = []
    notes: list[list[str]] = []
    samples: list[tuple[np.ndarray, np.ndarray, bool | None]] = []
    single: list[bool] = []
    groups = _groups(trials, keys)
    if groups:
        key_values = {k: trials.column(k).to_pylist() for k in keys}
        side_all = np.asarray(trials.column("side").to_pylist(), dtype=object)
        value_all = trials.column("value").to_numpy(zero_copy_only=False).astype(np.float64)
        hib_all = (trials.column("higher_is_better").to_pylist()
                   if "higher_is_better" in trials.column_names else None)
        values_all = (trials.column("values").to_pylist() if "values" in trials.column_names
                      else None)
        for idx in groups:
            first_row = int(idx[0])
            side = side_all[idx]
            lists = ([values_all[i] for i in idx] if values_all is not None else None)
            out_keys.append({k: key_values[k][first_row] for k in keys})
            b, c = sample_of(value_all[idx], side, lists)
            samples.append((b, c, hib_all[first_row] if hib_all is not None else None))
            single.append(one_invocation(side, lists))
            notes.append(_notes(lists, side, b, c) + ([ONE_INVOCATION] if single[-1] else []))
    first = [compare_samples(b, c, higher_is_better=h, confidence=confidence,
                             threshold=threshold) for b, c, h in samples]
    p = np.array([r.p_value for r in first], dtype=np.float64)
    compared = np.array([r.n_baseline > 0 and r.n_contender > 0 for r in first], dtype=bool)
    adjusted = adjust(p, compared, correction)
    rows = [compare_samples(b, c, higher_is_better=h, confidence=confidence,
                            threshold=threshold, p_adjusted=float(a))
            if r.n_baseline and r.n_contender else r
            for (b, c, h), r, a in zip(samples, first, adjusted)]
    rows = [replace(r, reason="; ".join([*([r.reason] if r.reason else []), *extra]),
                    one_invocation=alone) if extra or alone else r
            for r, extra, alone in zip(rows, notes, single)]
    order = sorted(range(len(rows)), key=lambda i: (
        math.isnan(rows[i].change_pct), -abs(rows[i].change_pct)
        if not math.isnan(rows[i].change_pct) else 0.0))
    columns: dict[str, list[object]] = {k: [out_keys[i][k] for i in order] for k in keys}
    as_dicts = [asdict(rows[i]) for i in order]  # once per row (it copies every field)
    for name, _ in FIELDS:
        columns[name] = [_none_nan(d[name]) for d in as_dicts]
    schema = [trials.schema.field(k) for k in keys] + [pa.field(n, t) for n, t in FIELDS]
    return pa.table(columns, schema=pa.schema(schema))


def _none_nan(v: object) -> object:
    return None if isinstance(v, float) and math.isnan(v) else v


def verdict_line(table: pa.Table) -> str:
    """'3 of 100 configurations slower, 1 faster, 80 no change, 10 no significant change,
    6 inconclusive' (the no-significant-change count only where there are any)."""
    verdicts = table.column("verdict").to_pylist() if table.num_rows else []
    counts = {v: verdicts.count(v) for v in VERDICTS}
    quiet = counts["no significant change"]
    return (f"{counts['slower']} of {len(verdicts)} configurations slower, "
            f"{counts['faster']} faster, {counts['no change']} no change, "
            + (f"{quiet} no significant change, " if quiet else "")
            + f"{counts['inconclusive']} inconclusive")

