"""Seeding a search from the nearest finished sample (Shivam et al., USENIX ATC 2008, §5.4).

A search that starts at the peak rate of a "nearby" sample reaches load factor 1
in far fewer loads than one starting at a conservative low load. Nearness is
only defined between samples that agree on every categorical setting and have
the same numeric settings: the distance is Euclidean over the numeric settings,
each scaled by its range among the target and the candidates (so that a factor
counted in thousands does not drown one counted in units). When no sample is
comparable the search starts at the default seed, as the paper prescribes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SeedChoice:
    """The first load of a search and where it came from."""

    load: float
    source: Mapping[str, Any] | None  # the settings of the sample it came from; None: default
    distance: float | None
    note: str


def as_number(value: Any) -> float | None:
    """``value`` as a finite float when it is a number or a numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def nearest_seed(target: Mapping[str, Any],
                 samples: Sequence[tuple[Mapping[str, Any], float]],
                 default: float) -> SeedChoice:
    """The peak rate of the sample nearest ``target`` among ``samples`` (settings, λ*).

    Ties go to the earliest sample in ``samples``; samples whose λ* is not a
    positive finite number are ignored.
    """
    keys = set(target)
    numeric = {k for k in keys if as_number(target[k]) is not None}
    comparable: list[tuple[Mapping[str, Any], float]] = []
    for settings, peak in samples:
        if set(settings) != keys or not (math.isfinite(peak) and peak > 0):
            continue
        if any(str(settings[k]) != str(target[k]) for k in keys - numeric):
            continue
        if any(as_number(settings[k]) is None for k in numeric):
            continue
        comparable.append((settings, peak))
    if not comparable:
        return SeedChoice(default, None, None,
                          f"no comparable finished sample: default seed {default:g}")

    def coord(settings: Mapping[str, Any], k: str) -> float:
        number = as_number(settings[k])
        # k is numeric: checked above for the target and for every comparable sample
        assert number is not None
        return number

    scale = {}
    for k in numeric:
        values = [coord(target, k)] + [coord(s, k) for s, _ in comparable]
        spread = max(values) - min(values)
        scale[k] = spread if spread > 0 else 1.0
    best: tuple[float, Mapping[str, Any], float] | None = None
    for settings, peak in comparable:
        d = math.sqrt(math.fsum(((coord(settings, k) - coord(target, k)) / scale[k]) ** 2
                                for k in sorted(numeric)))
        if best is None or d < best[0]:
            best = (d, settings, peak)
    assert best is not None
    d, settings, peak = best
    where = ", ".join(f"{k}={settings[k]}" for k in sorted(settings))
    return SeedChoice(peak, settings, d, f"seeded from the sample {where} (λ* = {peak:g})")
