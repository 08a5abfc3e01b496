"""``perfwarehouse demo``: the main job, end to end, on the embedded default warehouse.

1. generate the ``ordersage-longterm`` campaign (~2.3M trials, about 1 GB of JSON Lines)
   into a temporary directory next to the warehouse (never inside it), ingest it and
   delete the file; a repeated demo finds the campaign in the warehouse and skips both;
   the same for the generated ``load-campaign`` (load tests with ground truth);
2. ingest the OrderSage fixtures as campaigns named after their studies (``memcached``,
   ``NPB``, ``uFS``; a repeated demo ingests nothing new);
3. run every registered analysis (``load`` with the campaign's R_sat), one per core at a
   time (:mod:`perfwarehouse.jobs.parallel`);
4. write the report site (:mod:`perfwarehouse.reports.site`: every campaign with the
   pages that apply to its kind, and ``index.html``) and say where everything is.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from perfwarehouse.config import data_dir
from perfwarehouse.generate import generate_to_file
from perfwarehouse.ingest.service import ingest_jsonl, ingest_ordersage
from perfwarehouse.progress import Reporter
from perfwarehouse.warehouse.store import Warehouse, fetch_one

LONGTERM = "ordersage-longterm"
LOAD_CAMPAIGN = "load-campaign"

#: The OrderSage fixture directories and the study each holds (Duplyakin et al.,
#: USENIX ATC 2023, Tables 3-5): the demo's campaign names.
FIXTURE_CAMPAIGNS = {
    "20211012_21:02:01_results": "memcached",
    "20221005_12:13:03_results": "NPB",
    "20221012_19:59:50_results": "uFS",
}


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
    from perfwarehouse.jobs import JOBS
    from perfwarehouse.jobs.parallel import job_workers, run_jobs
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

    runs = []
    for job in JOBS:
        params = job.params()
        if job.name == "load":  # the generated campaign's saturation threshold
            from perfwarehouse.generate.load_campaign import R_SAT_MS

            params = job.params(r_sat=f"{R_SAT_MS:g}")
        runs.append((job, params))
    step(f"running {len(runs)} analyses, {job_workers(len(runs), scheduler=scheduler)} at a "
         "time ...")
    for job, result in run_jobs(warehouse, runs, reporter=reporter, scheduler=scheduler):
        rows = sum(t.num_rows for t in result.tables.values())
        step(f"analyze {job.name}: {rows:,} rows in {', '.join(job.outputs)} "
             f"({result.duration_s:.1f} s)")
        for line in result.summary[:3]:
            echo(f"           {line}")

    index = write_site(warehouse, reports_dir, reporter=reporter, echo=step)
    step("done")
    echo("")
    echo(f"warehouse: {warehouse.root}  (try: perfwarehouse sql \"SELECT hardware_type, "
         "count(*) FROM measurements GROUP BY 1\")")
    echo(f"reports:   {Path(index).resolve()}  (every campaign, with its pages' verdicts)")


def _generate_and_ingest(warehouse: Warehouse, campaign: str, *, seed: int, scale: float,
                         reporter: Reporter, step: Callable[[str], None]) -> None:
    """Generate ``campaign`` into a temporary directory next to the warehouse (never inside
    it), ingest it and delete the file; nothing to do when the warehouse holds it."""
    if _has_campaign(warehouse, campaign):
        step(f"the warehouse already holds {campaign}: nothing to generate")
        return
    warehouse.root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".perfwarehouse-demo-input-",
                                     dir=warehouse.root.parent) as tmp:
        jsonl = Path(tmp) / f"{campaign}-seed{seed}-scale{scale:g}.jsonl"
        step(f"generating the {campaign} campaign (seed {seed}) ...")
        n, _truth = generate_to_file(campaign, jsonl, seed=seed, scale=scale)
        step(f"generated {n:,} records")
        summary = ingest_jsonl(warehouse, [jsonl], reporter=reporter)
        step(f"{campaign}: {summary.outcome}, {summary.trials_added:,} trials added "
             "(the generated file is deleted)")


def _has_campaign(warehouse: Warehouse, campaign: str) -> bool:
    if not warehouse.exists():
        return False
    return bool(warehouse.data_files([campaign]))
