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
    <campaign>/configuration.html     the drill-down of every configuration (a viewer)
    <campaign>/configurations.js      ... and its data (:mod:`~perfwarehouse.reports.drilldown`)

Every page links the index and its campaign; a page links only files the site holds
(:func:`keep_links`); every configuration a page lists links its drill-down in the
campaign's viewer. Pages load only the site's
own files (:data:`~perfwarehouse.reports.render.SITE_CONTENT_SECURITY_POLICY`).
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwarehouse.errors import UsageError
from perfwarehouse.progress import Reporter, SilentReporter
from perfwarehouse.reports import drilldown
from perfwarehouse.reports.base import Report, ReportData, Request, check_period
from perfwarehouse.reports.campaigns import KINDS as KINDS
from perfwarehouse.reports.campaigns import LONG_TERM_DAYS as LONG_TERM_DAYS
from perfwarehouse.reports.campaigns import Campaign as Campaign
from perfwarehouse.reports.campaigns import campaign_slug as campaign_slug
from perfwarehouse.reports.campaigns import classify as classify
from perfwarehouse.reports.campaigns import pages_of as pages_of
from perfwarehouse.reports.campaigns import read_campaigns as read_campaigns
from perfwarehouse.reports.formatting import settings_count, with_hardware
from perfwarehouse.reports.page import Page, Table, Verdict, VerdictLevel
from perfwarehouse.reports.render import (
    SiteLinks,
    _verdict,
    head,
    nav_bar,
    write_report,
    write_text,
)
from perfwarehouse.reports.viewer_data import linked_ids
from perfwarehouse.warehouse.store import Warehouse

# ------------------------------------------------- a page written alone
CAMPAIGN_PAGES = frozenset(n for pages, _text in KINDS.values() for n in pages) - {"compare"}
"""The pages whose unit is a campaign (``compare`` shows one kept comparison, which names
its own sides; ``configuration`` always names its campaign)."""


def kinds_of(page: str) -> list[str]:
    """The kinds of campaign ``page`` applies to (:data:`KINDS`)."""
    return [kind for kind, (pages, _text) in KINDS.items() if page in pages]


def choose_campaigns(page: str, campaigns: Sequence[Campaign],
                     asked: str | None = None) -> list[Campaign]:
    """The campaigns a page written alone (``perfwarehouse report PAGE``) is written for,
    one page each, never pooled: the one ``asked`` (``--campaign``, whatever its kind),
    else every campaign of a kind the page applies to, else the warehouse's only campaign
    (nothing to pool). Several campaigns none of which fits is a one-line error that
    names them with their kinds; an empty warehouse gives no campaign (the page says what
    is missing)."""
    if asked is not None:
        return [c for c in campaigns if c.name == asked]
    fits = [c for c in campaigns if c.kind in kinds_of(page)]
    if fits or len(campaigns) <= 1:
        return fits or list(campaigns)
    held = ", ".join(f"{c.name} ({c.kind})" for c in campaigns)
    raise UsageError(f"the {page} page applies to {' and '.join(kinds_of(page))} campaigns "
                     f"and the warehouse holds none: {held}; give --campaign NAME to write it "
                     "for one of them")


def write_alone(report: Report, warehouse: Warehouse, *, out: Path | None = None,
                campaign: str | None = None, png: Path | None = None,
                stderr: Any = None, out_dir: Path = Path("reports"),
                **options: Any) -> list[Path]:
    """``perfwarehouse report PAGE``: the page for each campaign :func:`choose_campaigns`
    picks, its verdict naming the campaign. One campaign: ``out`` (default
    ``reports/PAGE.html``); several: one page per campaign where ``report all`` puts it
    (``reports/<campaign>/PAGE.html``; ``--out`` names one file, so it is refused). Returns
    the paths written."""
    from perfwarehouse.warehouse.lookup import require

    since, until = options.pop("since", None), options.pop("until", None)
    check_period(since, until)
    with warehouse.catalog() as con:
        require(con, "campaign", campaign)
        data = ReportData(con)
        chosen = choose_campaigns(report.name, read_campaigns(data), campaign)
        if out is not None and len(chosen) > 1:
            raise UsageError(f"--out names one file but the {report.name} page applies to "
                             f"{len(chosen)} campaigns ({', '.join(c.name for c in chosen)}): "
                             "give --campaign NAME, or leave --out out to write one page per "
                             f"campaign under {out_dir}/")
        written = []
        targets: list[Campaign | None] = [*chosen] or [None]
        for c in targets:
            request = Request(c.name if c else None, since, until, tuple(options.items()))
            page = report.build(data, request)
            if c is not None:
                page = scoped(page, c.name)
            # several campaigns: each page in its campaign's directory, as `report all`
            folder = c.slug if c is not None and len(chosen) > 1 else ""
            path = out if out is not None else out_dir / folder / f"{page.name}.html"
            written.append(report.emit(page, Path(path),
                                       png / folder if png is not None else None, stderr))
    return written


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
    configurations: int = 0
    """The configurations in the campaign's drill-down viewer (0: no viewer,
    :mod:`~perfwarehouse.reports.drilldown`)."""
    with_hardware: int = 0
    """... counted once per hardware type, as the pages count them."""
    total: int = 0
    """The campaign's configurations (more than :attr:`configurations` when the viewer
    holds some only, :data:`~perfwarehouse.reports.drilldown.VIEWER_LIMIT`)."""


