"""TriScale's experiment sizing (Jacob et al. (TriScale, JSys 2021), equations 2-4 and
6): how many runs a KPI, or how many series a variability score, needs for a
percentile bound at a confidence, with ``robustness`` outer values excluded.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from perfwarehouse.stats.order_statistics import (
    n_required_lower_bound,
    n_required_median,
)
from perfwarehouse.triscale.parameters import (
    Method,
    check_fraction,
    check_method,
)
from perfwarehouse.triscale.results import (
    SizingResult,
)


def experiment_sizing(p: float, confidence: float, robustness: int = 0,
                      method: Method = "default") -> SizingResult:
    """How many runs a KPI (or series a variability score) needs (Jacob et al. (TriScale, JSys 2021), eq. 2-4, 6).

    With q = min(p, 1 - p) and r = ``robustness`` samples allowed to be discarded:
    ``one_sided`` is the smallest N with P(x(1+r) <= P_q) >= C (r = 0:
    ceil(ln(1-C)/ln(1-q))); ``two_sided`` (median only) the smallest N with
    P(x(1+r) <= M <= x(N-r)) >= C. ``method="triscale"`` starts the search for
    r > 0 at max(N(r=0), 2(r+1)) as TriScale does, which can overshoot the
    smallest N when C <= 0.5.
    """
    p = check_fraction("p", p)
    confidence = check_fraction("confidence", confidence)
    if isinstance(robustness, bool) or not isinstance(robustness, (int, np.integer)) or robustness < 0:
        raise ValueError(f"robustness must be a non-negative integer, got {robustness!r}")
    r = int(robustness)
    q = min(p, 1.0 - p)
    if check_method(method) == "triscale":
        one, two = _triscale_sizing(q, confidence, r)
    else:
        one = _smallest_n(lambda n: float(sps.binom.sf(r, n, q)), confidence,
                          max(r + 1, n_required_lower_bound(q, confidence)))
        two = one
        if q == 0.5:
            two = _smallest_n(lambda n: 1.0 - 2.0 * float(sps.binom.cdf(r, n, 0.5)), confidence,
                              max(2 * r + 2, n_required_median(confidence)))
    return SizingResult(one, two, p, confidence, r)


def _smallest_n(prob, confidence: float, start: int) -> int:
    n = start
    while prob(n) < confidence:
        n += 1
    while n - 1 >= 1 and prob(n - 1) >= confidence:
        n -= 1
    return n


def _triscale_sizing(q: float, confidence: float, r: int) -> tuple[int, int]:
    one = math.ceil(math.log(1 - confidence) / math.log(1 - q))
    if r:
        one = max(one, 2 * (r + 1))
        while 1 - float(np.sum(sps.binom.pmf(np.arange(r + 1), one, q))) < confidence:
            one += 1
    two = one
    if q == 0.5:
        two = math.ceil(1 - math.log(1 - confidence) / math.log(2))
        if r:
            two = max(two, 2 * (r + 1))
            while 1 - float(np.sum(2 * sps.binom.pmf(np.arange(r + 1), two, 0.5))) < confidence:
                two += 1
    return one, two
