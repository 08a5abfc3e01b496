"""`report configuration`: one configuration's drill-down on a generated long-term campaign
(real jobs, a real warehouse, the real CLI): the verdict cites the analysis tables' own
numbers, the ECDF and the values over time draw the raw values, the trend line is the
trends table's; unknown or ambiguous selections are one line with exit 1; the
order-effects table links each row to its page; `report all` does not write it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.reports import REPORTS, get
from perfwarehouse.reports.configuration import page_name
from perfwarehouse.reports.render import p_statement
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import ORDERSAGE_DIRS, CliRunner
from tests.integration.test_report_pages import assert_self_contained, spec_jsons
from tests.reports_support import analyse

pytestmark = pytest.mark.integration

CAMPAIGN = "ordersage-longterm"


@pytest.fixture(scope="module")
def longterm(tmp_path_factory: pytest.TempPathFactory, small_longterm: Path) -> Warehouse:
    wh = Warehouse(tmp_path_factory.mktemp("drilldown") / "warehouse", lock_timeout_s=5.0)
    ingest_jsonl(wh, [small_longterm])
    analyse(wh, "order-effects", "variability", "trends", "change-points")
    return wh


def rows(wh: Warehouse, sql: str) -> list[dict]:
    with wh.catalog() as con:
        return fetch_arrow(con, sql).to_pylist()


@pytest.fixture(scope="module")
def strongest(longterm: Warehouse) -> dict:
    """The configuration whose order effect is the most significant (on one hardware
    type), with its settings as KEY=VALUE words."""
    row = rows(longterm, "SELECT * FROM order_effects WHERE reject_adjusted "
                         "ORDER BY kw_p, config_id LIMIT 1")[0]
    settings = json.loads(row["settings"])
    row["words"] = " ".join(f"{k}={v}" for k, v in settings.items())
    return row


def test_the_page_of_one_configuration(longterm: Warehouse, strongest: dict, cli: CliRunner,
                                       tmp_path: Path) -> None:
    result = cli("report", "configuration", "--campaign", CAMPAIGN, "--benchmark",
                 strongest["benchmark"], "--metric", strongest["metric"], "--settings",
                 strongest["words"], warehouse=longterm.root)
    assert result.returncode == 0, result.stderr
    name = page_name(CAMPAIGN, strongest["benchmark"], strongest["config_id"])
    out = tmp_path / "reports" / f"{name}.html"
    assert result.stdout.strip() == f"wrote reports/{name}.html" and out.exists()
    page = out.read_text(encoding="utf-8")
    assert_self_contained(page)
    # the verdict box first, with the numbers of the analysis tables
    assert page.index('<section class="verdict alarm"') < page.index('<p class="intro">')
    verdict = re.search(r'class="verdict-text">(.*?)</span>', page, re.S).group(1)
    hw = strongest["hardware_type"]
    assert f"Order matters on {hw}" in verdict
    assert f"Δ {strongest['delta_pct']:+.2f} %, {p_statement(strongest['kw_p'])}" \
        in verdict
    rsd = rows(longterm, f"SELECT hardware_type, rsd_total_pct FROM variability WHERE "
                         f"config_id = {strongest['config_id']} ORDER BY rsd_total_pct DESC")
    assert "Variability (RSD of all values, most variable first): " in verdict
    assert verdict.index(rsd[0]["hardware_type"]) < verdict.index(rsd[-1]["hardware_type"] + " ")
    assert "drift" in verdict.lower() and "change point" in verdict
    # the two charts: ECDF per hardware type and values over time with the trend line
    specs = spec_jsons(page)
    assert [s["title"]["text"] for s in specs] == [
        "The values in fixed and in random order (ECDF), per hardware type",
        "Trial values over time, with the Theil-Sen trend"]
    for spec in specs:
        assert spec["description"]
        for panel in spec["concat"]:
            for layer in panel["layer"]:
                for axis in ("x", "y"):
                    title = layer["encoding"].get(axis, {}).get("title")
                    if title and axis == "x" and "value" in layer["encoding"][axis]["field"]:
                        assert "(" in title  # the unit
    types = rows(longterm, f"SELECT DISTINCT hardware_type FROM measurements WHERE "
                           f"config_id = {strongest['config_id']} ORDER BY 1")
    assert len(specs[0]["concat"]) == len(types) == len(specs[1]["concat"])
    # the ECDF ends at 1 for each order kind of each hardware type
    data = [r for d in specs[0]["datasets"].values() for r in d]
    for t in types:
        for kind in ("fixed", "random"):
            got = [r["ecdf"] for r in data if r["hardware_type"] == t["hardware_type"]
                   and r["order_kind"] == kind]
            assert got and max(got) == 1 and got == sorted(got)
    # the trend line is the trends table's slope through its median at mid-span
    trend = rows(longterm, f"SELECT * FROM trends WHERE config_id = {strongest['config_id']} "
                           f"AND hardware_type = '{hw}'")[0]
    ends = {r["time"]: r for d in specs[1]["datasets"].values() for r in d
            if "trend" in r and r["hardware_type"] == hw}  # the line and its label
    line = [ends[t] for t in sorted(ends)]
    assert len(line) == 2
    half_span_days = (trend["last_s"] - trend["first_s"]) / 2 / 86400
    assert line[0]["trend"] == pytest.approx(trend["median"] - trend["slope_per_day"]
                                             * half_span_days, rel=1e-4)
    assert line[1]["trend"] == pytest.approx(trend["median"] + trend["slope_per_day"]
                                             * half_span_days, rel=1e-4)
    # signed + = worse by the metric's direction, as on every page (issue 40)
    hib = rows(longterm, "SELECT higher_is_better FROM configurations "
                         f"WHERE config_id = {strongest['config_id']}")[0]["higher_is_better"]
    worse = -trend["slope_pct_per_30d"] if hib else trend["slope_pct_per_30d"]
    assert f"{worse:+.2f} % / 30 days, + = worse" in line[0]["label"]


def test_one_hardware_type_and_json_settings(longterm: Warehouse, strongest: dict,
                                             tmp_path: Path) -> None:
    out = get("configuration").write(
        longterm, out=tmp_path / "one.html", campaign=CAMPAIGN,
        benchmark=strongest["benchmark"], metric=strongest["metric"],
        settings=(strongest["settings"],), hardware_type=strongest["hardware_type"])
    specs = spec_jsons(out.read_text(encoding="utf-8"))
    assert [len(s["concat"]) for s in specs] == [1, 1]
    panels = [p["title"]["text"] for s in specs for p in s["concat"]]
    assert panels == [f"hardware type {strongest['hardware_type']}"] * 2


def test_unknown_and_ambiguous_selections_exit_1_in_one_line(
        longterm: Warehouse, strongest: dict, cli: CliRunner, tmp_path: Path) -> None:
    def run(*args: str) -> str:
        result = cli("report", "configuration", "--campaign", CAMPAIGN, *args,
                     warehouse=longterm.root)
        assert result.returncode == 1, result.stdout
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        return result.stderr.strip()

    bench = strongest["benchmark"]
    assert "did you mean" in run("--benchmark", bench + "x") and "known: " in run(
        "--benchmark", bench + "x")
    ambiguous = run("--benchmark", bench)
    assert re.match(rf"error: \d+ configurations of {re.escape(bench)} in campaign {CAMPAIGN} "
                    "match: add --metric and/or --settings to pick one: ", ambiguous)
    assert f"--settings '{strongest['words']}'" in ambiguous or "more" in ambiguous
    wrong_type = run("--benchmark", bench, "--metric", strongest["metric"], "--settings",
                     strongest["words"], "--hardware-type", strongest["hardware_type"][:-1])
    assert (f"--hardware-type: unknown hardware type of this configuration "
            f"'{strongest['hardware_type'][:-1]}' (did you mean "
            f"'{strongest['hardware_type']}'?)") in wrong_type
    assert "did you mean" in run("--benchmark", bench, "--settings", "nosuchkey=1")
    assert not (tmp_path / "reports").exists()


def test_order_effects_rows_link_to_their_page(longterm: Warehouse, strongest: dict,
                                               tmp_path: Path) -> None:
    """In a report site every row links its configuration in the campaign's viewer (the
    site says where it is); a page written alone links none (issue 30: dead links)."""
    from perfwarehouse.reports.base import Request
    from perfwarehouse.reports.render import write_report

    alone = get("order-effects").write(longterm, out=tmp_path / "oe.html").read_text("utf-8")
    assert ">drill-down</a>" not in alone
    href = ("configuration.html#"
            + page_name(CAMPAIGN, strongest["benchmark"], strongest["config_id"]))
    built = get("order-effects").page(longterm, Request(
        CAMPAIGN, options=(("drilldown", "configuration.html"),)))
    page = write_report(built, tmp_path / "site.html").read_text("utf-8")
    assert f'<a href="{href}">drill-down</a>' in page
    # its rows (one per hardware type) of the two tables, and no other row
    own = sum(rows(longterm, f"SELECT count(*) AS n FROM {t} WHERE config_id = "
                             f"{int(strongest['config_id'])}")[0]["n"]
              for t in ("order_effects", "predecessor_effects"))
    assert page.count(f'<a href="{href}">drill-down</a>') == own >= 1


def test_not_analysed_yet_and_report_all(cli: CliRunner, tmp_path: Path) -> None:
    """Before any analysis the page still shows the values and names the commands; `report
    all` (which needs no selection) does not write a configuration page."""
    cli("ingest", "ordersage", str(ORDERSAGE_DIRS["memcached"]), "--campaign", "memcached",
        check=True)
    bench = rows(Warehouse(tmp_path / "warehouse"),
                 "SELECT benchmark, metric, settings FROM configurations ORDER BY ALL LIMIT 1")[0]
    words = " ".join(f"{k}={v}" for k, v in json.loads(bench["settings"]).items())
    args = ["--settings", words] if words else []
    out = tmp_path / "c.html"
    cli("report", "configuration", "--campaign", "memcached", "--benchmark", bench["benchmark"],
        "--metric", bench["metric"], *args, "--out", str(out), check=True)
    page = out.read_text(encoding="utf-8")
    assert '<section class="verdict missing"' in page
    assert "perfwarehouse analyze order-effects" in page and "perfwarehouse analyze trends" in page
    assert len(spec_jsons(page)) == 2  # the raw values are drawn all the same
    assert "configuration" not in [r.name for r in REPORTS]
    cli("report", "all", "--out-dir", str(tmp_path / "all"), check=True)
    assert not list((tmp_path / "all").glob("configuration*"))


def test_compact_unknown_hardware_type_says_did_you_mean(longterm: Warehouse,
                                                         cli: CliRunner) -> None:
    hw = rows(longterm, "SELECT min(hardware_type) AS h FROM data_files")[0]["h"]
    result = cli("compact", "--hardware-type", hw + "x", warehouse=longterm.root)
    assert result.returncode == 1
    assert result.stderr.startswith(f"error: --hardware-type: unknown hardware type "
                                    f"'{hw}x' (did you mean '{hw}'?); known: ")
    campaign = cli("compact", "--campaign", "ordersage-longtrm", warehouse=longterm.root)
    assert campaign.returncode == 1 and "(did you mean 'ordersage-longterm'?)" in campaign.stderr
