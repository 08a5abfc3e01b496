"""``perfwarehouse check``: verify every data file the catalog lists (exists, a regular
file of its recorded size, readable Parquet footer, recorded row count, and - unless
``--quick`` - the checksum of its content recorded when it landed); name what is damaged
and how to recover. Attached to the main CLI by :mod:`perfwarehouse.cli.main`; the work
is in :mod:`perfwarehouse.warehouse.verify` (imported inside the command: ``--help``
stays fast).

Exit code 0: every file intact; 1: damage found (the report says which and what to do).
"""

from __future__ import annotations

import click

from perfwarehouse.cli.context import CONTEXT, reporter, settings


@click.command("check", context_settings=CONTEXT)
@click.option("--quick", is_flag=True,
              help="Read footers only (size, row count, columns): about a second per "
                   "thousand files, but blind to damage inside the data and to a file "
                   "replaced by another of the same size and row count.")
@click.option("--forget-damaged", is_flag=True,
              help="Drop the damaged files from the catalog (their measurements are lost, "
                   "the rest is readable again; the files are moved to _damaged/, or to a "
                   "free name next to it). Only when no backup holds them.")
@click.pass_context
def check(ctx: click.Context, quick: bool, forget_damaged: bool) -> None:
    """Verify every data file the catalog lists: present, a regular file of its recorded
    size, with a readable Parquet footer, its recorded row count and columns, and bytes
    that hash to the checksum recorded when it landed.

    Reads every file (SHA-256, about 1.3 GB/s); --quick reads footers only. Files
    landed by an older release have no checksum yet: the first full check reads them in
    full and records theirs. Prints "ok" or each damaged file with its batch and source
    and how to recover; exits 1 when something is damaged.
    """
    from perfwarehouse.warehouse.store import Warehouse
    from perfwarehouse.warehouse.verify import check as verify
    from perfwarehouse.warehouse.verify import forget_damaged as forget
    from perfwarehouse.warehouse.verify import recovery_lines

    current = settings(ctx)
    warehouse = Warehouse(current.warehouse, lock_timeout_s=current.lock_timeout_s)
    warehouse.require()
    if forget_damaged:
        result = forget(warehouse, quick=quick)
    else:
        with reporter(ctx).task("checking data files", unit="files") as task:
            result = verify(warehouse, lambda n, total: task.update(n, total), quick=quick)
    if forget_damaged and result.damaged:
        lost = sum(d.file.row_count for d in result.damaged)
        click.echo(f"forgot {len(result.damaged):,} damaged data files ({lost:,} measurements "
                   "lost; the rest is readable again):")
        for d in result.damaged:
            where = (f"moved to {d.moved_to}" if d.moved_to
                     else "nothing to move (it was missing)")
            click.echo(f"  {d.file.path}: {d.problem}; {where}")
        return
    for line in recovery_lines(result, warehouse.root):
        click.echo(line)
    if result.damaged:
        ctx.exit(1)