def write_site(warehouse: Warehouse, out_dir: Path, *, campaign: str | None = None,
               reporter: Reporter | None = None,
               echo: Callable[[str], None] | None = None, assets: bool = True) -> Path:
    """Write the whole site under ``out_dir`` (see the module docstring); returns its
    ``index.html``. ``assets``: false leaves the shared assets to the caller
    (``refresh``: :func:`~perfwarehouse.reports.refresh_site.update_site`)."""
    from perfwarehouse.reports import CATALOG, get
    from perfwarehouse.reports.site_pool import page_builders
    from perfwarehouse.warehouse.lookup import require

    reporter = reporter or SilentReporter()
    say = echo or (lambda _text: None)
    available = [e.name for e in CATALOG if e.name != "configuration"
                 and getattr(get(e.name), "in_all", True)]
    out_dir = Path(out_dir)
    done: list[CampaignPages] = []
    with warehouse.catalog() as con:
        require(con, "campaign", campaign)
        data = ReportData(con)
        order = list(KINDS)
        campaigns = sorted(read_campaigns(data, campaign),
                           key=lambda c: (order.index(c.kind), c.name.lower()))
        plan = [(c, pages_of(c.kind, available)) for c in campaigns]
        total = sum(len(names) + 1 for _c, names in plan)
        with (reporter.task("writing the report site", total=total, unit="pages") as task,
              page_builders(warehouse, data) as pool):
            pool.start(out_dir, plan, assets)  # the assets, pages and viewers: two at a time if big
            for c, names in plan:
                viewer = c.kind != "load test"  # a load level has no order or time to drill
                built: list[Written] = []
                for name in names:
                    try:
                        page = pool.page(c.name, name)
                    except UsageError as exc:  # a page that needs a selection: no page
                        say(f"{c.name}: no {name} page ({exc})")
                    else:
                        page = scoped(page, c.name)
                        if viewer:  # every configuration a page lists links its drill-down
                            page = drilldown.with_drilldowns(page, c.name, drilldown.VIEWER)
                        built.append(Written(f"{name}.html", page))
                    task.advance(1)
                files = {w.href for w in built} | {"index.html"}
                files |= {drilldown.VIEWER} if viewer else set()
                nav = SiteLinks("../assets/", (("All campaigns", "../index.html"),
                                               (f"Campaign {c.name}", "index.html")))
                for w in built:
                    write_report(keep_links(w.page, files), out_dir / c.slug / w.href, site=nav)
                    say(f"wrote {out_dir / c.slug / w.href}")
                count = hardware = total = 0
                if viewer:
                    linked = linked_ids([b.data for w in built for sec in w.page.sections
                                         for b in sec.blocks if isinstance(b, Table)], c.name)
                    held = pool.viewer(c.name, linked, out_dir / c.slug / drilldown.DATA)
                    recs, total = held.listed, held.total
                    count, hardware = len(recs), with_hardware(recs)
                    see = [(w.href.removesuffix(".html").replace("-", " "), w.href)
                           for w in built]
                    write_text(out_dir / c.slug / drilldown.VIEWER, drilldown.viewer_html(
                        c.name, recs, nav, see, total=total, linked=held.linked))
                    say(f"wrote {out_dir / c.slug / drilldown.VIEWER} ({len(recs):,} "
                        f"of {total:,} configurations)" if total > len(recs) else
                        f"wrote {out_dir / c.slug / drilldown.VIEWER} ({len(recs):,} "
                        "configurations)")
                task.advance(1)
                done.append(CampaignPages(c, built, count, hardware, max(total, count)))
                write_text(out_dir / c.slug / "index.html", campaign_html(done[-1]))
                write_text(out_dir / c.slug / MANIFEST, manifest(done[-1]))
            pool.finish()
    index = write_text(out_dir / "index.html", index_html(done, extra_pages(out_dir)))
    say(f"wrote {index}")
    return index


def extra_pages(out_dir: Path) -> list[str]:
    """Pages of the whole warehouse written next to the index by other commands (the
    comparison page, ``compare.html``; what is new since the last refresh, ``new.html``),
    linked from the index when they exist."""
    return [name for name in ("compare.html", "new.html") if (out_dir / name).is_file()]


MANIFEST = "pages.json"
"""Each campaign's pages with their titles and verdicts, so that an index can be written
again without rebuilding the pages of unchanged campaigns (``refresh``)."""


def manifest(cp: CampaignPages) -> str:
    """The :data:`MANIFEST` of one campaign's pages (JSON)."""
    import json

    return json.dumps({"campaign": cp.campaign.name, "configurations": cp.configurations,
                       "with_hardware": cp.with_hardware, "total": cp.total,
                       "pages": [{"href": w.href, "title": w.page.title,
                                  "verdict": None if w.page.verdict is None else
                                  [w.page.verdict.text, w.page.verdict.level]}
                                 for w in cp.pages]}, indent=1)


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
            return level
    return "info"


def _drilldowns(cp: CampaignPages, prefix: str) -> str:
    n = cp.configurations
    if cp.total > n:
        return (f'Configurations of the campaign, one by one: <a href="{_e(prefix)}'
                f'{drilldown.VIEWER}">{n:,} of its {cp.total:,}</a> (those its pages link '
                "and the first by name)")
    return (f'Every configuration of the campaign, one by one: <a href="{_e(prefix)}'
            f'{drilldown.VIEWER}">{_e(settings_count(n, cp.with_hardware))}</a>')


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
    if cp.configurations:
        body.append(f'<p class="links">{_drilldowns(cp, "")}</p>')
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
                    + (f'<p class="links">{_drilldowns(cp, c.slug + "/")}</p>'
                       if cp.configurations else "")
                    + '<ul class="index">' + "".join(_page_items(cp.pages, c.slug + "/"))
                    + "</ul></li>")
    body.append("</ul></main></body></html>")
    return "\n".join(body)

