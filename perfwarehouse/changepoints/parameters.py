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
#: The permutation null of max Q / m for untied ranks and ``min_size`` 4, tabulated once
#: by ``benchmarks/change_point_null_table.py`` (200,000 permutations at each length from
#: a seed of its own, 9 minutes of one core; 32-256 added 2026-11-28 for short stepped
#: histories, 6 s): (m, the max Q / m that one permutation in 1,000 reaches; 200 draws
#: above it, so within about 0.03). It grows slowly with m (the search sees more
#: splits), so a length between two rows takes the longer one's row: a higher threshold,
#: fewer tests settled.
NULL_QUANTILES: tuple[tuple[int, float], ...] = (
    (32, 2.7047), (64, 2.9826), (128, 3.1880), (256, 3.3414), (512, 3.4659), (1_024, 3.5784),
    (2_048, 3.6539), (4_096, 3.6955), (8_192, 3.7663), (16_384, 3.8541), (32_768, 3.8622))
#: The upper tail probability of :data:`NULL_QUANTILES`.
NULL_QUANTILE_TAIL = 1e-3
#: Beyond the tabulated quantile the tail is taken to fall tenfold per this much of
#: max Q / m. Measured from 1e-3 to 1e-4: 0.92-1.10 at the seven lengths from 512 up
#: (200,000 draws, within about 0.1), 0.70-0.86 at 32-256 (a lighter tail: the step of
#: 1.0 overstates their tail, so their tests settle later than they could), and at 1,024 points over 1,000,000 permutations 0.92, then 0.88 to
#: 1e-5 (the steps shrink: the tail is lighter than exponential); the largest term of
#: the limit law, a Cramer-von Mises term of weight 2 / pi^2, gives 4 ln 10 / pi^2 =
#: 0.93. The extension is short: a split test (R = 199) is settled one step beyond the
#: table, the first test (R = 999) 1.7 steps.
NULL_DECADE = 1.0
#: A test of a long untied part is settled from the table (p = 1 / (1 + R), what its draws
#: give) when the estimated chance that any of its R permutations reaches the observed
#: maximum, R x :func:`~perfwarehouse.changepoints.analysis.tabled_tail`, is at most this.
#: So a settled p differs from its draws' (2 / (1 + R) instead of 1 / (1 + R)) in at most
#: 2 % of settled tests, and a verdict, which needs two such permutations at R = 199
#: (p <= 0.01 allows one), in at most 2e-4. 1e-2 took 15 % more CPU on the 10x
#: campaign's drifting series (7.2 against 6.1 s), where change points are the longest job.
TABLED_SETTLED = 2e-2
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
