"""``perfwarehouse analyze JOB`` for every registered job (its parameters become options) and
``analyze all``. The jobs come from the lazy catalog :mod:`perfwarehouse.jobs` (a job's
module is imported only when its command is built).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import click

from perfwarehouse.cli.context import (
    CONTEXT,
    VERDICT_EXIT,
    LazyGroup,
    echo,
    reporter,
    settings,
    warehouse,
)


def _job_command(job: Any) -> click.Command:
    """The ``analyze`` command of one job: its parameters become options."""

    def callback(**kwargs: Any) -> None:
        from perfwarehouse.jobs.framework import campaigns_of, run_job

        ctx = click.get_current_context()
        names = {f.name for f in dataclasses.fields(job.params) if not f.metadata.get("internal")}
        params = job.params(**{k: v for k, v in kwargs.items() if k in names})
        result = run_job(warehouse(ctx), job, params,
                         campaigns=campaigns_of(params), reporter=reporter(ctx),
                         scheduler=settings(ctx).scheduler)
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
FAIL_EXIT = VERDICT_EXIT


def _job_verdict(name: str, tables: Mapping[str, Any]) -> int | None:
    """How many rows carry the job's verdict (None: the job has none)."""
    if name not in FAIL_ON:
        return None
    _what, table, column = FAIL_ON[name]
    t = tables.get(table)
    if t is None or column not in t.column_names:
        return 0
    return sum(1 for v in t.column(column).to_pylist() if v)


def _analyze_all_command() -> click.Command:
    """``analyze all``: every job on the campaigns it applies to, with the parameters it
    last ran with there (:mod:`perfwarehouse.jobs.plan`)."""

    def callback(campaign: str | None, processes: int | None) -> None:
        from perfwarehouse.jobs import JOBS
        from perfwarehouse.jobs.parallel import run_jobs
        from perfwarehouse.jobs.plan import plan_all

        ctx = click.get_current_context()
        planned, skipped = plan_all(warehouse(ctx), JOBS, campaign)
        for left_out in skipped:
            echo(f"{left_out.job}: does not apply to {_campaigns(left_out.campaigns)}: "
                 f"{left_out.reason}")
        for run in planned:
            if run.kept:
                given = " ".join(f"--{k.replace('_', '-')} {v:g}" if isinstance(v, float)
                                 else f"--{k.replace('_', '-')} {v}" for k, v in run.kept.items())
                echo(f"{run.job.name}: keeps {given} (its last run) on "
                     f"{_campaigns(run.campaigns)}")
        for job, result in run_jobs(warehouse(ctx),
                                    [(r.job, r.params, r.campaigns) for r in planned],
                                    processes=processes, reporter=reporter(ctx),
                                    scheduler=settings(ctx).scheduler):
            rows = sum(t.num_rows for t in result.tables.values())
            echo(f"{job.name}: {rows:,} rows in {', '.join(job.outputs)} "
                 f"(job_run_id {result.job_run_id}, {result.duration_s:.2f} s)")

    return click.Command(
        "all", callback=callback, context_settings=CONTEXT,
        help="Run every analysis that applies to each campaign (order studies, load tests, "
             "peak-rate searches: a job that does not apply is named and left out), with "
             "the parameters it last ran with on that campaign (else its defaults), one job "
             "per core at a time; each line says a job finished.",
        params=[click.Option(["--campaign"], default=None,
                             help="Only this campaign.  [default: every campaign]"),
                click.Option(["--processes"], type=click.IntRange(min=1), default=None,
                             metavar="N",
                             help="Jobs at a time, each in its own process (1: one after "
                                  "another, here).  [default: one per core]")])


def _campaigns(names: tuple[str, ...]) -> str:
    return (f"campaign {names[0]}" if len(names) == 1
            else f"{len(names)} campaigns ({', '.join(names)})")


#: Options read by the one fraction/percentage rule (:mod:`perfwarehouse.stats.fractions`)
#: in every job that has them: the rule (a confidence, a fraction, a fraction that may be
#: 0). They are checked before the job's module is imported (issue 40: a bad
#: ``--confidence`` refused in well under a second, as a usage error); the job checks
#: them again (the Python API). tests/unit/test_cli_option_checks.py holds this table to
#: the jobs' parameters.
FRACTION_OPTIONS: dict[str, str] = {
    "--confidence": "confidence", "--kpi-confidence": "confidence",
    "--ci-confidence": "confidence", "--percentile": "fraction",
    "--kpi-percentile": "fraction", "--law-tolerance": "fraction",
    "--tolerance": "fraction or 0", "--width": "fraction or 0",
}


def check_fraction_options(args: list[str]) -> None:
    """Refuse (click's usage error, exit 2) a value of a :data:`FRACTION_OPTIONS` option
    in ``args`` that breaks the one rule; imports nothing heavy."""
    from perfwarehouse.stats.fractions import FractionError, confidence, fraction

    for i, arg in enumerate(args):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        rule = FRACTION_OPTIONS.get(name)
        if rule is None or (not eq and i + 1 >= len(args)):
            continue
        value = value if eq else args[i + 1]
        if value == "" and name == "--ci-confidence":  # its default: the family-wise one
            continue
        try:
            if rule == "confidence":
                confidence(value, name)
            else:
                fraction(value, name, zero=rule == "fraction or 0")
        except FractionError as exc:
            raise click.BadParameter(str(exc).removeprefix(f"{name} "),
                                     param_hint=f"'{name}'") from None


class _JobGroup(LazyGroup):
    """The ``analyze`` group: the fraction options checked before a job is imported."""

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        if not ctx.resilient_parsing:
            check_fraction_options(args[1:])
        return super().resolve_command(ctx, args)


@click.group(context_settings=CONTEXT, cls=_JobGroup, catalog="perfwarehouse.jobs",
             build=lambda job: _job_command(job), all_command=lambda: _analyze_all_command())
def analyze() -> None:
    """Run an analysis job; results go to a table keyed by job_run_id (see job_runs)."""


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
