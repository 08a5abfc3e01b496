"""The report site (``report all``) on a warehouse that holds one campaign of each kind:
a long-term campaign, an OrderSage study, a load test and a campaign over revisions.

* every campaign is listed with its kind, and its pages are the ones that apply to it;
* no page pools two campaigns: every table's campaign column holds its own campaign only,
  and every verdict names it;
* a link checker walks the written site: every ``href`` (and ``#anchor``) resolves to a
  file (and an ``id``) of the site, every page links the index, nothing points outside.
"""

from __future__ import annotations

import html
import html.parser
import io
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.generate.revisions import revision_records
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.jobs import get as get_job
from perfwarehouse.jobs import run_job
from perfwarehouse.reports.site import KINDS, campaign_slug, write_site
from perfwarehouse.warehouse.store import Warehouse
from tests import browser
from tests.conftest import ORDERSAGE_DIRS
from tests.reports_support import analyse
from tests.trial_logs import write

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXPECTED_KINDS = {"longterm": "long-term", "NPB": "order study", "load-campaign": "load test",
                  "hist": "revisions"}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A warehouse with one campaign of each kind, analysed."""
    root = tmp_path_factory.mktemp("site")
    wh = Warehouse(root / "warehouse", lock_timeout_s=60.0)
    generate_to_file("ordersage-longterm", root / "longterm.jsonl", seed=7, scale=0.02)
    text = (root / "longterm.jsonl").read_text().replace('"ordersage-longterm"', '"longterm"')
    (root / "longterm.jsonl").write_text(text)
    generate_to_file("load-campaign", root / "load.jsonl", seed=3, scale=0.5)
    recs = revision_records(campaign="hist", benchmarks=10, revisions=8, trials=4,
                            noise=0.01, slowdowns={3: [(4, 0.08)], 4: [(4, 0.08)]}, seed=3)
    ingest_jsonl(wh, [root / "longterm.jsonl", root / "load.jsonl",
                      write(root / "hist.jsonl", recs)])
    ingest_ordersage(wh, [ORDERSAGE_DIRS["npbench"]], campaign="NPB")
    analyse(wh, "order-effects", "predecessor-effects", "variability")
    run_job(wh, get_job("change-points"), get_job("change-points").params(min_change=3.0))
    run_job(wh, get_job("load"), get_job("load").params(r_sat="5"))
    # a kept comparison of the revisions around the planted slowdown (the compare page)
    subprocess.run([sys.executable, "-m", "perfwarehouse", "--warehouse", str(wh.root),
                    "compare", "--campaign", "hist", "--baseline", "r003", "--contender",
                    "r004"], check=True, capture_output=True)
    return wh


@pytest.fixture(scope="module")
def site(mixed: Warehouse) -> Path:
    write_site(mixed, mixed.root.parent / "reports")
    return mixed.root.parent / "reports"


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href") is not None:
            self.hrefs.append(str(a["href"]))
        if tag in ("script", "link") and (a.get("src") or a.get("href")):
            self.sources.append(str(a.get("src") or a.get("href")))


def parse(path: Path) -> _Links:
    links = _Links()
    links.feed(path.read_text(encoding="utf-8"))
    return links


def check_links(site: Path) -> list[str]:
    """Every broken link of the site, as 'page -> href: why' (empty: none)."""
    pages = sorted(site.rglob("*.html"))
    parsed = {p.resolve(): parse(p) for p in pages}
    index = (site / "index.html").resolve()
    problems = []
    for page, links in parsed.items():
        targets = set()
        for href in links.hrefs + links.sources:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith("/"):
                problems.append(f"{page} -> {href}: not a relative link")
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            targets.add(target)
            if not target.is_file():
                problems.append(f"{page} -> {href}: no such file")
            elif not target.is_relative_to(site.resolve()):
                problems.append(f"{page} -> {href}: outside the site")
            elif parts.fragment and parts.fragment not in parsed[target].ids:
                problems.append(f"{page} -> {href}: no id {parts.fragment!r}")
        if page != index and index not in targets:
            problems.append(f"{page}: does not link the index")
    return problems


def test_every_link_resolves_and_every_page_links_the_index(site: Path) -> None:
    assert check_links(site) == []
    # one copy of Vega for the whole site, loaded by every page that draws a chart
    assert len(list(site.rglob("vega.js"))) == 1
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert "script-src 'self' 'unsafe-eval';" in html.unescape(text)
        assert "<script>" not in text  # no inline script: only the site's files run


def test_the_link_checker_finds_a_dead_link_and_a_missing_anchor(site: Path,
                                                                  tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(site, copy)
    page = copy / campaign_slug("hist") / "history.html"
    text = page.read_text()
    page.write_text(text.replace('href="../index.html"', 'href="../nowhere.html"', 1)
                    .replace('href="#s0"', 'href="#nothing"', 1))
    problems = check_links(copy)
    assert any("nowhere.html: no such file" in p for p in problems)
    assert any("no id 'nothing'" in p for p in problems)


def test_the_index_lists_every_campaign_with_its_kind_and_pages(site: Path) -> None:
    index = (site / "index.html").read_text()
    for campaign, kind in EXPECTED_KINDS.items():
        slug = campaign_slug(campaign)
        block = index[index.index(f'id="c-{slug}"'):]
        block = block[:block.index("</li>", block.index("</ul>"))] if "</ul>" in block else block
        assert f'<span class="campaign-kind">{kind}</span>' in block
        for name in KINDS[kind][0]:
            if (site / slug / f"{name}.html").exists():
                assert f'href="{slug}/{name}.html"' in block
        assert (site / slug / "index.html").is_file()
    assert (site / "longterm" / "fleet.html").is_file()
    assert not (site / "load-campaign" / "fleet.html").exists()  # a load test has no fleet
    assert not (site / "load-campaign" / "variability.html").exists()


def test_no_page_pools_campaigns_and_every_verdict_names_its_campaign(site: Path) -> None:
    names = set(EXPECTED_KINDS)
    for campaign in names:
        for page in (site / campaign_slug(campaign)).glob("*.html"):
            text = page.read_text()
            if page.name != "index.html":
                verdict = re.search(r'<span class="verdict-text">(.*?)</span>', text, re.S)
                assert verdict and f"Campaign {campaign}:" in verdict.group(1), page
            others = names - {campaign}
            cells = set(re.findall(r"<td[^>]*>([^<]*)</td>", text))
            assert not cells & others, (page, cells & others)


# ------------------------------------------------------------ drill-downs
def viewer_data(path: Path) -> dict:
    """The configurations of a campaign's data file (``window.PW_CONFIGURATIONS = {...};``)."""
    import json

    text = path.read_text(encoding="utf-8")
    assert text.startswith("window.PW_CONFIGURATIONS = ") and text.rstrip().endswith(";")
    return json.loads(text[text.index("{"):text.rstrip().rindex(";")])


