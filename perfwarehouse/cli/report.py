"""``perfwarehouse report PAGE`` for every registered report page, and ``report all`` (every
page and the index). The pages come from the lazy catalog :mod:`perfwarehouse.reports`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from perfwarehouse.cli.context import CONTEXT, LazyGroup, echo, warehouse


def _report_command(rep: Any) -> click.Command:
    """The ``report`` command of one report page."""

    def callback(**kwargs: Any) -> None:
        path = rep.write(warehouse(click.get_current_context()), **kwargs)
        echo(f"wrote {path}")

    return click.Command(rep.name, callback=callback, help=rep.help, context_settings=CONTEXT,
                         params=list(rep.options))


def _report_all_command() -> click.Command:
    """``report all``: every report into one directory, with ``index.html`` linking each
    page under its verdict."""

    def callback(out_dir: Path, campaign: str | None) -> None:
        from perfwarehouse.reports import REPORTS
        from perfwarehouse.reports.render import write_index

        site_warehouse = warehouse(click.get_current_context())
        entries = []
        for rep in REPORTS:
            path, page = rep.write_page(site_warehouse, out=out_dir / f"{rep.name}.html",
                                        campaign=campaign)
            entries.append((path.name, page))
            echo(f"wrote {path}")
        echo(f"wrote {write_index(entries, out_dir / 'index.html')}")

    return click.Command(
        "all", callback=callback, context_settings=CONTEXT,
        help="Write every report and an index.html that links each page with its verdict.",
        params=[click.Option(["--out-dir", "out_dir"], type=click.Path(path_type=Path,
                                                                      file_okay=False),
                             default=Path("reports"), show_default=True,
                             help="Directory of the pages and index.html."),
                click.Option(["--campaign"], default=None,
                             help="Report on one campaign only.  [default: every campaign]")])


@click.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.reports",
             build=lambda rep: _report_command(rep), all_command=lambda: _report_all_command())
def report() -> None:
    """Write a self-contained HTML report (opens offline, in any browser)."""
