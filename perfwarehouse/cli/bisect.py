"""``perfwarehouse bisect``: the one commit between a good and a bad revision that changed
the performance. Thin: the options, one call of :func:`perfwarehouse.bisect.run.bisect`,
the answer and the exit status. Attached to the main CLI by :mod:`perfwarehouse.cli.main`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from perfwarehouse.cli.context import CONTEXT, settings
from perfwarehouse.cli.context import warehouse as _warehouse


@click.command("bisect", context_settings=CONTEXT)
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The git repository (its checkout is left as it is).")
@click.option("--good", metavar="REV", help="A revision with the old performance.")
@click.option("--bad", metavar="REV", help="A later revision with the new performance.")
@click.option("--command", "command", metavar="CMD",
              help="Shell command measured as trials, run in the revision's checkout.")
@click.option("--setup", metavar="CMD",
              help="Build step run once per revision in its checkout before its trials; a "
                   "revision whose setup fails is skipped (as `git bisect skip`).")
@click.option("--change-point", "change_point", metavar="ID",
              help="Take good, bad, campaign, benchmark and metric from this row of "
                   "change_points (its number in `--change-point list`, or its revision); "
                   "the command from the series' earlier bisection when none is given.")
@click.option("--campaign", help="Campaign the trials are stored in.  [default: bisect, or the "
                                 "change point's]")
@click.option("--benchmark", help="Benchmark name of the trials.  [default: the command, or "
                                  "the change point's]")
@click.option("--metric", default=None, metavar="NAME",
              help="wall_time (seconds, the default), cpu_time (user + system seconds of the "
                   "command's processes: steadier on a busy machine), or the name of what the "
                   "command prints: its last number on stdout, as in `agent run`.")
@click.option("--unit", help="Unit of a printed metric.")
@click.option("--higher-is-better", is_flag=True,
              help="A printed metric is a throughput: higher is better.")
@click.option("--repeat", type=click.IntRange(min=2), metavar="N",
              help="Exactly N trials per revision and step.  [default: adaptive: 5, then "
                   "as many more as compare's test asks for, up to --max-trials]")
@click.option("--max-trials", type=click.IntRange(min=3), default=60, show_default=True,
              metavar="N", help="Most trials of one revision in one step; a revision not "
                                "placed by then is undecided and stepped over.")
@click.option("--max-revisions", type=click.IntRange(min=3), metavar="N",
              help="Stop after measuring N revisions (good and bad included) and print the "
                   "commits left.")
@click.option("--confidence", type=click.FloatRange(0.5, 1.0, max_open=True), default=0.95,
              show_default=True, help="Confidence of compare's intervals (its test's level "
                                      "is 1 - confidence).")
@click.option("--min-change", type=click.FloatRange(min=0.0), default=3.0, show_default=True,
              metavar="PCT", help="Good and bad within +-PCT % of each other: nothing to "
                                  "bisect.")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0.0, min_open=True),
              metavar="S", help="Stop a setup or trial after S seconds (it counts as failed).")
@click.option("--seed", type=int, help="Seed of the shuffled order of each round.")
@click.option("--agent", metavar="NAME|URL",
              help="Measure on this collector agent (an [[agent]] of --sources, or its URL "
                   "with --token-file), started with `agent serve --measure-root`; the "
                   "trials come back by `ingest pull`.  [default: measure here]")
@click.option("--agent-repo", metavar="PATH",
              help="The repository's path on the agent's machine.  [default: --repo's "
                   "absolute path]")
@click.option("--sources", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("ingest") / "sources.toml", show_default=True,
              help="The agents file of `ingest pull` (for --agent NAME).")
@click.option("--token-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The agent's bearer token (for --agent URL; overrides the sources file's).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.pass_context
def bisect(ctx: click.Context, repo: Path, good: str | None, bad: str | None,
           command: str | None, setup: str | None, change_point: str | None,
           campaign: str | None, benchmark: str | None, metric: str | None, unit: str | None,
           higher_is_better: bool, repeat: int | None, max_trials: int,
           max_revisions: int | None, confidence: float, min_change: float,
           timeout_s: float | None, seed: int | None, agent: str | None,
           agent_repo: str | None, sources: Path, token_file: Path | None, fmt: str) -> None:
    """Find the commit between --good and --bad that changed the performance.

    Checks out revisions in worktrees of its own (the repository's HEAD, branch and
    files stay as they are), runs --setup once per revision and --command as trials.
    First it confirms that bad differs from good (else: nothing to bisect, exit 1);
    then it measures the middle of the open range interleaved with both ends and places
    it like good or like bad with compare's test, adding trials while the answer is "not
    yet"; commits whose setup or command fails are skipped; merges are single steps of
    the first-parent line. Every trial is stored in the warehouse under its revision
    and commit time (`perfwarehouse compare --baseline SHA --contender SHA` reruns on
    them). With --agent the checkouts and trials run on a collector agent and the
    trials come back by pull; the decisions are the same. Exit status: 0 culprit found (or the commits it may be), 1 nothing to bisect
    or an error.  Example:

    \b
      perfwarehouse bisect --repo . --good v1.2 --bad main --setup make --command ./bench
    """
    import orjson

    from perfwarehouse.bisect import summary
    from perfwarehouse.bisect.run import BisectConfig, NothingToBisect
    from perfwarehouse.bisect.run import bisect as run_bisect
    from perfwarehouse.bisect.store import change_points, pick_change_point, recorded_command
    from perfwarehouse.errors import UsageError

    warehouse = _warehouse(ctx)
    quiet = settings(ctx).quiet
    if change_point is not None:
        points = change_points(warehouse, campaign, benchmark)
        if change_point == "list":
            for p in points:
                click.echo(f"{p.id:>4}  {p.campaign}  {p.hardware_type}  {p.benchmark}  "
                           f"{p.metric}  {p.revision_before} -> {p.revision}  "
                           + (f"{p.change_pct:+.1f} %  " if p.change_pct is not None else "")
                           + f"{p.direction or ''}")
            if not points:
                click.echo("no change points (run `perfwarehouse analyze change-points`)")
            return
        point = pick_change_point(points, change_point)
        if not point.revision_before or not point.revision:
            raise UsageError(f"change point {point.id} has no revisions (its series is "
                             "ordered by time): give --good and --bad")
        if point.revision_before == point.revision and not good:
            raise UsageError(f"change point {point.id} lies among the trials of one revision "
                             f"({point.revision[:10]} before and after it): give --good, a "
                             "revision before it")
        good, bad = good or point.revision_before, bad or point.revision
        campaign, benchmark = campaign or point.campaign, benchmark or point.benchmark
        metric = metric or point.metric
        unit = unit or point.unit
        higher_is_better = higher_is_better or bool(point.higher_is_better)
        if command is None:
            command, known_setup = recorded_command(warehouse, point)
            setup = setup or known_setup
            if command is None:
                raise UsageError(f"change point {point.id}: no command is recorded for "
                                 f"{point.benchmark!r} in {point.campaign!r}; give --command")
    missing = [n for n, v in (("--good", good), ("--bad", bad), ("--command", command)) if not v]
    if missing:
        raise UsageError(f"bisect needs {', '.join(missing)} (or --change-point ID)")
    assert good and bad and command
    on_agent = None
    if agent is None and (agent_repo or token_file):
        raise UsageError("--agent-repo and --token-file go with --agent (measure on a "
                         "collector agent)")
    if agent is not None:
        from perfwarehouse.bisect.runners import find_agent

        on_agent = find_agent(agent, sources, token_file,
                              Path(agent_repo) if agent_repo else repo.resolve())
    config = BisectConfig(
        repo=repo, good=good, bad=bad, command=command, setup=setup,
        campaign=campaign or "bisect", benchmark=benchmark, metric=metric or "wall_time",
        unit=unit, higher_is_better=True if higher_is_better else None, repeat=repeat,
        max_trials=max_trials, max_revisions=max_revisions, confidence=confidence,
        min_change=min_change, timeout_s=timeout_s, seed=seed, agent=on_agent)
    try:
        outcome = run_bisect(config, warehouse, progress=lambda line: None if quiet
                             else click.echo(line, err=True))
    except NothingToBisect as exc:
        if fmt == "json":
            click.echo(orjson.dumps({"culprit": None, "nothing_to_bisect": str(exc),
                                     "ends": summary.comparison_json(exc.ends)}).decode())
        else:
            click.echo(str(exc))
        sys.exit(1)
    if fmt == "json":
        click.echo(orjson.dumps(summary.to_json(outcome), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(summary.render_text(outcome, confidence), nl=False)
