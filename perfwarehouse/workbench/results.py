"""What a peak-rate search (:mod:`.controller`) knows and returns: each trial, each load
visited with its verdict and interval (Shivam et al., USENIX ATC 2008, equations 1 and 2),
and how the search ended.

A load is decided with Student's t interval on the logarithms of its trials
(:func:`~perfwarehouse.stats.means.log_t_interval`): response times are positive and,
past the knee, skewed (a queue that grows during a run gives some trials far above the
others), so the normal interval of the mean reaches below zero and never leaves the
region however far above it the trials lie (issue 39). The question at each load is
whether it lies below or above the region, and the log interval answers it at the
confidence asked as soon as the trials allow; the accuracy target (equation 2) applies
to the candidate that becomes λ* only. A statistic that is not positive (0 at the
tool's resolution) falls back to the t interval of the mean."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from perfwarehouse.stats.means import accuracy_of, log_t_interval
from perfwarehouse.workbench.parameters import SearchSpec

#: A load's verdict: its interval lies below or above the peak-rate region, meets it
#: (a candidate), or is not known yet.
BELOW, ABOVE, CANDIDATE, PENDING = "below", "above", "candidate", "pending"


@dataclass(frozen=True)
class Trial:
    """One trial's result: the statistic (None when the trial failed) and its cost."""

    load: float
    response: float | None
    seconds: float = 0.0


@dataclass(frozen=True)
class LoadSummary:
    """What the search knows about one load it visited (``step`` counts from 1)."""

    step: int
    load: float
    how: str  # start, seed, binsearch, linear, model, model->binsearch
    note: str = ""
    responses: tuple[float, ...] = ()
    failures: int = 0
    seconds: float = 0.0
    verdict: str = PENDING
    mean: float | None = None  # the centre of the interval: the geometric mean of positives
    ci_low: float | None = None
    ci_high: float | None = None
    accuracy: float | None = None

    @property
    def trials(self) -> int:
        return len(self.responses) + self.failures

    def add(self, trial: Trial, spec: SearchSpec) -> LoadSummary:
        responses = self.responses + ((trial.response,) if trial.response is not None else ())
        failures = self.failures + (trial.response is None)
        seconds = self.seconds + trial.seconds
        verdict, mean, low, high, acc = PENDING, None, None, None, None
        if len(responses) == 1:
            mean = responses[0]
        elif len(responses) >= 2:
            ci = log_t_interval(responses, spec.confidence)
            mean, low, high = ci.mean, ci.low, ci.high
            acc = accuracy_of(low, high) if low is not None and high is not None else None
        if failures >= spec.max_failures:
            verdict = ABOVE
        elif len(responses) >= spec.min_trials and low is not None and high is not None:
            region_low, region_high = spec.region
            if high < region_low:
                verdict = BELOW
            elif low > region_high:
                verdict = ABOVE
            else:
                verdict = CANDIDATE
        return replace(self, responses=responses, failures=failures, seconds=seconds,
                       verdict=verdict, mean=mean, ci_low=low, ci_high=high, accuracy=acc)


def bracket_confidence(confidence: float, ends: int) -> float:
    """The confidence of a bracket whose ``ends`` (1 or 2) loads were each decided at
    ``confidence``: at least 1 - ends (1 - c), by Bonferroni's inequality."""
    return max(0.0, 1.0 - ends * (1.0 - confidence))


@dataclass(frozen=True)
class SearchResult:
    """How a search ended, with the best estimate of λ* and what it cost."""

    status: str  # converged | budget
    reason: str  # candidate | step-knee | resolution | max-trials | max-loads | budget-s | floor
    lambda_star: float | None
    lambda_low: float | None  # the bracket around λ* (highest load below, lowest above)
    lambda_high: float | None
    response_ci: tuple[float, float] | None  # of the statistic at λ* (a candidate)
    accuracy: float | None
    accuracy_of: str  # "response" (the CI at λ*) or "bracket" (equation 2 on the loads)
    loads: tuple[LoadSummary, ...]
    notes: tuple[str, ...] = ()
    confidence: float = 0.95  # of each load's decision

    @property
    def bracket_confidence(self) -> float | None:
        """The confidence that λ* lies in [lambda_low, lambda_high] (None without an end)."""
        ends = (self.lambda_low is not None) + (self.lambda_high is not None)
        return bracket_confidence(self.confidence, ends) if ends else None

    @property
    def exit_code(self) -> int:
        return 0 if self.status == "converged" else 3

    @property
    def trials(self) -> int:
        return sum(v.trials for v in self.loads)

    @property
    def seconds(self) -> float:
        return math.fsum(v.seconds for v in self.loads)

    @property
    def loads_visited(self) -> int:
        return len(self.loads)
