"""The defaults and option checks of the OrderSage analyses (:mod:`.orders`,
:mod:`.predecessors`; Duplyakin et al., USENIX ATC 2023, sections 3 and 5)."""

from __future__ import annotations

#: Family-wise error rate of the Kruskal-Wallis decisions (the paper's alpha).
DEFAULT_ALPHA = 0.05
#: Median CIs: exact binomial order statistics, Le Boudec's normal approximation, or
#: OrderSage's own indices (its tool's ``get_ci``, for comparison).
CI_METHODS = ("exact", "le-boudec", "ordersage")
DEFAULT_CI_METHOD = "exact"


def check_ci_method(method: str) -> None:
    """``ValueError`` unless ``method`` is one of :data:`CI_METHODS`."""
    if method not in CI_METHODS:
        raise ValueError(f"unknown CI method {method!r}")