def linked_rows(page: Path) -> list[tuple[int, int]]:
    """Per table of the page with a drill-down column: (its rows, its rows with a link)."""
    text = page.read_text(encoding="utf-8")
    out = []
    for table in re.findall(r"<table class=\"sortable\".*?</table>", text, re.S):
        if ">drill-down</button>" not in table:
            continue
        body = table[table.index("<tbody>"):]
        rows = re.findall(r"<tr>.*?</tr>", body, re.S)
        out.append((len(rows), sum(">drill-down</a>" in r for r in rows)))
    return out


def test_every_configuration_a_page_lists_has_its_drill_down(site: Path) -> None:
    """No cap: every row of a configuration table links its drill-down, and every link
    names a configuration of the campaign's data file (the viewer's list holds the same
    keys, so the anchor resolves: the link checker checks that part)."""
    checked = 0
    for campaign in ("longterm", "NPB"):
        folder = site / campaign_slug(campaign)
        data = viewer_data(folder / "configurations.js")
        assert data["campaign"] == campaign and data["configurations"]
        listed = parse(folder / "configuration.html").ids
        assert set(data["configurations"]) <= listed
        for page in folder.glob("*.html"):
            for rows, linked in linked_rows(page):
                assert rows == linked > 0, (page, rows, linked)
                checked += rows
            for href in parse(page).hrefs:
                if href.startswith("configuration.html#"):
                    assert href.split("#", 1)[1] in data["configurations"], (page, href)
        for key, record in data["configurations"].items():
            assert record["verdict"] and record["rows"] and record["hw"], key
            assert record["ecdf"] and record["trials"], key
    assert checked >= 100  # the long-term campaign's tables alone list more than the old cap


