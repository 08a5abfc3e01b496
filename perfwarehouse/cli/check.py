"""``perfwarehouse check``: verify every data file the catalog lists (exists, recorded
size, readable Parquet footer, recorded row count); name what is damaged and how to
recover. Attached to the main CLI by :mod:`perfwarehouse.cli.main`; the work is in
:mod:`perfwarehouse.warehouse.verify` (imported inside the command: ``--help`` stays fast).

Exit code 0: every file intact; 1: damage found (the report says which and what to do).
"""

from __future__ import annotations

import click

from perfwarehouse.cli.context import CONTEXT, settings


@click.command("check", context_settings=CONTEXT)
@click.option("--forget-damaged", is_flag=True,
              help="Drop the damaged files from the catalog (their measurements are lost, "
                   "the rest is readable again; the files are moved to _damaged/). Only "
                   "when no backup holds them.")
@click.pass_context
def check(ctx: click.Context, forget_damaged: bool) -> None:
    """Verify every data file the catalog lists: present, of its recorded size, with a
    readable Parquet footer and its recorded row count.

    Reads footers only (about a second per thousand files). Prints "ok" or each damaged
    file with its batch and source and how to recover; exits 1 when something is damaged.
    """
    from perfwarehouse.warehouse.store import Warehouse
    from perfwarehouse.warehouse.verify import check as verify
    from perfwarehouse.warehouse.verify import forget_damaged as forget
    from perfwarehouse.warehouse.verify import recovery_lines

    current = settings(ctx)
    warehouse = Warehouse(current.warehouse, lock_timeout_s=current.lock_timeout_s)
    warehouse.require()
    result = forget(warehouse) if forget_damaged else verify(warehouse)
    if forget_damaged and result.damaged:
        lost = sum(d.file.row_count for d in result.damaged)
        click.echo(f"forgot {len(result.damaged):,} damaged data files ({lost:,} measurements "
                   "lost); moved to _damaged/:")
        for d in result.damaged:
            click.echo(f"  {d.file.path}: {d.problem}")
        return
    for line in recovery_lines(result, warehouse.root):
        click.echo(line)
    if result.damaged:
        ctx.exit(1)
