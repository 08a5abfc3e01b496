"""The renderer: JSON that is safe inside <script>, HTML text escaped everywhere, the
JavaScript bundle once, tables, atomic writes, PNG export."""

from __future__ import annotations

import html.parser
import json
import math
import re
from pathlib import Path

import altair as alt
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfwarehouse.reports import order_effects_charts
from perfwarehouse.reports.page import Column, Figure, Notice, Page, Section, Table, Verdict
from perfwarehouse.reports.render import (
    format_value,
    javascript_bundle,
    render_html,
    script_json,
    write_report,
)
from tests.reports_support import HOSTILE_IMG, HOSTILE_NAMES, HOSTILE_SCRIPT

UNSAFE = "<>&\u2028\u2029"


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20))
@settings(max_examples=200, deadline=None)
def test_script_json_round_trips_and_has_no_unsafe_character(value: object) -> None:
    text = script_json(value)
    assert not any(c in text for c in UNSAFE)
    assert json.loads(text) == value


def test_script_json_hostile_strings() -> None:
    for name in (*HOSTILE_NAMES, "</SCRIPT >", "<!--<script>"):
        text = script_json({"benchmark": name})
        assert "<" not in text and ">" not in text and "&" not in text
        assert json.loads(text) == {"benchmark": name}


def test_script_json_refuses_nan() -> None:
    with pytest.raises(ValueError):
        script_json({"x": math.nan})


def test_bundle_is_safe_inside_a_script_element() -> None:
    bundle = javascript_bundle()
    assert len(bundle) > 100_000
    assert "</script" not in bundle.lower() and "<!--" not in bundle
    assert "vegaEmbed" in bundle


def test_bundle_is_kept_in_the_user_cache_and_read_back_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = javascript_bundle.__wrapped__  # type: ignore[attr-defined]  # without the process cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    first = made()
    kept = list((tmp_path / "cache" / "perfwarehouse").iterdir())
    assert [p.suffix for p in kept] == [".js"] and kept[0].read_text(encoding="utf-8") == first
    kept[0].write_text("// what the cache holds is what is used", encoding="utf-8")
    assert made() == "// what the cache holds is what is used"
    # a cache that cannot be written is no error: the bundle is made each time
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    assert made() == first == javascript_bundle()


