"""Every report opened in headless Chromium (Debian's ``chromium``, installed by
``.ci/setup --browser``), offline: every chart drew, the page fetched nothing and
caused no policy violation, and no hostile benchmark name became markup or ran."""

from __future__ import annotations

import re
from pathlib import Path

import altair as alt
import polars as pl
import pyarrow as pa
import pytest

from perfwarehouse.generate import generate_to_file
from perfwarehouse.generate.revisions import revision_records
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.jobs import get as get_job
from perfwarehouse.jobs import run_job
from perfwarehouse.reports import get
from perfwarehouse.reports.page import Column, Figure, Page, Section, Table
from perfwarehouse.reports.render import render_html, write_index, write_report
from perfwarehouse.warehouse.store import Warehouse
from tests import browser
from tests.conftest import ORDERSAGE_DIRS
from tests.reports_support import HOSTILE_SCRIPT, analyse, hostile_trials, longterm_warehouse
from tests.trial_logs import write

pytestmark = [
    pytest.mark.browser, pytest.mark.integration,
    pytest.mark.skipif(browser.chromium() is None,
                       reason="chromium is not installed (run .ci/setup --browser)"),
]


def assert_every_chart_drew(loaded: browser.Loaded, expected_at_least: int) -> None:
    status = loaded.status
    assert status.get("state") == "done", f"the page did not finish drawing: {status}"
    assert int(status["charts"]) == len(loaded.charts) >= expected_at_least
    bad = [c for c in loaded.charts if c.status != "drawn" or c.items == 0 or c.warnings]
    assert not bad, f"charts that did not draw cleanly: {bad} {loaded.failures}"
    assert status["drawn"] == status["charts"] and status["failed"] == "0"
    assert status["resources"] == "0", "the page fetched something"
    assert status["violations"] == "0", status.get("violation-list")


