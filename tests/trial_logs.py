"""Small native trial logs for tests: valid records to start from, then broken on purpose."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def records(campaign: str = "c1", runs: int = 2, tests: int = 3, values: int = 2) -> list[dict[str, Any]]:
    """``runs`` complete runs (alternating fixed and random) of ``tests`` tests each."""
    out = []
    for r in range(runs):
        order = list(range(tests)) if r % 2 == 0 else list(reversed(range(tests)))
        for position, t in enumerate(order):
            out.append({
                "v": 1, "campaign": campaign, "run_id": f"run-{r}", "node": "c220g2-000001",
                "hardware_type": "c220g2", "run_index": r,
                "order_kind": "fixed" if r % 2 == 0 else "random", "seed": 1000 + r,
                "position": position, "run_size": tests, "benchmark": f"./bench{t}.sh",
                "settings": {"threads": 4, "size": "L"}, "metric": "runtime", "unit": "s",
                "higher_is_better": False,
                "values": [10.0 + t + 0.1 * r + 0.01 * i for i in range(values)],
                "started_at": f"2024-05-0{1 + r}T10:00:{10 + position:02d}Z", "status": "ok",
                **({"env": {"cpu_model": "Xeon", "kernel": "6.1"}} if position == 0 else {}),
            })
    return out


def write(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    """Write records (dicts, or raw text lines) as JSON Lines."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path
