"""compare's table with huge values (issue 44, H14): 1e99 reads as 1e+99, never as a
number of a hundred digits, in the medians, the change, its interval and the ratio."""

from __future__ import annotations

import pytest

from perfwarehouse.compare.summary import ratio_text, readable
from perfwarehouse.comparison import signed as _signed


@pytest.mark.parametrize(("value", "unit", "text"), [
    (1e99, "ms", "1e+96 s"), (1.025e99, "", "1.025e+87 T"), (-1e99, "ns", "-1e+90 s"),
    (1e99, "B", "9.095e+86 TiB"), (1e99, "furlongs", "1e+87 T furlongs"),
    (123456789.0, "s", "123,456,789 s"), (12345.0, "widgets", "12.35 k widgets")])
def test_huge_values_read_in_powers_of_ten(value: float, unit: str, text: str) -> None:
    assert readable(value, unit) == text


def test_a_huge_change_and_ratio_read_in_powers_of_ten() -> None:
    assert _signed(1e101) == "+1.00e+101"
    assert _signed(-2.5e12, 1) == "-2.5e+12"
    assert _signed(123456.789) == "+123456.79"  # up to 10^9 as before
    assert ratio_text(1e101, False) == "1e+99x slower"
    assert ratio_text(1e101, True) == "1e+99x faster"
    assert ratio_text(-99.99999, False) == "1e+07x faster"
    assert ratio_text(150.0, False) == "2.50x slower"  # as before
    for text in (readable(1e300, "ms"), _signed(1e300), ratio_text(1e300, None)):
        assert len(text) < 20, text
