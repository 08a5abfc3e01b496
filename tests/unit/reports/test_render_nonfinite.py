"""Issue 31 item 6: the JSON of a chart never dies on inf or NaN (before: `Out of range float
values are not JSON compliant`, and one series stopped every report page); they become null,
which Vega-Lite draws as a missing value."""

from __future__ import annotations

import json
import math

from perfwarehouse.reports.render import script_json


def test_non_finite_numbers_become_null_and_the_rest_stays() -> None:
    spec = {"data": {"values": [{"median": math.inf, "n": 3}, {"median": -math.inf},
                                {"median": math.nan, "tag": "<b>"}, {"median": 1.5}]},
            "scale": (0.0, math.inf), "title": "x"}
    text = script_json(spec)
    parsed = json.loads(text)
    assert [row.get("median") for row in parsed["data"]["values"]] == [None, None, None, 1.5]
    assert parsed["data"]["values"][0]["n"] == 3 and parsed["scale"] == [0.0, None]
    assert parsed["data"]["values"][2]["tag"] == "<b>" and "<" not in text


def test_finite_values_serialise_as_before() -> None:
    spec = {"a": [1.0, 2.5e300, -0.0], "b": "c"}
    assert json.loads(script_json(spec)) == spec
