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
import re
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
from tests.conftest import ORDERSAGE_DIRS
from tests.reports_support import analyse
from tests.trial_logs import write

pytestmark = [pytest.mark.integration, pytest.mark.slow]

EXPECTED_KINDS = {"longterm": "long-term", "NPB": "order study", "load-campaign": "load test",
                  "hist": "revisions"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    wh = Warehouse(root / "warehouse", lock_timeout_s=60.0)
    generate_to_file("ordersage-longterm", root / "longterm.jsonl", seed=7, scale=0.02)
    text = (root / "longterm.jsonl").read_text().replace('"ordersage-longterm"', '"longterm"')
    (root / "longterm.jsonl").write_text(text)
    generate_to_file("load-campaign", root / "load.jsonl", seed=3, scale=0.5)
    recs = revision_records(campaign="hist", benchmarks=10, revisions=8, trials=4,
                            noise=0.01, slowdowns={3: [(4, 0.08)]}, seed=3)
    ingest_jsonl(wh, [root / "longterm.jsonl", root / "load.jsonl",
                      write(root / "hist.jsonl", recs)])
    ingest_ordersage(wh, [ORDERSAGE_DIRS["npbench"]], campaign="NPB")
    analyse(wh, "order-effects", "predecessor-effects", "variability")
    run_job(wh, get_job("change-points"), get_job("change-points").params(min_change=3.0))
    run_job(wh, get_job("load"), get_job("load").params(r_sat="5"))
    write_site(wh, root / "reports")
    return root / "reports"


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
