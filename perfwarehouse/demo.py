"""``perfwarehouse demo``: the main job, end to end, on the embedded default warehouse.

1. generate the ``ordersage-longterm`` campaign (~2.3M trials, about 1 GB of JSON Lines)
   into a temporary directory next to the warehouse (never inside it), ingest it and
   delete the file; a repeated demo finds the campaign in the warehouse and skips both;
   the same for the generated ``load-campaign`` (load tests with ground truth);
2. ingest the OrderSage fixtures as campaigns named after their studies (``memcached``,
   ``NPB``, ``uFS``; a repeated demo ingests nothing new);
3. run the analyses that apply to each campaign (:func:`perfwarehouse.jobs.plan.plan_all`,
   as ``analyze all`` does; ``load`` with the generated campaign's R_sat), one per core at
   a time (:mod:`perfwarehouse.jobs.parallel`), one line as each starts and as each ends;
4. write the report site (:mod:`perfwarehouse.reports.site`) and print its verdicts,
   campaign by campaign, the long-term campaign first (issue 40: the demo led with NPB's
   "order does not matter" and never showed the campaign where order matters), then say
   where everything is.

Every step longer than about 2 s shows a bar or a ticking clock on a terminal.
"""

from __future__ import annotations

import json
import tempfile
import textwrap
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfwarehouse.config import data_dir
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one

LONGTERM = "ordersage-longterm"
LOAD_CAMPAIGN = "load-campaign"

#: The OrderSage fixture directories and the study each holds (Duplyakin et al.,
#: USENIX ATC 2023, Tables 3-5): the demo's campaign names.
FIXTURE_CAMPAIGNS = {
    "20211012_21:02:01_results": "memcached",
    "20221005_12:13:03_results": "NPB",
    "20221012_19:59:50_results": "uFS",
}

#: How a verdict's level reads in the terminal.
LEVEL_WORDS = {"alarm": "ACTION", "ok": "ok", "info": "info", "missing": "missing"}


def fixture_campaign(directory: Path) -> str:
    """The campaign name of a fixture directory: its study, else the directory name."""
    return FIXTURE_CAMPAIGNS.get(directory.name, directory.name)


def fixture_directories() -> list[Path]:
    """The OrderSage results directories behind Tables 3-5 of Duplyakin et al. (OrderSage,
    USENIX ATC 2023), shipped with the code."""
    root = data_dir("examples") / "ordersage"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def run_demo(
    warehouse: Warehouse, *, seed: int, scale: float, reports_dir: Path, reporter: Reporter,
    echo: Callable[[str], None], scheduler: str | None = None,
) -> None:
    from perfwarehouse.reports.site import write_site

    start = time.monotonic()

    def step(message: str) -> None:
        echo(f"[{time.monotonic() - start:6.1f} s] {message}")

    _generate_and_ingest(warehouse, LONGTERM, seed=seed, scale=scale, reporter=reporter,
                         step=step)
    for directory in fixture_directories():
        name = fixture_campaign(directory)
        summary = ingest_ordersage(warehouse, [directory], campaign=name, reporter=reporter)
        step(f"OrderSage fixture {directory.name} as campaign {name}: {summary.outcome}, "
             f"{summary.trials_added:,} trials added")
    _generate_and_ingest(warehouse, LOAD_CAMPAIGN, seed=seed, scale=1.0, reporter=reporter,
                         step=step)
    with warehouse.catalog() as con:
        row = fetch_one(con, "SELECT count(*) FROM measurements")
    total = row[0] if row else 0
    step(f"the warehouse {warehouse.root} holds {total:,} measurements")

    run_analyses(warehouse, reporter=reporter, step=step, scheduler=scheduler)
    step("writing the report site ...")
    index = write_site(warehouse, reports_dir, reporter=reporter, echo=step)
    step("done")
    echo("")
    for line in verdict_lines(reports_dir, _campaign_names(warehouse)):
        echo(line)
    echo("")
    echo(f"warehouse: {warehouse.root}  (try: perfwarehouse sql \"SELECT hardware_type, "
         "count(*) FROM measurements GROUP BY 1\")")
    echo(f"reports:   {Path(index).resolve()}  (every campaign, with its pages' verdicts)")


