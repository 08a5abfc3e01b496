"""The one fraction/percentage rule (perfwarehouse.stats.fractions)."""

from __future__ import annotations

import math

import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.stats.fractions import FractionError, confidence, fraction


@pytest.mark.parametrize(("value", "expected"), [
    (0.95, 0.95), (1e-9, 1e-9), (0.999999, 0.999999),   # fractions
    (1, 0.01), (1.0, 0.01), (1.5, 0.015), (50, 0.5), (95, 0.95), (99.9, 0.999),  # percentages
    ("0.95", 0.95), ("95", 0.95), (" 95 ", 0.95), ("95%", 0.95), ("1.5 %", 0.015),  # text
])
def test_fractions_and_percentages(value: object, expected: float) -> None:
    assert fraction(value, "--x") == pytest.approx(expected)


@pytest.mark.parametrize("value", [0, 0.0, -0.5, -95, 100, 100.0, 150, "100%", "0%", "-1%",
                                   math.nan, math.inf, -math.inf, "nan", "inf", "abc", "",
                                   "95 percent", None, True, [0.95]])
def test_refused_values_say_the_rule(value: object) -> None:
    with pytest.raises(FractionError, match=r"^--x must be a fraction 0 < x < 1 \(0\.95\) or a "
                                            r"percentage 1 <= x < 100 \(95\), got ") as info:
        fraction(value, "--x")
    assert "\n" not in str(info.value)


def test_the_error_is_a_usage_error_and_a_value_error() -> None:
    assert issubclass(FractionError, UsageError) and issubclass(FractionError, ValueError)


def test_zero_where_the_option_allows_it() -> None:
    assert fraction(0, "--width", zero=True) == 0.0
    assert fraction("0%", "--width", zero=True) == 0.0
    assert fraction(10, "--width", zero=True) == pytest.approx(0.10)
    with pytest.raises(FractionError, match=r"0 <= x < 1"):
        fraction(-0.1, "--width", zero=True)
    with pytest.raises(FractionError):
        fraction(100, "--width", zero=True)


def test_a_confidence_as_a_percentage_is_at_least_50() -> None:
    assert confidence(0.015, "--confidence") == 0.015   # a fraction is never ambiguous
    assert confidence(50, "--confidence") == 0.5 and confidence(99, "--confidence") == 0.99
    assert confidence("1.5%", "--confidence") == pytest.approx(0.015)  # said explicitly
    for ambiguous in (1, 1.5, 49.99):
        with pytest.raises(FractionError, match="ambiguous") as info:
            confidence(ambiguous, "--confidence")
        message = str(info.value)
        assert message.startswith(f"--confidence {ambiguous:g} is ambiguous: give a fraction "
                                  "0 < x < 1 (0.95) or a percentage 50 <= x < 100 (95)")
        assert f"for {ambiguous:g} % give {ambiguous / 100:g}" in message
        assert "\n" not in message
    with pytest.raises(FractionError, match="got 100"):
        confidence(100, "--confidence")


def test_min_pct_below_one_is_one() -> None:
    """Percentages start at 1 whatever the option says: 0.5 is always a fraction."""
    assert fraction(0.5, "--x", min_pct=0) == 0.5 and fraction(1, "--x", min_pct=0) == 0.01
