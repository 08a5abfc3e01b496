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

    def __init__(self, *args: Any, catalog: str, build: Any, all_command: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._catalog_module = catalog
        self._build = build
        self._all = all_command  # builds the "all" command (every entry), when given

    def _catalog(self) -> Any:
        from importlib import import_module

        return import_module(self._catalog_module).CATALOG

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [e.name for e in self._catalog()] + (["all"] if self._all else [])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "all" and self._all is not None:
            return self._all()  # type: ignore[no-any-return]
        entry = next((e for e in self._catalog() if e.name == name), None)
        if entry is None:
            return None
        if ctx.resilient_parsing:  # shell completion: the name and summary are enough
            return click.Command(name, short_help=entry.summary)
        return self._build(entry.load())  # type: ignore[no-any-return]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(e.name, e.summary) for e in self._catalog()]
        if self._all is not None:
            rows.append(("all", "Every one of the above, in this order."))
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
@click.argument("name", type=click.Choice(["ordersage-longterm", "laaber-cloud", "load-campaign"]))
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
@click.argument("query", required=False)
@click.option("-f", "--file", "query_file", type=click.File("r"),
              help="Read the query from FILE ('-': standard input).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json", "md", "parquet"]),
              default=None, help="Output format.  [default: from the --out extension (.csv, "
              ".json, .parquet, .md), else table]")
@click.option("--out", type=click.Path(path_type=Path),
              help="Write to FILE instead of stdout, in the format its extension names.")
@click.pass_context
def sql(ctx: click.Context, query: str | None, query_file: Any, fmt: str | None,
        out: Path | None) -> None:
    """Run a read-only SQL QUERY (DuckDB dialect) over the warehouse; QUERY '-' (or
    -f FILE) reads it from standard input (or FILE).

    The view `measurements` has one row per measurement with every key; the
    dimension tables (campaigns, nodes, configurations, runs, trials), the
    bookkeeping tables (ingest_batches, job_runs, quarantine) and every analysis
    table (the latest run per campaign; all runs in <name>_history) can be queried
    too.  Examples:

      perfwarehouse sql "SELECT hardware_type, count(*) FROM measurements GROUP BY 1"
      perfwarehouse sql -f question.sql --out answer.csv
    """
    from perfwarehouse.sqlcli import output_format, run_query

    text = _sql_text(query, query_file)
    run_query(_warehouse(ctx), text, output_format(fmt, out), out)


def _sql_text(query: str | None, query_file: Any) -> str:
    """The query from the argument, ``-`` (standard input) or ``-f FILE``."""
    if query is not None and query_file is not None:
        raise click.UsageError("give the query as an argument or with -f FILE, not both")
    if query_file is not None:
        text = query_file.read()
    elif query == "-":
        text = sys.stdin.read()
    elif query is not None:
        text = query
    else:
        raise click.UsageError("give a QUERY, '-' to read it from standard input, or -f FILE")
    if not text.strip():
        raise click.UsageError("the query is empty")
    return text


# ----------------------------------------------------------------- status
@cli.command(context_settings=CONTEXT)
@click.pass_context
def status(ctx: click.Context) -> None:
    """What the warehouse holds, and which analyses are missing or stale since the last
    ingest of each campaign."""
    from perfwarehouse.jobs import CATALOG
    from perfwarehouse.status import status_lines

    for line in status_lines(_warehouse(ctx), tuple(e.name for e in CATALOG)):
        echo(line)


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
        rows = sum(t.num_rows for t in result.tables.values())
        found = _job_verdict(job.name, result.tables)
        if kwargs.get("output_format") == "json":
            import json

            echo(json.dumps({
                "job": job.name, "job_run_id": result.job_run_id,
                "duration_s": round(result.duration_s, 3),
                "rows": {name: t.num_rows for name, t in result.tables.items()},
                "summary": result.summary,
                "verdict": None if found is None else {"what": FAIL_ON[job.name][0],
                                                       "count": found}}, indent=2))
        else:
            for line in result.summary:
                echo(line)
            echo(f"{job.name}: {rows:,} rows in {', '.join(job.outputs)} "
                 f"(job_run_id {result.job_run_id}, {result.duration_s:.2f} s)")
        if kwargs.get("fail_on") and found:
            ctx.exit(FAIL_EXIT)

    extra: list[click.Parameter] = [click.Option(
        ["--format", "output_format"], type=click.Choice(["text", "json"]), default="text",
        show_default=True, help="What to print: the summary lines, or one JSON object for "
                                "scripts (job_run_id, rows per table, summary, verdict).")]
    if job.name in FAIL_ON:
        extra.append(click.Option(
            ["--fail-on", "fail_on"], is_flag=True,
            help=f"Exit with code {FAIL_EXIT} when {FAIL_ON[job.name][0]} (for CI)."))
    return click.Command(
        job.name, callback=callback, help=job.help, context_settings=CONTEXT,
        params=[_option_for(f) for f in dataclasses.fields(job.params)
                if not f.metadata.get("internal")] + extra)


