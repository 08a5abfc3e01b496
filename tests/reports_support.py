"""Warehouses with analysis results, for the report tests: the real jobs run on
real warehouses. Also: hostile benchmark names (they come from logs) and a
campaign that uses them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np

from perfwarehouse.warehouse.store import Warehouse

HOSTILE_SCRIPT = "</script><script>document.body.setAttribute('data-pwned','script')</script>"
HOSTILE_IMG = "\"><img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
HOSTILE_NAMES = (HOSTILE_SCRIPT, HOSTILE_IMG, "& \u2028 \u2029 <!-- -->")


def hostile_trials(path: Path, campaign: str = "hostile", runs: int = 16) -> Path:
    """A small campaign whose benchmark names (and a settings value and a metric) are
    hostile, with a clear order effect on the first test (fixed order 10 % faster)."""
    rng = np.random.default_rng(3)
    names = list(HOSTILE_NAMES)
    lines = []
    start = datetime(2024, 3, 1, tzinfo=timezone.utc)
    for r in range(runs):
        kind = "fixed" if r % 2 == 0 else "random"
        order = list(range(len(names))) if kind == "fixed" else list(rng.permutation(len(names)))
        for position, t in enumerate(order):
            base = 100.0 * (0.9 if (t == 0 and kind == "fixed") else 1.0)
            values = list(np.round(base * rng.lognormal(0, 0.01, 3), 4))
            lines.append(json.dumps({
                "v": 1, "campaign": campaign, "run_id": f"h-{r}", "node": "evil-000001",
                "hardware_type": "evil<b>type</b>", "run_index": r, "order_kind": kind,
                "seed": 1000 + r, "position": position, "run_size": len(names),
                "benchmark": names[t], "settings": {"flag": HOSTILE_IMG if t == 1 else "x"},
                "metric": "<i>time</i>" if t == 2 else "time", "unit": "s</script>",
                "higher_is_better": False, "values": [float(v) for v in values],
                "started_at": (start + timedelta(hours=r, seconds=position)).isoformat(),
                "status": "ok"}))
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------ running jobs
def analyse(warehouse: Warehouse, *job_names: str) -> None:
    """Run the registered jobs ``job_names`` on ``warehouse`` with default parameters."""
    from perfwarehouse.jobs import get, run_job

    for name in job_names:
        job = get(name)
        run_job(warehouse, job, job.params())


# ------------------------------------------------- a long-term campaign (shared)
FLEET_SEED, FLEET_SCALE = 5, 0.1


def longterm_warehouse(base: Path) -> tuple[Warehouse, dict[str, Any]]:
    """A 10 % ordersage-longterm campaign (about 230,000 trials, every planted effect),
    ingested once per test session under ``base``; returns it with its truth."""
    from perfwarehouse.generate import generate_to_file
    from perfwarehouse.ingest.service import ingest_jsonl

    root = base / "longterm-10pct"
    warehouse = Warehouse(root / "warehouse")
    trials = root / "longterm.jsonl"
    truth = Path(f"{trials}.truth.json")
    if not warehouse.exists():
        root.mkdir(parents=True, exist_ok=True)
        generate_to_file("ordersage-longterm", trials, seed=FLEET_SEED, scale=FLEET_SCALE)
        ingest_jsonl(warehouse, [trials])
    return warehouse, json.loads(truth.read_text())
