"""The confidence interval of a mean and its accuracy (Shivam et al., USENIX ATC 2008,
section 2.1, equations 1 and 2): the one home of these helpers, used by the load-test
analysis (:mod:`perfwarehouse.loadtest`) and the workbench controller
(:mod:`perfwarehouse.workbench`).

References
----------
Shivam, Marupadi, Chase, Subramaniam and Babu, "Cutting Corners: Workbench
Automation for Server Benchmarking", USENIX Annual Technical Conference 2008
(Duke University), section 2.1 (equations 1 and 2) and its appendix.

Why Student's t and not the paper's z
--------------------------------------
Equation 1 gives the CI of a mean response time over t trials as
``mu -+ z_p sigma / sqrt(t)`` with ``z_p`` a quantile of the unit normal. With the
sample standard deviation in place of sigma and the 2 to 10 trials a workbench
runs at one load, the pivot ``(mean - mu) / (s / sqrt(t))`` follows Student's t with
t - 1 degrees of freedom (for normal trial means), whose quantiles are much larger:
at 95 % t(1) = 12.71, t(2) = 4.30, t(4) = 2.78, t(9) = 2.26 against z = 1.96. The
z interval of two trials covers the true mean only about 70 % of the time instead
of 95 % (the paper's appendix itself switches to t for n <= 30). :func:`mean_ci`
therefore uses t by default; ``method="z"`` reproduces equation 1 for comparison
(both converge as t grows).

Units are those of the input (the load-test job passes ms and requests per second).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats as sps

from perfwarehouse.stats.order_statistics import clean_sample

Method = Literal["t", "z", "log-t"]


def check_confidence(confidence: float) -> None:
    """``ValueError`` unless ``confidence`` is a fraction in (0, 1)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be a fraction in (0, 1), got {confidence!r}")


@dataclass(frozen=True)
class MeanInterval:
    """CI of a mean: ``[low, high]`` around ``mean`` (None when n < 2 or sd undefined).

    ``sd`` is the sample standard deviation (ddof = 1), ``quantile`` the t (or z)
    quantile used, ``accuracy`` equation 2 of Shivam et al. (a fraction, None where it
    is undefined: ``low + high <= 0``).
    """

    mean: float
    low: float | None
    high: float | None
    n: int
    sd: float | None
    confidence: float
    method: Method
    quantile: float | None
    accuracy: float | None


