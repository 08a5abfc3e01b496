"""The one reading of an option that is a fraction or a percentage (a confidence, a
percentile, a tolerance, a width): every command line, job and API helper that accepts
``0.95`` or ``95`` goes through :func:`fraction`, so they all follow one rule.

The rule
--------
* ``0 < x < 1`` is a fraction: ``x`` (``0`` too where the option allows zero, e.g. a width).
* ``low <= x < 100`` is a percentage: ``x / 100``. ``low`` is the smallest percentage that is
  plausible for the option: 1 in general, 50 for a confidence (a 1.5 % confidence is a
  mistyped fraction, not a level anyone asks for).
* ``1 <= x < low`` is ambiguous and refused (``--confidence 1.5``: 0.015 or 1.5 %?).
* ``"95%"`` / ``"1.5 %"`` (text ending in ``%``) is a percentage explicitly: ``0 < x < 100``.
* Anything else (0 where zero is not allowed, negative, ``>= 100``, NaN, inf, not a number)
  is refused.

Every refusal is a :class:`FractionError`, a one-line :class:`~perfwarehouse.errors.UsageError`
(the CLI prints it and exits 1) that is also a ``ValueError`` (for the Python API), and
its message states the rule.
"""

from __future__ import annotations

import math

from perfwarehouse.errors import UsageError

CONFIDENCE_MIN_PCT = 50.0


class FractionError(UsageError, ValueError):
    """A fraction/percentage option that does not follow the rule (one line saying it)."""


def _rule(low: float, zero: bool) -> str:
    frac = "0 <= x < 1" if zero else "0 < x < 1"
    return f"a fraction {frac} (0.95) or a percentage {low:g} <= x < 100 (95)"


def fraction(value: object, name: str = "value", *, min_pct: float = 1.0,
             zero: bool = False) -> float:
    """``value`` as a fraction in (0, 1) (``[0, 1)`` with ``zero=True``), read by the rule
    of this module: ``0 < x < 1`` is a fraction, ``min_pct <= x < 100`` a percentage,
    ``1 <= x < min_pct`` ambiguous, text ending in ``%`` a percentage; anything else is a
    :class:`FractionError` whose one line says the rule. ``name`` is how the user spelled
    the option (``--confidence``)."""
    low = max(1.0, float(min_pct))
    rule = _rule(low, zero)
    text = value.strip() if isinstance(value, str) else None
    explicit_pct = bool(text and text.endswith("%"))
    try:
        if isinstance(value, bool):
            raise TypeError
        v = float(text.removesuffix("%").strip() if text is not None else value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise FractionError(f"{name} must be {rule}, got {value!r}") from None
    if not math.isfinite(v):
        raise FractionError(f"{name} must be {rule}, got {value!r}")
    if explicit_pct:
        if 0.0 < v < 100.0 or (zero and v == 0.0):
            return v / 100.0
        raise FractionError(f"{name} must be {rule}, got {value!r}")
    if 0.0 < v < 1.0 or (zero and v == 0.0):
        return v
    if low <= v < 100.0:
        return v / 100.0
    if 1.0 <= v < low:
        raise FractionError(f"{name} {v:g} is ambiguous: give {rule}; for {v:g} % give "
                            f"{v / 100:g}")
    raise FractionError(f"{name} must be {rule}, got {value!r}")


def confidence(value: object, name: str = "confidence") -> float:
    """A confidence level: :func:`fraction` with percentages from 50 (``1.5`` is refused)."""
    return fraction(value, name, min_pct=CONFIDENCE_MIN_PCT)
