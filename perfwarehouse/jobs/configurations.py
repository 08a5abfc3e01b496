"""What the order-effects jobs learn about all configurations before computing any.

The prepare step runs ``sql/queries/order_effects_configurations.sql`` once over
every partition: one row per (campaign, hardware type, configuration) with its
names, its family of comparisons and its fixed/random value counts. From it
come the family sizes m (the family-wise CI confidence 1 - alpha/m must be
known before any CI is picked) and the names of the configurations, so that
the per-campaign query reads only the four columns the statistics need.

Families never cross campaigns (a campaign is one experiment): the family key
is (campaign, family value).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from perfwarehouse.errors import AnalysisError, UsageError
from perfwarehouse.jobs.framework import JobParams, param
from perfwarehouse.stats.fractions import confidence as as_confidence

# --family-by: a column of the measurements view that is an attribute of the
# configuration (or its hardware type), or settings.KEY
FAMILY_COLUMNS = ("campaign", "benchmark", "metric", "unit", "higher_is_better", "hardware_type")
_SETTINGS_KEY = re.compile(r"^settings\.([A-Za-z0-9_][A-Za-z0-9_.\-]*)$")
NO_FAMILY = "(none)"  # family value of a configuration whose family attribute is NULL


@dataclass(frozen=True)
class FamilyParams(JobParams):
    """The parameters of the jobs that decide over a family of comparisons (order and
    predecessor effects, Duplyakin et al. (OrderSage, USENIX ATC 2023), Algorithm 1):
    its error rate, what makes a family, and what their ``prepare`` finds."""

    alpha: float = param(0.05, "Family-wise error rate of the Kruskal-Wallis decisions.")
    family_by: str = param(
        "campaign", "What makes a family of comparisons (m, Bonferroni): campaign, benchmark, "
        "metric, unit, higher_is_better, hardware_type or settings.KEY (e.g. settings.kind).")
    family_sizes: tuple = param((), "(campaign, family, m) found by prepare.", internal=True)
    configurations: Any = param(None, "Configuration names found by prepare.", internal=True)


def family_query_params(family_by: str) -> dict[str, str]:
    """The bound parameters of the configurations query for ``--family-by``.

    Raises :class:`UsageError` unless ``family_by`` is whitelisted.
    """
    if family_by in FAMILY_COLUMNS:
        return {"family_column": family_by, "settings_path": "$"}
    match = _SETTINGS_KEY.match(family_by or "")
    if match:
        return {"family_column": "settings", "settings_path": f'$."{match.group(1)}"'}
    raise UsageError(
        f"--family-by {family_by!r} is not supported: use one of {', '.join(FAMILY_COLUMNS)} "
        "or settings.KEY (for example settings.kind)")


def confidence_value(value: object, name: str = "--ci-confidence") -> float | None:
    """A confidence given as a fraction (0.95) or a percentage (95), read by
    :func:`perfwarehouse.stats.fractions.confidence`; None stays None."""
    if value is None or value == "":
        return None
    return as_confidence(value, name)


def check_alpha(alpha: float) -> float:
    if not 0.0 < float(alpha) < 1.0:
        raise UsageError(f"--alpha must be in (0, 1), got {alpha!r}")
    return float(alpha)


class ConfigurationIndex:
    """The configurations table found by prepare, carried in the job parameters
    (``job_runs.params`` records the parameters as the user gave them, without it)."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def __str__(self) -> str:
        campaigns = len(pc.unique(self.table.column("campaign"))) if self.table.num_rows else 0
        return f"{self.table.num_rows} configurations in {campaigns} campaign(s)"

    __repr__ = __str__

    def __deepcopy__(self, memo: dict[int, Any]) -> ConfigurationIndex:
        return self  # immutable; dataclasses.asdict deep-copies parameters

    def of_campaign(self, campaign: str) -> pa.Table:
        return self.table.filter(pc.equal(self.table.column("campaign"), campaign))


@dataclass(frozen=True)
class Families:
    """Family value and size m of every configuration row of the prepare table."""

    table: pa.Table  # the prepare table plus family (NULL -> NO_FAMILY), compared, m
    sizes: tuple[tuple[str, str, int], ...]  # (campaign, family, m), for the record


def size_families(table: pa.Table) -> Families:
    """m = number of (configuration, hardware type) with both fixed and random values,
    per (campaign, family)."""
    keys = table.column("row_key")
    if len(pc.unique(keys)) != len(keys):
        raise AnalysisError(
            "two configurations share a 64-bit row key (hash(campaign, hardware_type) XOR "
            "config_id); this should never happen: please report it")
    family = pc.fill_null(table.column("family").cast(pa.string()), NO_FAMILY)
    compared = pc.and_(pc.greater(table.column("n_fixed"), 0),
                       pc.greater(table.column("n_random"), 0))
    encoded = family_codes(table.column("campaign"), family)
    index = encoded.indices.to_numpy(zero_copy_only=False)
    m_of_key = np.bincount(index, weights=np.asarray(compared, dtype=np.float64),
                           minlength=len(encoded.dictionary)).astype(np.int64)
    out = table.set_column(table.schema.get_field_index("family"), "family", family)
    out = out.append_column("compared", compared)
    out = out.append_column("m", pa.array(m_of_key[index], pa.int64()))
    keys = (str(k).partition("\x1f") for k in encoded.dictionary.to_pylist())
    sizes = tuple(sorted((campaign, family, int(m))
                         for (campaign, _, family), m in zip(keys, m_of_key)))
    return Families(out, sizes)


