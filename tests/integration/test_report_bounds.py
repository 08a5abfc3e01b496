"""``report all`` on a campaign of many one-trial configurations embeds a bounded amount
and says what it left out (issue 44, H5: 8.7 GB at 10^5 configurations; the RSD heatmap
of 10^4 benchmarks was refused by Altair). The bounds are made small here, so that a
campaign of 300 configurations crosses them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from benchmarks.bench_many_configurations import write_table
from perfwarehouse.ingest.service import ingest_table
from perfwarehouse.reports import drilldown, page, variability
from perfwarehouse.reports.base import ReportData
from perfwarehouse.reports.page import Missing
from perfwarehouse.reports.site import write_site
from perfwarehouse.warehouse.store import Warehouse
from tests.reports_support import analyse

pytestmark = pytest.mark.integration

N = 300


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A campaign of N one-trial configurations (one benchmark each), as
    ``benchmarks/bench_many_configurations.py`` makes 10^6 of them."""
    root = tmp_path_factory.mktemp("many")
    table = root / "many.parquet"
    write_table(table, N, 5)
    wh = Warehouse(root / "warehouse", lock_timeout_s=5.0)
    ingest_table(wh, table, None)
    analyse(wh, "variability")
    return wh


@pytest.fixture(scope="module")
def site(many: Warehouse, tmp_path_factory: pytest.TempPathFactory) -> Path:
    patch = pytest.MonkeyPatch()
    patch.setattr(drilldown, "VIEWER_LIMIT", 40)
    patch.setattr(variability, "MAX_RSD_HEATMAP_BENCHMARKS", 25)
    patch.setattr(page, "MAX_TABLE_ROWS", 10)  # so that the pages link some only
    try:
        out = tmp_path_factory.mktemp("site")
        write_site(many, out)
    finally:
        patch.undo()
    return out / "many"


def _data(folder: Path) -> dict[str, dict[str, object]]:
    text = (folder / drilldown.DATA).read_text(encoding="utf-8")
    body = text.removeprefix("window.PW_CONFIGURATIONS = ").removesuffix(";\n")
    configurations: dict[str, dict[str, object]] = json.loads(body)["configurations"]
    return configurations


def test_the_viewer_holds_the_linked_and_the_first_and_says_so(site: Path) -> None:
    held = _data(site)
    linked = {unquote(m) for name in ("variability.html", "triscale.html", "history.html")
              if (site / name).exists()
              for m in re.findall(r'configuration\.html#([^"&]+)', (site / name)
                                  .read_text(encoding="utf-8"))}
    assert linked, "the pages link configurations"
    assert linked <= set(held), "every drill-down link of a page resolves"
    assert len(held) == max(40, len(linked)) < N
    viewer = (site / drilldown.VIEWER).read_text(encoding="utf-8")
    assert f"This campaign has {N:,} configurations; this viewer holds {len(held):,}" in viewer
    assert "perfwarehouse report configuration --campaign many" in viewer
    assert viewer.count('<li><a href="#') == len(held)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f"{len(held):,} of its {N:,}" in index


