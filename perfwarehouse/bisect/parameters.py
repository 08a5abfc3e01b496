"""The defaults and option checks of ``perfwarehouse bisect`` (:mod:`.analysis`).

The defaults were chosen on the acceptance repository of ``tests/integration/test_bisect.py``
(a shell program of about 6 ms whose commit 31 is about 35 % slower) on a 2-core machine
shared with 7 other busy processes (load average 3-8), timing with the wall clock:
5 trials a side settle most steps of an idle machine (5 + 5 completely separated trials
give the exact Mann-Whitney p = 0.008), and under load the rank test and compare's
"how many more trials" answer add trials where the samples overlap; 60 trials a revision
per step bound a step that never settles (a change of about half the size, or a machine
that drifts by as much as the change).
"""

from __future__ import annotations

from perfwarehouse.errors import UsageError

#: Trials of each revision measured together before the first look (per step).
DEFAULT_REPEAT = 5
#: Most trials of one revision in one step (adaptive repetitions stop there: "undecided").
DEFAULT_MAX_TRIALS = 60
#: Confidence of compare's intervals; 1 - confidence is the level of its rank test.
DEFAULT_CONFIDENCE = 0.95
#: Changes between good and bad within +-MIN_CHANGE % count as none (nothing to bisect).
DEFAULT_MIN_CHANGE = 3.0
#: The built-in metrics; any other name is the last number the command prints.
WALL_TIME = "wall_time"
CPU_TIME = "cpu_time"
TIMES = (WALL_TIME, CPU_TIME)


def check(repeat: int | None, max_trials: int, confidence: float, min_change: float,
          max_revisions: int | None) -> None:
    """:class:`UsageError` for options no bisection can honour."""
    if repeat is not None and repeat < 2:
        raise UsageError(f"--repeat must be at least 2 (a rank test needs trials), got {repeat}")
    if max_trials < 3:
        raise UsageError(f"--max-trials must be at least 3, got {max_trials}")
    if repeat is not None and repeat > max_trials:
        raise UsageError(f"--repeat {repeat} is above --max-trials {max_trials}")
    if not 0.5 <= confidence < 1.0:
        raise UsageError(f"--confidence must be in [0.5, 1), got {confidence}")
    if not min_change >= 0.0:
        raise UsageError(f"--min-change must be >= 0 (percent), got {min_change}")
    if max_revisions is not None and max_revisions < 3:
        raise UsageError("--max-revisions must be at least 3 (good, bad and one between), "
                         f"got {max_revisions}")
