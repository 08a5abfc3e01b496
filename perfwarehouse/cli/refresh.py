"""``perfwarehouse refresh``: the nightly loop (:mod:`perfwarehouse.refresh`)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click

from perfwarehouse.cli.context import (
    CONTEXT,
    VERDICT_EXIT,
    Formats,
    echo,
    reporter,
    settings,
    warehouse,
)


@click.command("refresh", context_settings=CONTEXT)
@click.option("--site", type=click.Path(file_okay=False, path_type=Path),
              default=Path("reports"), show_default=True,
              help="The report site to keep up to date (the pages of the campaigns that "
                   "changed, the index and new.html).")
@click.option("--no-site", is_flag=True, help="Write no pages.")
@click.option("--sources", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML file of the agents to pull from.  [default: ingest/sources.toml "
                   "when it exists, else no pull]")
@click.option("--pull-retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retries of a failed request to an agent (exponential backoff from 0.5 s).")
@click.option("--job", "jobs", multiple=True, metavar="NAME",
              help="Only this analysis (repeat for several).  [default: every analysis]")
@click.option("--processes", type=click.IntRange(min=1), default=None, metavar="N",
              help="Analyses at a time, each in its own process (1: one after another, "
                   "here).  [default: one per core]")
@click.option("--since", type=click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M:%S",
                                              "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M"]),
              default=None, metavar="TIME",
              help="New since this time (UTC; the latest analyses that had started before "
                   "it) instead of since the previous refresh.")
@click.option("--format", "output_format", type=Formats(["text", "json", "markdown"]),
              default="text", show_default=True,
              help="What to print: lines, one JSON object (a list `new`), or Markdown (a CI "
                   "job summary, an issue).")
@click.option("--fail-on", "fail_on", type=click.Choice(["new-regression"]), default=None,
              help=f"Exit with code {VERDICT_EXIT} when the refresh finds a new regression "
                   "(cron, CI).")
@click.option("--notify", "notify_url", metavar="URL", default=None,
              help="POST the summary as JSON to this webhook (a `text` field for Slack-style "
                   "hooks, the findings beside it); a failed post is a warning.")
@click.option("--notify-timeout", type=click.FloatRange(min=0.1), default=10.0,
              show_default=True, metavar="S", help="Seconds per attempt of the post.")
@click.option("--notify-retries", type=click.IntRange(min=0), default=3, show_default=True,
              help="Retries of a failed post (backoff from 0.5 s).")
@click.option("--site-url", default="", metavar="URL",
              help="Where the site is served, put in front of each finding's link (JSON, "
                   "Markdown, the post).  [default: links relative to the site]")
@click.pass_context
def refresh(ctx: click.Context, site: Path, no_site: bool, sources: Path | None,
            pull_retries: int, jobs: tuple[str, ...], processes: int | None, since: datetime | None,
            output_format: str, fail_on: str | None, notify_url: str | None,
            notify_timeout: float, notify_retries: int, site_url: str) -> None:
    """Pull, analyse what changed, rewrite the changed campaigns' pages, and say what is
    new since the previous refresh.

    Pulls from the agents of ingest/sources.toml (when it exists), runs every analysis
    that is stale or missing for a campaign (as `status` lists them; each with the
    parameters it last ran with there), writes the pages of the campaigns that changed
    and the index, then prints the new regressions and improvements (change points that
    are steps), order dependencies, drifts and inconclusive comparisons: those the
    latest analyses hold and the analyses of the previous refresh did not. The refresh
    point is written last: a refresh that is killed is redone by the next one, never
    skipped. Exit codes: 0, 1 an error (or a pull that had problems; what landed is
    analysed), 2 bad usage, 3 with --fail-on new-regression and a new regression.
    """
    from datetime import timezone

    from perfwarehouse.refresh import findings as fmt
    from perfwarehouse.refresh.run import RefreshOptions
    from perfwarehouse.refresh.run import refresh as run_refresh

    quiet = settings(ctx).quiet
    options = RefreshOptions(site=None if no_site else site, sources=sources, jobs=jobs,
                             processes=processes, pull_retries=pull_retries,
                             since=since.replace(tzinfo=timezone.utc) if since else None)
    say = (lambda _line: None) if quiet else (lambda line: echo(line, err=True))
    result = run_refresh(warehouse(ctx), options, reporter=reporter(ctx), echo=say,
                         warn=lambda line: echo(f"warning: {line}", err=True),
                         scheduler=settings(ctx).scheduler)
    prefix = site_url.rstrip("/") + "/" if site_url else ""
    if output_format == "json":
        echo(fmt.as_json(result.new, result.since, refresh_id=result.refresh_id,
                         site=prefix, ran=[{"job": j, "campaigns": list(c), "job_run_id": i}
                                           for j, c, i in result.ran],
                         campaigns_written=result.campaigns, batches=result.batches))
    elif output_format == "markdown":
        click.echo(fmt.markdown(result.new, result.since, prefix), nl=False)
    else:
        for line in fmt.text_lines(result.new, result.since):
            echo(line)
        from perfwarehouse.output import count

        echo(f"refresh {result.refresh_id}: {count(len(result.batches), 'new batch', 'new batches')}, "
             f"{count(len(result.ran), 'analysis run')}, pages of "
             f"{count(len(result.campaigns), 'campaign')} written, in {result.seconds:.1f} s")
    if notify_url:
        from perfwarehouse.refresh.notify import payload, post

        problem = post(notify_url, payload(result.new, result.since, prefix),
                       retries=notify_retries, timeout_s=notify_timeout)
        if problem is not None:
            echo(f"warning: the post to {notify_url} failed ({problem}); the refresh is "
                 "recorded", err=True)
    if result.problems:
        from perfwarehouse.errors import AgentError

        raise AgentError("the pull had problems (see above); what landed was analysed and "
                         "the refresh is recorded")
    if fail_on == "new-regression" and any(f.kind == "regression" for f in result.new):
        ctx.exit(VERDICT_EXIT)
