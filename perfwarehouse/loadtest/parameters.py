"""The options of the load-test analysis (:mod:`.curve`) and their checks: the
confidence, the operational-law tolerance (:mod:`.laws`), the peak-rate region of
Shivam et al. (USENIX ATC 2008, Table 2 and section 4), the response metric and the CI
method."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Relative tolerance of the operational-law checks (:mod:`.laws`).
DEFAULT_TOLERANCE = 0.10
#: CIs over trials: the mean with Student's t, or the median with order statistics.
CI_METHODS = ("t", "rank")
#: The latency percentiles of the curve (a column name and the percent).
PERCENTILES = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("p999", 99.9))


@dataclass(frozen=True)
class Options:
    """Parameters of :func:`perfwarehouse.loadtest.curve.analyse` (fractions, not percent)."""

    confidence: float = 0.95
    law_tolerance: float = DEFAULT_TOLERANCE
    r_sat_ms: float | None = None
    width: float = 0.10
    percentile: float | None = None  # None: the mean response time; else e.g. 99.0
    ci_method: str = "t"  # one of CI_METHODS
    knee_fraction: float = 0.95

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {self.confidence!r}")
        if self.ci_method not in CI_METHODS:
            raise ValueError(f"ci_method must be 't' or 'rank', got {self.ci_method!r}")
        if self.r_sat_ms is not None:
            peak_region(self.r_sat_ms, self.width)
        if self.percentile is not None and self.percentile not in dict(
                (p, k) for k, p in PERCENTILES):
            raise ValueError(f"percentile must be one of 50, 90, 99, 99.9, got {self.percentile!r}")


def peak_region(r_sat: float, width: float) -> tuple[float, float]:
    """The peak-rate region ``[R_sat - s R_sat, R_sat + s R_sat]`` of Shivam et al.
    (Table 2 and section 4); ``width`` is s as a fraction (0.1 = 10 %)."""
    if not r_sat > 0 or not math.isfinite(r_sat):
        raise ValueError(f"R_sat must be a positive number, got {r_sat!r}")
    if not 0.0 <= width < 1.0:
        raise ValueError(f"the width s must be a fraction in [0, 1), got {width!r}")
    return r_sat * (1.0 - width), r_sat * (1.0 + width)
