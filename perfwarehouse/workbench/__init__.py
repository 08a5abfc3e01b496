"""The workbench controller: find a server's peak rate adaptively, map response surfaces.

After Shivam, Marupadi, Chase, Subramaniam and Babu (Duke University), "Cutting
Corners: Workbench Automation for Server Benchmarking", USENIX Annual Technical
Conference 2008: Algorithm 2 (search for the peak rate with a target confidence
and accuracy), Algorithms 3 and 4 and sections 5.1-5.4 (load-picking policies and
seeding), Algorithm 1 and section 5.5 (response surfaces from a D-optimal design).

Everything here is pure: no processes, no clock, no files. The controller is a
state machine (:class:`~perfwarehouse.workbench.controller.Search`): a state plus
one trial result gives the next state, whose :attr:`action` is "run load L" or
"done"; replaying the trials of a spool rebuilds the state, which is how a
search resumes. The runner (:mod:`perfwarehouse.agent.workbench`) executes the
actions.
"""

from __future__ import annotations

from perfwarehouse.workbench.controller import (
    POLICIES,
    Done,
    LoadSummary,
    Run,
    Search,
    SearchResult,
    SearchSpec,
    Trial,
    replay,
)
from perfwarehouse.workbench.seeding import SeedChoice, nearest_seed

__all__ = [
    "POLICIES",
    "Done",
    "LoadSummary",
    "Run",
    "Search",
    "SearchResult",
    "SearchSpec",
    "SeedChoice",
    "Trial",
    "nearest_seed",
    "replay",
]
