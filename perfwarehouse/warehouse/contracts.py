"""Result-table contracts, declared once: each yields the Arrow schema a job builds its
rows with and the DDL of the catalog table they land in.

A job's output table ``<name>`` is stored in ``<name>_history`` (with the ``job_run_id``
of its run in front) and read through the view ``<name>`` (the latest run per campaign,
``sql/views/latest_results.sql``). Every table a job writes is declared here
(:data:`CONTRACTS`), and so is ``comparisons``, which ``perfwarehouse compare`` writes
(:data:`COMPARISONS`); none has a file in ``sql/schema/`` (which keeps the catalog's
own tables): :func:`perfwarehouse.warehouse.sqlfiles.schema_statements` gives their DDL
in its numbered place (``order``) among the files', so a catalog creates them as before.
The configuration key (the columns naming one configuration on one hardware type in one
campaign) is :data:`CONFIGURATION_KEY`, spelled here only.

A column added to a table after catalogs were made with it names the migration that
adds it (``since``, "081b"): the contract then also yields ``ALTER TABLE ... ADD COLUMN
IF NOT EXISTS`` in that numbered place, so an older catalog gains the column (NULL for
its earlier rows) and a new one, created whole, is unchanged by it.

The Arrow schemas are nullable (a job may leave any cell empty while it builds a row);
``not_null`` columns get ``NOT NULL`` in the DDL, which the catalog enforces on insert.
The catalog conforms every table it stores to its contract (:meth:`Contract.conform`:
the contract's columns, in its order, with its types; an unknown column, or a missing
``NOT NULL`` one, is an error). tests/unit/warehouse/test_contracts.py checks that
every contract's DDL creates a table whose columns are its Arrow schema and that every
table a job writes is a contract; tests/integration/test_old_catalogs.py that catalogs
made by earlier code migrate to the shape a new catalog has.
"""

from __future__ import annotations

import pyarrow as pa

from perfwarehouse.warehouse.columns import (  # noqa: F401 (imported from here elsewhere)
    CONFIGURATION_KEY,
    ENVIRONMENT_KEY,
    HISTORY,
    JOB_RUN,
    KEY_NAMES,
    LOAD_FAMILY,
    MEASURED,
    UTC_MICROS,
    Column,
    Contract,
    added,
    columns,
    not_null,
    sql_type,
)
from perfwarehouse.warehouse.method_tables import (
    AA_FPR,
    DETECTABLE_REGRESSION,
    DETECTABLE_REGRESSION_CURVE,
    LOAD_CURVE,
    LOAD_LAW_CHECKS,
    ORDER_EFFECTS,
    PEAK_RATE,
    PREDECESSOR_EFFECTS,
    RESPONSE_SURFACE,
    TRENDS,
    TRISCALE_CONVERGENCE,
    TRISCALE_INDEPENDENCE,
    TRISCALE_KPI,
    TRISCALE_PROFILE,
    TRISCALE_PROFILE_ACF,
    TRISCALE_VARIABILITY,
    VARIABILITY,
)

# ------------------------------------------------------------ compare
COMPARISONS = Contract("comparisons", "080", """
comparisons: what `perfwarehouse compare` compared and found, one row per
configuration and hardware type of one comparison (comparison_id). The sides: campaign,
revision (NULL = every revision) and --where filter. change_pct = 100 (contender /
baseline - 1) of the typical trial value (log-scale Hodges-Lehmann shift) with its
distribution-free CI at `confidence`; p_value two-sided rank-sum, p_adjusted by
`correction` over the comparison's configurations; verdict slower|faster|no change|
no significant change|inconclusive at threshold_pct; more_trials: extra trials an
inconclusive row needs; one_invocation (080b): a side's sample is the repetitions of one
trial (not gated by --fail-on).
""", not_null(columns(
    ("baseline_campaign", pa.string()), ("baseline_revision", pa.string()),
    ("baseline_where", pa.string()), ("contender_campaign", pa.string()),
    ("contender_revision", pa.string()), ("contender_where", pa.string()),
    ("confidence", pa.float64()), ("threshold_pct", pa.float64()), ("correction", pa.string()),
    ("hardware_type", pa.string()), ("config_id", pa.uint64()), ("benchmark", pa.string()),
    ("settings", pa.string()), ("metric", pa.string()), ("unit", pa.string()),
    ("higher_is_better", pa.bool_()), ("n_baseline", pa.int64()), ("n_contender", pa.int64()),
    ("median_baseline", pa.float64()), ("median_contender", pa.float64()),
    ("change_pct", pa.float64()), ("ci_low_pct", pa.float64()), ("ci_high_pct", pa.float64()),
    ("p_value", pa.float64()), ("p_adjusted", pa.float64()), ("verdict", pa.string()),
    ("more_trials", pa.int64()), ("reason", pa.string()))
    + added("080b", ("one_invocation", pa.bool_())),
    "baseline_campaign", "contender_campaign", "confidence", "threshold_pct", "correction",
    "hardware_type", "config_id", "n_baseline", "n_contender", "verdict"),
    front=(Column("comparison_id", pa.int64(), not_null=True),
           Column("created_at", UTC_MICROS, not_null=True)), history=False)


