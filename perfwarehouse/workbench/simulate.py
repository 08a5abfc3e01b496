"""A simulated server with a known peak rate, for tests and benchmarks of the controller.

Pure: a function of the load and a numpy ``Generator``. The statistic of one
trial (say the mean response time in ms over a run) is normal around the curve
R(λ) with a standard deviation ``cv · R(λ)`` (so the spread grows with load, as in
Shivam et al., USENIX ATC 2008, Figure 4).

* ``knee="smooth"``: the open-loop M/M/1 shape R(λ) = S / (1 - λ/μ), with S and μ
  chosen so that R(λ*) = R_sat and S = R_sat / 2 (the region [R_sat ± s·R_sat]
  then covers loads of roughly ±10 % around λ*); past 0.98·μ the response grows
  linearly (a saturated server whose queue grows over the run).
* ``knee="step"``: a rate limiter: ``low_ms`` up to λ*, then ``high_ms`` growing
  with the overload (no load lands inside the region).
* ``overload_sigma`` > 0: past λ* a trial's statistic is the curve times a log-normal
  factor of that log standard deviation instead (positive and right-skewed: a queue
  that grows during some runs more than others), as a real overloaded server gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SimulatedServer:
    peak: float  # the true λ*
    r_sat: float = 40.0
    knee: str = "smooth"  # smooth | step
    cv: float = 0.05
    low_ms: float = 2.0
    high_ms: float = 40.0
    seconds_per_trial: float = 10.0
    overload_sigma: float = 0.0

    def curve(self, load: float) -> float:
        """The true (noise-free) statistic at ``load``."""
        if self.knee == "step":
            if load <= self.peak:
                return self.low_ms
            return self.high_ms * (1.0 + 10.0 * (load - self.peak) / self.peak)
        service = self.r_sat / 2.0
        mu = self.peak / (1.0 - service / self.r_sat)
        rho = load / mu
        if rho < 0.98:
            return service / (1.0 - rho)
        return service / 0.02 * (1.0 + 50.0 * (rho - 0.98))

    def trial(self, load: float, rng: np.random.Generator) -> float:
        """One trial's statistic: the curve plus normal noise (never below 1 % of it), or
        times a log-normal factor past λ* (``overload_sigma``)."""
        mean = self.curve(load)
        if self.overload_sigma > 0 and load > self.peak:
            return mean * float(rng.lognormal(0.0, self.overload_sigma))
        return max(0.01 * mean, float(rng.normal(mean, self.cv * mean)))

    def true_region(self, width: float) -> tuple[float, float]:
        """The loads whose true statistic lies in [R_sat ± width·R_sat] (smooth knee)."""
        service = self.r_sat / 2.0
        mu = self.peak / (1.0 - service / self.r_sat)
        lo_r, hi_r = self.r_sat * (1 - width), self.r_sat * (1 + width)
        return mu * (1.0 - service / lo_r), mu * (1.0 - service / hi_r)
