"""Command-line verbs of the collector agent: ``agent run``, ``agent serve``, ``ingest pull``.

Attached to the main CLI by :mod:`perfwarehouse.cli.main`. Heavy imports (HTTP,
DuckDB) happen inside the commands, so ``perfwarehouse --help`` stays fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from perfwarehouse.cli import context
from perfwarehouse.cli.context import CONTEXT

INTERRUPTED_EXIT = 130


def _echo_err(message: str) -> None:
    click.echo(message, err=True)


@click.group(context_settings=CONTEXT)
def agent() -> None:
    """Collector agent: run tests into a spool on a worker, and serve the spool.

    `agent run` executes a test list as OrderSage prescribes (fixed and random
    orders interleaved, a reset before every run) and appends every trial to
    the spool; `agent serve` lets `perfwarehouse ingest pull` fetch it.
    """


@agent.command("run", context_settings=CONTEXT)
@click.option("--spool", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Spool directory (created if missing).")
@click.option("--campaign", required=True, help="Campaign name of the trials.")
@click.option("--tests", "tests_file", type=click.Path(dir_okay=False, path_type=Path),
              required=True, help="File with one test command per line, in baseline order.")
@click.option("--runs", type=click.IntRange(min=1), required=True,
              help="N: run N fixed-order and N random-order runs, interleaved.")
@click.option("--reset", required=True, metavar="CMD",
              help="Shell command that returns the machine to a clean state; run before every "
                   "run (`true` if there is nothing to reset).")
@click.option("--seed", type=click.IntRange(min=0), required=True,
              help="Experiment seed; every run's seed (and so every random order) derives from it.")
@click.option("--node", help="Node name.  [default: this host's name]")
@click.option("--hardware-type", help="Hardware type.  [default: from the node name, as ingest "
                                      "does (ingest/hardware_types.toml, else without trailing "
                                      "digits)]")
@click.option("--revision", help="Revision of the software under test (commit, tag or "
                                   "version), recorded on every trial.")
@click.option("--revision-time", metavar="RFC3339",
              help="Time of that revision (e.g. the commit time), e.g. 2024-05-01T10:00:00Z.")
@click.option("--resume", is_flag=True,
              help="Continue the campaign already in the spool: run every run not yet complete.")
@click.option("--timeout", "timeout_s", type=float, metavar="S",
              help="Stop a test after S seconds and record it as a timeout.")
@click.option("--segment-mb", type=click.IntRange(min=1), default=64, show_default=True,
              help="Start a new spool segment when one reaches this size.")
def agent_run(spool: Path, campaign: str, tests_file: Path, runs: int, reset: str, seed: int,
              node: str | None, hardware_type: str | None, revision: str | None,
              revision_time: str | None, resume: bool, timeout_s: float | None,
              segment_mb: int) -> None:
    """Run the tests of FILE N times in fixed and N times in random order into a spool.

    Each test is a shell command; its result is the last number it prints on
    stdout. A test that exits non-zero is recorded as `failed`, one that prints
    no number as `no-result`, one stopped by --timeout as `timeout`. Ctrl-C stops
    the running test, records it as `interrupted` and exits (code 130); run the
    same command with --resume to continue.
    """
    from perfwarehouse.agent.runner import AgentConfig, run_agent

    config = AgentConfig(spool=spool, campaign=campaign, tests_file=tests_file, runs=runs,
                         reset=reset, seed=seed, node=node, hardware_type=hardware_type,
                         resume=resume, timeout_s=timeout_s, segment_bytes=segment_mb << 20,
                         revision=revision, revision_time=revision_time)
    result = run_agent(config, echo=click.echo, warn=_echo_err)
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(result.statuses.items())) or "no trials"
    where = f"campaign {campaign!r} on node {result.node} ({result.hardware_type})"
    if result.interrupted:
        _echo_err(f"interrupted {result.interrupted}: wrote {result.trials_written} trial(s) "
                  f"({statuses}); the spool {spool} is consistent; continue with the same "
                  "command and --resume")
        # not click's Exit: perfwarehouse.cli.main runs click with standalone_mode=False,
        # which turns Exit into a return value that main does not pass on
        sys.exit(INTERRUPTED_EXIT)
    done = result.slots_already_done + result.runs_completed
    if result.slots_already_done and not result.runs_completed:
        click.echo(f"{where}: all {done} runs were already complete; nothing to do")
        return
    click.echo(f"{where}: {done} of {result.slots_total} runs complete, "
               f"{result.trials_written} trial(s) written now ({statuses}) to {spool}")


@agent.command("serve", context_settings=CONTEXT)
@click.option("--spool", type=click.Path(exists=True, file_okay=False, path_type=Path),
              required=True, help="Spool directory to serve (read-only).")
@click.option("--port", type=click.IntRange(0, 65535), required=True,
              help="TCP port (0: any free port, printed at start).")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              required=True, help="File holding the bearer token pullers must present.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0 for every interface).")
@click.option("--measure-root", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also measure on request (POST /measure, for `perfwarehouse bisect "
                   "--agent`) in git repositories under this directory; off by default.")
@click.option("--measure-timeout", "measure_timeout_s", type=click.FloatRange(min=0.0,
              min_open=True), default=600.0, show_default=True, metavar="S",
              help="Longest setup or trial of a measuring request (a request may ask less).")
def agent_serve(spool: Path, port: int, token_file: Path, host: str,
                measure_root: Path | None, measure_timeout_s: float) -> None:
    """Serve the spool read-only over HTTP for `perfwarehouse ingest pull`.

    GET /segments lists the segments and their sizes; GET /segments/NAME with a
    Range header returns bytes of one segment. Every request needs the header
    `Authorization: Bearer TOKEN`; nothing outside the spool can be read. With
    --measure-root DIR the agent also runs the measuring requests of `perfwarehouse
    bisect --agent` (checkout, setup and trials of a revision of a repository under
    DIR, one request at a time) and appends their trials to the spool.
    """
    from perfwarehouse.agent.serve import serve

    measurer = None
    if measure_root is not None:
        from perfwarehouse.bisect.service import Measurer

        measurer = Measurer(measure_root, spool, measure_timeout_s)
    serve(spool, port, token_file, host=host, ready=lambda line: click.echo(line),
          measurer=measurer)


@click.command("pull", context_settings=CONTEXT)
@click.option("--sources", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("ingest") / "sources.toml", show_default=True,
              help="TOML file with [[agent]] tables (name, url, token_file).")
@click.option("--chunk-mb", type=click.FloatRange(min=0.001), default=64.0, show_default=True,
              help="Largest chunk of whole lines landed in one transaction.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retries of a failed request (exponential backoff from 0.5 s).")
@click.option("--quarantine", is_flag=True,
              help="Land the good records and keep bad ones in the quarantine table.")
@click.option("--agent-deadline", "agent_deadline_s", type=click.FloatRange(min=1),
              default=3600.0, show_default=True, metavar="S",
              help="Give up on an agent that has not finished within S seconds (what landed "
                   "stays; the other agents are pulled).")
@click.option("-v", "--verbose", is_flag=True, help="One line per landed chunk.")
@click.pass_context
def pull(ctx: click.Context, sources: Path, chunk_mb: float, retries: int, quarantine: bool,
         agent_deadline_s: float, verbose: bool) -> None:
    """Fetch what is new on every agent and ingest it, exactly once.

    A cursor per agent and segment (byte offset and checksum of the last whole
    line) says what is already in the warehouse; each chunk lands with its
    cursor in one transaction, so a pull can be killed and run again at any
    time. A segment whose ingested part changed on the agent is reported and
    skipped (exit code 1), never ingested again.
    """
    from perfwarehouse.ingest.pull import PullOptions, load_sources
    from perfwarehouse.ingest.pull import pull as run_pull

    reporter = context.reporter(ctx)
    warehouse = context.warehouse(ctx)
    options = PullOptions(chunk_bytes=int(chunk_mb * (1 << 20)), retries=retries,
                          quarantine=quarantine, agent_deadline_s=agent_deadline_s)
    log = (lambda line: click.echo(line)) if verbose else None
    reports = run_pull(warehouse, load_sources(sources), options, reporter=reporter, log=log)
    for report in reports:
        for line, is_problem in report.lines():
            click.echo(line, err=is_problem)
    failed = [report.name for report in reports if not report.ok]
    if failed:
        from perfwarehouse.errors import AgentError

        raise AgentError(f"the pull had problems with agent(s) {', '.join(failed)} (see above); "
                         "what was pulled without problems has landed")
