"""Order effects after OrderSage (Duplyakin, Ramesh, Imburgia et al., "Avoiding the
Ordering Trap in Systems Performance Measurement", USENIX ATC 2023).

Two methods, each in its module:

* :mod:`~perfwarehouse.ordersage.orders` compares fixed-order with random-order trials of
  every configuration (sections 3 and 5, Algorithms 1 and 2);
* :mod:`~perfwarehouse.ordersage.predecessors` asks which test disturbs the next one
  (the paper's future work, section 9; perfwarehouse's definition);

with their defaults and option checks in :mod:`.parameters` and their result columns in
:mod:`.results`. Both are pure; the jobs ``analyze order-effects`` and
``analyze predecessor-effects`` feed them from the warehouse.
"""

from __future__ import annotations

from perfwarehouse.ordersage.orders import compare_orders, compare_ranked
from perfwarehouse.ordersage.parameters import (
    CI_METHODS,
    DEFAULT_ALPHA,
    DEFAULT_CI_METHOD,
    check_ci_method,
)
from perfwarehouse.ordersage.predecessors import compare_predecessors
from perfwarehouse.ordersage.results import NO_WORST, nullable, nullable_int

__all__ = ["CI_METHODS", "DEFAULT_ALPHA", "DEFAULT_CI_METHOD", "NO_WORST", "check_ci_method",
           "compare_orders", "compare_predecessors", "compare_ranked", "nullable", "nullable_int"]
