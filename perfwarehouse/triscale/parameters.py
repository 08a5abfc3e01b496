"""The options of TriScale's analyses (:mod:`.analysis`; Jacob et al. (TriScale, JSys
2021), section 4) and their checks: fractions (0.95, not 95), the method (perfwarehouse's
default or TriScale's own rules) and the run metric's measure."""

from __future__ import annotations

from typing import Literal

from perfwarehouse.stats.fractions import fraction

#: perfwarehouse's rules, or the original tool's (docs/analyses/triscale.md says where they differ)
Method = Literal["default", "triscale"]
#: a run metric: a percentile (a fraction) or mean, min, max
Measure = float | str
MEASURES = {"mean": "mean", "min": "min", "minimum": "min", "max": "max", "maximum": "max"}


def as_fraction(value: float, name: str = "value", min_pct: float = 1.0) -> float:
    """95 or 0.95 -> 0.95: :func:`perfwarehouse.stats.fractions.fraction` (its rule: a
    fraction 0 < x < 1, a percentage ``min_pct <= x < 100``, ``1 <= x < min_pct`` refused
    as ambiguous); a refusal is a ValueError that says the rule."""
    return fraction(value, name, min_pct=min_pct)


def check_fraction(name: str, value: float) -> float:
    """``value`` as a float; ``ValueError`` unless it is a fraction in (0, 1)."""
    v = float(value)
    if not 0.0 < v < 1.0:
        raise ValueError(f"{name} must be a fraction in (0, 1) (0.95, not 95), got {value!r}")
    return v


def check_method(method: str) -> str:
    """``method``; ``ValueError`` unless it is ``default`` or ``triscale``."""
    if method not in ("default", "triscale"):
        raise ValueError(f"method must be 'default' or 'triscale', got {method!r}")
    return method


def measure_kind(measure: Measure) -> str:
    """``mean``, ``min``, ``max`` or ``quantile``; ``ValueError`` for anything else."""
    if isinstance(measure, str):
        if measure not in MEASURES:
            raise ValueError(f"measure must be a percentile fraction or one of "
                             f"{sorted(MEASURES)}, got {measure!r}")
        return MEASURES[measure]
    q = float(measure)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a percentile measure is a fraction in [0, 1] (0.95, not 95), got {measure!r}")
    return "quantile"
