"""Variability, A/A false positives and minimal detectable regressions after Laaber,
Scheuner and Leitner, "Performance Testing in the Cloud. How Bad is it Really?"
(PeerJ Preprints, 2018), section 4.

The pure analysis lives in :mod:`perfwarehouse.laaber.analysis` (its docstring states
the method); its kernels in :mod:`perfwarehouse.kernels.laaber`. The jobs
``analyze variability``, ``aa-fpr`` and ``detectable-regression`` feed it.
"""

from perfwarehouse.laaber.analysis import *  # noqa: F403  (the package's public API)
from perfwarehouse.laaber.analysis import (  # noqa: F401  (used by the jobs and tests)
    HIGHER_IS_BETTER_MODES,
    REGRESSIONS_PCT,
    STRATEGIES,
)
