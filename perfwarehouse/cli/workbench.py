"""Command-line verbs of the workbench controller: ``agent peak-rate``, ``agent surface``,
``plan surface`` (Shivam et al., "Cutting Corners", USENIX ATC 2008).

Attached by :mod:`perfwarehouse.cli.main` (``cli.attach``: to ``agent`` and ``plan`` when built).
Heavy imports happen inside the commands, so ``perfwarehouse --help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from perfwarehouse.cli.context import CONTEXT

INTERRUPTED_EXIT = 130
FORMATS = ("native", "wrk", "hey", "redis-benchmark", "k6", "locust", "sysbench", "jmeter")


def _search_options(f: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option("--spool", type=click.Path(file_okay=False, path_type=Path), required=True,
                     help="Spool directory (created if missing)."),
        click.option("--campaign", required=True, help="Campaign name of the trials."),
        click.option("--command", "template", required=True, metavar="TEMPLATE",
                     help="Shell command of one trial, with {load} (offered rate, or clients in "
                          "a closed loop) and {duration} (seconds) placeholders."),
        click.option("--format", "fmt", type=click.Choice(FORMATS), required=True,
                     help="How to read the command's stdout: a load-test importer, or native "
                          "JSON Lines records."),
        click.option("--r-sat", "r_sat", type=float, required=True, metavar="MS",
                     help="Response-time threshold at the peak rate (ms, of --statistic)."),
        click.option("--statistic", type=click.Choice(["mean", "p50", "p90", "p99"]),
                     default="mean", show_default=True,
                     help="The per-trial response time whose CI across trials decides."),
        click.option("--width", type=float, default=0.1, show_default=True,
                     help="s: the peak-rate region is [R_sat - s R_sat, R_sat + s R_sat] "
                          "(a fraction, or percent)."),
        click.option("--confidence", type=float, default=0.95, show_default=True,
                     help="Confidence c of the intervals (0.95 or 95)."),
        click.option("--accuracy", type=float, default=0.9, show_default=True,
                     help="Target accuracy a (equation 2: 1 - (high-low)/(high+low); a "
                          "fraction, or percent)."),
        click.option("--policy", type=click.Choice(["binsearch", "linear", "model"]),
                     default="binsearch", show_default=True, help="How to pick the next load."),
        click.option("--start-load", type=float, default=None,
                     help="First load.  [default: 50 (open loop), 1 (closed loop)]"),
        click.option("--step", type=float, default=None,
                     help="Fixed step of --policy linear.  [default: the start load]"),
        click.option("--min-trials", type=click.IntRange(min=2), default=2, show_default=True,
                     help="Trials at every load before deciding."),
        click.option("--max-trials", type=click.IntRange(min=2), default=20, show_default=True,
                     help="Most trials at one load."),
        click.option("--max-loads", type=click.IntRange(min=1), default=30, show_default=True,
                     help="Most distinct loads per search."),
        click.option("--budget-s", type=float, default=None,
                     help="Stop a search after this many seconds of load generator."),
        click.option("--loop", type=click.Choice(["open", "closed"]), default="open",
                     show_default=True,
                     help="open: {load} is a rate (req/s); closed: a client count (integer)."),
        click.option("--duration", "duration_s", type=float, default=10.0, show_default=True,
                     help="Seconds of one trial (the {duration} placeholder)."),
        click.option("--timeout", "timeout_s", type=float, default=None,
                     help="Stop a trial after S seconds.  [default: 3 x duration + 30]"),
        click.option("--setting", "settings", multiple=True, metavar="KEY=VALUE",
                     help="A setting of every trial (repeatable)."),
        click.option("--seed-from", type=click.Path(file_okay=False, path_type=Path),
                     default=None, metavar="WAREHOUSE",
                     help="Start at the peak rate of the nearest sample in this warehouse "
                          "(section 5.4: nearest by the numeric settings)."),
        click.option("--benchmark", default=None,
                     help="Benchmark name of the records.  [default: what the importer says]"),
        click.option("--node", default=None, help="Node name.  [default: this host's name]"),
        click.option("--hardware-type", default=None, help="Hardware type.  [default: from "
                                                           "the node name]"),
        click.option("--warmup", type=click.IntRange(min=0), default=1, show_default=True,
                     help="Runs of the command at the first load before a search's first "
                          "trial (not recorded)."),
        click.option("--resume", is_flag=True,
                     help="Continue the search(es) already in the spool."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _pairs(values: tuple[str, ...], what: str) -> tuple[tuple[str, str], ...]:
    out = []
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not KEY=VALUE", param_hint=what)
        out.append((key.strip(), rest.strip()))
    return tuple(out)


def _factors(values: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for name, levels in _pairs(values, "--factor"):
        items = [v.strip() for v in levels.split(",") if v.strip()]
        if not items:
            raise click.BadParameter(f"{name} has no levels", param_hint="--factor")
        if name in (n for n, _ in out):
            raise click.BadParameter(f"{name} is given twice", param_hint="--factor")
        out.append((name, items))
    return out


def _config(kw: dict[str, Any], seeding: bool = True) -> Any:
    from perfwarehouse.agent.workbench import WorkbenchConfig
    from perfwarehouse.stats.fractions import confidence, fraction
    from perfwarehouse.workbench import SearchSpec

    closed = kw["loop"] == "closed"
    start = kw["start_load"] if kw["start_load"] is not None else (1.0 if closed else 50.0)
    spec = SearchSpec(r_sat=kw["r_sat"], width=fraction(kw["width"], "--width"),
                      confidence=confidence(kw["confidence"], "--confidence"),
                      accuracy=fraction(kw["accuracy"], "--accuracy"), policy=kw["policy"], start_load=start,
                      step=kw["step"], min_trials=kw["min_trials"], max_trials=kw["max_trials"],
                      max_loads=kw["max_loads"], budget_s=kw["budget_s"], resolution=1.0)
    return WorkbenchConfig(
        spool=kw["spool"], campaign=kw["campaign"], template=kw["template"], fmt=kw["fmt"],
        spec=spec, statistic=kw["statistic"], loop=kw["loop"], duration_s=kw["duration_s"],
        timeout_s=kw["timeout_s"], settings=_pairs(kw["settings"], "--setting"),
        seed_from=kw["seed_from"], node=kw["node"], hardware_type=kw["hardware_type"],
        resume=kw["resume"], benchmark=kw["benchmark"], seeding=seeding, warmup=kw["warmup"])


def _finish(outcome: Any, spool: Path) -> None:
    if outcome.interrupted:
        click.echo(f"interrupted {outcome.interrupted}: wrote {outcome.trials_written} trial(s); "
                   f"the spool {spool} is consistent; continue with the same command and "
                   "--resume", err=True)
        sys.exit(INTERRUPTED_EXIT)  # not click's Exit: main() runs click standalone_mode=False
    code = outcome.exit_code
    if code:
        click.echo("a budget ran out before the target confidence and accuracy were met "
                   "(exit status 3); the best estimates are above", err=True)
        sys.exit(code)


@click.command("peak-rate", context_settings=CONTEXT)
@_search_options
def peak_rate(**kw: Any) -> None:
    """Find the peak rate λ* with a target confidence and accuracy (Algorithm 2 of
    Shivam et al., "Cutting Corners", USENIX ATC 2008).

    Runs TEMPLATE at a sequence of loads picked by --policy; at each load at least
    --min-trials trials, more only while the load is a peak candidate (the CI of
    --statistic overlaps [R_sat ± s·R_sat]) and its accuracy is below --accuracy.
    Every trial is appended to the spool as native load-test records (so
    `ingest pull` brings them in), the outcome and its cost as a `peak_rate` run.
    Exit status 0: target met; 3: a budget ran out (best estimate printed); 130:
    interrupted (continue with --resume).
    """
    from perfwarehouse.agent.workbench import run_searches

    config = _config(kw)
    outcome = run_searches(config, [{}], echo=click.echo,
                           warn=lambda m: click.echo(m, err=True))
    _finish(outcome, config.spool)


@click.command("surface", context_settings=CONTEXT)
@_search_options
@click.option("--factor", "factors", multiple=True, required=True, metavar="NAME=V1,V2,...",
              help="A factor and its levels (repeatable); {NAME} in TEMPLATE.")
@click.option("--samples", type=click.IntRange(min=1), default=None,
              help="K: run a D-optimal design of K samples.  [default: every combination]")
@click.option("--design-seed", type=int, default=0, show_default=True,
              help="Seed of the exchange algorithm's random starts.")
@click.option("--seeding/--no-seeding", default=True, show_default=True,
              help="Start each sample at the peak rate of the nearest finished one.")
def agent_surface(factors: tuple[str, ...], samples: int | None, design_seed: int,
                  seeding: bool, **kw: Any) -> None:
    """Map the peak-rate response surface over factors (Algorithm 1 and section 5.5).

    Picks K samples with a D-optimal design for a full quadratic model (or takes
    every combination), then runs the peak-rate search on each, seeding each from
    the nearest finished sample. Fit the surface afterwards with
    `perfwarehouse analyze surface --campaign C --factors A,B` (after `ingest pull`).
    """
    from perfwarehouse.agent.workbench import run_searches
    from perfwarehouse.workbench.surface import plan_samples

    parsed = _factors(factors)
    chosen = plan_samples(parsed, samples, "d-optimal" if samples else "full", design_seed)
    config = _config(kw, seeding=seeding)
    click.echo(f"surface: {len(chosen)} sample(s): "
               + "; ".join(", ".join(f"{k}={v}" for k, v in s.items()) for s in chosen))
    outcome = run_searches(config, chosen, echo=click.echo,
                           warn=lambda m: click.echo(m, err=True))
    done = [s.result for s in outcome.samples if s.result is not None]
    total_trials = sum(r.trials for r in done)
    total_s = sum(r.seconds for r in done)
    click.echo(f"surface: {len(done)} of {len(chosen)} searches finished; {total_trials} "
               f"trials, {total_s:.1f} s of load generator")
    _finish(outcome, config.spool)


@click.command("surface", context_settings=CONTEXT)
@click.option("--factor", "factors", multiple=True, required=True, metavar="NAME=V1,V2,...",
              help="A factor and its levels (repeatable).")
@click.option("--samples", type=click.IntRange(min=1), default=None,
              help="K samples to pick.  [default: every combination]")
@click.option("--design", type=click.Choice(["d-optimal", "full"]), default=None,
              help="d-optimal: K samples maximising det(X'X) of the quadratic model; full: "
                   "every combination.  [default: d-optimal with --samples, else full]")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the exchange algorithm's random starts.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv",
              show_default=True)
def plan_surface(factors: tuple[str, ...], samples: int | None, design: str | None, seed: int,
                 fmt: str) -> None:
    """Print the samples a D-optimal design picks for a full quadratic model in the factors
    (Shivam et al., USENIX ATC 2008, section 5.5; Myers and Montgomery's RSM)."""
    import csv
    import json

    from perfwarehouse.workbench.surface import plan_samples

    parsed = _factors(factors)
    design = design or ("d-optimal" if samples else "full")
    chosen = plan_samples(parsed, samples, design, seed)
    names = [n for n, _ in parsed]
    if fmt == "json":
        click.echo(json.dumps(chosen, indent=1))
        return
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["sample", *names])
    for i, row in enumerate(chosen, 1):
        writer.writerow([i, *(row[n] for n in names)])
