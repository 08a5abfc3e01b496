"""The exact null of max Q over every arrangement of 10 untied ranks with ``min_size`` 4
(the default), tabulated: :class:`.analysis._Exact` builds it from the table instead of
visiting the 3,628,800 arrangements (0.2-0.4 CPU s, once in every process that tests a
part of exactly 10 distinct values, which most change-point jobs do).

Each pair is a distinct maximum (as ``float.hex``, exactly the float the kernel computes,
rounding variants of one rational value included) and how many arrangements reach it:
``np.unique(arrangement_maxima(...), return_counts=True)`` of
:func:`perfwarehouse.kernels.changepoints.arrangement_maxima`, so every p-value is the
one the enumeration gives (``tests/unit/changepoints/test_short_histories.py`` recomputes
it; ``python -m perfwarehouse.changepoints.exact_null`` prints it again).
"""

from __future__ import annotations

import math

import numpy as np

#: (n, min_size) of the table.
TABLED = (10, 4)
#: (max Q as float.hex, arrangements reaching exactly it), ascending.
UNTIED_10_MIN_SIZE_4: tuple[tuple[str, int], ...] = (
    ("-0x1.8000000000004p+1", 2304), ("-0x1.8000000000001p+1", 2304),
    ("-0x1.70a3d70a3d70dp+1", 2304), ("-0x1.70a3d70a3d70bp+1", 16128),
    ("-0x1.51eb851eb851fp+1", 23040), ("-0x1.51eb851eb851dp+1", 9216),
    ("-0x1.3333333333335p+1", 10368), ("-0x1.3333333333333p+1", 4608),
    ("-0x1.3333333333331p+1", 26496), ("-0x1.147ae147ae149p+1", 20736),
    ("-0x1.147ae147ae147p+1", 20736), ("-0x1.0cccccccccccep+1", 105984),
    ("-0x1.0ccccccccccccp+1", 105984), ("-0x1.eb851eb851ec0p+0", 18432),
    ("-0x1.eb851eb851eb6p+0", 18432), ("-0x1.ae147ae147ae3p+0", 66816),
    ("-0x1.ae147ae147adep+0", 18432), ("-0x1.ae147ae147ad9p+0", 52992),
    ("-0x1.70a3d70a3d710p+0", 13824), ("-0x1.70a3d70a3d70bp+0", 40320),
    ("-0x1.70a3d70a3d706p+0", 38016), ("-0x1.3333333333338p+0", 46080),
    ("-0x1.3333333333333p+0", 101376), ("-0x1.333333333332ep+0", 92160),
    ("-0x1.eb851eb851ec9p-1", 27648), ("-0x1.eb851eb851eb6p-1", 117504),
    ("-0x1.70a3d70a3d719p-1", 48384), ("-0x1.70a3d70a3d710p-1", 42624),
    ("-0x1.eb851eb851ec0p-2", 58752), ("-0x1.eb851eb851eacp-2", 46080),
    ("-0x1.eb851eb851e99p-2", 14976), ("-0x1.3333333333338p-2", 20736),
    ("-0x1.3333333333324p-2", 48384), ("-0x1.3333333333310p-2", 6912),
    ("-0x1.eb851eb851ec0p-3", 13824), ("-0x1.eb851eb851e99p-3", 13824),
    ("-0x1.3333333333333p-49", 52992), ("-0x1.3333333333333p-50", 55296),
    ("0x0.0p+0", 87552), ("0x1.3333333333333p-50", 32256),
    ("0x1.3333333333333p-49", 16128), ("0x1.eb851eb851e99p-3", 18432),
    ("0x1.eb851eb851ec0p-3", 19584), ("0x1.eb851eb851eacp-2", 43776),
    ("0x1.eb851eb851ec0p-2", 16128), ("0x1.3333333333338p-1", 146304),
    ("0x1.3333333333342p-1", 24192), ("0x1.333333333334cp-1", 10368),
    ("0x1.70a3d70a3d6fdp-1", 17280), ("0x1.70a3d70a3d706p-1", 17280),
    ("0x1.70a3d70a3d710p-1", 85248), ("0x1.70a3d70a3d719p-1", 17280),
    ("0x1.3333333333333p+0", 36864), ("0x1.3333333333338p+0", 18432),
    ("0x1.333333333333dp+0", 18432), ("0x1.70a3d70a3d706p+0", 6912),
    ("0x1.70a3d70a3d709p+0", 6912), ("0x1.7fffffffffff7p+0", 10368),
    ("0x1.7fffffffffffcp+0", 153216), ("0x1.ae147ae147ae3p+0", 40320),
    ("0x1.eb851eb851eb1p+0", 35712), ("0x1.147ae147ae145p+1", 20736),
    ("0x1.147ae147ae147p+1", 55296), ("0x1.147ae147ae149p+1", 38016),
    ("0x1.147ae147ae14cp+1", 38016), ("0x1.3333333333330p+1", 28800),
    ("0x1.3333333333333p+1", 10368), ("0x1.51eb851eb851dp+1", 19584),
    ("0x1.51eb851eb851fp+1", 39168), ("0x1.51eb851eb8521p+1", 19584),
    ("0x1.70a3d70a3d706p+1", 20736), ("0x1.70a3d70a3d707p+1", 20736),
    ("0x1.a666666666663p+1", 13824), ("0x1.a666666666666p+1", 13824),
    ("0x1.a666666666668p+1", 27648), ("0x1.ae147ae147adep+1", 19584),
    ("0x1.ae147ae147ae1p+1", 19584), ("0x1.cccccccccccc8p+1", 26496),
    ("0x1.ccccccccccccap+1", 26496), ("0x1.ccccccccccccfp+1", 26496),
    ("0x1.cccccccccccd1p+1", 26496), ("0x1.eb851eb851eb6p+1", 20736),
    ("0x1.eb851eb851eb8p+1", 20736), ("0x1.0ccccccccccccp+2", 24192),
    ("0x1.0cccccccccccdp+2", 13824), ("0x1.147ae147ae146p+2", 18432),
    ("0x1.147ae147ae147p+2", 19584), ("0x1.147ae147ae148p+2", 46080),
    ("0x1.147ae147ae149p+2", 20736), ("0x1.147ae147ae14bp+2", 26496),
    ("0x1.6147ae147ae14p+2", 20736), ("0x1.6147ae147ae15p+2", 21888),
    ("0x1.70a3d70a3d70ap+2", 20736), ("0x1.70a3d70a3d70cp+2", 21888),
    ("0x1.8000000000000p+2", 18432), ("0x1.8000000000001p+2", 55296),
    ("0x1.8000000000002p+2", 18432), ("0x1.b99999999999ap+2", 18432),
    ("0x1.b99999999999cp+2", 18432), ("0x1.ccccccccccccbp+2", 23040),
    ("0x1.ccccccccccccep+2", 48384), ("0x1.ccccccccccccfp+2", 25344),
    ("0x1.fae147ae147aep+2", 21888), ("0x1.fae147ae147b1p+2", 23040),
    ("0x1.0cccccccccccdp+3", 51840), ("0x1.1666666666668p+3", 36864),
    ("0x1.599999999999cp+3", 54144), ("0x1.6cccccccccccbp+3", 18432),
    ("0x1.ccccccccccccbp+3", 27648), ("0x1.cccccccccccccp+3", 28800),
    ("0x1.e000000000000p+3", 28800),
)


def tabled(n: int, min_size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(distinct maxima ascending, their counts) of the untied ranks 1..n, or None where
    (n, min_size) is not tabulated."""
    if (n, min_size) != TABLED:
        return None
    values = np.array([float.fromhex(v) for v, _ in UNTIED_10_MIN_SIZE_4])
    counts = np.array([c for _, c in UNTIED_10_MIN_SIZE_4], dtype=np.int64)
    return values, counts


def tabulate(n: int, min_size: int) -> tuple[tuple[str, int], ...]:
    """The table of (n, min_size) computed from every arrangement (the slow way)."""
    from perfwarehouse.kernels.changepoints import arrangement_maxima

    maxima = arrangement_maxima(np.arange(1.0, n + 1.0), np.arange(n, dtype=np.int64), n,
                                min_size, math.factorial(n))
    values, counts = np.unique(maxima, return_counts=True)
    return tuple((float(v).hex(), int(c)) for v, c in zip(values, counts))


if __name__ == "__main__":
    print(tabulate(*TABLED))
