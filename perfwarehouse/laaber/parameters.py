"""The options of the Laaber analyses (:mod:`.analysis`; Laaber et al. (PeerJ Preprints
2018), section 4.2): the regressions scanned, the sampling strategies and how a
higher-is-better metric is slowed, with their checks."""

from __future__ import annotations

from typing import Literal

#: The regressions r (percent) scanned for the minimal detectable one (the paper's R).
REGRESSIONS_PCT: tuple[int, ...] = (1, 2, 3, 4, 5, 10, 15, 20, 25, 50, 75, 100)
Strategy = Literal["instance", "trial"]
HigherIsBetterMode = Literal["divide", "cost"]
HIGHER_IS_BETTER_MODES: tuple[str, ...] = ("divide", "cost")
STRATEGIES: tuple[str, ...] = ("instance", "trial")


def check_strategy(strategy: str) -> None:
    """``ValueError`` unless ``strategy`` is one of :data:`STRATEGIES`."""
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, not {strategy!r}")


def check_higher_is_better_mode(mode: str) -> None:
    """``ValueError`` unless ``mode`` is one of :data:`HIGHER_IS_BETTER_MODES`."""
    if mode not in HIGHER_IS_BETTER_MODES:
        raise ValueError(f"higher_is_better_mode must be one of {HIGHER_IS_BETTER_MODES}")