# ------------------------------------------------------------------ quantiles
@lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom (scipy's, cached)."""
    return float(sps.t.ppf(p, df))


def critical_value(confidence: float, n: int | np.ndarray, method: Method = "t") -> np.ndarray:
    """Two-sided critical value: Student's t with n - 1 degrees of freedom (NaN for n < 2),
    or the normal z of equation 1 (Shivam et al.) when ``method="z"``."""
    check_confidence(confidence)
    n_arr = np.asarray(n, dtype=np.float64)
    q = (1.0 + confidence) / 2.0
    if method == "z":
        return np.where(n_arr >= 1, sps.norm.ppf(q), np.nan)
    if method != "t":
        raise ValueError(f"method must be 't' or 'z', got {method!r}")
    df = np.where(n_arr >= 2, n_arr - 1.0, np.nan)
    return np.asarray(sps.t.ppf(q, df), dtype=np.float64)


# ---------------------------------------------------------------------- means
def mean_half_width(sd: np.ndarray, n: np.ndarray, confidence: float,
                    method: Method = "t") -> np.ndarray:
    """Half width ``q * sd / sqrt(n)`` of the CI of a mean, vectorised (NaN for n < 2)."""
    n_arr = np.asarray(n, dtype=np.float64)
    sd_arr = np.asarray(sd, dtype=np.float64)
    q = critical_value(confidence, n_arr, method)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = q * sd_arr / np.sqrt(n_arr)
    return np.where(n_arr >= 2, half, np.nan)


def mean_ci(x: object, confidence: float = 0.95, method: Method = "t") -> MeanInterval:
    """CI of the mean of ``x`` (NaN dropped): ``mean -+ q sd / sqrt(n)``.

    ``q`` is Student's t quantile with n - 1 degrees of freedom (default), or the
    normal quantile ``z`` of equation 1 of Shivam et al. (``method="z"``), which
    is too narrow for few trials (see the module docstring). Identical values give a
    zero-width interval; fewer than two values give none (``low = high = None``).
    """
    check_confidence(confidence)
    xs = clean_sample(x)
    n = xs.size
    mean = float(np.mean(xs))
    if n < 2:
        return MeanInterval(mean, None, None, n, None, confidence, method, None, None)
    sd = float(np.std(xs, ddof=1))
    q = float(critical_value(confidence, n, method))
    half = q * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    return MeanInterval(mean, low, high, n, sd, confidence, method, q,
                        accuracy_or_none(low, high))


def t_interval(values: Sequence[float], confidence: float) -> MeanInterval:
    """Student's t interval of the mean of at least two values (:func:`mean_ci` with
    ``method="t"``); ``ValueError`` for fewer, where a caller needs an interval."""
    if len(values) < 2:
        raise ValueError("a t interval needs at least two values")
    return mean_ci(values, confidence)


def log_t_interval(values: Sequence[float], confidence: float) -> MeanInterval:
    """Student's t interval on the logarithms of positive values, back-transformed:
    ``exp(mean(log x) -+ q sd(log x) / sqrt(n))`` around the geometric mean.

    For positive, right-skewed quantities such as the response time of a trial at an
    overloaded load (a queue that grows during the run gives a few trials far above the
    rest): the interval is never below zero, and the ratio of its ends depends only on
    the spread of the logarithms. For log-normal trials it is the exact interval of
    the median. Values that are not all positive (a statistic that reads 0 at the
    tool's resolution) give :func:`t_interval` instead (``method="t"``). At least two
    values. ``sd`` is that of the logarithms.
    """
    xs = clean_sample(values)
    if xs.size < 2:
        raise ValueError("an interval needs at least two values")
    if not bool(np.all(xs > 0)):
        return t_interval(values, confidence)
    logs = np.log(xs)
    n = logs.size
    centre = float(np.mean(logs))
    sd = float(np.std(logs, ddof=1))
    q = float(critical_value(confidence, n, "t"))
    half = q * sd / math.sqrt(n)
    low, high = math.exp(centre - half), math.exp(centre + half)
    return MeanInterval(math.exp(centre), low, high, n, sd, confidence, "log-t", q,
                        accuracy_or_none(low, high))


def log_trials_for(values: Sequence[float], confidence: float, target: float) -> int | None:
    """About how many trials of this spread give ``target`` accuracy to
    :func:`log_t_interval`: the accuracy of ``[g e^-h, g e^h]`` is ``1 - tanh(h)``, so
    n = (t sd_log / atanh(1 - target))^2 with t at the present n - 1 degrees of freedom
    (an upper estimate). None without two positive values with a spread."""
    xs = clean_sample(values)
    if xs.size < 2 or not bool(np.all(xs > 0)):
        return None
    sd = float(np.std(np.log(xs), ddof=1))
    if not sd > 0:
        return None
    n = xs.size
    t = t_quantile((1.0 + confidence) / 2.0, n - 1)
    return max(n + 1, math.ceil((t * sd / math.atanh(1.0 - target)) ** 2))


# ------------------------------------------------------------------- accuracy
def accuracy(low: object, high: object) -> np.ndarray:
    """Accuracy of a CI ``[low, high]``, equation 2 of Shivam et al. (section 2.1):
    ``1 - (high - low) / (high + low)`` as a fraction (the paper prints it x 100 %).

    Defined for positive quantities (response times, rates): NaN where
    ``high + low <= 0`` or an end is missing; can be negative for a very wide CI
    (an interval that crosses zero: see :func:`crosses_zero`).
    """
    lo = np.asarray(low, dtype=np.float64)
    hi = np.asarray(high, dtype=np.float64)
    total = hi + lo
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = 1.0 - (hi - lo) / total
    return np.where(total > 0, acc, np.nan)


def accuracy_or_none(low: float, high: float) -> float | None:
    """:func:`accuracy` of one interval as a float, None where it is undefined."""
    v = float(accuracy(low, high))
    return None if math.isnan(v) else v


def accuracy_of(low: float, high: float) -> float:
    """:func:`accuracy` of one interval as a float, 0 where it is undefined
    (``high + low <= 0``): a number that meets no accuracy target."""
    v = accuracy_or_none(low, high)
    return 0.0 if v is None else v


def crosses_zero(low: float, high: float) -> bool:
    """The interval of a positive quantity reaches zero or below: its accuracy is void."""
    return low <= 0.0 < high or (low <= 0.0 and high <= 0.0)


def trials_for(values: Sequence[float], confidence: float, target: float) -> int | None:
    """About how many trials of this spread give ``target`` accuracy: equation 2 is
    half / mean, so n = (t sd / ((1 - target) mean))^2, with t at the present n - 1
    degrees of freedom (it only shrinks with n: an upper estimate). None without a
    spread or a positive mean."""
    n = len(values)
    if n < 2:
        return None
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    if not mean > 0 or not var > 0:
        return None
    t = t_quantile((1.0 + confidence) / 2.0, n - 1)
    return max(n + 1, math.ceil((t * math.sqrt(var) / ((1.0 - target) * mean)) ** 2))

