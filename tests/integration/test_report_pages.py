"""Reports written from real warehouses: the OrderSage fixtures (plus a campaign with
hostile benchmark names) for order effects, a small laaber-cloud campaign for
variability, a small long-term campaign for the fleet report; the CLI around them.

Checks: one file, under 5 MB, nothing that would load from a network, the JavaScript
bundle embedded once, every string from the data escaped (HTML text and embedded
JSON), missing analyses named in the page and on stderr, PNG export.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.reports import Request, get
from perfwarehouse.reports.render import javascript_bundle
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import ORDERSAGE_DIRS
from tests.reports_support import (
    HOSTILE_IMG,
    HOSTILE_NAMES,
    HOSTILE_SCRIPT,
    analyse,
    hostile_trials,
)

pytestmark = [pytest.mark.integration]

MB = 1024 * 1024


@pytest.fixture(scope="module")
def order_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("order")
    warehouse = Warehouse(root / "warehouse")
    for directory in ORDERSAGE_DIRS.values():
        ingest_ordersage(warehouse, [directory])
    ingest_jsonl(warehouse, [hostile_trials(root / "hostile.jsonl")])
    analyse(warehouse, "order-effects", "predecessor-effects")
    return warehouse


@pytest.fixture(scope="module")
def order_page(order_warehouse: Warehouse, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pages") / "order-effects.html"
    return get("order-effects").write(order_warehouse, out=out)


def spec_jsons(page: str) -> list[dict]:
    return [json.loads(m) for m in
            re.findall(r'<script type="application/json" id="spec-\d+">(.*?)</script>', page,
                       flags=re.S)]


def strings_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings_in(v)]
    return []


def assert_self_contained(page: str) -> None:
    bundle = javascript_bundle()
    assert page.count(bundle) == 1, "the JavaScript bundle must be embedded exactly once"
    outside = page.replace(bundle, "")
    assert "http://" not in outside and "https://" not in outside
    assert not re.search(r"""<(script|img|link|iframe|embed|object|source)\b[^>]*\s(src|href)=""",
                         outside, flags=re.I)
    assert "@import" not in outside and "url(" not in outside
    assert "default-src &#x27;none&#x27;" in page  # the browser refuses any fetch


def test_order_effects_page_is_one_small_self_contained_file(order_page: Path) -> None:
    size = order_page.stat().st_size
    assert size < 5 * MB, f"{size / MB:.2f} MB"
    page = order_page.read_text(encoding="utf-8")
    assert_self_contained(page)
    specs = spec_jsons(page)
    assert len(specs) >= 6  # Figures 2-3 per campaign, 4, 5 per campaign, 6
    for spec in specs:
        assert "$schema" not in spec  # no URL left in the page outside the bundle
        assert spec.get("description") and spec.get("title")


def test_hostile_names_stay_text(order_page: Path) -> None:
    page = order_page.read_text(encoding="utf-8")
    bundle = javascript_bundle()
    outside = page.replace(bundle, "")
    for name in (HOSTILE_SCRIPT, HOSTILE_IMG, "<b>type</b>", "<i>time</i>", "s</script>"):
        assert name not in outside, f"raw {name!r} in the page"
    # as HTML text (table cells) they are escaped ...
    assert "&lt;/script&gt;&lt;script&gt;document.body.setAttribute(" in outside
    assert "&quot;&gt;&lt;img src=x onerror=" in outside
    # ... and in the embedded JSON no '<', '>' or '&' is left, yet the data are intact
    for block in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.S):
        assert "<" not in block and ">" not in block and "&" not in block
        assert "\u2028" not in block and "\u2029" not in block
    data = [s for spec in spec_jsons(page) for s in strings_in(spec.get("datasets", {}))]
    assert any(HOSTILE_SCRIPT in s for s in data)
    assert any(HOSTILE_IMG in s for s in data)
    assert any("\u2028" in s for s in data)


def test_order_effects_page_has_every_section(order_page: Path) -> None:
    page = order_page.read_text(encoding="utf-8")
    for text in ("Do fixed and random order give the same distribution?",
                 "How large are the differences?", "Would the conclusion change?",
                 "Every configuration", "polluter leaderboard", "Predecessor effects of every "
                 "configuration"):
        assert text in page
    # the verdict box comes first: order matters in the memcached fixture (Table 3)
    assert page.index('<section class="verdict alarm"') < page.index('<p class="intro">')
    assert "Order matters in " in page and "randomise the order" in page
    # every campaign of the fixtures is reported, with its configurations in the table
    for directory in ORDERSAGE_DIRS.values():
        assert directory.name in page
    assert page.count('<table class="sortable"') >= 2
    assert 'class="table-search"' in page


def test_report_cli(order_warehouse: Warehouse, cli, tmp_path: Path) -> None:
    out = tmp_path / "deep" / "oe.html"
    result = cli("report", "order-effects", "--out", str(out), "--campaign", "hostile",
                 warehouse=order_warehouse.root)
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}" in result.stdout
    page = out.read_text(encoding="utf-8")
    assert "hostile" in page and "20221005_12:13:03_results" not in page
    assert not list(out.parent.glob(".*.tmp"))  # written atomically, nothing left over


def test_report_help_lists_every_report(cli) -> None:
    result = cli("report", "--help")
    assert result.returncode == 0
    for name in ("order-effects", "variability", "triscale", "fleet", "load"):
        assert name in result.stdout
    fleet = cli("report", "fleet", "--help")
    assert "--since" in fleet.stdout and "--until" in fleet.stdout and "--png" in fleet.stdout


def test_missing_analysis_is_said_in_the_page_and_on_stderr(cli, tmp_path: Path) -> None:
    warehouse = tmp_path / "fresh"
    assert cli("ingest", "ordersage", str(ORDERSAGE_DIRS["npbench"]),
               warehouse=warehouse).returncode == 0
    out = tmp_path / "oe.html"
    result = cli("report", "order-effects", "--out", str(out), warehouse=warehouse)
    assert result.returncode == 0, result.stderr
    assert "perfwarehouse analyze order-effects" in result.stderr
    page = out.read_text(encoding="utf-8")
    assert "has no results" in page and "perfwarehouse analyze order-effects" in page


def test_no_warehouse_is_one_line_exit_1(cli, tmp_path: Path) -> None:
    result = cli("report", "variability", "--out", str(tmp_path / "v.html"),
                 warehouse=tmp_path / "nowhere")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "no warehouse" in result.stderr
    assert not (tmp_path / "v.html").exists()


def test_bad_period_is_a_usage_error(order_warehouse: Warehouse, cli, tmp_path: Path) -> None:
    result = cli("report", "fleet", "--out", str(tmp_path / "f.html"), "--since", "2024-02-01",
                 "--until", "2024-01-01", warehouse=order_warehouse.root)
    assert result.returncode == 1 and "not before --until" in result.stderr
    bad = cli("report", "fleet", "--out", str(tmp_path / "f.html"), "--since", "yesterday",
              warehouse=order_warehouse.root)
    assert bad.returncode == 2


@pytest.mark.slow
def test_png_export(order_warehouse: Warehouse, tmp_path: Path) -> None:
    report = get("order-effects")
    page = report.page(order_warehouse, Request(campaign="hostile"))
    report.write(order_warehouse, out=tmp_path / "p.html", campaign="hostile",
                 png=tmp_path / "png")
    pngs = sorted((tmp_path / "png").glob("*.png"))
    assert len(pngs) == len(page.figures()) > 0
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.name.startswith("order-effects-")
    assert all(name not in p.name for p in pngs for name in HOSTILE_NAMES)


@pytest.mark.slow
def test_demo_writes_every_report(cli, tmp_path: Path) -> None:
    result = cli("demo", "--scale", "0.01", "--reports", str(tmp_path / "reports"),
                 warehouse=tmp_path / "warehouse", timeout=900)
    assert result.returncode == 0, result.stderr
    # issue 30: the demo writes the site, each campaign's pages in its own directory
    assert f"reports:   {(tmp_path / 'reports' / 'index.html').resolve()}" in result.stdout
    for campaign, name in (("ordersage-longterm", "order-effects"),
                           ("ordersage-longterm", "variability"),
                           ("ordersage-longterm", "triscale"), ("ordersage-longterm", "fleet"),
                           ("load-campaign", "load")):
        page = tmp_path / "reports" / campaign / f"{name}.html"
        text = page.read_text(encoding="utf-8")
        assert "<script src=\"../assets/vega.js\"></script>" in text
        assert page.stat().st_size < 5 * MB
    # the generated input is not left inside the warehouse (nor next to it), and the
    # fixture campaigns are named after their studies
    leftovers = [p for p in tmp_path.rglob("*.jsonl")]
    assert leftovers == [], leftovers
    from perfwarehouse.warehouse.store import Warehouse, fetch_arrow

    with Warehouse(tmp_path / "warehouse").catalog() as con:
        names = set(fetch_arrow(con, "SELECT campaign FROM campaigns").column(0).to_pylist())
    assert names == {"ordersage-longterm", "memcached", "NPB", "uFS", "load-campaign"}
    # the load campaign has no fixed- and random-order trials of one configuration: it has
    # no order-effects page, and the long-term campaign's does not draw it
    order_page = (tmp_path / "reports" / "ordersage-longterm" / "order-effects.html"
                  ).read_text(encoding="utf-8")
    assert not (tmp_path / "reports" / "load-campaign" / "order-effects.html").exists()
    assert "pvalues-load-campaign" not in order_page
    assert "pvalues-ordersage-longterm" in order_page
    again = cli("demo", "--scale", "0.01", "--reports", str(tmp_path / "reports"),
                warehouse=tmp_path / "warehouse", timeout=900, check=True)
    assert "nothing to generate" in again.stdout


def test_configuration_rows_link_their_drill_down_in_a_site(order_warehouse: Warehouse,
                                                            order_page: Path,
                                                            tmp_path: Path) -> None:
    """Both per-configuration tables (order effects, predecessor effects) link each row to
    its configuration in the viewer of the report site (the site says where it is); a page
    written alone links none (issue 30: 566 dead links)."""
    from perfwarehouse.reports.base import Request
    from perfwarehouse.reports.configuration import page_name
    from perfwarehouse.reports.render import write_report
    from perfwarehouse.warehouse.store import fetch_arrow

    assert ">drill-down</a>" not in order_page.read_text(encoding="utf-8")
    with order_warehouse.catalog() as con:
        row = fetch_arrow(con, "SELECT campaign, benchmark, config_id FROM predecessor_effects "
                               "WHERE campaign = 'hostile' ORDER BY config_id LIMIT 1").to_pylist()[0]
    name = f"configuration.html#{page_name(row['campaign'], row['benchmark'], row['config_id'])}"
    report = get("order-effects")
    built = report.page(order_warehouse, Request(options=(("drilldown", "configuration.html"),)))
    page = write_report(built, tmp_path / "o.html").read_text(encoding="utf-8")
    # the configuration's row in each of the two tables links it
    assert page.count(f'<a href="{name}">') == 2
