"""Synthetic campaigns with recorded ground truth (SPEC 7)."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.errors import UsageError
from perfwarehouse.generate.trials import Generated, write_generated

GENERATORS = ("ordersage-longterm", "laaber-cloud", "load-campaign")


def generate(name: str, *, seed: int = 1, scale: float = 1.0) -> Generated:
    """Generate campaign ``name`` in memory."""
    if not 0 < scale <= 10:
        raise UsageError("--scale must be in (0, 10]")
    if name == "ordersage-longterm":
        from perfwarehouse.generate import ordersage_longterm

        return ordersage_longterm.generate(seed=seed, scale=scale)
    if name == "laaber-cloud":
        from perfwarehouse.generate import laaber_cloud

        return laaber_cloud.generate(seed=seed, scale=scale)
    if name == "load-campaign":
        from perfwarehouse.generate import load_campaign

        return load_campaign.generate(seed=seed, scale=scale)
    raise UsageError(f"unknown generator {name!r}; choose from {', '.join(GENERATORS)}")


def generate_to_file(name: str, out: Path, *, seed: int = 1, scale: float = 1.0) -> tuple[int, Path]:
    """Generate and write; returns (trials written, path of the truth file)."""
    generated = generate(name, seed=seed, scale=scale)
    truth = write_generated(generated, out)
    return generated.records.num_rows, truth
