"""``perfwarehouse sql`` (a read-only query over the warehouse, in the format asked for) and
``perfwarehouse export`` (one campaign's measurements as a file). The work is done by
:mod:`perfwarehouse.warehouse.export`, imported when a command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from perfwarehouse.cli.context import CONTEXT, Formats, echo, warehouse


@click.command(context_settings=CONTEXT)
@click.argument("query", required=False)
@click.option("-f", "--file", "query_file", type=click.File("r"),
              help="Read the query from FILE ('-': standard input).")
@click.option("--format", "fmt", type=Formats(["table", "csv", "json", "markdown", "parquet"]),
              default=None, help="Output format (md: markdown).  [default: from the --out "
              "extension (.csv, .json, .parquet, .md), else table]")
@click.option("--out", type=click.Path(path_type=Path),
              help="Write to FILE instead of stdout, in the format its extension names "
                   "(never inside the warehouse).")
@click.option("--read", "reads", multiple=True, type=click.Path(path_type=Path),
              help="Let the query read FILE too (read_csv, read_parquet, read_json ...): a "
                   "regular file up to 2 GiB; repeat for more. Nothing else outside the "
                   "warehouse can be read.")
@click.option("--memory-limit", default="4GB", show_default=True,
              help="DuckDB's memory limit for the query (e.g. 500MB, 8GB).")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0), default=600,
              show_default=True, help="Stop the query after SECONDS (0: no limit).")
@click.pass_context
def sql(ctx: click.Context, query: str | None, query_file: Any, fmt: str | None,
        out: Path | None, reads: tuple[Path, ...], memory_limit: str, timeout_s: float) -> None:
    """Run a read-only SQL QUERY (DuckDB dialect) over the warehouse; QUERY '-' (or
    -f FILE) reads it from standard input (or FILE).

    The view `measurements` has one row per measurement with every key; the
    dimension tables (campaigns, nodes, configurations, runs, trials), the
    bookkeeping tables (ingest_batches, job_runs, quarantine) and every analysis
    table (the latest run per campaign; all runs in <name>_history) can be queried
    too.  Examples:

    \b
      perfwarehouse sql "SELECT hardware_type, count(*) FROM measurements GROUP BY 1"
      perfwarehouse sql -f question.sql --out answer.csv
      perfwarehouse sql --read base.csv "SELECT * FROM read_csv('base.csv')"

    Read-only in fact: only queries run, only the warehouse's files and those named
    with --read are readable (no devices, URLs or extensions), within a memory and a
    time limit.
    """
    from perfwarehouse.warehouse.export import output_format, run_query
    from perfwarehouse.warehouse.readonly import Limits

    text = _sql_text(query, query_file)
    run_query(warehouse(ctx), text, output_format(fmt, out), out,
              Limits(memory_limit, timeout_s, reads))


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


@click.command(context_settings=CONTEXT)
@click.option("--campaign", required=True, help="Campaign to export.")
@click.option("--out", type=click.Path(path_type=Path), required=True,
              help="Output file: .parquet or .csv.")
@click.pass_context
def export(ctx: click.Context, campaign: str, out: Path) -> None:
    """Export one campaign's measurements as Parquet or CSV (by the --out extension)."""
    from perfwarehouse.warehouse.export import export_campaign

    n = export_campaign(warehouse(ctx), campaign, out)
    echo(f"wrote {n:,} rows of {campaign} to {out}")