def test_the_viewer_shows_what_the_configuration_page_says(mixed: Warehouse, site: Path
                                                           ) -> None:
    """A configuration in the viewer's data has the verdict and table of the page
    `report configuration` writes for it alone (both from the same analyses)."""
    from perfwarehouse.reports import configuration
    from perfwarehouse.reports.base import ReportData, Request
    from perfwarehouse.reports.render import format_value
    from perfwarehouse.warehouse.lookup import Configuration

    data = viewer_data(site / "longterm" / "configurations.js")["configurations"]
    with mixed.catalog() as con:
        rows = con.execute(
            "SELECT c.config_id, c.benchmark, CAST(c.settings AS VARCHAR), c.metric, c.unit, "
            "c.higher_is_better, list(DISTINCT m.hardware_type ORDER BY m.hardware_type) "
            "FROM measurements m JOIN configurations c USING (config_id) WHERE m.campaign = "
            "'longterm' GROUP BY ALL ORDER BY c.config_id LIMIT 5").fetchall()
        for i, b, s, m, u, hib, types in rows:
            config = Configuration("longterm", int(i), b, s, m, u, hib, tuple(types))
            frames = configuration.read_configuration(ReportData(con), config,
                                                      Request("longterm"))
            page = configuration.build_page(frames)
            record = data[page.name]
            assert page.verdict is not None and record["verdict"] == page.verdict.text
            summary = configuration.summary_rows(frames)
            columns = [c for c in configuration.SUMMARY_COLUMNS if c.field in summary.columns]
            assert record["columns"] == [c.label for c in columns]
            assert record["rows"] == [[None if r[c.field] is None else format_value(c, r[c.field])
                                       for c in columns] for r in summary.iter_rows(named=True)]
            # the ECDF keeps each group's smallest and largest value, at heights 1/n and 1
            values = frames.values.to_pylist()
            for h, hw in enumerate(record["hw"]):
                for k, kind in enumerate(("fixed", "random")):
                    got = [e for e in record["ecdf"] if e[0] == h and e[1] == k]
                    mine = sorted(v["value"] for v in values
                                  if v["hardware_type"] == hw and v["order_kind"] == kind)
                    assert bool(got) == bool(mine)
                    if mine:
                        assert got[0][2] == pytest.approx(mine[0], rel=1e-4)
                        assert got[-1][2] == pytest.approx(mine[-1], rel=1e-4)
                        assert got[-1][3] == 1.0
                        assert got[0][3] == pytest.approx(1 / len(mine), rel=1e-4)


def test_every_chart_of_the_site_is_valid_vega_lite(mixed: Warehouse) -> None:
    """The pages no longer validate their specs while writing (a fifth of the site's time):
    every chart of every page of every campaign, and the viewer's templates, are validated
    here against the Vega-Lite schema."""
    import altair as alt

    from perfwarehouse.reports import CATALOG, get
    from perfwarehouse.reports.base import ReportData, Request
    from perfwarehouse.reports.configuration_charts import viewer_templates
    from perfwarehouse.reports.site import pages_of, read_campaigns

    charts = 0
    with mixed.catalog() as con:
        data = ReportData(con)
        for c in read_campaigns(data):
            for name in pages_of(c.kind, [e.name for e in CATALOG]):
                for figure in get(name).build(data, Request(c.name)).figures():
                    figure.chart.to_dict(validate=True)
                    charts += 1
    for spec in viewer_templates().values():
        alt.Chart.from_dict(spec) if "mark" in spec else alt.FacetChart.from_dict(spec)
    assert charts >= 20


# ------------------------------------------------------- a page written alone
def verdict_of(path: Path) -> str:
    found = re.search(r'<span class="verdict-text">(.*?)</span>', path.read_text(), re.S)
    assert found, path
    return html.unescape(found.group(1))


