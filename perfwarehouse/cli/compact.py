"""``perfwarehouse compact``: rewrite small Parquet files into few large clustered ones.

Attached to the main CLI by :mod:`perfwarehouse.cli.main`; the work is in
:mod:`perfwarehouse.warehouse.compact` (imported inside the command, so that
``perfwarehouse --help`` stays fast).
"""

from __future__ import annotations

import click

from perfwarehouse.cli.context import CONTEXT, settings


@click.command("compact", context_settings=CONTEXT)
@click.option("--campaign", help="Only this campaign's partitions.  [default: every campaign]")
@click.option("--hardware-type", help="Only this hardware type's partitions.  [default: all]")
@click.option("--grace", "grace_s", type=click.FloatRange(min=0), default=3600.0,
              show_default=True, metavar="S",
              help="Delete files retired by earlier compactions only once they are this old "
                   "(readers that started before may still read them). 0: delete every "
                   "retired file and those this run replaces at once (a job reading "
                   "meanwhile may fail and must be rerun).")
@click.pass_context
def compact(ctx: click.Context, campaign: str | None, hardware_type: str | None,
            grace_s: float) -> None:
    """Rewrite each partition's small files into few large files clustered by configuration.

    Atomic (a reader sees the old files or the new ones), never blocks readers,
    idempotent. Replaced files stay on disk for --grace seconds, so that a job
    that started before finishes on them; the next compaction deletes them
    (--grace 0: this one, at once).
    """
    from perfwarehouse.warehouse.compact import compact as run
    from perfwarehouse.warehouse.compact_plan import Policy
    from perfwarehouse.warehouse.store import Warehouse

    current = settings(ctx)
    warehouse = Warehouse(current.warehouse, lock_timeout_s=current.lock_timeout_s)
    summary = run(warehouse, campaign, hardware_type, Policy(grace_s=grace_s))
    for p in summary.partitions:
        click.echo(f"{p.campaign} / {p.hardware_type}: {p.files_before:,} files -> "
                   f"{p.files_after:,} ({p.rows:,} rows rewritten)")
    if not summary.partitions:
        click.echo("nothing to compact")
    if summary.files_deleted:
        click.echo(f"deleted {summary.files_deleted:,} files retired more than {grace_s:g} s ago")
