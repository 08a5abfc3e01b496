"""Issue 31 item 6: a chart whose data holds inf or NaN (a stored median that overflowed,
in a warehouse written before values were bounded) no longer stops the page (before:
`Out of range float values are not JSON compliant`, and one series stopped `report
history` and `report all`); they become null, which Vega-Lite draws as a missing value."""

from __future__ import annotations

import json
import math
import re

import altair as alt

from perfwarehouse.reports.page import Figure
from perfwarehouse.reports.render import _figure, finite_or_null, script_json


def test_non_finite_numbers_become_null_and_the_rest_stays() -> None:
    spec = {"data": {"values": [{"median": math.inf, "n": 3}, {"median": -math.inf},
                                {"median": math.nan, "tag": "<b>"}, {"median": 1.5}]},
            "scale": (0.0, math.inf), "title": "x"}
    parsed = json.loads(script_json(finite_or_null(spec)))
    assert [row.get("median") for row in parsed["data"]["values"]] == [None, None, None, 1.5]
    assert parsed["data"]["values"][0]["n"] == 3 and parsed["scale"] == [0.0, None]
    assert parsed["data"]["values"][2]["tag"] == "<b>"
    finite = {"a": [1.0, 2.5e300, -0.0], "b": "c"}
    assert finite_or_null(finite) == finite


def test_a_chart_with_an_infinite_median_renders() -> None:
    rows = [{"t": i, "median": v} for i, v in enumerate([1.0, math.inf, 2.0, math.nan])]
    chart = alt.Chart(alt.Data(values=rows)).mark_line().encode(x="t:Q", y="median:Q")
    html = _figure(Figure(chart, "history"), 1)
    body = re.search(r'<script type="application/json" id="spec-1">(.*?)</script>', html)
    assert body is not None
    values = json.loads(body.group(1))["data"]["values"]
    assert [v["median"] for v in values] == [1.0, None, 2.0, None]