def test_a_page_written_alone_never_pools_campaigns(mixed: Warehouse, tmp_path: Path) -> None:
    """`report PAGE` without --campaign: only the campaigns of a kind the page applies to,
    one page each (where `report all` puts it) when several, the page itself when one;
    every verdict names its campaign and no other, and counts only its configurations."""
    from perfwarehouse.reports import get
    from perfwarehouse.reports.site import CAMPAIGN_PAGES, kinds_of, write_alone

    with mixed.catalog() as con:
        series = dict(con.execute("SELECT campaign, count(DISTINCT (config_id, hardware_type)) "
                                  "FROM measurements GROUP BY 1").fetchall())
    names = set(EXPECTED_KINDS)
    for name in sorted(CAMPAIGN_PAGES):
        out_dir = tmp_path / name
        paths = write_alone(get(name), mixed, out_dir=out_dir, stderr=io.StringIO())
        fits = [c for c, kind in EXPECTED_KINDS.items() if kind in kinds_of(name)]
        expected = ({out_dir / f"{name}.html": fits[0]} if len(fits) == 1 else
                    {out_dir / campaign_slug(c) / f"{name}.html": c for c in fits})
        assert sorted(paths) == sorted(expected), name
        for path, campaign in expected.items():
            said = verdict_of(path)
            assert said.startswith(f"Campaign {campaign}: "), (name, said)
            others = names - {campaign}
            assert not any(re.search(rf"\b{re.escape(o)}\b", said) for o in others), said
            for count in re.findall(r"of ([\d,]+) (?:configurations|series)", said):
                assert int(count.replace(",", "")) <= series[campaign], (name, said)
            cells = set(re.findall(r"<td[^>]*>([^<]*)</td>", path.read_text()))
            assert not cells & others, (name, cells & others)


def test_a_page_written_alone_refuses_what_it_cannot_do(mixed: Warehouse,
                                                       tmp_path: Path) -> None:
    from perfwarehouse.errors import UsageError
    from perfwarehouse.reports import get
    from perfwarehouse.reports.site import write_alone

    with pytest.raises(UsageError, match=r"--out names one file but the order-effects page "
                                         r"applies to 2 campaigns \(NPB, longterm\)"):
        write_alone(get("order-effects"), mixed, out=tmp_path / "oe.html")
    assert not (tmp_path / "oe.html").exists()
    # asked for by name, a campaign gets the page whatever its kind, named in the verdict
    [path] = write_alone(get("variability"), mixed, campaign="load-campaign",
                         out=tmp_path / "v.html", stderr=io.StringIO())
    assert verdict_of(path).startswith("Campaign load-campaign: ")


@pytest.mark.browser
@pytest.mark.skipif(browser.chromium() is None,
                    reason="chromium is not installed (run .ci/setup --browser)")
def test_the_viewer_draws_a_linked_configuration_offline(site: Path) -> None:
    """A drill-down link opened in headless Chromium: the viewer draws that configuration
    (both charts with marks) from the site's own files, with no policy violation."""
    folder = site / "longterm"
    page = (folder / "order-effects.html").read_text(encoding="utf-8")
    key = re.search(r'href="configuration\.html#([^"]+)">drill-down</a>', page).group(1)  # type: ignore[union-attr]
    loaded = browser.load(folder / "configuration.html", fragment=key)
    status = loaded.status
    assert status.get("state") == "done" and status.get("configuration") == key, status
    assert status.get("drawn") == "2" and status.get("violations") == "0", status
    title = viewer_data(folder / "configurations.js")["configurations"][key]["title"]
    assert html.escape(f"Configuration {title}", quote=False) in loaded.dom


