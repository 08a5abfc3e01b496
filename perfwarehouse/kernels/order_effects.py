"""Segmented rank statistics for order effects (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3 and §5).

The order-effects job compares, for every configuration of a campaign at once,
the values of its fixed-order trials with those of its random-order trials.
Everything a configuration needs (Kruskal-Wallis rank sums with tie correction,
means, every order statistic of each group) comes from its values *pooled and
sorted*, with the group of each value riding along. The kernels get there in a
few passes over all rows, without a Python loop per configuration:

1. :func:`dense_codes` numbers the rows' configurations 0..C-1 (an open
   addressing hash of a 64-bit key per (campaign, hardware type, configuration),
   seeded with the configurations' keys so that codes are their row numbers).
2. :func:`pooled_sort_keys` counts the rows of each (configuration, group) and
   packs each row into one ``uint64``: the configuration (its place in a batch
   of 64) in the high bits, the value's order-preserving bit pattern (relative
   to the configuration's smallest) in the middle and the group in the low
   bit(s). ``np.sort`` of each batch's keys (numpy's vectorised sort) then
   orders the rows by configuration, value and group, and the packing is exact,
   so the sorted keys decode back to the original values. A configuration
   whose values span too many bit patterns to fit (values of mixed sign, or a
   range wider than a factor of about 2^32) is "wide": its rows are left out of
   the packed sort and ordered by value with numpy's argsort.
3. and 4. :func:`walk_packed` decodes each configuration's sorted keys straight into
   its groups' places and walks them once: mid-ranks of tie blocks, the rank sum and
   the sum of each group, the tie term sum(t^3 - t), and each group's values in
   sorted order (from which any order statistic is picked by index, vectorised,
   in the caller).

For k groups: :func:`rank_sums_search` finds each value's mid-rank by binary
search in its configuration's pooled sorted values (``stats.kruskal``: few
groups); for the many small groups of the predecessor effect, rows ordered by
value (numpy's argsort) are counting-sorted by configuration and by group
(:func:`stable_segment_order`, :func:`pair_groups`), :func:`mid_ranks` ranks them, and
:func:`predecessor_tests` and :func:`exclude_sorted` find each trial's
predecessor and the rest of a configuration without its worst group.

Values are float64; NaN must be removed by the caller. Ranks are 1-based
mid-ranks (``scipy.stats.rankdata(method="average")``); sums of mid-ranks are
sums of half-integers and therefore exact, whatever the summation order.

The job itself takes a shorter road to the same arrays
(:mod:`~perfwarehouse.kernels.order_rows`): steps 1 and 2 in two passes over the query's
record batches as they come (no concatenation), the codes, counts and value ranges in
the first, the packed keys in the second; 3 and 4 as above.

The kernels live in one file per family: :mod:`~perfwarehouse.kernels.dense_codes`,
:mod:`~perfwarehouse.kernels.pooled_ranks`, :mod:`~perfwarehouse.kernels.order_rows` and
:mod:`~perfwarehouse.kernels.predecessor_ranks`; this module names them together.
"""

from __future__ import annotations

from perfwarehouse.kernels.dense_codes import _readonly, dense_codes
from perfwarehouse.kernels.pooled_ranks import (
    pooled_sort_keys,
    rank_sums_search,
    two_group_ranks,
    walk_packed,
)
from perfwarehouse.kernels.predecessor_ranks import (
    exclude_sorted,
    mid_ranks,
    pair_groups,
    predecessor_tests,
    stable_segment_order,
)

__all__ = ["_readonly", "dense_codes", "exclude_sorted", "mid_ranks", "pair_groups",
           "pooled_sort_keys", "predecessor_tests", "rank_sums_search",
           "stable_segment_order",
           "two_group_ranks", "walk_packed"]
