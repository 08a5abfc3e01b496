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

Several methods, each in its module:

* :mod:`.controller`: the search for the peak rate (Algorithm 2), a state machine;
* :mod:`.policies`: which load to try next (Algorithms 3 and 4, sections 5.1-5.3);
* :mod:`.seeding`: where to start from earlier searches (section 5.4);
* :mod:`.surface`: response surfaces from a D-optimal design (Algorithm 1, section 5.5);
* :mod:`.simulate`: a simulated server with a known peak rate, for tests and benchmarks;

with the search's options in :mod:`.parameters` and what it knows and returns in
:mod:`.results`. The CI of a mean and its accuracy (equations 1 and 2) are
:mod:`perfwarehouse.stats.means`, shared with :mod:`perfwarehouse.loadtest`.
"""

from __future__ import annotations

from perfwarehouse.workbench.controller import Done, Run, Search, replay
from perfwarehouse.workbench.parameters import POLICIES, SearchSpec
from perfwarehouse.workbench.results import (
    ABOVE,
    BELOW,
    CANDIDATE,
    PENDING,
    LoadSummary,
    SearchResult,
    Trial,
)
from perfwarehouse.workbench.seeding import SeedChoice, nearest_seed

__all__ = [
    "ABOVE",
    "BELOW",
    "CANDIDATE",
    "PENDING",
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
