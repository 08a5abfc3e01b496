"""The objective, budgets and policy of a peak-rate search (Shivam et al., USENIX ATC
2008, Algorithm 2 and sections 5.1-5.4), with the checks that refuse what cannot be
honoured (:meth:`SearchSpec.check`)."""

from __future__ import annotations

from dataclasses import dataclass

from perfwarehouse.errors import UsageError

#: How the next load is picked: binary search, a fixed step, or a model of the
#: response time (Algorithms 3 and 4, sections 5.1-5.3).
POLICIES = ("binsearch", "linear", "model")


@dataclass(frozen=True)
class SearchSpec:
    """The objective and the budgets of one peak-rate search."""

    r_sat: float  # response-time threshold at the peak rate
    width: float = 0.1  # s: the region is [r_sat·(1-s), r_sat·(1+s)]
    confidence: float = 0.95  # c
    accuracy: float = 0.9  # a, target accuracy (equation 2) at confidence c
    policy: str = "binsearch"
    start_load: float = 50.0  # Algorithm 3 starts at 50 requests/s
    step: float | None = None  # linear: the fixed step (default: start_load)
    min_trials: int = 2
    max_trials: int = 20
    max_loads: int = 30
    budget_s: float | None = None
    resolution: float = 1.0  # loads are multiples of this
    max_failures: int = 2

    @property
    def region(self) -> tuple[float, float]:
        return self.r_sat * (1.0 - self.width), self.r_sat * (1.0 + self.width)

    def check(self) -> None:
        """Refuse options that cannot be honoured (one line saying what to pass)."""
        problems = [
            (not self.r_sat > 0, "--r-sat must be positive"),
            (not 0 < self.width < 1, "--width must lie in (0, 1)"),
            (not 0 < self.confidence < 1, "--confidence must lie in (0, 1)"),
            (not 0 < self.accuracy < 1, "--accuracy must lie in (0, 1)"),
            (self.policy not in POLICIES, f"--policy must be one of {', '.join(POLICIES)}"),
            (not self.start_load > 0, "--start-load must be positive"),
            (self.step is not None and not self.step > 0, "--step must be positive"),
            (self.min_trials < 2, "--min-trials must be at least 2 (an interval needs two)"),
            (self.max_trials < self.min_trials, "--max-trials must be at least --min-trials"),
            (self.max_loads < 1, "--max-loads must be at least 1"),
            (self.budget_s is not None and not self.budget_s > 0, "--budget-s must be positive"),
            (not self.resolution > 0, "the load resolution must be positive"),
            (self.max_failures < 1, "max_failures must be at least 1"),
        ]
        for bad, message in problems:
            if bad:
                raise UsageError(message)

    def round_load(self, load: float) -> float:
        """``load`` as a multiple of ``resolution`` (at least one resolution step)."""
        steps = max(1, round(load / self.resolution))
        return round(steps * self.resolution, 9)
