"""``perfwarehouse compare``: is the contender slower than the baseline, by how much, how sure.

Attached to the main CLI by :mod:`perfwarehouse.cli.main` (imported when named). This
module parses the options (every check before any heavy import) and prints; the work is
:func:`perfwarehouse.comparison.compare` (reading both sides, the statistics, keeping the
result in ``comparisons``) and :func:`perfwarehouse.comparison.render`.
"""

from __future__ import annotations

import math

import click

from perfwarehouse.cli.context import CONTEXT, Formats

#: the output formats of perfwarehouse.comparison.render
FORMATS = ("table", "markdown", "csv", "json")


def _finite(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A number option that must be finite (nan and inf are refused in one line)."""
    if not math.isfinite(value):
        raise click.BadParameter(f"must be a finite number, got {value}")
    return value


def _confidence(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """--confidence read by the one fraction/percentage rule; a change's interval needs >= 0.5.
    A refusal is a usage error (exit 2)."""
    from perfwarehouse.stats.fractions import FractionError, confidence

    try:
        c = confidence(value, "--confidence")
    except FractionError as exc:
        raise click.BadParameter(str(exc).removeprefix("--confidence ")) from None
    if c < 0.5:
        raise click.BadParameter(f"must be at least 0.5 (50 %), got {value:g}")
    return c


@click.command("compare", context_settings=CONTEXT)
@click.option("--campaign", help="Campaign of both sides (unless --baseline-campaign / "
                                 "--contender-campaign say otherwise).")
@click.option("--baseline", "baseline_rev", metavar="REV",
              help="Revision of the baseline side (default: every revision of its campaign).")
@click.option("--contender", "contender_rev", metavar="REV",
              help="Revision of the contender side (default: every revision of its campaign).")
@click.option("--baseline-campaign", help="Campaign of the baseline side.")
@click.option("--contender-campaign", help="Campaign of the contender side.")
@click.option("--baseline-where", metavar="SQL",
              help="Filter of the baseline's measurements, e.g. \"node = 'c220g2-000001'\".")
@click.option("--contender-where", metavar="SQL", help="Filter of the contender's measurements.")
@click.option("--confidence", type=float, default=0.95, callback=_confidence,
              show_default=True, help="Confidence of the change's interval, 0.5 <= c < 1 (0.95 "
                                      "or 95); 1 - confidence is the level of the adjusted "
                                      "p-values (benchstat's 0.05 by default).")
@click.option("--threshold", type=click.FloatRange(min=0.0), default=1.0, show_default=True,
              callback=_finite, metavar="PCT",
              help="Changes within +-PCT percent count as no change: a verdict needs the whole "
                   "interval beyond it (1 %, as analyze change-points' --min-effect; 0: every "
                   "significant change counts, as in benchstat).")
@click.option("--correction", type=click.Choice(["bh", "holm", "bonferroni", "none"]),
              default="bh", show_default=True,
              help="Adjustment of the p-values over the configurations: bh keeps the share of "
                   "false verdicts among the verdicts at 1 - confidence (and the chance of any "
                   "false verdict in a comparison with no real change); holm/bonferroni the "
                   "chance of any false verdict always; none is benchstat's (each row alone). "
                   "Calibration table: docs/compare.md.")
@click.option("--format", "fmt", type=Formats(FORMATS), default="table", show_default=True,
              help="table: for a terminal (fits COLUMNS); markdown (md): for a CI summary; "
                   "csv or json: every column, the verdict line on stderr.")
@click.option("--fail-on", "fail_on", type=click.Choice(["slower", "faster", "inconclusive"]),
              multiple=True, help="Exit with status 3 when any row has this verdict (repeatable; "
                                  "for CI gating: --fail-on slower). Rows whose sample is one "
                                  "invocation's repetitions on a side are noted, not gated, "
                                  "unless --gate-single-invocation. Errors exit 1, usage 2.")
@click.option("--gate-single-invocation", is_flag=True,
              help="Let --fail-on gate on rows whose side is one invocation of the tool (its "
                   "repetitions share one machine state, so the test overstates the evidence).")
@click.option("--no-save", is_flag=True, help="Do not keep the result in table comparisons.")
@click.pass_context
def compare(ctx: click.Context, campaign: str | None, baseline_rev: str | None,
            contender_rev: str | None, baseline_campaign: str | None,
            contender_campaign: str | None, baseline_where: str | None,
            contender_where: str | None, confidence: float, threshold: float, correction: str,
            fmt: str, fail_on: tuple[str, ...], gate_single_invocation: bool,
            no_save: bool) -> None:
    """Compare a contender with a baseline, per configuration and hardware type.

    Each side is a campaign, optionally one revision of it and a SQL filter. For every
    configuration: the medians of both sides (in readable units), the change in percent
    and as a ratio with its confidence interval (log-scale Hodges-Lehmann,
    distribution-free), the exact Mann-Whitney p-value adjusted over the configurations,
    and a verdict: slower, faster, no change (the interval lies inside +-threshold), no
    significant change (p above the level and the interval holds 0: benchstat's "~") or
    inconclusive (with how many more trials would give 80 % power). The sample is the
    trials, or each tool's repetitions where a side has fewer than 5 trials (hyperfine's
    runs; one invocation a side is noted and not gated). One section per unit, largest
    change first, then a geometric mean per unit; the table fits the terminal (COLUMNS).
    Exit status: 0, 1 user error (also: nothing to compare), 2 usage, 3 a --fail-on
    verdict.  Example:

      perfwarehouse compare --campaign nightly --baseline v1.2 --contender v1.3 --fail-on slower
    """
    from perfwarehouse.cli.context import VERDICT_EXIT
    from perfwarehouse.cli.context import warehouse as _warehouse

    b_campaign = baseline_campaign or campaign
    c_campaign = contender_campaign or campaign
    if not b_campaign or not c_campaign:
        raise click.UsageError("give --campaign (or --baseline-campaign and "
                               "--contender-campaign)", ctx)
    from perfwarehouse.comparison import Side, render
    from perfwarehouse.comparison import compare as run

    result = run(_warehouse(ctx), Side("baseline", b_campaign, baseline_rev, baseline_where),
                 Side("contender", c_campaign, contender_rev, contender_where),
                 confidence=confidence, threshold=threshold, correction=correction,
                 keep=not no_save)
    if fmt in ("csv", "json"):
        click.echo(result.headline, err=True)
    click.echo(render(result, fmt), nl=False)
    if result.gated(fail_on, gate_single_invocation):
        ctx.exit(VERDICT_EXIT)
