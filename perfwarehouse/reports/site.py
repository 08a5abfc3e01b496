"""The report site: every campaign with the pages that apply to it, linked from one index.

A warehouse holds campaigns of different kinds (a months-long campaign of fixed- and
random-order runs, a short order study, a load test, a campaign over revisions), and a
page that pooled them would answer no question: a load test's load levels would rank as
the most variable configurations, its dates would move a long-term campaign's fleet
period. So the **campaign is the unit of every verdict**: each page is built for one
campaign (its verdict names it), and the index lists the campaigns, each with its kind
and the verdicts of its pages.

The site, under one directory::

    index.html                  the campaigns, each with its kind and its pages' verdicts
    assets/                     the one copy of Vega and of the pages' CSS and JavaScript
    <campaign>/index.html       one campaign: its pages with their verdicts
    <campaign>/<page>.html      a page of that campaign (fleet, order-effects, ...)
    <campaign>/configuration-*.html   the drill-downs its pages link

Every page links the index and its campaign; a page links only files the site holds
(:func:`keep_links`); the drill-downs written are those the pages rank highest
(:func:`drilldown_targets`), and only those rows get a link. Pages load only the site's
own files (:data:`~perfwarehouse.reports.render.SITE_CONTENT_SECURITY_POLICY`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from perfwarehouse.errors import UsageError
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.reports.base import Report, ReportData, Request
from perfwarehouse.reports.page import Page, Verdict, VerdictLevel
from perfwarehouse.reports.render import (
    SiteLinks,
    _verdict,
    head,
    nav_bar,
    write_assets,
    write_report,
    write_text,
)
from perfwarehouse.warehouse.store import Warehouse

LONG_TERM_DAYS = 30.0
"""A campaign of fixed- and random-order runs that spans at least this many days is a
long-term campaign (drift and a fleet period make sense); a shorter one is an order study
(the OrderSage fixtures span hours to days, the generated long-term campaign 270 days)."""

#: The kinds of campaign, the pages that apply to each (in the order shown), and what
#: the index says of the kind.
KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "long-term": (("fleet", "order-effects", "variability", "triscale", "history"),
                  "fixed- and random-order runs over months: drift, order effects, "
                  "variability"),
    "order study": (("order-effects", "variability", "triscale"),
                    "fixed- and random-order runs of a short study: does the order matter?"),
    "load test": (("load",), "load levels of a load test: peak, knee, latency under load"),
    "revisions": (("history", "compare", "variability"),
                  "runs of several revisions of the software under test: when did it change?"),
    "measurements": (("variability", "triscale", "history"),
                     "runs without order kinds, revisions or load levels"),
}

DRILLDOWNS_PER_CAMPAIGN = 24
"""Configuration pages written per campaign at most (the ones its pages rank highest)."""


@dataclass(frozen=True)
class Campaign:
    """One campaign of the warehouse and what tells its kind (``report_campaigns.sql``)."""

    name: str
    runs: int
    fixed_runs: int
    random_runs: int
    revisions: int
    first_at: datetime | None
    last_at: datetime | None
    rows: int
    hardware_types: int
    load_test: bool

    @property
    def days(self) -> float:
        if self.first_at is None or self.last_at is None:
            return 0.0
        return (self.last_at - self.first_at).total_seconds() / 86400.0

    @property
    def kind(self) -> str:
        return classify(self)

    @property
    def slug(self) -> str:
        return campaign_slug(self.name)


def classify(c: Campaign) -> str:
    """The campaign's kind: a load test if it holds load-test trials, else revisions if its
    runs carry two or more revisions, else long-term or an order study if it has both
    fixed- and random-order runs (by its span, :data:`LONG_TERM_DAYS`), else
    measurements."""
    if c.load_test:
        return "load test"
    if c.revisions >= 2:
        return "revisions"
    if c.fixed_runs and c.random_runs:
        return "long-term" if c.days >= LONG_TERM_DAYS else "order study"
    return "measurements"


def campaign_slug(name: str) -> str:
    """The campaign's directory in the site: its name in lower-case letters, digits and
    ``-``, with a short hash when that changed the name (two names never share one)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40] or "campaign"
    if slug == name:
        return slug
    return f"{slug}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


