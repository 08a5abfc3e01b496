"""The history page from a change_points table (pure build, then rendered)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from perfwarehouse.jobs.change_points import ChangePointParams, compute
from perfwarehouse.reports.history import build_page
from perfwarehouse.reports.history_charts import LABEL_CHAR_PX, LABEL_GAP_PX, label_fits
from perfwarehouse.reports.page import Figure, Table
from perfwarehouse.reports.render import render_html, write_report
from tests.unit.jobs.test_change_points_job import partition


def _page():  # type: ignore[no-untyped-def]
    table, series = partition()
    rows = compute(table, ChangePointParams())["change_points"]
    keep = ["campaign", "hardware_type", "config_id", "benchmark", "settings", "metric", "unit",
            "higher_is_better", "ordered_by", "n_points", "position", "revision",
            "revision_time", "started_at", "revision_before", "n_before", "n_after",
            "median_before", "median_after", "change_pct", "ci_low_pct", "ci_high_pct",
            "confidence", "p_value", "alpha", "direction", "reason"]
    return build_page(rows.select(keep), series)


def test_verdict_first_then_series_then_index() -> None:
    page = _page()
    titles = [s.title for s in page.sections]
    assert titles[0] == "Configurations with changes, largest first"
    verdict = page.verdict
    assert verdict is not None and verdict.level == "alarm"  # two regressions
    # issue 30: the verdict lists the changes that matter, largest first, with revision and
    # date (+ = worse by the metric's direction), then the counts
    assert verdict.text.startswith("2 regressions, the largest first (+ = worse): +")
    assert "2 change points in 2 of 4 series: 2 regressions (▼), 0 improvements (▲); 1 series "\
           "too short to test" in verdict.text
    assert verdict.text.count(" from revision r") == 2
    figures = page.figures()
    assert len(figures) == 2
    spec = figures[0].spec()
    assert "regression" in spec["description"] and spec["title"]["text"]
    index = [b for s in page.sections for b in s.blocks if isinstance(b, Table)][0]
    assert index.data.num_rows == 2
    assert index.data.column("direction").to_pylist() == ["▼ regression", "▼ regression"]


def test_renders_to_html(tmp_path: Path) -> None:
    page = _page()
    html = render_html(page)
    assert "History: change points" in html and "Every change" in html
    out = write_report(page, tmp_path / "history.html", None)
    assert out.exists()


def test_empty_series_table_still_renders() -> None:
    page = _page()
    assert isinstance(page.figures()[0], Figure)
    empty = build_page(_page_rows_without_changes(), pa.table({}))
    assert [s.title for s in empty.sections] == ["Series without change points"]
    assert empty.verdict is not None and empty.verdict.level == "ok"
    assert empty.verdict.text.startswith("0 change points in 0 of 4 series")


def _page_rows_without_changes() -> pa.Table:
    table, _ = partition()
    rows = compute(table, ChangePointParams(min_change=50.0))["change_points"]
    return rows


def test_labels_never_overlap_and_the_largest_change_keeps_its_label() -> None:
    """Dense change points (the 10x campaign has ~190 in a series): labels are kept largest
    first and only where they overlap no kept label; sparse ones all keep theirs."""
    rng = np.random.default_rng(4)
    for _ in range(50):
        n_points = int(rng.integers(20, 30_000))
        k = int(rng.integers(1, 60))
        at = np.sort(rng.uniform(0, n_points, k))
        change = rng.normal(0, 5, k)
        chars = rng.integers(12, 22, k)
        keep = label_fits(at, change, chars, n_points, 800.0)
        left = at * 800.0 / n_points + LABEL_GAP_PX
        right = left + chars * LABEL_CHAR_PX
        kept = np.flatnonzero(keep)

        def overlap(i: int, j: int) -> bool:
            return not (right[i] + LABEL_GAP_PX <= left[j] or right[j] + LABEL_GAP_PX <= left[i])

        for i in kept:  # slow twin: no two kept labels overlap
            for j in kept:
                assert i == j or not overlap(i, j)
        assert keep[np.argmax(np.abs(change))]
        for i in np.flatnonzero(~keep):  # a dropped label overlaps a larger kept one
            assert any(abs(change[j]) >= abs(change[i]) and overlap(i, j) for j in kept)
    sparse = label_fits(np.array([10.0, 500.0, 900.0]), np.array([1.0, -2.0, 3.0]),
                        np.array([18, 18, 18]), 1000, 800.0)
    assert sparse.all()


def test_level_shifts_and_tails_are_not_counted_as_regressions() -> None:
    """Issue 39: change points the job marked as level shifts of a drifting or cycling
    series, or as the last points of a series, are named apart and raise no alarm."""
    table, series = partition()
    rows = compute(table, ChangePointParams())["change_points"]
    points = [i for i, p in enumerate(rows.column("position").to_pylist()) if p is not None]
    assert len(points) == 2
    shift = rows.column("shift").to_pylist()
    shift[points[0]], shift[points[1]] = "level shift", "tail"
    shifted = rows.set_column(rows.schema.get_field_index("shift"), "shift",
                              pa.array(shift, pa.string()))
    page = build_page(shifted, series)
    assert page.verdict is not None and page.verdict.level == "info"
    assert "0 regressions (▼), 0 improvements (▲), 2 not steps" in page.verdict.text
    assert "1 level shift of series that drift or cycle" in page.verdict.text
    assert "1 in the last points of a series at no new revision" in page.verdict.text
    index = [b for s in page.sections for b in s.blocks if isinstance(b, Table)][0]
    assert sorted(index.data.column("shift").to_pylist()) == ["level shift", "tail"]


def test_without_revisions_changes_are_level_shifts() -> None:
    table, series = partition()
    rows = compute(table, ChangePointParams())["change_points"]
    untagged = rows.set_column(rows.schema.get_field_index("revision"), "revision",
                               pa.nulls(rows.num_rows, pa.string()))
    text = build_page(untagged, series).verdict.text
    assert text.startswith("2 worse level shifts, the largest first") and "regression" not in text


def test_without_change_points_the_series_are_drawn_and_untested_is_said() -> None:
    """Issue 40: a page without change points still draws its series; when every series
    was too short to test, the verdict says it could not test (not "nothing found")."""
    table, series = partition()
    rows = compute(table, ChangePointParams())["change_points"]
    unchanged = rows.filter(pa.array([p is None for p in rows.column("position").to_pylist()]))
    page = build_page(unchanged, series)
    assert page.verdict is not None and page.verdict.level == "ok"
    drawn = page.figures()
    assert drawn and "No change point was found" in drawn[0].spec()["description"]
    short = compute(table, ChangePointParams(min_size=10_000))["change_points"]
    page = build_page(short, series)
    assert page.verdict.level == "info"
    assert page.verdict.text.startswith("Could not test: every series is shorter")
