"""The site as ``refresh`` keeps it: the pages of the campaigns that changed are written
again (:func:`~perfwarehouse.reports.site.write_site` with its campaign option), the
others are left as they are, and the index is written again over every campaign from
each campaign's manifest (:data:`~perfwarehouse.reports.site.MANIFEST`: its pages'
titles and verdicts), without rebuilding their pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfwarehouse.progress import Reporter
from perfwarehouse.reports.base import ReportData, Request
from perfwarehouse.reports.page import Page, Verdict
from perfwarehouse.reports.render import ASSETS, VEGA_FILE, asset, write_assets, write_text
from perfwarehouse.reports.site import (
    KINDS,
    MANIFEST,
    CampaignPages,
    Written,
    extra_pages,
    index_html,
    read_campaigns,
    write_site,
)
from perfwarehouse.warehouse.store import Warehouse


def missing_from(warehouse: Warehouse, out_dir: Path) -> list[str]:
    """The campaigns whose pages the site under ``out_dir`` does not hold (no manifest in
    the campaign's directory, or one of another campaign: a new campaign may have moved
    the directories of those whose names it shares, :func:`~perfwarehouse.reports.campaigns.campaign_folders`)."""
    with warehouse.catalog() as con:
        campaigns = read_campaigns(ReportData(con))
    return [c.name for c in campaigns if _kept(out_dir / c.slug / MANIFEST, c.name) is None]


def _kept(path: Path, campaign: str) -> dict[str, Any] | None:
    """The manifest at ``path`` if it is ``campaign``'s (None: none, or another's)."""
    if not path.is_file():
        return None
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return kept if isinstance(kept, dict) and kept.get("campaign") == campaign else None


def update_site(warehouse: Warehouse, out_dir: Path, campaigns: Sequence[str], *,
                reporter: Reporter | None = None,
                echo: Callable[[str], None] | None = None) -> Path:
    """Write the pages of ``campaigns`` again, the shared assets (the JavaScript bundle
    only when what makes it changed: :func:`write_shared`), then the index over every
    campaign; returns the index."""
    current = bundle_current(out_dir)
    for name in campaigns:
        write_site(warehouse, out_dir, campaign=name, reporter=reporter, echo=echo,
                   assets=False)
    write_shared(out_dir, current)
    return write_index(warehouse, out_dir)


#: Beside the site's assets: what made its JavaScript bundle (vega.js), so that a refresh
#: makes it again (about 2 CPU s) only when vl-convert or the Vega-Lite version changed.
STAMP = ".bundle"


def _stamp() -> str:
    from importlib.metadata import version

    from perfwarehouse.reports.render import vega_lite_version

    return f"vl-convert {version('vl-convert-python')}, Vega-Lite {vega_lite_version()}\n"


def bundle_current(out_dir: Path) -> bool:
    """Whether the site's bundle was made by this vl-convert and Vega-Lite version."""
    assets = out_dir / "assets"
    return ((assets / VEGA_FILE).is_file() and (assets / STAMP).is_file()
            and (assets / STAMP).read_text(encoding="utf-8") == _stamp())


def write_shared(out_dir: Path, current: bool) -> None:
    """The site's assets: the small files always, the bundle unless ``current``
    (then the stamp with it)."""
    assets = out_dir / "assets"
    if not current:
        write_assets(assets)
        write_text(assets / STAMP, _stamp())
        return
    for name in ASSETS:
        write_text(assets / name, asset(name))


def write_index(warehouse: Warehouse, out_dir: Path) -> Path:
    """The site's ``index.html`` over every campaign whose pages are in the site (the
    assets are :func:`update_site`'s)."""
    with warehouse.catalog() as con:
        campaigns = read_campaigns(ReportData(con))
    order = list(KINDS)
    done = []
    for c in sorted(campaigns, key=lambda c: (order.index(c.kind), c.name.lower())):
        kept = _kept(out_dir / c.slug / MANIFEST, c.name)
        if kept is None:
            continue
        pages = [Written(p["href"], Page(
            p["title"], "", (), name=p["href"].removesuffix(".html"),
            verdict=None if p["verdict"] is None else Verdict(*p["verdict"])))
            for p in kept["pages"]]
        done.append(CampaignPages(c, pages, int(kept["configurations"]),
                                  int(kept.get("with_hardware", 0)), int(kept.get("total", 0))))
    return write_text(out_dir / "index.html", index_html(done, extra_pages(out_dir)))


def write_new_page(warehouse: Warehouse, out_dir: Path) -> Path:
    """The site's ``new.html`` (:mod:`perfwarehouse.reports.new`), then the index again
    (which links it); after :func:`update_site`, which wrote the assets."""
    from perfwarehouse.reports.new import build
    from perfwarehouse.reports.render import SiteLinks, write_report

    with warehouse.catalog() as con:
        page = build(ReportData(con), Request(None))
    path = write_report(page, out_dir / "new.html",
                        site=SiteLinks("assets/", (("All campaigns", "index.html"),)))
    write_index(warehouse, out_dir)
    return path
