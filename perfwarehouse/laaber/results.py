"""What the Laaber analyses (:mod:`.analysis`; Laaber et al. (PeerJ Preprints 2018),
section 4) return for one configuration: its variability, its A/A false-positive rate
and its minimal detectable regression."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VariabilityBreakdown:
    """Variability of one configuration (Laaber et al. (PeerJ Preprints 2018), §4.1). RSDs in percent; None when undefined."""

    n_values: int
    n_outliers: int
    n_nodes: int
    n_runs: int
    mean: float | None
    median: float | None
    rsd_total_pct: float | None
    rsd_node_mean_pct: float | None
    rsd_node_sd_pct: float | None
    n_nodes_rsd: int
    rsd_run_mean_pct: float | None
    rsd_run_sd_pct: float | None
    n_runs_rsd: int
    share_nodes_pct: float | None
    share_runs_pct: float | None
    share_within_pct: float | None
    reason: str | None


@dataclass(frozen=True)
class AAResult:
    """A/A false-positive rate of the two-sided rank-sum test (Laaber et al. (PeerJ Preprints 2018), §4.2.1)."""

    strategy: str
    n_nodes: int
    trials_per_node: int
    draws: int
    rejections: int | None
    fp_rate: float | None
    reason: str | None


@dataclass(frozen=True)
class DetectableRegressionResult:
    """Minimal detectable regression of one configuration and sampling cell (Laaber et al. (PeerJ Preprints 2018), §4.2.2).

    ``detectable_pct`` is None when no r passes (``reason`` says why) or when
    there are too few nodes or trials; ``r_pct``, ``fp_rate`` and ``tp_rate``
    are the whole curve (empty when the cell could not be drawn).
    """

    strategy: str
    n_nodes: int
    trials_per_node: int
    draws: int
    detectable_pct: float | None
    r_pct: tuple[float, ...]
    fp_rate: tuple[float, ...]
    tp_rate: tuple[float, ...]
    reason: str | None
