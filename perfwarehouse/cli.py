"""The ``perfwarehouse`` command line. Thin: parse arguments, call one function, print.

Exit codes: 0 success, 1 a user error (one line on stderr, no traceback), 2 bad
usage, 130 interrupted.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import Any

import click

from perfwarehouse import __version__
from perfwarehouse.config import Settings, resolve_warehouse_path
from perfwarehouse.errors import PerfwarehouseError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _settings(ctx: click.Context) -> Settings:
    return ctx.find_object(Settings)  # type: ignore[return-value]


def _reporter(ctx: click.Context):  # type: ignore[no-untyped-def]
    from perfwarehouse.progress import default_reporter

    return default_reporter(_settings(ctx).quiet)


def _warehouse(ctx: click.Context):  # type: ignore[no-untyped-def]
    from perfwarehouse.warehouse.store import Warehouse

    settings = _settings(ctx)
    return Warehouse(settings.warehouse, lock_timeout_s=settings.lock_timeout_s,
                     on_wait=_reporter(ctx).note)


class LazyGroup(click.Group):
    """A group whose commands are built from a lazy catalog (:mod:`perfwarehouse.registry`)
    on first use: listing them (``--help``, shell completion) imports nothing heavy."""

    def __init__(self, *args: Any, catalog: str, build: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._catalog_module = catalog
        self._build = build

    def _catalog(self) -> Any:
        from importlib import import_module

        return import_module(self._catalog_module).CATALOG

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [e.name for e in self._catalog()]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = next((e for e in self._catalog() if e.name == name), None)
        if entry is None:
            return None
        if ctx.resilient_parsing:  # shell completion: the name and summary are enough
            return click.Command(name, short_help=entry.summary)
        return self._build(entry.load())  # type: ignore[no-any-return]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(e.name, e.summary) for e in self._catalog()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def echo(message: str = "", *, err: bool = False) -> None:
    click.echo(message, err=err)


@click.group(context_settings=CONTEXT)
@click.option("--warehouse", "warehouse", metavar="DIR",
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
def cli(ctx: click.Context, warehouse: str | None, quiet: bool, lock_timeout: float,
        scheduler: str | None) -> None:
    """perfwarehouse: a warehouse and batch analytics for systems performance measurements.

    Put raw benchmark trials in (ingest), ask SQL questions over whole campaigns
    (sql), run the statistics that say whether conclusions hold (analyze), and
    read the answers as self-contained HTML (report). `perfwarehouse demo` does
    all of it on a generated 2.3M-trial campaign and the OrderSage fixtures.
    """
    ctx.obj = Settings(resolve_warehouse_path(warehouse), quiet=quiet, lock_timeout_s=lock_timeout,
                       scheduler=scheduler or None)


# ------------------------------------------------------------------ init
@cli.command(context_settings=CONTEXT)
@click.pass_context
def init(ctx: click.Context) -> None:
    """Create an empty warehouse (ingest creates one too)."""
    warehouse = _warehouse(ctx)
    with warehouse.writing("perfwarehouse init"):
        pass
    echo(f"warehouse ready at {warehouse.root}")


# ---------------------------------------------------------------- ingest
@cli.group(context_settings=CONTEXT)
def ingest() -> None:
    """Put trials into the warehouse (atomic, idempotent, validated).

    Each command is one batch: all its inputs land together or not at all. A
    record that breaks a rule stops the batch with one line naming the file,
    the line and the rule (exit code 1), unless --quarantine sets bad records
    aside in the quarantine table. Ingesting the same content again adds nothing.
    """


_quarantine = click.option(
    "--quarantine", is_flag=True,
    help="Land the good records and keep bad ones, with their reason, in the quarantine table.")


@ingest.command("ordersage", context_settings=CONTEXT)
@click.argument("directories", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--campaign", help="Campaign name.  [default: each directory's name]")
@click.option("--hardware-type", help="Hardware type of every node (else from the node id).")
@click.option("--hardware-map", type=click.Path(path_type=Path),
              help="Node-id prefix map.  [default: ./ingest/hardware_types.toml, else built in]")
@_quarantine
@click.pass_context
def ingest_ordersage(ctx: click.Context, directories: tuple[Path, ...], campaign: str | None,
                     hardware_type: str | None, hardware_map: Path | None,
                     quarantine: bool) -> None:
    """Ingest OrderSage results directories (2021 and 2022 layouts)."""
    from perfwarehouse.ingest.service import ingest_ordersage as run

    summary = run(_warehouse(ctx), list(directories), campaign=campaign,
                  hardware_type=hardware_type, hardware_map=hardware_map, quarantine=quarantine,
                  reporter=_reporter(ctx))
    _print_summary(summary)


@ingest.command("jsonl", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@_quarantine
@click.pass_context
def ingest_jsonl(ctx: click.Context, files: tuple[Path, ...], quarantine: bool) -> None:
    """Ingest native trial logs (JSON Lines, one trial per line; see the README)."""
    from perfwarehouse.ingest.service import ingest_jsonl as run

    summary = run(_warehouse(ctx), list(files), quarantine=quarantine,
                  reporter=_reporter(ctx))
    _print_summary(summary)


@ingest.command("table", context_settings=CONTEXT)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--mapping", type=click.Path(path_type=Path),
              help="TOML mapping of columns to trial fields (see ingest/mappings/).  "
                   "[default: the columns already have the native names]")
@_quarantine
@click.pass_context
def ingest_table(ctx: click.Context, file: Path, mapping: Path | None, quarantine: bool) -> None:
    """Ingest a CSV or Parquet table of trials or measurements through a mapping."""
    from perfwarehouse.ingest.service import ingest_table as run

    summary = run(_warehouse(ctx), file, mapping, quarantine=quarantine,
                  reporter=_reporter(ctx))
    _print_summary(summary)


def _print_summary(summary: Any) -> None:
    if summary.outcome == "unchanged":
        echo(f"{summary.source}: already ingested as batch {summary.batch_id}; nothing added")
        return
    if summary.outcome == "nothing-new":
        echo(f"{summary.source}: all {summary.trials_skipped:,} trials are already in the "
             "warehouse; nothing added")
        return
    campaigns = ", ".join(summary.campaigns)
    echo(f"ingested {summary.trials_added:,} trials ({summary.values_added:,} values) into "
         f"{campaigns or 'the warehouse'} as batch {summary.batch_id} in {summary.seconds:.1f} s; "
         f"skipped {summary.trials_skipped:,} already present, "
         f"quarantined {summary.quarantined:,}")
    for problem in summary.problems[:5]:
        echo(f"  quarantined {problem}", err=True)
    if len(summary.problems) > 5:
        echo(f"  ... {len(summary.problems) - 5} more in the quarantine table", err=True)


# --------------------------------------------------------------- generate
@cli.command(context_settings=CONTEXT)
@click.argument("name", type=click.Choice(["ordersage-longterm", "laaber-cloud"]))
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output file: JSON Lines, or Parquet when it ends in .parquet.")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--scale", type=float, default=1.0, show_default=True,
              help="Fraction of the full size to generate.")
@click.pass_context
def generate(ctx: click.Context, name: str, out: Path, seed: int, scale: float) -> None:
    """Write a realistic synthetic campaign with its ground truth (OUT.truth.json)."""
    from perfwarehouse.generate import generate_to_file

    start = time.monotonic()
    n, truth = generate_to_file(name, out, seed=seed, scale=scale)
    echo(f"wrote {n:,} trials to {out} and the planted effects to {truth} "
         f"in {time.monotonic() - start:.1f} s")


# -------------------------------------------------------------------- sql
@cli.command(context_settings=CONTEXT)
@click.argument("query")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True)
@click.option("--out", type=click.Path(path_type=Path),
              help="Write to FILE instead of stdout (.parquet writes Parquet).")
@click.pass_context
def sql(ctx: click.Context, query: str, fmt: str, out: Path | None) -> None:
    """Run a read-only SQL QUERY (DuckDB dialect) over the warehouse.

    The view `measurements` has one row per measurement with every key; the
    dimension tables (campaigns, nodes, configurations, runs, trials), the
    bookkeeping tables (ingest_batches, job_runs, quarantine) and every analysis
    table can be queried too.  Example:

      perfwarehouse sql "SELECT hardware_type, count(*) FROM measurements GROUP BY 1"
    """
    from perfwarehouse.sqlcli import run_query

    run_query(_warehouse(ctx), query, fmt, out)


# ---------------------------------------------------------------- analyze
def _job_command(job: Any) -> click.Command:
    """The ``analyze`` command of one job: its parameters become options."""

    def callback(**kwargs: Any) -> None:
        from perfwarehouse.jobs.framework import run_job

        ctx = click.get_current_context()
        names = {f.name for f in dataclasses.fields(job.params) if not f.metadata.get("internal")}
        params = job.params(**{k: v for k, v in kwargs.items() if k in names})
        campaign = getattr(params, "campaign", None)
        result = run_job(_warehouse(ctx), job, params,
                         campaigns=[campaign] if campaign else None, reporter=_reporter(ctx),
                         scheduler=_settings(ctx).scheduler)
        for line in result.summary:
            echo(line)
        rows = sum(t.num_rows for t in result.tables.values())
        echo(f"{job.name}: {rows:,} rows in {', '.join(job.outputs)} "
             f"(job_run_id {result.job_run_id}, {result.duration_s:.2f} s)")

    return click.Command(
        job.name, callback=callback, help=job.help, context_settings=CONTEXT,
        params=[_option_for(f) for f in dataclasses.fields(job.params)
                if not f.metadata.get("internal")])


def _report_command(rep: Any) -> click.Command:
    """The ``report`` command of one report page."""

    def callback(**kwargs: Any) -> None:
        path = rep.write(_warehouse(click.get_current_context()), **kwargs)
        echo(f"wrote {path}")

    return click.Command(rep.name, callback=callback, help=rep.help, context_settings=CONTEXT,
                         params=list(rep.options))


@cli.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.jobs",
           build=lambda job: _job_command(job))
def analyze() -> None:
    """Run an analysis job; results go to a table keyed by job_run_id (see job_runs)."""


# ------------------------------------------------------------ plan (TriScale)
@cli.group(context_settings=CONTEXT)
def plan() -> None:
    """Design an experiment before running it (TriScale experiment sizing, seed 003 eq. 4)."""


@plan.command("runs", context_settings=CONTEXT)
@click.option("--percentile", "-p", type=float, required=True,
              help="Percentile to estimate: 95 or 0.95 (50 for the median).")
@click.option("--confidence", "-c", type=float, required=True, help="Confidence: 95 or 0.95.")
@click.option("--robustness", "-r", type=int, default=0, show_default=True,
              help="Runs that may be discarded (outliers) without losing the bound.")
def plan_runs(percentile: float, confidence: float, robustness: int) -> None:
    """How many runs a KPI (or series a variability score) needs."""
    from perfwarehouse.triscale.planning import plan_runs_text

    try:
        echo(plan_runs_text(percentile, confidence, robustness))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@cli.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.reports",
           build=lambda rep: _report_command(rep))
def report() -> None:
    """Write a self-contained HTML report (opens offline, in any browser)."""


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

    run_demo(_warehouse(ctx), seed=seed, scale=scale, reports_dir=reports_dir,
             reporter=_reporter(ctx), echo=echo, scheduler=_settings(ctx).scheduler)


@cli.command(context_settings=CONTEXT)
@click.option("--campaign", required=True, help="Campaign to export.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output file: .parquet or .csv.")
@click.pass_context
def export(ctx: click.Context, campaign: str, out: Path) -> None:
    """Export one campaign's measurements (Parquet/CSV) or trials (native JSON Lines)."""
    from perfwarehouse.sqlcli import export_campaign

    n = export_campaign(_warehouse(ctx), campaign, out)
    echo(f"wrote {n:,} rows of {campaign} to {out}")


