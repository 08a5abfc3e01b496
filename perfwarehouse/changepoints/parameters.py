"""The options of change-point detection (:mod:`.analysis`; Matteson & James, JASA
109(505), 2014, section 3, with the permutation test of section 3.2 made sequential and
exact where it can be) and their checks."""

from __future__ import annotations

DEFAULT_ALPHA = 0.01
DEFAULT_PERMUTATIONS = 999
DEFAULT_SPLIT_PERMUTATIONS = 199
DEFAULT_MIN_SIZE = 4
#: Sequential Monte Carlo test: the draws of a test stop at this many permutation maxima
#: >= the observed one (Besag & Clifford 1991), whatever ``alpha``.
SEQUENTIAL_HITS = 10
#: Test exactly, over every distinct arrangement, a segment of distinct ranks with at
#: most this many (10!: up to 10 points, 2.5 s once per process for 10) ...
EXACT_ARRANGEMENTS = 3_628_800
#: ... or of tied ranks with at most this many (each tie pattern has its own null: at
#: most ~8 ms each, about 5x a Monte Carlo test; 50,000 took 76 ms).
EXACT_TIED_ARRANGEMENTS = 5_000
DEFAULT_CONFIDENCE = 0.99
#: A test is settled without drawing when :func:`tail_bound` x its permutations is at
#: most this: all of its draws would fall short of the observed maximum (p = 1 / (1 + R),
#: what the draws give) except with at most this probability.
SETTLED = 1e-6
#: Break ties at random when no value is repeated by more than this share of the points.
FEW_TIES = 0.01


def min_points(min_size: int = DEFAULT_MIN_SIZE) -> int:
    """Fewest points a series needs for one test."""
    return 2 * min_size


def check_options(alpha: float, min_size: int, permutations: int) -> None:
    """``ValueError`` unless 0 < ``alpha`` < 1, ``min_size`` >= 2 and ``permutations`` >= 1."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if min_size < 2:
        raise ValueError(f"min_size must be >= 2, got {min_size}")
    if permutations < 1:
        raise ValueError(f"permutations must be >= 1, got {permutations}")
