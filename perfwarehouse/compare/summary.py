"""What a person reads beside compare's rows: the geometric mean per unit, readable
units, and notes on samples that a rank test alone would misread (warm-up, two modes).

* :func:`geomean_rows`: per (hardware type, metric, unit), over the configurations
  compared on both sides with positive medians, the geometric means of the two sides'
  medians and the change of the geometric mean, 100 (exp(mean(log r_i)) - 1) of the
  per-configuration ratios r_i = median_contender / median_baseline (benchstat's geomean
  row), with a Student-t interval over the configurations of mean(log r_i) (the spread
  of the suite's changes: the interval says how sure the suite's typical change is,
  for the configurations as a sample of the suite; none below 2 configurations).
* :func:`readable`: a value with its unit scaled to 3-4 significant digits (ns, us, ms,
  s; B, KiB, MiB, GiB; k, M, G for rates and counts); Go's "ns/op", "B/op" and
  "sec/op" keep their "/op".
* :func:`ratio_text`: the change as a ratio beside the percentage ("1.30x faster").
* :func:`sample_notes`: "warm-up" when a test says the first values of a side's trials
  are out of line (:func:`warm_up`: the count of trials whose first value is their
  largest, or smallest, is improbable for exchangeable values, p < 1e-3, and the first
  values lie beyond the rest by more than 1 %; the rule before issue 39, 3/4 of the
  trials, fired on 43 of 96 rows of a real pyperformance pair); "two modes"
  when the sorted sample (n >= 10) has a gap wider than 3 times the larger
  interquartile range of the two parts it separates and than 2 % of the median, each
  part holding at least 20 % of the values.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

_TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0}
_TIME_STEPS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns"))
_BYTES = {"B": 1.0, "bytes": 1.0, "byte": 1.0, "KiB": 1024.0, "MiB": 1024.0**2,
          "GiB": 1024.0**3}
_BYTE_STEPS = ((1024.0**4, "TiB"), (1024.0**3, "GiB"), (1024.0**2, "MiB"), (1024.0, "KiB"),
               (1.0, "B"))
_SI_STEPS = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
# decimal byte prefixes of rates (Go's MB/s is 1e6 bytes per second): 5910 MB/s -> 5.91 GB/s
_DECIMAL_BYTES = {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
_DECIMAL_BYTE_STEPS = ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB"), (1.0, "B"))


def _digits(v: float) -> str:
    """4 significant digits; whole numbers with separators up to 10^9, then 1.025e+96 (not
    a 97-digit number)."""
    return f"{v:.4g}" if abs(v) < 1e4 or abs(v) >= 1e9 else f"{v:,.0f}"


def readable(value: float | None, unit: str | None) -> str:
    """``value`` in ``unit`` scaled for reading: 0.0123 s -> '12.3 ms', 1536 B -> '1.5 KiB',
    12345 ns/op -> '12.35 us/op', 5910 MB/s -> '5.91 GB/s', 2.5e6 ops/s -> '2.5 M ops/s'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if not math.isfinite(value):
        return f"{value} {unit or ''}".strip()
    unit = unit or ""
    base, slash, rest = unit.partition("/")
    per = slash + rest if base in _TIME and rest == "op" or base in _BYTES and rest == "op" \
        else ""
    if per or base == unit:
        if base in _TIME:
            seconds = value * _TIME[base]
            for size, name in _TIME_STEPS:
                if abs(seconds) >= size or size == 1e-9:
                    return f"{_digits(seconds / size)} {name}{per}"
        if base in _BYTES:
            size_b = value * _BYTES[base]
            for size, name in _BYTE_STEPS:
                if abs(size_b) >= size or size == 1.0:
                    return f"{_digits(size_b / size)} {name}{per}"
    if base in _DECIMAL_BYTES and slash:  # a byte rate (MB/s): rescale its prefix
        size_b = value * _DECIMAL_BYTES[base]
        for size, name in _DECIMAL_BYTE_STEPS:
            if abs(size_b) >= size or size == 1.0:
                return f"{_digits(size_b / size)} {name}{slash}{rest}"
    for size, prefix in _SI_STEPS:
        if abs(value) >= size:
            return f"{_digits(value / size)} {prefix} {unit}".rstrip()
    return f"{_digits(value)} {unit}".rstrip()


