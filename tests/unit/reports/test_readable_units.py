"""Charts name times in a unit that reads without a row of zeros (issue 40: the history
page's axis and tooltips read 0.0000310 s)."""

from __future__ import annotations

import math

import pytest

from perfwarehouse.reports.charts import readable_unit


@pytest.mark.parametrize(("values", "unit", "factor", "shown"), [
    ([3.1e-5, 3.3e-5], "s", 1e6, "µs"),
    ([0.5, 0.7], "ms", 1e3, "µs"),
    ([12.0, 900.0, 15.0], "ms", 1.0, "ms"),
    ([1500.0], "us", 1e-3, "ms"),
    ([62.0, 61.0], "s", 1.0, "s"),
    ([2e-10], "s", 1e9, "ns"),  # below a nanosecond: still ns, never a smaller unit
    ([5.0], "ops/s", 1.0, "ops/s"),  # not a time: left as it is
    ([5.0], None, 1.0, None),
    ([], "s", 1.0, "s"),
    ([float("nan"), None], "s", 1.0, "s"),
])
def test_a_time_axis_is_named_in_the_largest_unit_its_median_reaches(
        values: list[float | None], unit: str | None, factor: float, shown: str | None) -> None:
    got, name = readable_unit(values, unit)
    assert name == shown
    assert got == pytest.approx(factor, rel=1e-12)
    finite = sorted(abs(v) * got for v in values if v is not None and math.isfinite(v))
    if finite and name in ("ms", "µs", "s") and name != unit:
        median = finite[len(finite) // 2] if len(finite) % 2 else sum(
            finite[len(finite) // 2 - 1:len(finite) // 2 + 1]) / 2
        assert 1 <= median < 1000  # the typical value reads with 1 to 3 digits


def test_the_history_chart_of_a_microsecond_series_is_in_microseconds() -> None:
    """The runtime series of the change-point test partition (about 10 s), made 3.1e-6
    times smaller: its axis, tooltips and medians read µs, none reads 0.0000 s."""
    import pyarrow.compute as pc

    from perfwarehouse.jobs.change_points import ChangePointParams, compute
    from perfwarehouse.reports.history import build_page
    from tests.unit.jobs.test_change_points_job import partition

    table, series = partition()
    small = pc.multiply(table.column("value"), 3.1e-6)
    table = table.set_column(table.schema.get_field_index("value"), "value", small)
    series = series.set_column(series.schema.get_field_index("value"), "value",
                               pc.multiply(series.column("value"), 3.1e-6))
    rows = compute(table, ChangePointParams())["change_points"]
    page = build_page(rows, series)
    specs = [f.spec() for f in page.figures()]
    runtime = [sp for sp in specs if "runtime" in str(sp)]
    assert runtime
    for spec in runtime:
        text = str(spec)
        assert "runtime (µs)" in text and "runtime (s)" not in text
        values = [v for d in spec.get("datasets", {}).values() for r in d
                  for k, v in r.items() if k in ("value", "median") and v is not None]
        assert values and all(1 <= abs(v) < 1000 for v in values), values[:5]