#: Jobs with a verdict: what it says, and the table and boolean column that carry it.
FAIL_ON = {"order-effects": ("order matters", "order_effects", "order_matters"),
           "trends": ("a drift is found", "trends", "drifting")}
FAIL_EXIT = 3
"""Exit code of ``analyze ... --fail-on`` when the verdict is found (1 and 2 are errors)."""


def _job_verdict(name: str, tables: dict[str, Any]) -> int | None:
    """How many rows carry the job's verdict (None: the job has none)."""
    if name not in FAIL_ON:
        return None
    _what, table, column = FAIL_ON[name]
    t = tables.get(table)
    if t is None or column not in t.column_names:
        return 0
    return sum(1 for v in t.column(column).to_pylist() if v)


def _report_command(rep: Any) -> click.Command:
    """The ``report`` command of one report page."""

    def callback(**kwargs: Any) -> None:
        ctx = click.get_current_context()
        # a page reads and analyses up to millions of trials (the fleet page: ~15 s on the
        # demo's campaign): say so while it works
        with _reporter(ctx).task(f"report {rep.name}: reading and building the page",
                                 total=None, unit="pages"):
            path = rep.write(_warehouse(ctx), **kwargs)
        echo(f"wrote {path}")

    return click.Command(rep.name, callback=callback, help=rep.help, context_settings=CONTEXT,
                         params=list(rep.options))


def _analyze_all_command() -> click.Command:
    """``analyze all``: every registered job with its default parameters."""

    def callback(campaign: str | None, processes: int | None) -> None:
        from perfwarehouse.jobs import JOBS
        from perfwarehouse.jobs.parallel import run_jobs

        ctx = click.get_current_context()
        runs = []
        for job in JOBS:
            names = {f.name for f in dataclasses.fields(job.params)}
            runs.append((job, job.params(campaign=campaign) if "campaign" in names
                         else job.params()))
        for job, result in run_jobs(_warehouse(ctx), runs,
                                    campaigns=[campaign] if campaign else None,
                                    processes=processes, reporter=_reporter(ctx),
                                    scheduler=_settings(ctx).scheduler):
            rows = sum(t.num_rows for t in result.tables.values())
            echo(f"{job.name}: {rows:,} rows in {', '.join(job.outputs)} "
                 f"(job_run_id {result.job_run_id}, {result.duration_s:.2f} s)")

    return click.Command(
        "all", callback=callback, context_settings=CONTEXT,
        help="Run every analysis job with its default parameters (as the demo does), one "
             "per core at a time; each line says a job finished.",
        params=[click.Option(["--campaign"], default=None,
                             help="Only this campaign.  [default: every campaign]"),
                click.Option(["--processes"], type=click.IntRange(min=1), default=None,
                             metavar="N",
                             help="Jobs at a time, each in its own process (1: one after "
                                  "another, here).  [default: one per core]")])


@cli.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.jobs",
           build=lambda job: _job_command(job), all_command=lambda: _analyze_all_command())
def analyze() -> None:
    """Run an analysis job; results go to a table keyed by job_run_id (see job_runs)."""


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


def _report_all_command() -> click.Command:
    """``report all``: the report site, every campaign with the pages that apply to it and
    an ``index.html`` that links each page under its verdict."""

    def callback(out_dir: Path, campaign: str | None) -> None:
        from perfwarehouse.reports.site import write_site

        ctx = click.get_current_context()
        write_site(_warehouse(ctx), out_dir, campaign=campaign, reporter=_reporter(ctx),
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


@cli.group(context_settings=CONTEXT, cls=LazyGroup, catalog="perfwarehouse.reports",
           build=lambda rep: _report_command(rep), all_command=lambda: _report_all_command())
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
    """Export one campaign's measurements as Parquet or CSV (by the --out extension)."""
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
    click_type = f.metadata.get("type") or (type(default) if default is not None else str)
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


# the other verbs, each in its own light module (heavy imports inside the commands)
from perfwarehouse.agent.cli import agent, pull  # noqa: E402
from perfwarehouse.cluster_cli import cluster  # noqa: E402
from perfwarehouse.compact_cli import compact  # noqa: E402
from perfwarehouse.compare_cli import compare  # noqa: E402
from perfwarehouse.ingest.commands import add_import_commands  # noqa: E402
from perfwarehouse.workbench_cli import agent_surface, peak_rate, plan_surface  # noqa: E402

cli.add_command(agent)
cli.add_command(cluster)
cli.add_command(compare)
cli.add_command(compact)
agent.add_command(peak_rate)
agent.add_command(agent_surface)
plan.add_command(plan_surface)
ingest.add_command(pull)
add_import_commands(ingest)  # ingest pyperf, gbench, ..., auto (other tools' results)


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
