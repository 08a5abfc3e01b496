"""The report site's pure parts: the kind of a campaign, its directory name, the scoping
of a page to its campaign, the links a page keeps, and the package's assets."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from perfwarehouse.reports.campaigns import campaign_folders
from perfwarehouse.reports.page import Notice, Page, Section, Verdict
from perfwarehouse.reports.render import ASSETS, SiteLinks, asset, render_html
from perfwarehouse.reports.site import (
    KINDS,
    LONG_TERM_DAYS,
    Campaign,
    choose_campaigns,
    classify,
    keep_links,
    pages_of,
    scoped,
)

T0 = datetime(2022, 1, 3, tzinfo=timezone.utc)


def campaign(days: float = 0.0, fixed: int = 0, random: int = 0, revisions: int = 0,
             load: bool = False, name: str = "c") -> Campaign:
    return Campaign(name, fixed + random, fixed, random, revisions, T0,
                    T0 + timedelta(days=days), 100, 1, load)


@pytest.mark.parametrize(("c", "kind"), [
    (campaign(270, 10, 10), "long-term"),
    (campaign(LONG_TERM_DAYS, 1, 1), "long-term"),
    (campaign(LONG_TERM_DAYS - 0.01, 1, 1), "order study"),
    (campaign(1, 100, 100), "order study"),
    (campaign(270, 10, 10, load=True), "load test"),  # load levels win over order kinds
    (campaign(0, 15, 0, load=True), "load test"),
    (campaign(12, 20, 0, revisions=12), "revisions"),
    (campaign(12, 10, 10, revisions=2), "revisions"),
    (campaign(12, 20, 0, revisions=1), "measurements"),  # one revision is no history
    (campaign(300, 20, 0), "measurements"),
])
def test_the_kind_of_a_campaign(c: Campaign, kind: str) -> None:
    assert classify(c) == kind == c.kind


def test_every_kind_has_pages_and_only_registered_ones_are_written() -> None:
    for pages, text in KINDS.values():
        assert pages and text
    assert pages_of("revisions", ["history", "variability"]) == ["history", "variability"]
    assert pages_of("load test", ["fleet"]) == []


def test_campaign_directories_are_safe_and_distinct() -> None:
    names = ["ordersage-longterm", "NPB", "npb", "a/../b", "</script>", "x y", ""]
    folders = campaign_folders(names)
    slugs = [folders[n] for n in names]
    assert slugs[0] == "ordersage-longterm"
    assert len(set(slugs)) == len(slugs)
    assert all(s and all(ch.isalnum() or ch == "-" for ch in s) for s in slugs)


def test_a_scoped_page_names_its_campaign_in_verdict_and_title() -> None:
    page = Page("Fleet", "", (), verdict=Verdict("76 drifted.", "alarm"))
    s = scoped(page, "long")
    assert s.verdict == Verdict("Campaign long: 76 drifted.", "alarm")
    assert s.title == "Fleet — long"
    # a page that says its answer as notices, and one without any answer
    notices = Page("T", "", (Section("Verdict", "", (Notice("run it", "missing"),)),))
    assert scoped(notices, "c").verdict == Verdict("Campaign c: run it", "missing")
    assert scoped(Page("T", "", ()), "c").verdict.text.startswith("Campaign c: ")  # type: ignore[union-attr]


def test_links_to_files_the_site_lacks_are_dropped() -> None:
    page = Page("T", "", (), links=(("h", "history.html"), ("v", "variability.html#s1")))
    assert keep_links(page, {"variability.html"}).links == (("v", "variability.html#s1"),)


def test_assets_ship_with_the_package_and_a_site_page_inlines_no_script() -> None:
    for name in ASSETS:
        assert len(asset(name)) > 100
    html = render_html(Page("T", "", (), verdict=Verdict("v")),
                       SiteLinks("../assets/", (("All campaigns", "../index.html"),)))
    assert "<script>" not in html and '<script src="../assets/vega.js"></script>' in html
    assert '<nav class="site" aria-label="Site"><a href="../index.html">All campaigns</a>' in html


def test_a_page_written_alone_is_written_per_campaign_of_its_kinds() -> None:
    long1, long2 = campaign(270, 5, 5, name="long1"), campaign(90, 5, 5, name="long2")
    study, load = campaign(1, 5, 5, name="study"), campaign(0, 9, 0, load=True, name="load")
    hist = campaign(3, 9, 0, revisions=4, name="hist")
    everything = [long1, study, load, hist, long2]
    assert choose_campaigns("fleet", everything) == [long1, long2]
    assert choose_campaigns("load", everything) == [load]
    assert choose_campaigns("order-effects", everything) == [long1, study, long2]
    assert choose_campaigns("history", everything) == [long1, hist, long2]
    # asked for by name: that one, whatever its kind
    assert choose_campaigns("fleet", everything, "load") == [load]
    # the only campaign: nothing to pool, so it gets the page; none at all: no campaign
    assert choose_campaigns("fleet", [study]) == [study]
    assert choose_campaigns("fleet", []) == []


def test_a_page_for_none_of_several_campaigns_is_a_one_line_error() -> None:
    from perfwarehouse.errors import UsageError

    study, load = campaign(1, 5, 5, name="study"), campaign(0, 9, 0, load=True, name="load")
    with pytest.raises(UsageError) as err:
        choose_campaigns("fleet", [study, load])
    text = str(err.value)
    assert "\n" not in text
    assert text == ("the fleet page applies to long-term campaigns and the warehouse holds "
                    "none: study (order study), load (load test); give --campaign NAME to "
                    "write it for one of them")
