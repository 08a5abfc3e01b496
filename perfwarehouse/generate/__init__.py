"""Synthetic campaigns with recorded ground truth."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.errors import UsageError
from perfwarehouse.generate.trials import Generated, write_generated
from perfwarehouse.progress import Task

GENERATORS = ("ordersage-longterm", "laaber-cloud", "load-campaign")


def generate(name: str, *, seed: int = 1, scale: float = 1.0, extend_days: int = 0,
             task: Task | None = None) -> Generated:
    """Generate campaign ``name`` in memory; ``extend_days`` > 0: only the days after it
    ended (``ordersage-longterm`` alone, :func:`.ordersage_longterm.extend`); ``task``
    (optional) advances by the hardware types of ``ordersage-longterm`` drawn."""
    if not 0 < scale <= 10:
        raise UsageError("--scale must be in (0, 10]")
    if extend_days < 0 or extend_days > 3650:
        raise UsageError("--extend-days must be in [1, 3650]")
    if extend_days and name != "ordersage-longterm":
        raise UsageError(f"--extend-days applies to ordersage-longterm (a campaign over "
                         f"days), not to {name}")
    if name == "ordersage-longterm":
        from perfwarehouse.generate import ordersage_longterm

        if extend_days:
            return ordersage_longterm.extend(seed=seed, scale=scale, days=extend_days, task=task)
        return ordersage_longterm.generate(seed=seed, scale=scale, task=task)
    if name == "laaber-cloud":
        from perfwarehouse.generate import laaber_cloud

        return laaber_cloud.generate(seed=seed, scale=scale)
    if name == "load-campaign":
        from perfwarehouse.generate import load_campaign

        return load_campaign.generate(seed=seed, scale=scale)
    raise UsageError(f"unknown generator {name!r}; choose from {', '.join(GENERATORS)}")


def generate_to_file(name: str, out: Path, *, seed: int = 1, scale: float = 1.0,
                     extend_days: int = 0) -> tuple[int, Path]:
    """Generate and write; returns (trials written, path of the truth file)."""
    generated = generate(name, seed=seed, scale=scale, extend_days=extend_days)
    truth = write_generated(generated, out)
    return generated.records.num_rows, truth