def pwned(dom: str) -> bool:
    """Whether a hostile payload ran: each sets data-pwned on <body>."""
    body = re.search(r"<body[^>]*>", dom)
    return body is None or "data-pwned" in body.group(0)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every report, from warehouses that hold what each needs, one drill-down
    (``report configuration``) and the index of them all."""
    root = tmp_path_factory.mktemp("browser")
    out: dict[str, Path] = {}
    built: list[tuple[str, Page]] = []

    def write_page(name: str, warehouse: Warehouse, **options: object) -> None:
        path, page = get(name).write_page(warehouse, out=root / f"{name}.html",
                                          **options)  # type: ignore[arg-type]
        out[name] = path
        built.append((path.name, page))

    order = Warehouse(root / "order")
    for directory in ORDERSAGE_DIRS.values():
        ingest_ordersage(order, [directory])
    ingest_jsonl(order, [hostile_trials(root / "hostile.jsonl")])
    analyse(order, "order-effects", "predecessor-effects")
    write_page("order-effects", order)

    laaber = Warehouse(root / "laaber")
    generate_to_file("laaber-cloud", root / "laaber.jsonl", seed=3, scale=0.1)
    ingest_jsonl(laaber, [root / "laaber.jsonl", hostile_trials(root / "hostile2.jsonl")])
    analyse(laaber, "variability", "aa-fpr", "detectable-regression")
    write_page("variability", laaber)

    # TriScale needs runs with iterations (laaber-cloud) and months of history (long-term)
    triscale = Warehouse(root / "triscale")
    generate_to_file("ordersage-longterm", root / "longterm.jsonl", seed=2, scale=0.05)
    ingest_jsonl(triscale, [root / "laaber.jsonl", root / "longterm.jsonl"])
    analyse(triscale, "convergence", "kpi", "variability-score", "profile")
    write_page("triscale", triscale)

    longterm, _truth = longterm_warehouse(tmp_path_factory.getbasetemp())
    write_page("fleet", longterm)

    load = Warehouse(root / "load")
    generate_to_file("load-campaign", root / "load.jsonl", seed=3, scale=0.5)
    ingest_jsonl(load, [root / "load.jsonl"])
    run_job(load, get_job("load"), get_job("load").params(r_sat="5"))
    write_page("load", load)

    # 12 revisions of 20 benchmarks, two of them 6 % slower from revision 6 on
    history = Warehouse(root / "history")
    recs = revision_records(campaign="hist", benchmarks=20, revisions=12, trials=5,
                            noise=0.01, slowdowns={3: [(6, 0.06)], 14: [(6, 0.06)]}, seed=3)
    ingest_jsonl(history, [write(root / "hist.jsonl", recs)])
    run_job(history, get_job("change-points"), get_job("change-points").params(min_change=3.0))
    write_page("history", history)

    # the drill-down of the hostile campaign's first test (its name is a <script>)
    analyse(order, "variability", "trends")
    write_page("configuration", order, campaign="hostile", benchmark=HOSTILE_SCRIPT,
               metric="time", settings=("flag=x",))

    out["index"] = write_index(built, root / "index.html")
    return out


@pytest.mark.parametrize(("name", "charts"), [
    ("order-effects", 8), ("variability", 8), ("triscale", 5), ("fleet", 5), ("load", 2),
    ("history", 2), ("configuration", 2)])
def test_every_chart_draws_offline(pages: dict[str, Path], name: str, charts: int) -> None:
    loaded = browser.load(pages[name])
    assert_every_chart_drew(loaded, charts)
    assert not pwned(loaded.dom)


ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
"""Where the screenshots of every page go (ignored by git; CI keeps the directory)."""

LAYOUT_PROBE = """<script>
(function () {
  var main = document.querySelector("main");
  var first = main ? main.firstElementChild : null;
  var header = document.querySelector("header");
  var bad = [];
  document.querySelectorAll("table.sortable").forEach(function (t) {
    var box = t.parentElement;
    var wide = t.scrollWidth > box.clientWidth + 1
      || t.getBoundingClientRect().width > window.innerWidth;
    var head = t.tHead.rows[0].cells[0];
    var frozen = Number(t.getAttribute("data-frozen")) > 0
      && getComputedStyle(head).position === "sticky";
    var keys = Array.prototype.slice.call(t.tHead.rows[0].cells, 0,
      Number(t.getAttribute("data-frozen")));
    var keyWidth = keys.reduce(function (w, c) { return w + c.getBoundingClientRect().width; }, 0);
    if (wide && !frozen) { bad.push(t.id + " " + t.scrollWidth + ">" + box.clientWidth); }
    if (wide && frozen && keyWidth > box.clientWidth * 0.6) { bad.push(t.id + " keys too wide"); }
    if (box.getBoundingClientRect().right > window.innerWidth + 1) {
      bad.push(t.id + " box overflows the viewport");
    }
  });
  var b = document.body;
  b.setAttribute("data-first", first ? first.className : "none");
  b.setAttribute("data-after-header", header && header.nextElementSibling === main ? "yes" : "no");
  b.setAttribute("data-verdict-top", first ? String(Math.round(first.getBoundingClientRect().top))
    : "-1");
  b.setAttribute("data-viewport", String(window.innerWidth));
  b.setAttribute("data-tables", String(document.querySelectorAll("table.sortable").length));
  b.setAttribute("data-wide-unfrozen", bad.join(" | "));
})();
</script></body>"""


PAGES = ["order-effects", "variability", "triscale", "fleet", "load", "history",
         "configuration", "index"]


@pytest.mark.parametrize("name", PAGES)
def test_verdict_first_and_tables_fit_at_1400px(pages: dict[str, Path], name: str,
                                                 tmp_path: Path) -> None:
    """The verdict box is the first content (right under the title, in the first
    screen), and at a 1,400 px wide window no table is wider than its box unless its key
    columns are frozen. A screenshot of the page goes to ``artifacts/screenshots``."""
    probe = tmp_path / f"{name}-probe.html"
    probe.write_text(pages[name].read_text(encoding="utf-8").replace("</body>", LAYOUT_PROBE),
                     encoding="utf-8")
    body = re.search(r"<body[^>]*>", browser.load(probe, window=(1400, 1000)).dom).group(0)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))
    assert attrs["first"].startswith("verdict"), attrs
    assert attrs["after-header"] == "yes" and 0 <= int(attrs["verdict-top"]) < 200, attrs
    assert attrs["viewport"] == "1400"
    assert int(attrs["tables"]) >= (0 if name == "index" else 1)  # the index has none
    assert attrs["wide-unfrozen"] == "", attrs["wide-unfrozen"]
    shot = browser.screenshot(pages[name], ARTIFACTS / f"{name}.png", window=(1400, 5000))
    assert shot.stat().st_size > 20_000


def test_the_index_links_every_page_under_its_verdict(pages: dict[str, Path]) -> None:
    dom = browser.load(pages["index"]).dom
    for name in PAGES[:-1]:
        assert f'<a href="{name}.html">' in dom
    # the index's own verdict box, then one box per page (the levels in words)
    assert dom.count('class="verdict ') == len(PAGES)
    assert "Action needed" in dom and "need" in dom


def test_hostile_names_stay_text_in_the_drill_down(pages: dict[str, Path]) -> None:
    dom = browser.load(pages["configuration"]).dom
    assert not pwned(dom)
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", dom, flags=re.S | re.I)
    assert "<img" not in markup.lower()
    assert "Configuration &lt;/script&gt;&lt;script&gt;document.body" in dom  # the title


def test_hostile_names_are_text_in_the_browser(pages: dict[str, Path]) -> None:
    loaded = browser.load(pages["order-effects"])
    dom = loaded.dom
    assert not pwned(dom)  # neither the injected <script> nor the onerror ran
    markup = re.sub(r"<script\b[^>]*>.*?</script>", "", dom, flags=re.S | re.I)
    assert "<img" not in markup.lower()  # no element (as text it is "&lt;img")
    # the names are there, as text of table cells and of SVG labels
    assert "&lt;/script&gt;&lt;script&gt;document.body.setAttribute" in dom
    assert "\"&gt;&lt;img src=x onerror=" in dom


def test_the_status_catches_a_broken_and_an_empty_chart(tmp_path: Path) -> None:
    """The recorder can fail: a chart with a Vega warning and a chart without data
    are reported as such, so "drawn" above means something."""
    warns = alt.Chart(pl.DataFrame({"x": [0.0, 1.0], "y": [0.0, 2.0]})).mark_point().encode(
        x=alt.X("x:Q", title="x (s)", scale=alt.Scale(type="log")),
        y=alt.Y("y:Q", title="y (s)")).properties(title="t", description="d.")
    empty = alt.Chart(pl.DataFrame({"x": [1.0]})).mark_point().encode(
        x=alt.X("x:Q", title="x (s)")).transform_filter("datum.x > 5").properties(
        title="t", description="d.")
    page = write_report(Page("t", "", (Section("s", "", (Figure(warns, "warns"),
                                                         Figure(empty, "empty"))),)),
                        tmp_path / "broken.html")
    loaded = browser.load(page)
    assert loaded.status["state"] == "done"
    by_name = {c.name: c for c in loaded.charts}
    assert by_name["warns"].warnings
    assert by_name["empty"].status == "empty" and loaded.status["empty"] == "1"


def test_every_chart_builder_draws(tmp_path: Path) -> None:
    """Each chart function of the chart modules of perfwarehouse.reports, on the sample
    tables of its snapshot test, draws in the browser without a Vega warning."""
    from tests.unit.reports.test_charts import CHARTS

    figures = tuple(Figure(build(), name) for name, build in sorted(CHARTS.items()))
    page = write_report(Page("gallery", "", (Section("charts", "", figures),)),
                        tmp_path / "gallery.html")
    assert_every_chart_drew(browser.load(page), len(figures))


def test_tables_sort_and_filter(tmp_path: Path) -> None:
    """The page's own table script: a click on a header sorts (numbers as numbers, empty
    cells last), typing in the box hides the rows that do not match every word."""
    table = Table("t", "c", (Column("name", "name"), Column("p", "p", "pvalue")),
                  pa.table({"name": ["b x", "a y", "c x", "d"], "p": [0.5, 1e-9, None, 0.02]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    probe = """<script>
    var th = document.querySelectorAll("thead th");
    function names() { return Array.from(document.querySelectorAll("tbody tr"))
        .filter(function (r) { return !r.hidden; })
        .map(function (r) { return r.cells[0].textContent; }).join(","); }
    th[1].querySelector("button").click();
    document.body.setAttribute("data-p-ascending", names());
    th[1].querySelector("button").click();
    document.body.setAttribute("data-p-descending", names());
    th[0].querySelector("button").click();
    document.body.setAttribute("data-name-ascending", names());
    var box = document.querySelector("input.table-search");
    box.value = "X b"; box.dispatchEvent(new Event("input"));
    document.body.setAttribute("data-filtered", names());
    document.body.setAttribute("data-count", document.querySelector(".table-count").textContent);
    </script></body>"""
    page = tmp_path / "table.html"
    page.write_text(text.replace("</body>", probe), encoding="utf-8")
    body = re.search(r"<body[^>]*>", browser.load(page).dom).group(0)
    assert 'data-p-ascending="a y,d,b x,c x"' in body
    assert 'data-p-descending="b x,d,a y,c x"' in body
    assert 'data-name-ascending="a y,b x,c x,d"' in body
    assert 'data-filtered="b x"' in body and 'data-count="1 of 4 rows"' in body


def test_filters_take_natural_input_or_say_why_not(tmp_path: Path) -> None:
    """Issue 40: spaces around the operator, a header with spaces, text equality; a
    condition on a column the table lacks is named in the count, not matched silently;
    the placeholder names a column the table has."""
    table = Table("t", "c", (Column("name", "name", key=True),
                             Column("hardware_type", "hardware type"),
                             Column("p", "p", "pvalue"),
                             Column("rsd_total_pct", "RSD total (%)", "pct")),
                  pa.table({"name": ["b x", "a, y", "c x", "d"],
                            "hardware_type": ["c220g5", "m510", "c220g5", "m510"],
                            "p": [0.5, 1e-9, None, 0.02],
                            "rsd_total_pct": [1.0, 20.0, 5.0, 12.5]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    assert 'placeholder="Filter: words, or p &lt; 0.01, or name=b x"' in text
    probe = """<script>
    function names() { return Array.from(document.querySelectorAll("tbody tr"))
        .filter(function (r) { return !r.hidden; })
        .map(function (r) { return r.cells[0].textContent; }).join(";"); }
    var box = document.querySelector("input.table-search");
    function filter(v) { box.value = v; box.dispatchEvent(new Event("input")); return names(); }
    document.body.setAttribute("data-spaced", filter("p < 0.01"));
    document.body.setAttribute("data-label", filter("RSD total > 4"));
    document.body.setAttribute("data-text", filter("hardware type=c220g5"));
    document.body.setAttribute("data-not", filter("hardware type != c220g5 p>0.01"));
    document.body.setAttribute("data-nosuch", filter("nosuch>3"));
    document.body.setAttribute("data-why", document.querySelector(".table-count").textContent);
    </script></body>"""
    page = tmp_path / "table.html"
    page.write_text(text.replace("</body>", probe), encoding="utf-8")
    body = re.search(r"<body[^>]*>", browser.load(page).dom).group(0)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))
    assert attrs["spaced"] == "a, y"
    assert attrs["label"] == "a, y;c x;d"
    assert attrs["text"] == "b x;c x"
    assert attrs["not"] == "d"
    assert attrs["nosuch"] == "b x;a, y;c x;d"
    assert "no column" in attrs["why"] and "nosuch" in attrs["why"]


def test_numeric_filters_and_csv(tmp_path: Path) -> None:
    """A filter word `column<number` compares numbers (a header, its field name or a
    prefix); the CSV has the header and the shown rows, numbers at full precision."""
    table = Table("t", "c", (Column("name", "name", key=True),
                             Column("p", "p", "pvalue"),
                             Column("rsd_total_pct", "RSD total (%)", "pct")),
                  pa.table({"name": ["b x", "a, y", "c x", "d"], "p": [0.5, 1e-9, None, 0.02],
                            "rsd_total_pct": [1.0, 20.0, 5.0, 12.5]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    probe = """<script>
    function names() { return Array.from(document.querySelectorAll("tbody tr"))
        .filter(function (r) { return !r.hidden; })
        .map(function (r) { return r.cells[0].textContent; }).join(";"); }
    var box = document.querySelector("input.table-search");
    function filter(v) { box.value = v; box.dispatchEvent(new Event("input")); return names(); }
    document.body.setAttribute("data-p-small", filter("p<0.01"));
    document.body.setAttribute("data-p-large", filter("p>=0.02"));
    document.body.setAttribute("data-rsd", filter("rsd_total>4 x"));
    document.body.setAttribute("data-rsd-field", filter("rsd_total_pct<=5"));
    document.body.setAttribute("data-csv", encodeURIComponent(window.perfwarehouseCsv("table-0")));
    </script></body>"""
    page = tmp_path / "table.html"
    page.write_text(text.replace("</body>", probe), encoding="utf-8")
    body = re.search(r"<body[^>]*>", browser.load(page).dom).group(0)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))
    assert attrs["p-small"] == "a, y"
    assert attrs["p-large"] == "b x;d"
    assert attrs["rsd"] == "c x"
    assert attrs["rsd-field"] == "b x;c x"
    from urllib.parse import unquote

    csv = unquote(attrs["csv"]).split("\r\n")
    assert csv[0] == "name,p,RSD total (%)" and csv[1:] == ["b x,0.5,1", "c x,,5", ""]


def test_long_tables_page_sort_filter_and_download_all_rows(tmp_path: Path) -> None:
    """Issue 40: a table longer than a page shows one page of rows; the pager moves
    between pages; sorting, filtering and the CSV work on every row, not only the shown
    page; the frozen key column of the rows of another page stays frozen."""
    from perfwarehouse.reports.render import PAGE_ROWS

    n = 2 * PAGE_ROWS + 50
    table = Table("t", "c", (Column("name", "name", key=True), Column("p", "p", "pvalue")),
                  pa.table({"name": [f"r{i:03d}" for i in range(n)],
                            "p": [(n - i) / 1000 for i in range(n)]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    probe = """<script>
    var b = document.body;
    function names() { return Array.from(document.querySelectorAll("#table-0 tbody tr"))
        .map(function (r) { return r.cells[0].textContent; }); }
    function ends() { var x = names(); return x.length + ":" + x[0] + "-" + x[x.length - 1]; }
    function shown() { return document.querySelector(".page-shown").textContent; }
    b.setAttribute("data-first", ends());
    document.querySelector(".page-next").click();
    b.setAttribute("data-second", ends() + " " + shown());
    b.setAttribute("data-left", document.querySelector("#table-0 tbody td").style.left);
    document.querySelector(".page-next").click();
    document.querySelector(".page-next").click();
    b.setAttribute("data-last", ends() + " " + document.querySelector(".page-next").disabled);
    document.querySelectorAll("thead th")[1].querySelector("button").click();
    b.setAttribute("data-sorted", ends() + " " + shown());
    var box = document.querySelector("input.table-search");
    box.value = "p < 0.011"; box.dispatchEvent(new Event("input"));
    b.setAttribute("data-filtered", names().join(";"));
    b.setAttribute("data-count", document.querySelector(".table-count").textContent);
    b.setAttribute("data-csv", encodeURIComponent(window.perfwarehouseCsv("table-0")));
    box.value = ""; box.dispatchEvent(new Event("input"));
    b.setAttribute("data-all-csv", String(window.perfwarehouseCsv("table-0").split("\\r\\n")
        .length));
    </script></body>"""
    page = tmp_path / "long.html"
    page.write_text(text.replace("</body>", probe), encoding="utf-8")
    body = re.search(r"<body[^>]*>", browser.load(page).dom).group(0)
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))
    assert attrs["first"] == f"{PAGE_ROWS}:r000-r{PAGE_ROWS - 1:03d}"
    assert attrs["second"] == (f"{PAGE_ROWS}:r{PAGE_ROWS:03d}-r{2 * PAGE_ROWS - 1:03d} "
                               f"rows {PAGE_ROWS + 1}\u2013{2 * PAGE_ROWS} of {n}")
    assert attrs["left"] == "0px"
    assert attrs["last"] == f"50:r{2 * PAGE_ROWS:03d}-r{n - 1:03d} true"
    # p ascending: the smallest p is the last row written, on the last page before
    assert attrs["sorted"] == (f"{PAGE_ROWS}:r{n - 1:03d}-r{n - PAGE_ROWS:03d} "
                               f"rows 1\u2013{PAGE_ROWS} of {n}")
    assert attrs["filtered"] == ";".join(f"r{i:03d}" for i in range(n - 1, n - 11, -1))
    assert attrs["count"] == f"10 of {n} rows"
    from urllib.parse import unquote

    csv = unquote(attrs["csv"]).split("\r\n")
    assert csv[0] == "name,p" and csv[1] == f"r{n - 1:03d},0.001" and len(csv) == 12
    assert attrs["all-csv"] == str(n + 2)  # the header, every row, the final empty line
