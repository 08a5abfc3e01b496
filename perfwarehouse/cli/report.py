"""``perfwarehouse report PAGE`` for every registered report page, and ``report all`` (every
page and the index). The pages come from the lazy catalog :mod:`perfwarehouse.reports`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from perfwarehouse.cli.context import CONTEXT, LazyGroup, click_option, echo, reporter, warehouse


def _report_command(rep: Any) -> click.Command:
    """The ``report`` command of one report page."""

    def callback(**kwargs: Any) -> None:
        from perfwarehouse.reports.site import CAMPAIGN_PAGES, write_alone

        ctx = click.get_current_context()
        # a page reads and analyses up to millions of trials (the fleet page: ~15 s on the
        # demo's campaign): say so while it works
        with reporter(ctx).task(f"report {rep.name}: reading and building the page",
                                total=None, unit="pages"):
            # a campaign's page is written per campaign, never pooled (issue 30)
            paths = (write_alone(rep, warehouse(ctx), **kwargs) if rep.name in CAMPAIGN_PAGES
                     else [rep.write(warehouse(ctx), **kwargs)])
        for path in paths:
            echo(f"wrote {path}{_beside_site(Path(path))}")

    return click.Command(rep.name, callback=callback, help=rep.help, context_settings=CONTEXT,
                         params=[click_option(o) for o in rep.options])


def _beside_site(path: Path) -> str:
    """What to say when ``path`` was written into a report site's directory: the page
    stands alone there, and the site keeps its own copies (per campaign), which ``report
    all`` rewrites (issue 40)."""
    if not (path.parent / "index.html").exists():
        return ""
    copies = sorted(str(p) for p in path.parent.glob(f"*/{path.name}"))
    where = (f"; the site's own {'copies are' if len(copies) > 1 else 'copy is'} "
             f"{', '.join(copies[:3])}{' ...' if len(copies) > 3 else ''}" if copies else "")
    return (f" (a page on its own, beside the report site {path.parent / 'index.html'}, which "
            f"does not link it{where}; `perfwarehouse report all` rewrites the site)")


def _report_all_command() -> click.Command:
    """``report all``: the report site, every campaign with the pages that apply to it and
    an ``index.html`` that links each page under its verdict."""

    def callback(out_dir: Path, campaign: str | None) -> None:
        from perfwarehouse.reports.site import write_site

        ctx = click.get_current_context()
        write_site(warehouse(ctx), out_dir, campaign=campaign, reporter=reporter(ctx),
                   echo=echo)

    return click.Command(
        "all", callback=callback, context_settings=CONTEXT,
        help="Write the report site: for every campaign the pages that apply to its kind "
             "(long-term, order study, load test, revisions), the drill-downs they link, and "
             "an index.html that lists the campaigns with each page's verdict.",
        params=[click.Option(["--out-dir", "out_dir"], type=click.Path(path_type=Path,
                                                                      file_okay=False),
                             default=Path("reports"), show_default=True,
                             help="Directory of the site (index.html, one directory per "
                                  "campaign, assets/)."),
                click.Option(["--campaign"], default=None,
                             help="Report on one campaign only.  [default: every campaign]")])


@click.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.reports",
             build=lambda rep: _report_command(rep), all_command=lambda: _report_all_command())
def report() -> None:
    """Write a self-contained HTML report (opens offline, in any browser)."""