def prepare_families(table: pa.Table, params: Any) -> Any:
    """The ``prepare`` step of the jobs over families of comparisons: ``params`` with the
    family sizes and the configuration names."""
    families = size_families(table)
    return dataclasses.replace(params, family_sizes=families.sizes,
                               configurations=ConfigurationIndex(families.table))


def family_codes(campaign: Any, family: Any) -> pa.DictionaryArray:
    """One dictionary code per (campaign, family) pair."""
    return pc.dictionary_encode(
        pc.binary_join_element_wise(campaign, family, "\x1f")).combine_chunks()


def sorted_by_family(table: pa.Table) -> tuple[pa.Table, np.ndarray]:
    """The result rows sorted by campaign, family and names, and each row's family code."""
    table = table.sort_by([("campaign", "ascending"), ("family", "ascending"),
                           ("hardware_type", "ascending"), ("benchmark", "ascending"),
                           ("settings", "ascending"), ("metric", "ascending")])
    codes = family_codes(table.column("campaign"), table.column("family"))
    return table, codes.indices.to_numpy(zero_copy_only=False)


def any_in_family(family: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Per row: whether any row of its family is flagged (a family's verdict)."""
    return (np.bincount(family, weights=np.asarray(flags, dtype=np.float64)) > 0)[family]


def rows_by_family(rows: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Result rows grouped by (campaign, family), in their order."""
    families: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        families.setdefault((row["campaign"], row["family"]), []).append(row)
    return families


def label_codes(table: pa.Table, params: Any) -> tuple[pa.Table, np.ndarray]:
    """The configurations found by prepare, and each row's index among them.

    Rows carry ``row_key`` = hash(campaign, hardware type) XOR config_id; the
    numba hash coder is seeded with the configurations' keys, so a row's code is
    its configuration's row number. The keys of the configurations are distinct
    (checked) and every row's configuration is one of them (the first pass read
    the same files), so a row's key names its configuration exactly.
    """
    from perfwarehouse.kernels import order_effects as kernels

    index = params.configurations
    if not isinstance(index, ConfigurationIndex):
        raise AnalysisError("this job needs its prepare step (run it with run_job)")
    labels = index.table
    seeds = labels.column("row_key").to_numpy()
    rows = table.column("row_key").to_numpy()
    codes, first_row = kernels.dense_codes(rows, rows, seeds, seeds)
    if first_row.size != labels.num_rows:
        raise AnalysisError("the measurements changed while the job ran (a configuration "
                            "appeared that the first pass did not see); run it again")
    return labels, codes


#: The names of a configuration in the order-effects and predecessor-effects tables.
NAME_COLUMNS = ("campaign", "hardware_type", "config_id", "benchmark", "settings", "metric",
                "unit", "higher_is_better", "family")


def block_rows(labels: pa.Table, start: int, stop: int, family_by: str,
               result: dict[str, Any], extra: tuple[str, ...] = ()) -> pa.Table:
    """The rows of the configurations [start, stop) of the prepare table: their names
    (:data:`NAME_COLUMNS` and ``extra``), ``family_by``, then the ``result`` columns
    (one value per configuration of the prepare table, sliced to the block)."""
    out = labels.select([*NAME_COLUMNS, *extra]).slice(start, stop - start)
    out = out.append_column("family_by", pa.array([family_by] * out.num_rows, pa.string()))
    for name, column in result.items():
        out = out.append_column(name, column.slice(start, stop - start))
    return out


def campaign_block(labels: pa.Table, code: int, rows: np.ndarray) -> tuple[int, int]:
    """The rows [start, stop) of the configurations of the campaign of configuration
    ``code`` (the prepare table is sorted by campaign); ``rows`` (values per
    configuration) must be zero outside."""
    campaign = labels.column("campaign")[code].as_py()
    block = np.flatnonzero(pc.equal(labels.column("campaign"), campaign).to_numpy(
        zero_copy_only=False))
    start, stop = int(block[0]), int(block[-1]) + 1
    if block.size != stop - start or rows[:start].any() or rows[stop:].any():
        raise AnalysisError("a partition of the order-effects jobs holds more than one campaign")
    return start, stop


def family_label(campaign: str, family: str, family_by: str) -> str:
    return campaign if family_by == "campaign" else f"{campaign} [{family_by}={family}]"


def describe(row: dict[str, Any], prefix: str = "") -> str:
    """benchmark [settings] [metric] of a result row, without the empty parts."""
    settings = row[f"{prefix}settings"]
    metric = row.get(f"{prefix}metric", "result")
    return (f"{row[f'{prefix}benchmark']}"
            + ("" if settings in (None, "{}") else f" {settings}")
            + ("" if metric in (None, "result") else f" {metric}"))
