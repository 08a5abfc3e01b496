"""The registry of analyses: every :class:`~perfwarehouse.jobs.framework.Job` the CLI,
the demo and the Python API know about, in the order the demo runs them."""

from __future__ import annotations

from perfwarehouse.jobs import order_effects, predecessor_effects
from perfwarehouse.jobs.detectable_regression import AA_FPR, DETECTABLE_REGRESSION
from perfwarehouse.jobs.framework import Job, JobResult, run_job
from perfwarehouse.jobs.load import LOAD
from perfwarehouse.jobs.profile import PROFILE
from perfwarehouse.jobs.surface import JOB as SURFACE
from perfwarehouse.jobs.trends import TRENDS
from perfwarehouse.jobs.triscale_jobs import CONVERGENCE, INDEPENDENCE, KPI
from perfwarehouse.jobs.triscale_jobs import VARIABILITY as VARIABILITY_SCORE
from perfwarehouse.jobs.variability import VARIABILITY

JOBS: tuple[Job, ...] = (
    order_effects.JOB, predecessor_effects.JOB,                      # OrderSage (issue 3)
    VARIABILITY, AA_FPR, DETECTABLE_REGRESSION,                      # Laaber et al. (issue 4)
    CONVERGENCE, KPI, VARIABILITY_SCORE, INDEPENDENCE, PROFILE, TRENDS,  # TriScale (issue 5)
    LOAD,                                                            # load tests (issue 14)
    SURFACE,                                                         # workbench (issue 15)
)


def get(name: str) -> Job:
    for job in JOBS:
        if job.name == name:
            return job
    raise KeyError(name)


__all__ = ["JOBS", "Job", "JobResult", "get", "run_job"]