# ------------------------------------------------------------ change points
CHANGE_POINTS = Contract("change_points", "081", """
change_points: `analyze change-points`: per configuration and hardware type, the
series of trial medians (ordered_by revision: by revision time then start; time: by
start) searched with E-divisive means and a permutation test at level alpha (a
stationary series gets any change point with probability <= alpha). One row per change
point: position = 0-based index of the first point after it, the revision, revision
time and start of that point (and the revision before it), medians of the segments
before/after (between neighbouring change points), change_pct = 100 (after / before - 1)
of the typical value (for non-positive values the shift / |median before|: its sign is
the sign of the change) with its CI at `confidence`, the permutation p-value, and
direction regression|improvement by the sign of change_pct and higher_is_better. A series
without change points gets one row with position NULL and the reason (too short, no
significant change, ...). abs_change_pct = |change_pct| and action (the change's interval
lies beyond +-min_effect %) make the action list, largest first (081b/081c add them to
catalogs created before them, NULL for their earlier runs). paired_with: the benchmark the
series was divided by, run by run (--baseline; the values are then ratios), and
n_unpaired: its trials left out for want of a baseline value in their run (081d/081e).
shift (081f): step; level shift, where a smooth model of time (a drift, a daily or weekly
cycle) explains the change (the permutation test assumes a stationary series), with the
reason; tail, the last points of the series at no new revision. Only steps need action.
mixed (081g): on every row of a series that mixes what should be apart (several runs at
one start time, two interleaved groups under one node; perfwarehouse/stats/mixing.py),
what it mixes and the key that splits it; its change points need no action.
""", not_null(MEASURED + columns(
    ("ordered_by", pa.string()),
    ("n_points", pa.int64()), ("position", pa.int64()), ("revision", pa.string()),
    ("revision_time", UTC_MICROS), ("started_at", UTC_MICROS),
    ("revision_before", pa.string()), ("n_before", pa.int64()), ("n_after", pa.int64()),
    ("median_before", pa.float64()), ("median_after", pa.float64()),
    ("change_pct", pa.float64()), ("ci_low_pct", pa.float64()), ("ci_high_pct", pa.float64()),
    ("confidence", pa.float64()), ("p_value", pa.float64()), ("alpha", pa.float64()),
    ("direction", pa.string()), ("reason", pa.string()),
) + added("081b", ("abs_change_pct", pa.float64())) + added("081c", ("action", pa.bool_()))
  + added("081d", ("paired_with", pa.string())) + added("081e", ("n_unpaired", pa.int64()))
  + added("081f", ("shift", pa.string())) + added("081g", ("mixed", pa.string())),
    "campaign", "hardware_type", "config_id", "ordered_by", "n_points", "confidence", "alpha"))

#: The contract of every table a job writes, by table name.
CONTRACTS: dict[str, Contract] = {c.table: c for c in (
    ORDER_EFFECTS, PREDECESSOR_EFFECTS, VARIABILITY, AA_FPR, DETECTABLE_REGRESSION,
    DETECTABLE_REGRESSION_CURVE, TRISCALE_CONVERGENCE, TRISCALE_KPI, TRISCALE_VARIABILITY,
    TRISCALE_INDEPENDENCE, TRISCALE_PROFILE, TRISCALE_PROFILE_ACF, TRENDS, LOAD_CURVE,
    PEAK_RATE, LOAD_LAW_CHECKS, RESPONSE_SURFACE, CHANGE_POINTS)}
#: Every result table: the jobs' and ``comparisons``.
TABLES: dict[str, Contract] = {**CONTRACTS, COMPARISONS.table: COMPARISONS}


def contract(table: str) -> Contract:
    """The contract of the result table ``table`` (a ``KeyError`` that says so)."""
    if table not in TABLES:
        raise KeyError(f"{table!r} has no contract in perfwarehouse/warehouse/contracts.py")
    return TABLES[table]


def statements() -> list[tuple[str, str]]:
    """``(NNN_<table>, DDL)`` of every contract and ``(NNNx_<table>_<column>, ALTER
    ...)`` of each column added later, as ``sqlfiles.schema_statements`` lists a schema
    file (its stem and text)."""
    return [(f"{c.order}_{c.table}", c.ddl()) for c in TABLES.values()] + [
        m for c in TABLES.values() for m in c.migrations()]