def read_campaigns(data: ReportData, campaign: str | None = None) -> list[Campaign]:
    rows = data.query("campaigns", campaign=campaign).to_pylist()
    return [Campaign(r["campaign"], int(r["runs"]), int(r["fixed_runs"]), int(r["random_runs"]),
                     int(r["revisions"]), r["first_at"], r["last_at"], int(r["rows"]),
                     int(r["hardware_types"]), bool(r["load_test"])) for r in rows]


def pages_of(kind: str, available: Sequence[str]) -> list[str]:
    """The pages that apply to a campaign of ``kind``, among the ``available`` reports
    (the registered reports that need no selection, ``Report.in_all``)."""
    return [name for name in KINDS[kind][0] if name in available]


# ------------------------------------------------------------------- scoping
def scoped(page: Page, campaign: str) -> Page:
    """The page as a page of one campaign: its verdict names the campaign (and a page
    without one says so), its title too."""
    verdict, sections = page.shown()
    if verdict is None:
        verdict = Verdict("this page has no yes/no answer; see its charts and tables.", "info")
    named = f"Campaign {campaign}: {verdict.text}"
    return dataclasses.replace(page, verdict=Verdict(named, verdict.level), sections=sections,
                               title=f"{page.title} — {campaign}")


def keep_links(page: Page, written: set[str]) -> Page:
    """The page without the "see also" links to files the site does not hold."""
    links = tuple((text, href) for text, href in page.links
                  if href.split("#", 1)[0] in written)
    return dataclasses.replace(page, links=links)


