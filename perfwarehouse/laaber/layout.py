"""The data of the Laaber et al. analyses (PeerJ Preprints 2018, section 4) as flat arrays:
measurements grouped configuration -> node -> trial (CSR offsets, :class:`Layout`), the
outlier rule of section 4.1 applied on the way in, the configurations' identities
(:func:`config_key`) and a job's partition read from Arrow (:class:`Partition`).

The methods (:mod:`.analysis`) and the kernels (:mod:`perfwarehouse.kernels.laaber`)
take a :class:`Layout`; a *trial* is one run's execution of one configuration, a
*node* an instance, a configuration benchmark + settings + metric on one hardware type.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from perfwarehouse.kernels import laaber as kernels

META_COLUMNS = ("campaign", "hardware_type", "config_id", "benchmark", "settings", "metric",
                "unit", "higher_is_better")


# ------------------------------------------------------------------------ layout
@dataclass(frozen=True)
class Layout:
    """Measurements grouped configuration -> node -> trial (CSR offsets, see the kernels).

    ``n_values`` and ``n_outliers`` count each configuration's values before
    outlier removal and the ones removed; ``outlier_median`` is the median the
    rule used.
    """

    values: np.ndarray
    trial_offsets: np.ndarray
    node_offsets: np.ndarray
    config_offsets: np.ndarray
    n_values: np.ndarray
    n_outliers: np.ndarray
    outlier_median: np.ndarray

    @property
    def n_configs(self) -> int:
        return len(self.config_offsets) - 1

    def trials_per_node(self) -> np.ndarray:
        return np.diff(self.node_offsets)

    def nodes_per_config(self) -> np.ndarray:
        return np.diff(self.config_offsets)

    def trials_per_config(self) -> np.ndarray:
        return np.diff(self.node_offsets[self.config_offsets])

    @cached_property
    def dense_ranks(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`dense_ranks` of this layout (computed once)."""
        return dense_ranks(self)


def _starts(flags: np.ndarray) -> np.ndarray:
    return np.flatnonzero(flags)


def layout_from_breaks(
    values: np.ndarray, new_config: np.ndarray, new_node: np.ndarray, new_trial: np.ndarray,
    *, outlier_factor: float = 10.0,
) -> Layout:
    """Build a :class:`Layout` from rows already grouped configuration -> node -> trial.

    ``new_*`` are boolean arrays, True on the first row of each configuration,
    node (within its configuration) and trial (within its node).
    """
    values = np.ascontiguousarray(values, dtype=np.float64)
    n = len(values)
    if n == 0:
        raise ValueError("no measurements")
    if np.isnan(values).any():
        raise ValueError("measurements must not be NaN")
    new_config = np.asarray(new_config, dtype=bool).copy()
    new_config[0] = True
    new_node = new_config | np.asarray(new_node, dtype=bool)
    new_trial = new_node | np.asarray(new_trial, dtype=bool)

    config_rows = np.append(_starts(new_config), n).astype(np.int64)
    raw_median = kernels.segment_medians(values, config_rows)
    n_values = np.diff(config_rows)
    if outlier_factor and outlier_factor > 0:
        limit = np.where(raw_median > 0, outlier_factor * raw_median, np.inf)
        keep = values < np.repeat(limit, n_values)
    else:
        keep = np.ones(n, dtype=bool)
    n_outliers = n_values - np.add.reduceat(keep.astype(np.int64), config_rows[:-1])
    if not keep.all():
        # a group whose first rows were removed starts at its first kept row
        group_config = np.cumsum(new_config) - 1
        group_node = np.cumsum(new_node)
        group_trial = np.cumsum(new_trial)
        values = values[keep]
        gc, gn, gt = group_config[keep], group_node[keep], group_trial[keep]
        first = np.ones(len(values), dtype=bool)
        new_config = first.copy()
        new_config[1:] = gc[1:] != gc[:-1]
        new_node = first.copy()
        new_node[1:] = gn[1:] != gn[:-1]
        new_trial = first.copy()
        new_trial[1:] = gt[1:] != gt[:-1]
        new_node |= new_config
        new_trial |= new_node
    trial_number = np.cumsum(new_trial) - 1
    trial_offsets = np.append(_starts(new_trial), len(values)).astype(np.int64)
    node_first_trial = trial_number[_starts(new_node)]
    node_offsets = np.append(node_first_trial, len(trial_offsets) - 1).astype(np.int64)
    node_number = np.cumsum(new_node) - 1
    config_offsets = np.append(node_number[_starts(new_config)],
                               len(node_offsets) - 1).astype(np.int64)
    return Layout(values, trial_offsets, node_offsets, config_offsets,
                  n_values.astype(np.int64), n_outliers.astype(np.int64), raw_median)