# ------------------------------------------------- jobs and reports as verbs
def _option_for(f: dataclasses.Field[Any]) -> click.Option:
    """A click option for one field of a job's parameter dataclass."""
    name = f.metadata.get("cli", "--" + f.name.replace("_", "-"))
    help_text = f.metadata.get("help", "")
    default = f.default if f.default is not dataclasses.MISSING else None
    choices = f.metadata.get("choices")
    if isinstance(default, bool):
        return click.Option([f"{name}/--no-{name[2:]}"], default=default, show_default=True,
                            help=help_text)
    if choices:
        return click.Option([name], type=click.Choice(list(choices)), default=default,
                            show_default=True, help=help_text)
    if isinstance(default, tuple):
        return click.Option([name], default=",".join(map(str, default)), show_default=True,
                            help=help_text + " (comma-separated)",
                            callback=lambda _c, _p, v, d=default: _tuple_of(v, d))
    click_type = type(default) if default is not None else str
    return click.Option([name], type=click_type, default=default, show_default=default is not None,
                        help=help_text)


def _tuple_of(text: str | tuple[Any, ...], example: tuple[Any, ...]) -> tuple[Any, ...]:
    if isinstance(text, tuple):
        return text
    cast = type(example[0]) if example else str
    try:
        return tuple(cast(x.strip()) for x in text.split(",") if x.strip())
    except ValueError:
        raise click.BadParameter(f"expected comma-separated {cast.__name__} values") from None


from perfwarehouse.agent.cli import agent, pull  # noqa: E402  (collector agent, SPEC 4.3)
from perfwarehouse.cluster_cli import cluster  # noqa: E402  (Dask clusters to analyse on)

cli.add_command(agent)
cli.add_command(cluster)
ingest.add_command(pull)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI and map errors to exit codes."""
    try:
        code = cli.main(args=argv, prog_name="perfwarehouse", standalone_mode=False)
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
        echo(f"error: {exc}", err=True)
        return 1
    except Exception as exc:
        if not _is_duckdb_io_error(exc):
            raise
        echo(f"error: {str(exc).strip().splitlines()[0]}", err=True)
        return 1
    return code if isinstance(code, int) else 0


def _is_duckdb_io_error(exc: BaseException) -> bool:
    """An output path DuckDB could not write (COPY ... TO); duckdb is imported lazily."""
    duckdb = sys.modules.get("duckdb")
    return duckdb is not None and isinstance(exc, duckdb.IOException)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