# ------------------------------------------------ one sign, drill-downs everywhere
class _Tables(html.parser.HTMLParser):
    """Every sortable table of a page: its columns' fields and its rows, each cell as
    (text, href of its link or None)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[list[str], list[list[tuple[str, str | None]]]]] = []
        self._cell: list[str] | None = None
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and "sortable" in (a.get("class") or ""):
            self.tables.append(([], []))
        elif tag == "th" and self.tables and a.get("data-field"):
            self.tables[-1][0].append(str(a["data-field"]))
        elif tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif tag == "td" and self.tables:
            self._cell, self._href = [], None
        elif tag == "a" and self._cell is not None:
            self._href = a.get("href")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None and self.tables:
            self.tables[-1][1][-1].append(("".join(self._cell), self._href))
            self._cell = None


def tables_of(page: Path) -> list[list[dict[str, tuple[str, str | None]]]]:
    """The page's tables, each as its rows (field -> (text, href))."""
    parser = _Tables()
    parser.feed(page.read_text(encoding="utf-8"))
    return [[dict(zip(fields, row)) for row in rows if row] for fields, rows in parser.tables]


def sign(text: str) -> int:
    value = float(text.replace("−", "-").replace(",", ""))
    return (value > 0) - (value < 0)


def test_each_change_has_one_sign_on_every_page_and_every_listing_links_drill_downs(
        site: Path) -> None:
    """Issue 40: the same change read on every page of the site that shows it (the history
    page, the compare page of the revisions that bracket it, the configuration viewer's
    verdict) has one sign, + = worse, and agrees with the word beside it (regression /
    slower: +); every table that lists configurations (benchmark and metric) of a
    campaign with a viewer links each row's drill-down."""

    history: dict[tuple[str, str, str], list[tuple[float, str, str]]] = {}
    compared: list[tuple[str, str, str, int]] = []
    listing = 0
    for folder in sorted(p for p in site.iterdir() if (p / "configurations.js").is_file()):
        for page in sorted(folder.glob("*.html")):
            if page.name in ("configuration.html", "index.html"):
                continue
            for rows in tables_of(page):
                if not rows or not {"benchmark", "metric"} <= set(rows[0]):
                    continue
                listing += 1
                assert "drilldown" in rows[0], (page, list(rows[0]))
                for row in rows:
                    href = row["drilldown"][1]
                    assert href and href.startswith("configuration.html#"), (page, row)
                    key = (folder.name, href.split("#", 1)[1], row["hardware_type"][0])
                    if "worse_pct" not in row or not row["worse_pct"][0]:
                        continue
                    value = float(row["worse_pct"][0].replace("−", "-").replace(",", ""))
                    s = sign(row["worse_pct"][0])
                    word = (row.get("direction") or row.get("verdict") or ("", None))[0]
                    if word.split()[-1:] in (["regression"], ["slower"]):
                        assert s > 0, (page, row)
                    if word.split()[-1:] in (["improvement"], ["faster"]):
                        assert s < 0, (page, row)
                    if page.name == "history.html":
                        history.setdefault(key, []).append(
                            (value, row["revision_before"][0], row["revision"][0]))
                    elif page.name == "compare.html":
                        compared.append((*key, s))
    assert listing >= 8 and history and compared
    # the compare page's sides: hist@r004 vs hist@r003 (contender vs baseline)
    title = (site / "hist" / "compare.html").read_text(encoding="utf-8")
    contender, baseline = re.search(r"hist@(\w+) vs hist@(\w+)", title).groups()  # type: ignore[union-attr]
    agreed = 0
    for folder, key, hw, s in compared:
        for h, before, after in history.get((folder, key, hw), []):
            if (before, after) == (baseline, contender):  # the same change, on two pages
                assert s == (h > 0) - (h < 0), (key, hw, s, h)
                agreed += 1
    assert agreed >= 2  # both metrics of the slowed benchmark: a time and a throughput
    # the viewer's verdict names the largest change of a configuration, with its sign
    viewer = 0
    for folder, key in {(f, k) for f, k, _hw in history}:
        record = viewer_data(site / folder / "configurations.js")["configurations"][key]
        said = re.search(r"largest ([+-][0-9.]+) %, \+ = worse \((\w+)\) on (\S+?)\.(?: |$)",
                         record["verdict"])
        assert said is not None, record["verdict"]
        value, hw = float(said.group(1)), said.group(3)
        assert said.group(2) == ("regression" if value > 0 else "improvement")
        assert any(abs(h - value) <= 0.01 + 1e-3 * abs(value)
                   for h, _b, _a in history.get((folder, key, hw), [])), (key, record["verdict"])
        viewer += 1
    assert viewer >= 3
