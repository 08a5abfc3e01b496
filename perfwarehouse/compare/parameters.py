"""The defaults and option checks of ``perfwarehouse compare`` (:mod:`.analysis`)."""

from __future__ import annotations

from perfwarehouse.stats.corrections import METHODS

#: Defaults, chosen by measurement (docs/compare.md, benchmarks/bench_compare_calibration.py):
#: benchstat's level (0.05) with the false discovery rate controlled over the rows
#: (Benjamini-Hochberg) instead of no correction, and a minimum change of 1 % (the
#: change-points job's --min-effect): with none, an unchanged benchmark whose interval
#: cannot shrink inside +-0 is "inconclusive" for ever and asks for more trials (issue 39).
DEFAULT_CONFIDENCE = 0.95
DEFAULT_THRESHOLD = 1.0
DEFAULT_CORRECTION = "bh"
#: Fewest trials a side needs for its trial values to be the sample; below it on either
#: side the sample is the values of the trials (the tool's own repetitions: hyperfine's
#: runs in its one trial per command, JMH's iterations of one or two forks).
MIN_TRIALS = 5
#: A side whose sample is the repetitions of one trial (one invocation of the tool: its
#: runs share one machine state) overstates the evidence: such rows are noted and
#: ``--fail-on`` passes over them unless ``--fail-on-single-invocation`` (issue 39).
ONE_INVOCATION = ("one invocation per side: its repetitions share one machine state, so "
                  "the test overstates the evidence; repeat the command in >= 5 trials a "
                  "side (not gated by --fail-on)")
#: The power ``more_trials`` aims at.
POWER = 0.8
#: Corrections over the rows of a comparison: :data:`perfwarehouse.stats.corrections.METHODS`
#: and ``none`` (benchstat's).
CORRECTIONS = (*METHODS, "none")


def check_correction(correction: str) -> None:
    """``ValueError`` unless ``correction`` is one of :data:`CORRECTIONS`."""
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, "
                         f"got {correction!r}")