def test_the_data_file_is_written_in_pieces_as_in_one(many: Warehouse, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from perfwarehouse.reports import viewer_data

    with many.catalog() as con:
        drill = drilldown.read(ReportData(con), "many")
    whole = drilldown.data_script("many", drilldown.records(drill))
    monkeypatch.setattr(viewer_data, "PIECE_CONFIGURATIONS", 7)
    assert len(list(viewer_data.pieces(drill))) == -(-N // 7)
    held = viewer_data.write_data(tmp_path / "c.js", drill)
    assert (tmp_path / "c.js").read_text(encoding="utf-8") == whole
    assert (held.total, len(held.listed)) == (N, N)


def test_the_rsd_heatmap_shows_the_most_variable_benchmarks_and_says_so(site: Path) -> None:
    text = (site / "variability.html").read_text(encoding="utf-8")
    spec = next(json.loads(s) for s in re.findall(
        r'<script type="application/json" id="spec-\d+">(.*?)</script>', text, re.S)
        if "Median RSD per benchmark" in s)
    rows = spec["datasets"][next(iter(spec["datasets"]))]
    assert len({r["benchmark"] for r in rows}) == 25
    assert f"the 25 most variable of the campaign&#x27;s {N:,} benchmarks" in text


def test_the_most_variable_benchmarks_are_the_largest_median_rsd() -> None:
    heat = pl.DataFrame({"benchmark": ["a", "a", "b", "c", "d"],
                         "hardware_type": ["x", "y", "x", "x", "x"],
                         "rsd_pct": [1.0, 9.0, 5.0, None, 5.0]})
    kept, left = variability.most_variable_benchmarks(heat, 2)
    assert left == 2
    assert kept["benchmark"].to_list() == ["a", "a", "b"]  # 9 %, then 5 % (ties by name)
    assert variability.most_variable_benchmarks(heat, 4) == (heat, 0)


def test_the_aa_summary_is_the_quartiles_of_every_cell(many: Warehouse) -> None:
    """``report_aa_fpr_summary.sql`` against the quartiles of every row, in polars."""
    from perfwarehouse.jobs import get, run_job

    job = get("aa-fpr")
    run_job(many, job, job.params(draws=20))
    with many.catalog() as con:
        data = ReportData(con)
        rows = pl.from_arrow(data.query("aa_fpr", campaign="many"))
        summary = pl.from_arrow(data.query("aa_fpr_summary", campaign="many"))
    assert isinstance(rows, pl.DataFrame) and isinstance(summary, pl.DataFrame)
    rate = pl.col("fp_rate_pct")
    twin = (rows.group_by(["strategy", "n_nodes"], maintain_order=True)
            .agg(q0=rate.min(), q1=rate.quantile(0.25, "linear"), q2=rate.median(),
                 q3=rate.quantile(0.75, "linear"), q4=rate.max(), n=rate.count(),
                 missing=rate.null_count())
            .sort(["strategy", "n_nodes"]))
    assert twin.height >= 2
    assert_frame_equal(summary, twin, check_dtypes=False, rel_tol=1e-12)


def test_labels_made_once_per_configuration_are_the_per_row_labels() -> None:
    import pyarrow as pa

    from perfwarehouse.reports import charts

    rows = pa.table({"benchmark": ["a", "a", "b", "a", "c", "b"],
                     "settings": ['{"n":1}', '{"n":1}', '{"n":2}', '{"n":2}', None, '{"n":2}'],
                     "metric": ["t", "t", "t", "u", None, "t"],
                     "hardware_type": ["x", "y", "x", "x", "x", "y"]})
    got = charts.labelled(rows)
    assert_frame_equal(got.drop("config"), pl.DataFrame(rows))  # rows and order kept
    assert got["config"].to_list() == charts.config_labels(
        rows["benchmark"].to_pylist(), rows["settings"].to_pylist(), rows["metric"].to_pylist())


@pytest.fixture(scope="module")
def detected(many: Warehouse) -> Warehouse:
    from perfwarehouse.jobs import get, run_job

    job = get("detectable-regression")
    run_job(many, job, job.params(draws=20))
    return many


@pytest.mark.parametrize("most", [40, 1000])  # the heatmap of benchmarks, of configurations
def test_the_detectable_sections_from_duckdb_counts_are_those_of_every_row(
        detected: Warehouse, most: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page built from ``report_detectable_counts`` and the heatmaps' rows only is
    the page built from every row of ``detectable_regression``."""
    import dataclasses

    from perfwarehouse.reports import variability_detect
    from perfwarehouse.reports.base import Request
    from perfwarehouse.reports.render import render_html

    monkeypatch.setattr(variability, "MAX_HEATMAP_CONFIGS", most)
    monkeypatch.setattr(variability_detect, "MAX_HEATMAP_CONFIGS", most)
    with detected.catalog() as con:
        data = ReportData(con)
        frames = variability.read(data, Request("many"))
        every = data.query("detectable_regression", campaign="many")
    assert frames.counts is not None and not isinstance(frames.detect, Missing)
    assert (frames.detect.num_rows < every.num_rows) == (most < N)
    whole = dataclasses.replace(frames, detect=every, counts=None)
    assert render_html(variability.build_page(frames)) == render_html(
        variability.build_page(whole))