def ratio_text(change_pct: float | None, higher_is_better: bool | None) -> str:
    """The change as a ratio a person reads: '1.30x faster', '2.00x slower' (a time that
    halves is 2.00x faster; unknown direction reads like a time); '' when undefined."""
    if change_pct is None or not math.isfinite(change_pct) or change_pct <= -100.0:
        return ""
    ratio = 1.0 + change_pct / 100.0
    if ratio == 1.0:
        return "1.00x"
    up_is_better = bool(higher_is_better)
    better = (ratio > 1.0) == up_is_better
    factor = ratio if ratio > 1.0 else 1.0 / ratio
    shown = f"{factor:.2f}" if factor < 1e6 else f"{factor:.3g}"  # 1e+99x, not 100 digits
    return f"{shown}x {'faster' if better else 'slower'}"


def geomean_rows(rows: Sequence[Mapping[str, Any]], confidence: float) -> list[dict[str, Any]]:
    """One summary per (hardware_type, metric, unit) of compare's rows (dicts with
    ``median_baseline``, ``median_contender``, ``n_baseline``, ``n_contender``): the
    geometric means and the change of the geometric mean with its interval (module
    docstring). Groups without a configuration compared on both sides are left out."""
    groups: dict[tuple[object, object, object], list[float]] = {}
    sides: dict[tuple[object, object, object], tuple[list[float], list[float]]] = {}
    direction: dict[tuple[object, object, object], object] = {}
    for r in rows:
        key = (r.get("hardware_type"), r.get("metric"), r.get("unit"))
        b, c = r.get("median_baseline"), r.get("median_contender")
        if not (r.get("n_baseline") and r.get("n_contender")):
            continue
        if not isinstance(b, float) or not isinstance(c, float) or not (b > 0 and c > 0):
            continue
        if not (math.isfinite(b) and math.isfinite(c)):
            continue
        groups.setdefault(key, []).append(math.log(c) - math.log(b))
        direction.setdefault(key, r.get("higher_is_better"))
        bs, cs = sides.setdefault(key, ([], []))
        bs.append(math.log(b))
        cs.append(math.log(c))
    out = []
    for key, logs in groups.items():
        arr = np.asarray(logs)
        mean = float(arr.mean())
        low = high = None
        if arr.size >= 2:
            se = float(arr.std(ddof=1)) / math.sqrt(arr.size)
            t = t_quantile(arr.size - 1, 0.5 + confidence / 2.0)
            low, high = _pct(mean - t * se), _pct(mean + t * se)
        bs, cs = sides[key]
        out.append({"hardware_type": key[0], "metric": key[1], "unit": key[2],
                    "higher_is_better": direction[key],
                    "configurations": int(arr.size),
                    "geomean_baseline": math.exp(float(np.mean(bs))),
                    "geomean_contender": math.exp(float(np.mean(cs))),
                    "change_pct": _pct(mean), "ci_low_pct": low, "ci_high_pct": high})
    return out


def _t_upper_tail(t: float, df: int) -> float:
    """P(T > t) of Student's t with ``df`` degrees of freedom, t >= 0: I_x(df/2, 1/2) / 2
    with x = df / (df + t^2), the regularised incomplete beta by its continued fraction
    (modified Lentz; Press et al., "Numerical Recipes", 3rd ed., 2007, section 6.4)."""
    a, b = df / 2.0, 0.5
    x = df / (df + t * t)
    if x >= 1.0:
        return 0.5
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    swap = x > (a + 1.0) / (a + b + 2.0)  # the fraction converges fast below this point
    if swap:
        a, b, x = b, a, 1.0 - x
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    ibeta = front * h / a
    return 0.5 * (1.0 - ibeta if swap else ibeta)


def t_quantile(df: int, p: float) -> float:
    """The ``p`` quantile (0.5 <= p < 1) of Student's t with ``df`` >= 1 degrees of
    freedom, without scipy (whose import would double ``perfwarehouse compare``'s time):
    exact forms for 1 and 2 degrees of freedom, else Newton's method on the upper tail
    of :func:`_t_upper_tail` from the normal quantile; agrees with
    ``scipy.special.stdtrit`` to 1e-11 relative up to 1,000 degrees of freedom and 1e-10
    beyond (tested)."""
    from statistics import NormalDist

    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2.0 * p - 1.0) / math.sqrt(2.0 * p * (1.0 - p))
    q = 1.0 - p
    log_norm = (math.lgamma((df + 1) / 2.0) - math.lgamma(df / 2.0)
                - 0.5 * math.log(df * math.pi))
    t = NormalDist().inv_cdf(p)
    for _ in range(100):
        density = math.exp(log_norm - (df + 1) / 2.0 * math.log1p(t * t / df))
        step = (_t_upper_tail(t, df) - q) / density
        t = max(t + step, t / 2.0)  # the tail is convex for t > 0: never below half
        if abs(step) <= 1e-15 * max(1.0, t):
            break
    return t


