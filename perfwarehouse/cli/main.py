"""The ``perfwarehouse`` command line: the root group, its global options, the small verbs
(init, generate, status, plan runs, demo) and the entry point that maps errors to exit codes.

Each verb group lives in its own module of this package (``ingest``, ``sql``, ``analyze``,
``report``, ``compare``, ``compact``, ``agent``, ``cluster``, ``workbench``), over the shared
:mod:`perfwarehouse.cli.context`, and is imported only when a command line names it
(:class:`~perfwarehouse.cli.context.VerbGroup`). Modules import only click at start; a
command imports what it needs when it runs, so every verb starts fast.

Exit codes: 0 success, 1 a user error (one line on stderr, no traceback), 2 bad usage,
3 the verdict ``--fail-on`` asked about, 130 interrupted.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from perfwarehouse import __version__
from perfwarehouse.cli.context import CONTEXT, VerbGroup, echo, reporter, settings, warehouse
from perfwarehouse.config import Settings, resolve_warehouse_path
from perfwarehouse.errors import PerfwarehouseError


@click.group(cls=VerbGroup, context_settings=CONTEXT)
@click.option("--warehouse", "warehouse_dir", metavar="DIR",
              help="Warehouse directory.  [default: $PERFWAREHOUSE_HOME, else ./warehouse]")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars or notes.")
@click.option("--lock-timeout", type=float, default=30.0, show_default=True, metavar="S",
              help="How long to wait for another process that holds the warehouse.")
@click.option("--scheduler", metavar="ADDRESS", envvar="PERFWAREHOUSE_SCHEDULER",
              help="Run analyses on the Dask cluster of this scheduler (tcp://HOST:PORT); its "
                   "workers must see the warehouse at the same path.  "
                   "[default: $PERFWAREHOUSE_SCHEDULER, else run here]")
@click.version_option(__version__, "-V", "--version", prog_name="perfwarehouse")
@click.pass_context
def cli(ctx: click.Context, warehouse_dir: str | None, quiet: bool, lock_timeout: float,
        scheduler: str | None) -> None:
    """perfwarehouse: a warehouse and batch analytics for systems performance measurements.

    Put raw benchmark trials in (ingest), ask SQL questions over whole campaigns
    (sql), run the statistics that say whether conclusions hold (analyze), and
    read the answers as self-contained HTML (report). `perfwarehouse demo` does
    all of it on a generated 2.3M-trial campaign and the OrderSage fixtures.
    """
    ctx.obj = Settings(resolve_warehouse_path(warehouse_dir), quiet=quiet,
                       lock_timeout_s=lock_timeout, scheduler=scheduler or None)


# ------------------------------------------------------------------ init
@cli.command(context_settings=CONTEXT)
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create an empty warehouse (ingest creates one too)."""
    created = warehouse(ctx)
    with created.writing("perfwarehouse init"):
        pass
    echo(f"warehouse ready at {created.root}")


# --------------------------------------------------------------- generate
@cli.command(context_settings=CONTEXT)
@click.argument("name", type=click.Choice(["ordersage-longterm", "laaber-cloud", "load-campaign"]))
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output file: JSON Lines, or Parquet when it ends in .parquet.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True,
              help="Fraction of the full size to generate.")
@click.option("--extend-days", type=click.IntRange(1, 3650), default=None, metavar="N",
              help="Write only the N days after the campaign (same --seed and --scale) "
                   "ended, to ingest on top of it: one more night is --extend-days 1 "
                   "(ordersage-longterm; the first days are the same whatever N).")
@click.pass_context
def generate(ctx: click.Context, name: str, out: Path, seed: int, scale: float,
             extend_days: int | None) -> None:
    """Write a realistic synthetic campaign with its ground truth (OUT.truth.json)."""
    from perfwarehouse.generate import generate_to_file

    start = time.monotonic()
    n, truth = generate_to_file(name, out, seed=seed, scale=scale,
                                extend_days=extend_days or 0)
    echo(f"wrote {n:,} trials to {out} and the planted effects to {truth} "
         f"in {time.monotonic() - start:.1f} s")


# ----------------------------------------------------------------- status
@cli.command(context_settings=CONTEXT)
@click.pass_context
def status(ctx: click.Context) -> None:
    """What the warehouse holds, and which analyses are missing or stale since the last
    ingest of each campaign."""
    from perfwarehouse.jobs import CATALOG
    from perfwarehouse.status import status_lines

    for line in status_lines(warehouse(ctx), tuple(e.name for e in CATALOG)):
        echo(line)


# ------------------------------------------------------------ plan (TriScale)
@cli.group(context_settings=CONTEXT)
def plan() -> None:
    """Design an experiment before running it (TriScale experiment sizing, Jacob et al. (TriScale, JSys 2021), eq. 4)."""