# ------------------------------------------------------------ drill-downs
def drilldown_targets(data: ReportData, campaign: str,
                      limit: int = DRILLDOWNS_PER_CAMPAIGN) -> list[int]:
    """The configurations of ``campaign`` whose pages the site writes: the largest
    significant order effects, then the worst victims of a polluter, then the largest
    change points, up to ``limit`` (config ids, in that order)."""
    picked: list[int] = []
    sql = {
        "order_effects": "SELECT config_id FROM order_effects o JOIN latest_job_runs l "
                         "USING (job_run_id) WHERE l.job = 'order-effects' AND o.campaign = ? "
                         "AND o.reject_bonferroni ORDER BY o.eta2 DESC NULLS LAST",
        "predecessor_effects": "SELECT config_id FROM predecessor_effects p JOIN "
                               "latest_job_runs l USING (job_run_id) WHERE l.job = "
                               "'predecessor-effects' AND p.campaign = ? AND "
                               "p.reject_bonferroni ORDER BY abs(p.median_shift_pct) DESC "
                               "NULLS LAST",
        "change_points": "SELECT config_id FROM change_points c JOIN latest_job_runs l "
                         "USING (job_run_id) WHERE l.job = 'change-points' AND c.campaign = ? "
                         "AND c.position IS NOT NULL ORDER BY abs(c.change_pct) DESC NULLS LAST",
    }
    share = max(limit // len(sql), 1)
    for table, query in sql.items():
        if not data.has_table(table):
            continue
        taken = 0
        for (config_id,) in data.con.execute(query + f" LIMIT {limit * 4}", [campaign]).fetchall():
            if config_id not in picked and taken < share:
                picked.append(int(config_id))
                taken += 1
    return picked[:limit]


def drilldown_pages(data: ReportData, campaign: str, config_ids: Sequence[int]) -> list[Page]:
    """The configuration pages of ``config_ids`` (read once per campaign, built each)."""
    from perfwarehouse.reports import configuration
    from perfwarehouse.warehouse.lookup import Configuration

    if not config_ids:
        return []
    wanted = set(config_ids)
    rows = data.con.execute(_CANDIDATES, [campaign, list(wanted)]).fetchall()
    pages = []
    for config_id, benchmark, settings, metric, unit, hib, types in rows:
        config = Configuration(campaign, int(config_id), benchmark, settings, metric, unit, hib,
                               tuple(types))
        pages.append(configuration.build_page(configuration.read_configuration(
            data, config, Request(campaign))))
    return pages


_CANDIDATES = """
SELECT c.config_id, c.benchmark, CAST(c.settings AS VARCHAR), c.metric, c.unit,
       c.higher_is_better, list(DISTINCT m.hardware_type ORDER BY m.hardware_type)
FROM (SELECT DISTINCT config_id, hardware_type FROM measurements
      WHERE campaign = $1 AND list_contains($2, config_id)) AS m
JOIN configurations AS c USING (config_id)
GROUP BY ALL ORDER BY c.config_id
"""


# ----------------------------------------------------------------- writing
@dataclass
class Written:
    """A page of the site: its file (relative to the site) and the page."""

    href: str
    page: Page


@dataclass
class CampaignPages:
    campaign: Campaign
    pages: list[Written]


def write_site(warehouse: Warehouse, out_dir: Path, *, campaign: str | None = None,
               reporter: Reporter | None = None,
               echo: Callable[[str], None] | None = None) -> Path:
    """Write the whole site under ``out_dir`` (see the module docstring); returns its
    ``index.html``."""
    from perfwarehouse.reports import CATALOG, get
    from perfwarehouse.warehouse.lookup import require

    reporter = reporter or SilentReporter()
    say = echo or (lambda _text: None)
    available = [e.name for e in CATALOG if e.name != "configuration"
                 and getattr(get(e.name), "in_all", True)]
    out_dir = Path(out_dir)
    write_assets(out_dir / "assets")
    done: list[CampaignPages] = []
    with warehouse.catalog() as con:
        require(con, "campaign", campaign)
        data = ReportData(con)
        order = list(KINDS)
        campaigns = sorted(read_campaigns(data, campaign),
                           key=lambda c: (order.index(c.kind), c.name.lower()))
        plan = [(c, pages_of(c.kind, available)) for c in campaigns]
        total = sum(len(names) + 1 for _c, names in plan)
        with reporter.task("writing the report site", total=total, unit="pages") as task:
            for c, names in plan:
                targets = drilldown_targets(data, c.name)
                drills = drilldown_pages(data, c.name, targets)
                task.advance(1)
                drill_names = {f"{p.name}.html" for p in drills}
                request = Request(c.name, options=(("drilldowns", frozenset(drill_names)),))
                built: list[Written] = []
                for name in names:
                    report: Report = get(name)
                    try:
                        page = report.build(data, request)
                    except UsageError as exc:  # a page that needs a selection: no page
                        say(f"{c.name}: no {name} page ({exc})")
                    else:
                        built.append(Written(f"{name}.html", scoped(page, c.name)))
                    task.advance(1)
                files = {w.href for w in built} | drill_names | {"index.html"}
                nav = SiteLinks("../assets/", (("All campaigns", "../index.html"),
                                               (f"Campaign {c.name}", "index.html")))
                for w in built:
                    write_report(keep_links(w.page, files), out_dir / c.slug / w.href, site=nav)
                    say(f"wrote {out_dir / c.slug / w.href}")
                for p in drills:
                    write_report(keep_links(scoped(p, c.name), files),
                                 out_dir / c.slug / f"{p.name}.html", site=nav)
                if drills:
                    say(f"wrote {len(drills)} configuration pages in {out_dir / c.slug}")
                done.append(CampaignPages(c, built))
                write_text(out_dir / c.slug / "index.html", campaign_html(done[-1]))
    index = write_text(out_dir / "index.html", index_html(done, extra_pages(out_dir)))
    say(f"wrote {index}")
    return index


def extra_pages(out_dir: Path) -> list[str]:
    """Pages of the whole warehouse written next to the index by other commands (the
    comparison page, ``compare.html``), linked from the index when they exist."""
    return [name for name in ("compare.html",) if (out_dir / name).is_file()]


# ------------------------------------------------------------------- HTML
def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _span(c: Campaign) -> str:
    if c.first_at is None or c.last_at is None:
        return "no runs"
    days = f"{c.days:,.0f} days" if c.days >= 1.5 else "1 day" if c.days >= 0.5 else "hours"
    return f"{c.first_at:%Y-%m-%d} to {c.last_at:%Y-%m-%d} ({days})"


def _campaign_summary(c: Campaign) -> str:
    return (f"{c.rows:,} measurements in {c.runs:,} runs ({c.fixed_runs:,} fixed-, "
            f"{c.random_runs:,} random-order) on {c.hardware_types} hardware type"
            f"{'s' if c.hardware_types != 1 else ''}, {_span(c)}"
            + (f", {c.revisions:,} revisions" if c.revisions else "") + ".")


def _page_items(pages: list[Written], prefix: str) -> list[str]:
    items = []
    for w in pages:
        box = _verdict(w.page.verdict, None) if w.page.verdict is not None else ""
        items.append(f'<li><h3><a href="{_e(prefix + w.href)}">{_e(w.page.title)}</a></h3>'
                     f"{box}</li>")
    return items


def campaign_level(pages: list[Written]) -> VerdictLevel:
    levels = [w.page.verdict.level for w in pages if w.page.verdict is not None]
    for level in ("alarm", "missing", "ok"):
        if level in levels:
            return level  # type: ignore[return-value]
    return "info"


def campaign_html(cp: CampaignPages) -> str:
    c = cp.campaign
    kind_text = KINDS[c.kind][1]
    nav = nav_bar(SiteLinks("../assets/", (("All campaigns", "../index.html"),)))
    body = [
        *head(f"Campaign {c.name}", SiteLinks("../assets/", ())), nav,
        f'<header><h1>Campaign {_e(c.name)}<span class="campaign-kind">{_e(c.kind)}</span>'
        "</h1></header><main>",
        f'<p class="intro">A {_e(c.kind)} campaign ({_e(kind_text)}): {_e(_campaign_summary(c))}'
        "</p>",
    ]
    if cp.pages:
        body += ['<ul class="index">', *_page_items(cp.pages, ""), "</ul>"]
    else:
        body.append('<p class="notice">No report page applies to this campaign.</p>')
    body.append("</main></body></html>")
    return "\n".join(body)


def index_html(done: list[CampaignPages], extra: list[str]) -> str:
    alarm = [cp.campaign.name for cp in done if campaign_level(cp.pages) == "alarm"]
    kinds: dict[str, int] = {}
    for cp in done:
        kinds[cp.campaign.kind] = kinds.get(cp.campaign.kind, 0) + 1
    text = (f"{len(done)} campaign{'s' if len(done) != 1 else ''} ("
            + ", ".join(f"{n} {k}" for k, n in kinds.items()) + ")")
    text += (f"; {len(alarm)} need{'s' if len(alarm) == 1 else ''} action: "
             + ", ".join(alarm) + "." if alarm else "; none needs action.")
    level: VerdictLevel = "alarm" if alarm else "ok" if done else "missing"
    body = [*head("perfwarehouse reports", SiteLinks("assets/", ())),
            "<header><h1>perfwarehouse reports</h1></header><main>",
            _verdict(Verdict(text, level)),
            '<p class="intro">Each campaign is reported on its own, by the pages that apply '
            "to its kind; every verdict is about one campaign.</p>"]
    if extra:
        body.append('<p class="links">Across campaigns: ' + " · ".join(
            f'<a href="{_e(name)}">{_e(name.removesuffix(".html"))}</a>' for name in extra)
            + "</p>")
    body.append('<ul class="index">')
    for cp in done:
        c = cp.campaign
        body.append(f'<li id="c-{_e(c.slug)}"><h2><a href="{_e(c.slug)}/index.html">'
                    f'Campaign {_e(c.name)}</a><span class="campaign-kind">{_e(c.kind)}</span>'
                    f'</h2><p class="intro">{_e(_campaign_summary(c))}</p>'
                    '<ul class="index">' + "".join(_page_items(cp.pages, c.slug + "/"))
                    + "</ul></li>")
    body.append("</ul></main></body></html>")
    return "\n".join(body)

