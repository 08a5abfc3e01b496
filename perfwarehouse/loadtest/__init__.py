"""Load-test campaigns: open and closed loop, operational laws, peak rate, latency under
load, after Shivam, Marupadi, Chase, Subramaniam and Babu, "Cutting Corners: Workbench
Automation for Server Benchmarking" (USENIX ATC 2008), section 2.1 (equations 1 and 2)
and section 4 (the peak-rate region), and the operational laws (Denning & Buzen, ACM
Computing Surveys 10(3), 1978).

A package of several methods, each in its module (pure: numpy/pyarrow in, frozen
results or tables out):

* :mod:`.curve`: the load curve (``analyze load``), with the peak throughput / peak rate
  of each family in :mod:`.peak` and a trial's settings as a loop, a load and a family in
  :mod:`.settings`;
* :mod:`.laws`: the operational laws as consistency checks of each trial;
* :mod:`.histograms`: latency distributions on one log-bucket grid (pooled across trials);
* :mod:`.intervals`: rank-based CIs of percentiles and the peak-rate region test (the CI
  of a mean and its accuracy are :mod:`perfwarehouse.stats.means`);
* :mod:`.mixing`: families whose repetitions of one level mix several systems (the rule
  is :mod:`perfwarehouse.stats.mixing`);

with their options and checks in :mod:`.parameters` and their result types in
:mod:`.results`, re-exported here. The methods are imported by their module path:
:mod:`.curve` and :mod:`.intervals` load the numba kernels, which the ingest edge (that
uses :mod:`.histograms`) must not pay for.
"""

from __future__ import annotations

from perfwarehouse.loadtest.parameters import (
    CI_METHODS,
    DEFAULT_TOLERANCE,
    PERCENTILES,
    Options,
    peak_region,
)
from perfwarehouse.loadtest.results import LAW_NAMES, PEAK_FIELDS, LawChecks, RankInterval

__all__ = ["CI_METHODS", "DEFAULT_TOLERANCE", "LAW_NAMES", "PEAK_FIELDS", "PERCENTILES",
           "LawChecks", "Options", "RankInterval", "peak_region"]
