"""The registry of analyses: every :class:`~perfwarehouse.jobs.framework.Job` the CLI,
the demo and the Python API know about, in the order the demo runs them.

:data:`CATALOG` names each job, where it is defined and its one-line summary without
importing it, so that ``perfwarehouse analyze --help`` and shell completion start
without numba, scipy or DuckDB; ``JOBS``, ``run_job`` and friends are imported on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfwarehouse.registry import Entry, find

if TYPE_CHECKING:
    from perfwarehouse.jobs.framework import Job


_J = "perfwarehouse.jobs."
CATALOG: tuple[Entry, ...] = (
    # OrderSage (Duplyakin et al., USENIX ATC 2023)
    Entry("order-effects", _J + "order_effects:JOB",
          "Does trial order change the results? Fixed vs random order per configuration."),
    Entry("predecessor-effects", _J + "predecessor_effects:JOB",
          "Which test leaves state that changes the next one?"),
    # Laaber et al. (PeerJ Preprints 2018)
    Entry("variability", _J + "variability:JOB",
          "Relative standard deviation and where it comes from (nodes, runs, trials)."),
    Entry("aa-fpr", _J + "detectable_regression:JOB_AA_FPR",
          "A/A false-positive rate of the rank-sum test for k nodes."),
    Entry("detectable-regression", _J + "detectable_regression:JOB_DETECTABLE_REGRESSION",
          "Smallest regression each configuration can reliably detect."),
    # TriScale (Jacob et al., Journal of Systems Research 2021)
    Entry("convergence", _J + "triscale_jobs:JOB_CONVERGENCE",
          "Run metrics with TriScale's convergence test."),
    Entry("kpi", _J + "triscale_jobs:JOB_KPI",
          "KPI of each series: a one-sided bound of a percentile."),
    Entry("variability-score", _J + "triscale_jobs:JOB_VARIABILITY_SCORE",
          "TriScale variability score across sequels."),
    Entry("independence", _J + "triscale_jobs:JOB_INDEPENDENCE",
          "Are a series' trials independent in time?"),
    Entry("profile", _J + "profile:JOB",
          "Convergence, autocorrelation and seasonal periods per hardware type."),
    Entry("trends", _J + "trends:JOB",
          "Theil-Sen trend of each configuration over time, with CI."),
    # revisions: E-divisive means (Matteson & James, JASA 2014) with a permutation test
    Entry("change-points", _J + "change_points:JOB",
          "When did each configuration change, over revisions or time? Calibrated."),
    # load tests (the operational laws; Shivam et al., USENIX ATC 2008)
    Entry("load", _J + "load:JOB",
          "Load curve, operational-law checks and peak throughput or peak rate per load test."),
    Entry("surface", _J + "surface:JOB",
          "Response surface: a quadratic model of the peak rate in the factors."),
)


#: The campaigns a job applies to (``analyze all``, ``status``: :mod:`.plan`); a job not
#: named applies to any: "order", campaigns with runs in random order (OrderSage's order
#: study); "load", campaigns with load-test trials; "searches", campaigns with the result
#: runs of ``agent peak-rate``.
APPLIES_TO: dict[str, str] = {
    "order-effects": "order", "predecessor-effects": "order",
    "load": "load", "surface": "searches",
}


def get(name: str) -> Job:
    """The job called ``name`` (imports its module)."""
    return find(CATALOG, name).load()


def __getattr__(name: str) -> Any:
    if name == "JOBS":
        return tuple(e.load() for e in CATALOG)
    if name in ("Job", "JobResult", "run_job"):
        from perfwarehouse.jobs import framework

        return getattr(framework, name)
    raise AttributeError(f"module 'perfwarehouse.jobs' has no attribute {name!r}")


__all__ = ["APPLIES_TO", "CATALOG", "JOBS", "Job", "JobResult", "get", "run_job"]