# ------------------------------------------------------------------ analyses
def planned_runs(warehouse: Warehouse) -> tuple[list[tuple[Any, Any, tuple[str, ...]]], list[str]]:
    """The demo's analyses: ``analyze all``'s plan (each job on the campaigns it applies
    to, with the parameters it last ran with there), ``load`` with the generated load
    campaign's R_sat where no run of it kept another; and one line per job left out."""
    from perfwarehouse.generate.load_campaign import R_SAT_MS
    from perfwarehouse.jobs import JOBS
    from perfwarehouse.jobs.plan import plan_all

    planned, skipped = plan_all(warehouse, JOBS)
    runs = []
    for run in planned:
        params = run.params
        if run.job.name == "load" and "r_sat" not in run.kept:
            params = run.job.params(**{**run.kept, "r_sat": f"{R_SAT_MS:g}"})
        runs.append((run.job, params, run.campaigns))
    left_out = [f"{s.job} left out on {_names(s.campaigns)}: {s.reason}" for s in skipped]
    return runs, left_out


def start_order(runs: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The order :func:`~perfwarehouse.jobs.parallel.run_jobs` starts ``runs`` in, the
    costliest first (a stable sort: ties keep the plan's order); one after another with
    one worker, else the next one each time a worker is free."""
    return sorted(runs, key=lambda run: -run[0].relative_cost)


def run_analyses(warehouse: Warehouse, *, reporter: Reporter, step: Callable[[str], None],
                 scheduler: str | None = None, processes: int | None = None) -> int:
    """Run :func:`planned_runs`, one line as each analysis starts and as each ends (with
    its rows and duration), a bar of the analyses done meanwhile; returns how many ran."""
    from contextlib import nullcontext

    from perfwarehouse.jobs.parallel import job_workers, run_jobs

    step("choosing the analyses that apply to each campaign ...")
    runs, left_out = planned_runs(warehouse)
    for line in left_out:
        step(line)
    ordered = start_order(runs)
    workers = job_workers(len(ordered), processes, scheduler=scheduler)
    step(f"running {len(ordered)} analyses, {workers} at a time ...")
    waiting = deque(ordered)

    def started() -> None:
        job, _params, campaigns = waiting.popleft()
        step(f"analyze {job.name} starts ({_names(campaigns)})")

    for _ in range(min(workers, len(waiting))):
        started()
    # worker processes report no progress of their own: a bar of the analyses done (its
    # clock ticks); one worker runs the jobs here, with their own bars
    bar = (reporter.task("analyses", total=len(ordered), unit="analyses") if workers > 1
           else nullcontext(None))
    with bar as task:
        for job, result in run_jobs(warehouse, ordered, processes=processes,
                                    reporter=reporter, scheduler=scheduler):
            rows = sum(t.num_rows for t in result.tables.values())
            step(f"analyze {job.name} done: {rows:,} rows in {', '.join(job.outputs)} "
                 f"({result.duration_s:.1f} s)")
            if task is not None:
                task.advance(1)
            if waiting:
                started()
    return len(ordered)


def _names(campaigns: Sequence[str]) -> str:
    names = sorted(campaigns, key=lambda n: (n != LONGTERM, n.lower()))
    if len(names) <= 3:
        return ", ".join(names)
    return f"{len(names)} campaigns: {', '.join(names[:2])}, ..."


# ------------------------------------------------------------------ verdicts
def verdict_lines(site: Path, campaigns: Sequence[str], width: int = 100) -> list[str]:
    """The verdicts of the site's pages, campaign by campaign: the long-term campaign
    first, then the others by name; in each, the pages that need action first. Each
    verdict is its first sentence (the page says the rest), wrapped at ``width``; a
    campaign without a manifest (no page written) is left out."""
    from perfwarehouse.reports.site import MANIFEST, campaign_slug

    order = {"alarm": 0, "missing": 1, "ok": 2, "info": 3}
    lines = ["What the analyses found (the long-term campaign first; each page says more):"]
    for name in sorted(campaigns, key=lambda n: (n != LONGTERM, n.lower())):
        path = site / campaign_slug(name) / MANIFEST
        if not path.is_file():
            continue
        pages = json.loads(path.read_text(encoding="utf-8")).get("pages", [])
        shown = [(p["href"].removesuffix(".html"), p["verdict"]) for p in pages if p.get("verdict")]
        shown.sort(key=lambda item: order.get(item[1][1], 4))
        lines.append(f"campaign {name}:")
        for page, (text, level) in shown:
            sentence = first_sentence(text.removeprefix(f"Campaign {name}: "))
            head = f"  {LEVEL_WORDS.get(level, level):<7} {page}: "
            lines += textwrap.wrap(sentence, width, initial_indent=head,
                                   subsequent_indent=" " * 10) or [head]
    return lines


def first_sentence(text: str, limit: int = 240) -> str:
    """The first sentence of ``text`` (up to ". " before a capital letter or the end), cut
    at ``limit`` characters with an ellipsis."""
    cut = len(text)
    for i in range(len(text) - 1):
        if text[i] == "." and text[i + 1] == " " and (i + 2 >= len(text) or text[i + 2].isupper()):
            cut = i + 1
            break
    sentence = text[:cut]
    return sentence if len(sentence) <= limit else sentence[:limit - 1].rstrip() + "…"


def _campaign_names(warehouse: Warehouse) -> list[str]:
    with warehouse.catalog() as con:
        return [str(n) for n in fetch_arrow(con, "SELECT campaign FROM campaigns")
                .column(0).to_pylist()]


# ------------------------------------------------------------------ inputs
def _generate_and_ingest(warehouse: Warehouse, campaign: str, *, seed: int, scale: float,
                         reporter: Reporter, step: Callable[[str], None]) -> None:
    """Generate ``campaign`` into a temporary directory next to the warehouse (never inside
    it), ingest it and delete the file; nothing to do when the warehouse holds it."""
    from perfwarehouse.generate import generate
    from perfwarehouse.generate.trials import write_generated

    if _has_campaign(warehouse, campaign):
        step(f"the warehouse already holds {campaign}: nothing to generate")
        return
    warehouse.root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".perfwarehouse-demo-input-",
                                     dir=warehouse.root.parent) as tmp:
        jsonl = Path(tmp) / f"{campaign}-seed{seed}-scale{scale:g}.jsonl"
        step(f"generating the {campaign} campaign (seed {seed}) ...")
        # the long-term campaign advances by hardware type; the load campaign takes 0.1 s
        types = 13 if campaign == LONGTERM else None
        with reporter.task(f"generating {campaign}", total=types, unit="hardware types") as task:
            generated = generate(campaign, seed=seed, scale=scale, task=task)
        n = generated.records.num_rows
        with reporter.task(f"writing {jsonl.name}", total=1.0, unit="MB") as task:
            write_generated(generated, jsonl, task=task)
        del generated
        step(f"generated {n:,} records ({jsonl.stat().st_size / 1e6:,.0f} MB of JSON Lines)")
        summary = ingest_jsonl(warehouse, [jsonl], reporter=reporter)
        step(f"{campaign}: {summary.outcome}, {summary.trials_added:,} trials added "
             "(the generated file is deleted)")


def _has_campaign(warehouse: Warehouse, campaign: str) -> bool:
    if not warehouse.exists():
        return False
    return bool(warehouse.data_files([campaign]))
