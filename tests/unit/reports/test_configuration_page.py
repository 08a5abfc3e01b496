"""The per-configuration page built from frames (pure): the verdict quotes the analysis
tables and only those that have rows; the charts draw the raw values; the trend line is
the trends row's slope through its median at mid-span."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pyarrow as pa
import pytest

from perfwarehouse.reports.configuration import Frames, build_page, ecdf_points, page_name
from perfwarehouse.reports.page import Missing, Table
from perfwarehouse.reports.render import render_html
from perfwarehouse.warehouse.lookup import Configuration

CONFIG = Configuration("camp", 42, "npb-mg", '{"threads":10}', "runtime", "s", False,
                       ("c220g5", "c240g5"))
T0 = datetime(2022, 1, 1, tzinfo=timezone.utc).timestamp()


def order_rows(significant: tuple[bool, bool]) -> pa.Table:
    return pa.table({
        "hardware_type": ["c220g5", "c240g5"], "n_fixed": [30, 20], "n_random": [25, 20],
        "kw_p": [2.68e-8, 0.46], "p_adjusted": [4.83e-5, 1.0], "alpha": [0.05, 0.05],
        "m": [1880, 1880], "correction": ["bonferroni"] * 2, "significant": list(significant),
        "reject_bonferroni": list(significant), "eta2": [0.56, 0.0], "delta_pct": [9.98, 0.82],
        "delta_median_pct": [9.0, 0.5], "median_fixed": [15.8, 4.5],
        "median_random": [14.3, 4.4]})


def frames(analyses: dict[str, pa.Table | Missing]) -> Frames:
    values = pa.table({"hardware_type": ["c220g5"] * 6, "order_kind": ["fixed"] * 3 + ["random"] * 3,
                       "value": [1.0, 2.0, 3.0, 1.5, 2.5, 3.5]})
    trials = pa.table({"hardware_type": ["c220g5"] * 3, "order_kind": ["fixed"] * 3,
                       "run_id": ["a", "b", "c"], "position": [0, 0, 0],
                       "t": [T0, T0 + 86400, T0 + 2 * 86400], "value": [1.0, 2.0, 3.0]})
    full: dict[str, pa.Table | Missing] = {
        t: Missing(t, f"perfwarehouse analyze {t}") for t in
        ("order_effects", "variability", "trends", "change_points")}
    full.update(analyses)
    return Frames(CONFIG, full, values, trials)


TRENDS = pa.table({"hardware_type": ["c220g5"], "n": [3], "median": [2.0], "first_s": [T0],
                   "last_s": [T0 + 2 * 86400], "slope_per_day": [0.5], "slope_pct_per_30d": [750.0],
                   "ci_low_pct_per_30d": [100.0], "ci_high_pct_per_30d": [900.0],
                   "confidence": [0.95], "drifting": [True]})


def test_nothing_analysed_yet_names_every_command_and_still_draws() -> None:
    page = build_page(frames({}))
    assert page.verdict is not None and page.verdict.level == "missing"
    for table in ("order_effects", "variability", "trends", "change_points"):
        assert f"`perfwarehouse analyze {table}`" in page.verdict.text
    assert [f.name for f in page.figures()] == ["ecdf", "over-time"]
    assert page.name == page_name("camp", "npb-mg", 42)
    assert re.fullmatch(r"configuration-npb-mg-[0-9a-f]{32}", page.name)
    assert page_name("other", "npb-mg", 42) != page.name  # two campaigns, two files
    assert page_name("c", "</script> ../x", 1).startswith("configuration-script-x-")


def test_the_verdict_quotes_the_tables() -> None:
    page = build_page(frames({"order_effects": order_rows((True, False)), "trends": TRENDS}))
    v = page.verdict
    assert v is not None and v.level == "alarm"
    assert v.text.startswith("Order matters on c220g5 (Δ +9.98 %, p = 2.68e-08, adjusted "
                             "4.83e-05; Δ > 0: the fixed order's mean is larger); order does "
                             "not matter on c240g5 (Δ +0.82 %, p = 0.460, adjusted 1.000; "
                             "adjusted p ≥ α = 0.05, bonferroni).")
    assert "Drifts over time: c220g5 +750.00 % per 30 days (CI +100.00 to +900.00 %)." in v.text
    assert "Not analysed yet: `perfwarehouse analyze variability`, `perfwarehouse analyze " \
           "change_points`." in v.text
    summary = page.sections[0].blocks[0]
    assert isinstance(summary, Table)
    assert summary.data.column("significant").to_pylist() == [True, False]
    assert [c.field for c in summary.columns][:2] == ["hardware_type", "significant"]
    assert "rsd_total_pct" not in [c.field for c in summary.columns]  # not analysed: no column


def test_nothing_found_is_ok() -> None:
    quiet = TRENDS.set_column(TRENDS.schema.get_field_index("drifting"), "drifting",
                              pa.array([False]))
    page = build_page(frames({"order_effects": order_rows((False, False)), "trends": quiet}))
    assert page.verdict is not None and page.verdict.level == "ok"
    assert page.verdict.text.startswith("Order does not matter on c220g5 and c240g5 (adjusted "
                                        "p ≥ α = 0.05, bonferroni; smallest p = 2.68e-08).")


def test_the_trend_line_and_the_ecdf_come_from_the_rows() -> None:
    page = build_page(frames({"trends": TRENDS}))
    spec = page.figures()[1].spec()
    rows = {r["time"]: r for d in spec["datasets"].values() for r in d if "trend" in r}
    ends = [rows[t]["trend"] for t in sorted(rows)]
    assert ends == pytest.approx([2.0 - 0.5, 2.0 + 0.5])  # median ± slope × one day
    ecdf = ecdf_points(frames({}).values)
    assert ecdf["ecdf"].to_list() == pytest.approx([1 / 3, 2 / 3, 1.0] * 2)
    html = render_html(page)
    assert html.index('class="verdict') < html.index('<p class="intro">')