def layout_of_one(
    values: Sequence[float] | np.ndarray, node: Sequence[object] | np.ndarray,
    run: Sequence[object] | np.ndarray | None = None, *, outlier_factor: float = 10.0,
) -> Layout:
    """The layout of one configuration's measurements given as parallel arrays.

    ``node`` names the node of each value, ``run`` its run (trial); values of
    the same (node, run) form one trial. Without ``run`` every value is its own
    trial. Nodes and trials are ordered by their labels and each trial's values
    by size (as the jobs' query does), so the result does not depend on the
    order of the input rows.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or len(x) == 0:
        raise ValueError("values must be a non-empty 1-d array")
    nodes = np.asarray(node)
    runs = np.arange(len(x)) if run is None else np.asarray(run)
    if len(nodes) != len(x) or len(runs) != len(x):
        raise ValueError("values, node and run must have the same length")
    if np.isnan(x).any():
        raise ValueError("values must not be NaN")
    _, node_code = np.unique(nodes, return_inverse=True)
    _, run_code = np.unique(runs, return_inverse=True)
    order = np.lexsort((x, run_code, node_code))
    nc, rc = node_code[order], run_code[order]
    new_node = np.ones(len(x), dtype=bool)
    new_node[1:] = nc[1:] != nc[:-1]
    new_trial = new_node.copy()
    new_trial[1:] |= rc[1:] != rc[:-1]
    new_config = np.zeros(len(x), dtype=bool)
    return layout_from_breaks(x[order], new_config, new_node, new_trial,
                              outlier_factor=outlier_factor)


def config_key(hardware_type: str | None, benchmark: str, settings: str, metric: str) -> int:
    """A stable 64-bit identity of a configuration on a hardware type (seeds its draws)."""
    text = "\x1f".join([hardware_type or "", benchmark, settings, metric])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


# --------------------------------------------------------------------- partitions
@dataclass(frozen=True)
class Partition:
    """One query partition: its layout and one metadata row per configuration."""

    layout: Layout
    meta: pa.Table
    keys: np.ndarray
    higher_is_better: np.ndarray


def _ranks(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, int]:
    """Each row's rank among the column's distinct values (strings in code-point order)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    encoded = array.dictionary_encode()
    distinct = encoded.dictionary.to_numpy(zero_copy_only=False)
    rank = np.empty(len(distinct), dtype=np.int64)
    rank[np.argsort(distinct, kind="stable")] = np.arange(len(distinct))
    return rank[encoded.indices.to_numpy(zero_copy_only=False)], len(distinct)


def partition_from_arrow(table: pa.Table, *, outlier_factor: float = 10.0) -> Partition:
    """A partition from the rows of ``sql/queries/laaber_measurements`` (any row order).

    Required columns: :data:`META_COLUMNS`, ``node``, ``run_id``, ``value``. Rows are
    grouped by configuration, node name, run name and, within a run, value, so
    the result depends only on the data, never on the order it was read in.
    """
    if table.num_rows == 0:
        raise ValueError("no measurements")
    config_rank, _n_configs = _ranks(table.column("config_id"))
    node_rank, n_nodes = _ranks(table.column("node"))
    run_rank, n_runs = _ranks(table.column("run_id"))
    key = (config_rank * n_nodes + node_rank) * n_runs + run_rank
    order = np.argsort(key)
    key = key[order]
    values = table.column("value").to_numpy()[order]
    config_sorted = key // (n_nodes * n_runs)
    node_key = key // n_runs
    first = np.ones(len(key), dtype=bool)
    new_config, new_node, new_trial = first.copy(), first.copy(), first.copy()
    new_config[1:] = config_sorted[1:] != config_sorted[:-1]
    new_node[1:] = node_key[1:] != node_key[:-1]
    new_trial[1:] = key[1:] != key[:-1]
    kernels.sort_segments(values, np.append(np.flatnonzero(new_trial), len(values)))
    layout = layout_from_breaks(values, new_config, new_node, new_trial,
                                outlier_factor=outlier_factor)
    firsts = pa.array(order[np.flatnonzero(new_config)])
    meta = pa.table({name: table.column(name).take(firsts) for name in META_COLUMNS})
    keys = np.array([
        config_key(h, b, s, m) for h, b, s, m in zip(
            meta.column("hardware_type").to_pylist(), meta.column("benchmark").to_pylist(),
            meta.column("settings").to_pylist(), meta.column("metric").to_pylist())
    ], dtype=np.uint64)
    hib = np.array([bool(v) for v in meta.column("higher_is_better").to_pylist()], dtype=bool)
    return Partition(layout, meta, keys, hib)


def dense_ranks(layout: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Each value's rank among its configuration's distinct values, and their number."""
    config_rows = layout.trial_offsets[layout.node_offsets[layout.config_offsets]]
    config_of_row = np.repeat(np.arange(layout.n_configs), np.diff(config_rows))
    order = np.lexsort((layout.values, config_of_row))
    v = layout.values[order]
    c = config_of_row[order]
    new = np.ones(len(v), dtype=bool)
    new[1:] = (v[1:] != v[:-1]) | (c[1:] != c[:-1])
    global_rank = np.cumsum(new) - 1
    distinct = np.add.reduceat(new.astype(np.int64), config_rows[:-1])
    first = np.concatenate([[0], np.cumsum(distinct)[:-1]])
    ranks = np.empty(len(v), dtype=np.int64)
    ranks[order] = global_rank - first[c]
    return ranks, distinct.astype(np.int64)
