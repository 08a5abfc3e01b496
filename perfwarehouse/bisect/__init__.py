"""Automatic bisection: from a change between two revisions to the one commit that made
it (``perfwarehouse bisect``, docs/bisect.md).

* :mod:`.parameters`: the defaults (chosen by measurement) and option checks;
* :mod:`.analysis`: the pure decisions (do the ends differ, is a middle like good or
  like bad or not yet, how many more trials, which commit next) with ``compare``'s test;
* :mod:`.results`: :class:`Commit`, :class:`Step`, :class:`Measured`, :class:`Outcome`;
* :mod:`.summary`: the text and JSON answers;
* the edges: :mod:`.git` (worktrees of its own), :mod:`.measure` (setup and trials with
  ``agent run``'s runner), :mod:`.store` (native trial records landed in the warehouse;
  the change points to start from), :mod:`.runners` (measuring here or on a collector
  agent), :mod:`.service` (the agent's side: ``POST /measure``) and :mod:`.run`, the
  driver.
"""

from __future__ import annotations

from perfwarehouse.bisect.analysis import (
    half_threshold,
    judge_ends,
    judge_middle,
    more_rounds,
    next_index,
    open_range,
)
from perfwarehouse.bisect.parameters import (
    DEFAULT_CONFIDENCE,
    DEFAULT_MAX_TRIALS,
    DEFAULT_MIN_CHANGE,
    DEFAULT_REPEAT,
)
from perfwarehouse.bisect.results import Commit, Measured, Outcome, Step

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_MAX_TRIALS", "DEFAULT_MIN_CHANGE", "DEFAULT_REPEAT",
           "Commit", "Measured", "Outcome", "Step", "half_threshold", "judge_ends",
           "judge_middle", "more_rounds", "next_index", "open_range"]
