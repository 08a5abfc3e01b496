"""Change points of a series: E-divisive means with a calibrated permutation test
(Matteson & James, "A Nonparametric Approach for Multiple Change Point Analysis of
Multivariate Data", JASA 109(505), 2014, sections 2-3; as Otava and MongoDB use it, Daly
et al., ICPE 2020, section 3). The method and its calibration: :mod:`.analysis`; the
options: :mod:`.parameters`; the results: :mod:`.results`; the medians and change in
percent each change point carries: :mod:`.describe`; the exact null of 10 untied points,
tabulated: :mod:`.exact_null`; which change points are steps and which level shifts of a
drifting or cycling series: :mod:`.structure` (Schwarz's BIC, Annals of Statistics 1978);
the search of a series grown at its end from its last change points: :mod:`.incremental`."""

from __future__ import annotations

from perfwarehouse.changepoints.analysis import detect, detect_all, search_values, split_segment
from perfwarehouse.changepoints.parameters import (
    DEFAULT_ALPHA,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_SIZE,
    DEFAULT_PERMUTATIONS,
    FEW_TIES,
    min_points,
)
from perfwarehouse.changepoints.results import ChangePoint, ChangePointResult

__all__ = ["ChangePoint", "ChangePointResult", "DEFAULT_ALPHA", "DEFAULT_CONFIDENCE",
           "DEFAULT_MIN_SIZE", "DEFAULT_PERMUTATIONS", "FEW_TIES", "detect", "detect_all",
           "min_points", "search_values", "split_segment"]