def _pct(log_ratio: float) -> float:
    return 100.0 * math.expm1(log_ratio) if log_ratio < 709.0 else math.inf


#: The warm-up note's test: the one-sided p-value of the count of trials whose first value
#: is their largest (smallest) must be below this, and the first values must lie beyond
#: the rest of their trials by more than :data:`WARM_UP_MIN_PCT` percent (median over the
#: trials), so that a real but negligible first-value effect is not called out.
WARM_UP_LEVEL = 1e-3
WARM_UP_MIN_PCT = 1.0


def _count_tail(probabilities: Sequence[float], observed: int) -> float:
    """P(at least ``observed`` successes) of independent Bernoulli trials with these
    success probabilities (the Poisson-binomial distribution, by convolution)."""
    dist = np.zeros(len(probabilities) + 1)
    dist[0] = 1.0
    for p in probabilities:
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    return float(dist[observed:].sum())


def warm_up(trials: Sequence[Sequence[float]]) -> str | None:
    """'slower' or 'faster' when a test says the first value of the trials is out of line:
    among the trials with >= 3 values (at least 4 of them), the number whose first value
    is the largest (smallest) of its trial is improbable for exchangeable values (where a
    trial of k distinct values has its largest first with probability 1/k): one-sided
    p < :data:`WARM_UP_LEVEL`; and the first values lie beyond the median of the rest of
    their trials by more than :data:`WARM_UP_MIN_PCT` % (median over the trials). Ties
    never count as the largest or smallest."""
    counted: list[float] = []
    slow = fast = 0
    excess: list[float] = []
    for values in trials:
        if len(values) < 3:
            continue
        first, rest = float(values[0]), np.asarray(values[1:], dtype=np.float64)
        counted.append(1.0 / len(values))
        slow += first > float(rest.max())
        fast += first < float(rest.min())
        middle = float(np.median(rest))
        if middle:
            excess.append(100.0 * (first / middle - 1.0))
    if len(counted) < 4 or not excess:
        return None
    typical = float(np.median(excess))
    if _count_tail(counted, slow) < WARM_UP_LEVEL and typical > WARM_UP_MIN_PCT:
        return "slower"
    if _count_tail(counted, fast) < WARM_UP_LEVEL and typical < -WARM_UP_MIN_PCT:
        return "faster"
    return None


def two_modes(sample: np.ndarray) -> bool:
    """Whether the sample splits at a wide gap into two parts of >= 20 % each."""
    x = np.sort(sample[np.isfinite(sample)])
    n = x.size
    if n < 10:
        return False
    lo_cut = max(2, math.ceil(0.2 * n))
    gaps = np.diff(x)
    median = abs(float(np.median(x)))
    for i in np.argsort(gaps)[::-1][:3]:  # the widest gaps
        k = int(i) + 1  # values below the gap
        if k < lo_cut or n - k < lo_cut:
            continue
        lower, upper = x[:k], x[k:]
        spread = max(float(np.subtract(*np.percentile(lower, [75, 25]))),
                     float(np.subtract(*np.percentile(upper, [75, 25]))))
        if gaps[i] > 3.0 * spread and gaps[i] > 0.02 * median:
            return True
    return False


def sample_notes(side_trials: Mapping[str, Sequence[Sequence[float]]],
                 side_samples: Mapping[str, np.ndarray]) -> list[str]:
    """Notes on a configuration's two sides: warm-up in the trials' values, two modes in
    the sample compared."""
    notes = []
    for side, trials in side_trials.items():
        w = warm_up(trials)
        if w is not None:
            notes.append(f"warm-up: the first value of most {side} trials is above the "
                         if w == "slower" else
                         f"warm-up: the first value of most {side} trials is below the ")
            notes[-1] += "rest of its trial (leave warm-up values out)"
    for side, sample in side_samples.items():
        if two_modes(np.asarray(sample, dtype=np.float64)):
            notes.append(f"two modes in the {side} sample (the median may jump between them)")
    return notes
