"""Unit conversions a batch needs into the warehouse's unit (perfwarehouse/ingest/units.py)."""

from __future__ import annotations

import pytest

from perfwarehouse.ingest.units import conversions, unit_factor


def test_another_scale_of_the_stored_unit_is_converted_and_said() -> None:
    done, clash = conversions([("b", "m", "s", "ms", "{}", False, False),
                               ("b2", "m", "ops/s", "ops/ms", '{"n":1}', True, True)])
    assert clash is None
    assert [(c.benchmark, c.settings, c.unit) for c in done] == [("b", "{}", "s"),
                                                                   ("b2", '{"n":1}', "ops/s")]
    assert done[0].factor == pytest.approx(1e-3) and done[1].factor == 1000
    assert done[0].note == ("b / m: ms converted to s (x0.001), the unit the warehouse "
                            "holds for it")


@pytest.mark.parametrize("row", [
    ("b", "m", "s", "ms", "{}", False, True),       # another direction
    ("b", "m", "MB/s", "s", "{}", False, False),    # another kind of unit
    ("b", "m", "s", None, "{}", False, False),      # no unit given
])
def test_a_clash_no_scale_explains_is_returned_and_nothing_converted(row: tuple) -> None:
    ok = ("a", "m", "s", "us", "{}", False, False)
    done, clash = conversions([ok, row])
    assert clash == row[:4]
    assert [c.benchmark for c in done] == ["a"]  # converted before it: the caller refuses all


def test_factor_is_the_ratio_of_the_scales() -> None:
    assert unit_factor("us/op", "ms/op") == pytest.approx(1e-3)
    assert unit_factor("ops/min", "ops/s") == pytest.approx(1 / 60)
    assert unit_factor("s", "s/op") is None  # per operation is another kind