@plan.command("runs", context_settings=CONTEXT)
@click.option("--percentile", "-p", type=float, required=True,
              help="Percentile to estimate: a fraction 0 < x < 1 (0.95) or a percentage "
                   "1 <= x < 100 (95; 50 for the median).")
@click.option("--confidence", "-c", type=float, required=True,
              help="Confidence: a fraction 0 < x < 1 (0.95) or a percentage 50 <= x < 100 (95).")
@click.option("--robustness", "-r", type=int, default=0, show_default=True,
              help="Runs that may be discarded (outliers) without losing the bound.")
def plan_runs(percentile: float, confidence: float, robustness: int) -> None:
    """How many runs a KPI (or series a variability score) needs."""
    from perfwarehouse.triscale.planning import plan_runs_text

    try:
        echo(plan_runs_text(percentile, confidence, robustness))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@cli.command(context_settings=CONTEXT)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the generated campaign.")
@click.option("--scale", type=float, default=1.0, show_default=True,
              help="Fraction of the full 2.3M-trial campaign to generate.")
@click.option("--reports", "reports_dir", type=click.Path(path_type=Path), default=Path("reports"),
              show_default=True, help="Where to write the HTML reports.")
@click.pass_context
def demo(ctx: click.Context, seed: int, scale: float, reports_dir: Path) -> None:
    """Generate the long-term campaign, ingest it and the OrderSage fixtures, run every
    analysis, write every report, and say where they are."""
    from perfwarehouse.demo import run_demo

    run_demo(warehouse(ctx), seed=seed, scale=scale, reports_dir=reports_dir,
             reporter=reporter(ctx), echo=echo, scheduler=settings(ctx).scheduler)


# the verb groups, each in its own light module, imported when a command line names it
# (heavy imports inside the commands)
cli.verbs.update({
    "agent": ("agent", "agent"), "analyze": ("analyze", "analyze"),
    "bisect": ("bisect", "bisect"), "check": ("check", "check"),
    "cluster": ("cluster", "cluster"), "compact": ("compact", "compact"),
    "compare": ("compare", "compare"), "export": ("sql", "export"),
    "ingest": ("ingest", "ingest"), "refresh": ("refresh", "refresh"),
    "report": ("report", "report"), "sql": ("sql", "sql"),
})
cli.attach.update({
    "agent": [("workbench", "peak_rate"), ("workbench", "agent_surface")],
    "plan": [("workbench", "plan_surface")],
    "ingest": [("agent", "pull")],
})


GLOBAL_VALUE_OPTIONS = ("--warehouse", "--lock-timeout")
GLOBAL_FLAGS = ("-q", "--quiet")


def hoist_global_options(argv: list[str]) -> list[str]:
    """The global options (``--warehouse DIR``, ``--lock-timeout S``, ``-q``) moved in
    front of the verb, so ``perfwarehouse sql "..." --warehouse w -q`` works as well as
    ``perfwarehouse --warehouse w -q sql "..."`` (no command has options of these names).
    Arguments after ``--`` are left alone."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest.extend(argv[i:])
            break
        if arg in GLOBAL_FLAGS:
            front.append(arg)
        elif arg in GLOBAL_VALUE_OPTIONS and i + 1 < len(argv):
            front.extend(argv[i:i + 2])
            i += 1
        elif arg.startswith(tuple(o + "=" for o in GLOBAL_VALUE_OPTIONS)):
            front.append(arg)
        else:
            rest.append(arg)
        i += 1
    return front + rest


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and map errors to exit codes."""
    args = hoist_global_options(list(sys.argv[1:] if argv is None else argv))
    try:
        code = cli.main(args=args, prog_name="perfwarehouse", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.UsageError as exc:
        exc.show()
        return 2
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):  # click turns Ctrl-C into Abort
        echo("interrupted", err=True)
        return 130
    except PerfwarehouseError as exc:
        echo(f"error: {exc}", err=True)
        return 1
    except OSError as exc:  # an output path that cannot be written, a full disk ...
        echo(f"error: {_file_error(exc) or exc}", err=True)
        return 1
    except Exception as exc:
        damaged = _file_error(exc)
        if damaged is None and not _is_write_error(exc):
            raise
        echo(f"error: {damaged or str(exc).strip().splitlines()[0]}", err=True)
        return 1
    return code if isinstance(code, int) else 0


def _file_error(exc: BaseException) -> str | None:
    """One line for a full disk or a data file a command could not read."""
    from perfwarehouse.warehouse.damage import damaged_file_line, disk_full_message

    return disk_full_message(exc) or damaged_file_line(exc)


def _is_write_error(exc: BaseException) -> bool:
    """An output path the warehouse's engine could not write (COPY ... TO)."""
    from perfwarehouse.warehouse.export import is_write_error

    return is_write_error(exc)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