class _Collect(html.parser.HTMLParser):
    """Elements and text of a page, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.scripts: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._script else self.text).append(data)


def hostile_page() -> Page:
    chart = order_effects_charts.order_delta_curve(pl.DataFrame({
        "group": [HOSTILE_SCRIPT, HOSTILE_IMG], "config": list(HOSTILE_NAMES[:2]),
        "hardware_type": ["<b>h</b>", "h"], "delta_pct": [1.0, -2.0]}),
        title=f"title {HOSTILE_SCRIPT}")
    table = Table(f"table {HOSTILE_IMG}", f"caption {HOSTILE_SCRIPT}",
                  (Column("benchmark", f"head {HOSTILE_IMG}"), Column("p", "p", "pvalue")),
                  pa.table({"benchmark": list(HOSTILE_NAMES), "p": [1e-9, 0.5, None]}))
    return Page(f"page {HOSTILE_SCRIPT}", f"intro {HOSTILE_IMG}", (
        Section(f"section {HOSTILE_SCRIPT}", f"intro {HOSTILE_IMG}", (
            Figure(chart, HOSTILE_IMG), table, Notice(HOSTILE_SCRIPT, "missing"))),
        Section("second", "", ())), (f"run {HOSTILE_IMG}",))


def test_every_hostile_string_stays_text() -> None:
    page = render_html(hostile_page())
    body = page.replace(javascript_bundle(), "")
    assert HOSTILE_SCRIPT not in body and HOSTILE_IMG not in body and "<b>h</b>" not in body
    parsed = _Collect()
    parsed.feed(page)
    tags = [t for t, _ in parsed.tags]
    assert "img" not in tags and "b" not in tags
    # the only scripts: one JSON spec, the bundle, the drawing and the table scripts
    scripts = [a for t, a in parsed.tags if t == "script"]
    assert len(scripts) == 4 and scripts[0].get("type") == "application/json"
    # the hostile strings come back as text ...
    text = "".join(parsed.text)
    for fragment in (f"page {HOSTILE_SCRIPT}", f"section {HOSTILE_SCRIPT}", HOSTILE_NAMES[2],
                     f"head {HOSTILE_IMG}", f"caption {HOSTILE_SCRIPT}"):
        assert fragment in text
    # ... and as data in the spec, unchanged
    spec = json.loads(parsed.scripts[0])
    rows = [row for data in spec["datasets"].values() for row in data]
    assert {row.get("group") for row in rows} >= {HOSTILE_SCRIPT, HOSTILE_IMG}
    assert {row.get("config") for row in rows} >= set(HOSTILE_NAMES[:2])
    assert spec["title"]["text"] == f"title {HOSTILE_SCRIPT}"
    # attribute values are quoted and escaped (the chart name)
    names = [a.get("data-chart-name") for t, a in parsed.tags if "data-chart-id" in a]
    assert names == [HOSTILE_IMG]


def test_page_structure_counts() -> None:
    page = render_html(hostile_page())
    assert page.count(javascript_bundle()) == 1
    assert page.count('data-chart-status="pending"') == 1
    assert page.count('<section id="s') == 2
    assert '<nav><ol>' in page  # more than one section: a table of contents
    assert 'id="report-status"' in page


def test_table_cells_are_formatted_and_sortable() -> None:
    page = render_html(hostile_page())
    assert 'data-type="num"' in page and 'data-type="text"' in page
    assert '<td data-v="1.0000000000000001e-09">1.00e-09</td>' in page
    assert '<td data-v="0.5">0.500</td>' in page
    assert '<td data-v=""></td>' in page  # a null sorts last, shows nothing


@pytest.mark.parametrize(("fmt", "value", "shown"), [
    ("int", 1234567, "1,234,567"), ("float", 0.000123456, "0.0001235"),
    ("float", 123456.7, "123,457"), ("float", 2.5e12, "2.500e+12"), ("float", 0.0, "0"),
    ("pct", 12.3456, "12.35"), ("pct", 345.67, "345.7"), ("pvalue", 0.0123, "0.0123"),
    ("pvalue", 1e-30, "1.00e-30"), ("pvalue", 0.0, "< 1e-300"), ("pvalue", 5e-320, "< 1e-300"),
    ("settings", '{"threads":8,"mode":"rw","big":true}', "threads=8 mode=rw big=true"),
    ("settings", "{}", ""), ("settings", "-O2", "-O2"),
    ("bool", True, "yes"), ("bool", False, "no"), ("text", "a<b", "a<b")])
def test_format_value(fmt: str, value: object, shown: str) -> None:
    assert format_value(Column("f", "f", fmt), value) == shown  # type: ignore[arg-type]


def test_verdict_first_provenance_last_and_collapsed() -> None:
    """The verdict box is the first thing after the title (its level in words, not only
    in colour); the provenance is a collapsed <details> at the bottom."""
    page = hostile_page()
    page = Page(page.title, page.intro, page.sections, page.provenance,
                verdict=Verdict(f"Order matters in 3 of 9 {HOSTILE_IMG}", "alarm"))
    text = render_html(page)
    after_title = text[text.index("</h1>"):]
    first = re.search(r"<(section|p|div|ul|details|nav)\b[^>]*>", after_title)
    assert first is not None and 'class="verdict alarm"' in first.group(0)
    assert "Action needed" in text and HOSTILE_IMG not in text.replace(javascript_bundle(), "")
    details = text.index('<details class="provenance">')
    assert details > text.rindex("</section>") and "<details open" not in text
    assert text.index("run &quot;&gt;&lt;img") > details  # the provenance line, escaped


def test_key_columns_are_frozen_and_tables_offer_csv() -> None:
    table = Table("t", "c", (Column("benchmark", "benchmark", key=True),
                             Column("settings", "settings", "settings", key=True),
                             Column("p", "p", "pvalue")),
                  pa.table({"benchmark": ["a"], "settings": ['{"n":1}'], "p": [0.0]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    assert 'data-frozen="2"' in text
    assert '<td class="key">a</td>' in text and text.count(' class="key last-key"') == 2
    assert '<td class="key last-key">n=1</td>' in text and "&lt; 1e-300" in text
    assert 'class="csv"' in text and "Download CSV" in text
    # a table that declares no key column keeps its first column in view all the same
    plain = Table("t", "c", (Column("family", "family"), Column("p", "p", "pvalue")),
                  pa.table({"family": ["a"], "p": [0.5]}))
    text = render_html(Page("t", "", (Section("s", "", (plain,)),)))
    assert 'data-frozen="1"' in text and '<td class="key last-key">a</td>' in text


def test_write_report_is_atomic_and_exports_png(tmp_path: Path) -> None:
    out = tmp_path / "a" / "b" / "page.html"
    page = hostile_page()
    assert write_report(page, out, png_dir=tmp_path / "png") == out
    assert out.read_text(encoding="utf-8") == render_html(page)
    assert [p.name for p in tmp_path.glob("a/b/*")] == ["page.html"]
    pngs = list((tmp_path / "png").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].read_bytes()[:4] == b"\x89PNG"
    assert "<" not in pngs[0].name and ">" not in pngs[0].name


def test_figure_caption_is_the_chart_description() -> None:
    chart = alt.Chart(pl.DataFrame({"a": [1]})).mark_point().encode(x="a:Q").properties(
        description="Read it like this.")
    assert Figure(chart, "x").caption == "Read it like this."


def test_a_leading_verdict_section_becomes_the_verdict_box() -> None:
    """A page that says its answer as notices in a first "Verdict" section (the load page)
    opens with them in the verdict box; what else the section holds stays in it."""
    table = Table("t", "c", (Column("x", "x"),), pa.table({"x": ["a"]}))
    page = Page("t", "intro", (Section("Verdict", "", (Notice("Peak 1,750 req/s."),
                                                       Notice("All trials consistent."),
                                                       table)),
                               Section("Curves", "", (Notice("n"),))))
    verdict, sections = page.shown()
    assert verdict == Verdict("Peak 1,750 req/s. All trials consistent.", "info")
    assert [s.title for s in sections] == ["Details of the verdict", "Curves"]
    assert sections[0].blocks == (table,)
    html = render_html(page)
    assert html.index('<section class="verdict info"') < html.index('<p class="intro">')
    missing = Page("t", "", (Section("Verdict", "", (Notice("run it", "missing"),)),))
    assert missing.shown() == (Verdict("run it", "missing"), ())
    # an explicit verdict, or a first section with another title, is left alone
    other = Page("t", "", (Section("Curves", "", (Notice("n"),)),))
    assert other.shown() == (None, other.sections)


def test_the_index_opens_with_its_own_verdict(tmp_path: Path) -> None:
    from perfwarehouse.reports.render import index_verdict, write_index

    pages = [Page("Order", "", (), name="order-effects", verdict=Verdict("x", "alarm")),
             Page("Variability", "", (), name="variability", verdict=Verdict("y", "ok")),
             Page("History", "", (), name="history", verdict=Verdict("z", "missing"))]
    verdict = index_verdict(pages)
    assert verdict.level == "alarm"
    assert verdict.text == ("3 reports: 1 needs action (order-effects); 1 found nothing to act "
                            "on; 1 waits for analyses (history: see `perfwarehouse status`).")
    assert index_verdict(pages[1:2]).level == "ok"
    html = write_index([(f"{p.name}.html", p) for p in pages], tmp_path / "index.html").read_text()
    main = html[html.index("<main>") + len("<main>"):]
    assert main.lstrip().startswith('<section class="verdict alarm" id="verdict"')
    assert html.count('id="verdict"') == 1  # the pages' boxes carry no duplicate id


def test_p_statement_reads_as_a_sentence() -> None:
    from perfwarehouse.reports.render import format_pvalue, p_statement

    for p in (0.5, 0.0123, 3e-7, 1e-300):
        assert p_statement(p) == f"p = {format_pvalue(p)}"
    for p in (0.0, 1e-301, 5e-324):
        assert p_statement(p) == "p < 1e-300"


def test_long_tables_are_paged_with_every_row_in_the_file() -> None:
    """Issue 40: a table longer than a page shows its first PAGE_ROWS rows as elements;
    the others are escaped HTML in an inert data block (so the file holds every row, and
    a hostile value cannot close the block), and a pager says which rows are shown."""
    from perfwarehouse.reports.render import PAGE_ROWS

    n = PAGE_ROWS + 37
    names = [f"b{i}" for i in range(n - 1)] + [HOSTILE_SCRIPT]
    table = Table("t", "c", (Column("name", "name", key=True), Column("p", "p", "pvalue")),
                  pa.table({"name": names, "p": [i / n for i in range(n)]}))
    text = render_html(Page("t", "", (Section("s", "", (table,)),)))
    body = text[text.index("<tbody>"):text.index("</tbody>")]
    assert body.count("<tr>") == n
    block = body.index('<script type="text/html" class="more-rows">')
    assert body[:block].count("<tr>") == PAGE_ROWS
    assert body[block:].count("</script>") == 1 and body.endswith("</script>")
    assert "&lt;/script&gt;" in body[block:]
    assert f"rows 1\u2013{PAGE_ROWS} of {n}" in text and 'class="page-prev" disabled' in text
    # a table of one page has neither
    short = Table("t", "c", table.columns, table.data.slice(0, PAGE_ROWS))
    text = render_html(Page("t", "", (Section("s", "", (short,)),)))
    assert 'class="more-rows"' not in text and '<div class="pager"' not in text


def test_the_row_count_says_row_for_one() -> None:
    one = Table("t", "c", (Column("name", "name"),), pa.table({"name": ["a"]}))
    two = Table("t", "c", (Column("name", "name"),), pa.table({"name": ["a", "b"]}))
    assert ">1 row</span>" in render_html(Page("t", "", (Section("s", "", (one,)),)))
    assert ">2 rows</span>" in render_html(Page("t", "", (Section("s", "", (two,)),)))
