"""Result-table contracts, declared once: each yields the Arrow schema a job builds its
rows with and the DDL of the catalog table they land in.

A job's output table ``<name>`` is stored in ``<name>_history`` (with the ``job_run_id``
of its run in front) and read through the view ``<name>`` (the latest run per campaign,
``sql/views/latest_results.sql``). The tables declared here have no file in
``sql/schema/``: :func:`perfwarehouse.warehouse.sqlfiles.schema_statements` gives their
DDL in its numbered place (``order``) among the files', so a catalog creates them as
before. The configuration key (the columns naming one configuration on one hardware
type in one campaign) is :data:`CONFIGURATION_KEY`, spelled here only.

The Arrow schemas are nullable (a job may leave any cell empty while it builds a row);
``not_null`` columns get ``NOT NULL`` in the DDL, which the catalog enforces on insert.
tests/unit/warehouse/test_contracts.py checks that every contract's DDL creates a
table whose columns are its Arrow schema, and that the result tables still declared in
SQL agree with the Arrow columns their jobs build.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

HISTORY = "_history"  # as perfwarehouse.warehouse.store.HISTORY
UTC_MICROS = pa.timestamp("us", tz="UTC")


@dataclass(frozen=True)
class Column:
    """One column: its name, Arrow type and whether the catalog refuses NULL in it."""

    name: str
    type: pa.DataType
    not_null: bool = False


def columns(*pairs: tuple[str, pa.DataType]) -> tuple[Column, ...]:
    """Nullable ``Column``s from ``(name, type)`` pairs."""
    return tuple(Column(n, t) for n, t in pairs)


def not_null(cols: tuple[Column, ...], *names: str) -> tuple[Column, ...]:
    """``cols`` with the columns ``names`` declared ``NOT NULL``."""
    unknown = set(names) - {c.name for c in cols}
    if unknown:
        raise KeyError(f"no column {sorted(unknown)}")
    return tuple(Column(c.name, c.type, c.not_null or c.name in names) for c in cols)


@dataclass(frozen=True)
class Contract:
    """A job's result table ``table`` (stored as ``<table>_history``)."""

    table: str
    order: str  # the place of its DDL among sql/schema's numbered files ("046")
    doc: str  # what a row is (the comment above the DDL)
    columns: tuple[Column, ...]

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the job's rows (without ``job_run_id``)."""
        return pa.schema([pa.field(c.name, c.type) for c in self.columns])

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def ddl(self) -> str:
        """``CREATE TABLE IF NOT EXISTS <table>_history`` with ``job_run_id`` first."""
        width = max(len(c.name) for c in self.columns)
        lines = [f"    {'job_run_id':<{width}} BIGINT NOT NULL"]
        lines += [f"    {c.name:<{width}} {sql_type(c.type)}{' NOT NULL' if c.not_null else ''}"
                  for c in self.columns]
        comment = "\n".join(f"-- {line}".rstrip() for line in self.doc.strip().splitlines())
        return (f"{comment}\nCREATE TABLE IF NOT EXISTS {self.table}{HISTORY} (\n"
                + ",\n".join(lines) + "\n);\n")


def sql_type(t: pa.DataType) -> str:
    """The DuckDB type of an Arrow type (those the result tables use)."""
    if pa.types.is_list(t):
        return sql_type(t.value_type) + "[]"
    if pa.types.is_timestamp(t):
        return "TIMESTAMPTZ" if t.tz else "TIMESTAMP"
    names = {pa.string(): "VARCHAR", pa.large_string(): "VARCHAR", pa.bool_(): "BOOLEAN",
             pa.int32(): "INTEGER", pa.int64(): "BIGINT", pa.uint64(): "UBIGINT",
             pa.float64(): "DOUBLE"}
    if t not in names:
        raise TypeError(f"no DuckDB type for Arrow {t}")
    return names[t]


# ------------------------------------------------------------ shared columns
#: One configuration on one hardware type in one campaign: ``config_id`` is the stable
#: hash of (benchmark, settings, metric), repeated in words.
CONFIGURATION_KEY = columns(
    ("campaign", pa.string()), ("hardware_type", pa.string()), ("config_id", pa.uint64()),
    ("benchmark", pa.string()), ("settings", pa.string()), ("metric", pa.string()))
#: A profiled environment (hardware type, or one node).
ENVIRONMENT_KEY = columns(("campaign", pa.string()), ("hardware_type", pa.string()),
                          ("node", pa.string()))


# ------------------------------------------------------------ TriScale and trends
TRISCALE_CONVERGENCE = Contract("triscale_convergence", "040", """
triscale_convergence: one row per trial with iterations, analysed as a TriScale run
(Jacob et al. (TriScale, JSys 2021), §4.1): its metric over sliding windows and the convergence test.
""", CONFIGURATION_KEY + columns(
    ("node", pa.string()), ("run_id", pa.string()), ("started_at_s", pa.float64()),
    ("n_values", pa.int64()), ("measure", pa.string()), ("metric_value", pa.float64()),
    ("converged", pa.bool_()), ("slope", pa.float64()), ("ci_low", pa.float64()),
    ("ci_high", pa.float64()), ("confidence", pa.float64()), ("tolerance", pa.float64())))

TRISCALE_KPI = Contract("triscale_kpi", "041", """
triscale_kpi: the KPI of each series (a configuration's trials in one campaign or time
window): a one-sided Thompson bound of a percentile, with the independence test
(Jacob et al. (TriScale, JSys 2021), §4.2 and 4.5). kpi is NULL when the series is too short (n_required).
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("series", pa.string()), ("n", pa.int64()),
    ("percentile", pa.float64()), ("confidence", pa.float64()), ("side", pa.string()),
    ("kpi", pa.float64()), ("kpi_index", pa.int64()), ("coverage", pa.float64()),
    ("n_required", pa.int64()), ("independent", pa.bool_()),
    ("weakly_stationary", pa.bool_()), ("violating_lags", pa.list_(pa.int32())),
    ("descriptive_only", pa.bool_()), ("method", pa.string())))

TRISCALE_VARIABILITY = Contract("triscale_variability", "042", """
triscale_variability: the variability score of each configuration across its sequels
(the KPIs of its series), Jacob et al. (TriScale, JSys 2021), §4.3. NULL bounds when too few sequels.
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("n_sequels", pa.int64()), ("kpi_percentile", pa.float64()),
    ("kpi_confidence", pa.float64()), ("percentile", pa.float64()),
    ("confidence", pa.float64()), ("low", pa.float64()), ("high", pa.float64()),
    ("score", pa.float64()), ("relative_score", pa.float64()), ("coverage", pa.float64()),
    ("n_required", pa.int64()), ("independent", pa.bool_()), ("method", pa.string())))

TRISCALE_INDEPENDENCE = Contract("triscale_independence", "043", """
triscale_independence: the independence test of each series of trial values in time
order (Jacob et al. (TriScale, JSys 2021), §4.5): which half failed and the lags outside the band.
""", CONFIGURATION_KEY + columns(
    ("series_by", pa.string()), ("series", pa.string()), ("n", pa.int64()),
    ("independent", pa.bool_()), ("weakly_stationary", pa.bool_()),
    ("violating_lags", pa.list_(pa.int32())), ("band", pa.float64()),
    ("max_lag", pa.int64()), ("method", pa.string())))

TRISCALE_PROFILE = Contract("triscale_profile", "044", """
triscale_profile: one row per profiled environment (hardware type, or node): the
regular series built from its trials, the convergence test over time, and the
seasonal periods found in its autocorrelation (Jacob et al. (TriScale, JSys 2021), §4.6).
""", ENVIRONMENT_KEY + columns(
    ("n_bins", pa.int64()), ("step_s", pa.float64()), ("filled_bins", pa.int64()),
    ("trials", pa.int64()), ("converged", pa.bool_()), ("slope", pa.float64()),
    ("ci_low", pa.float64()), ("ci_high", pa.float64()), ("band", pa.float64()),
    ("strict_band", pa.float64()), ("seasonal_periods", pa.list_(pa.string())),
    ("seasonal_period_s", pa.list_(pa.float64())), ("seasonal_acf", pa.list_(pa.float64())),
    ("candidate_periods", pa.list_(pa.string()))))

TRISCALE_PROFILE_ACF = Contract("triscale_profile_acf", "045", """
triscale_profile_acf: the autocorrelation of each profiled series at every lag, with
its 95 % band (Jacob et al. (TriScale, JSys 2021), Figure 5); lag_s is the lag in seconds.
""", ENVIRONMENT_KEY + columns(
    ("lag", pa.int64()), ("lag_s", pa.float64()), ("acf", pa.float64()),
    ("band", pa.float64())))

TRENDS = Contract("trends", "046", """
trends: per configuration and hardware type, the Theil-Sen slope of the trial values
against time and against run index, as % of the median per 30 days (per 100 runs),
with Sen's CI; drifting when the time CI excludes 0.
""", CONFIGURATION_KEY + columns(
    ("n", pa.int64()), ("median", pa.float64()), ("first_s", pa.float64()),
    ("last_s", pa.float64()), ("slope_per_day", pa.float64()),
    ("slope_pct_per_30d", pa.float64()), ("ci_low_pct_per_30d", pa.float64()),
    ("ci_high_pct_per_30d", pa.float64()), ("slope_pct_per_100_runs", pa.float64()),
    ("ci_low_pct_per_100_runs", pa.float64()), ("ci_high_pct_per_100_runs", pa.float64()),
    ("confidence", pa.float64()), ("drifting", pa.bool_())))

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
""", not_null(CONFIGURATION_KEY + columns(
    ("unit", pa.string()), ("higher_is_better", pa.bool_()), ("ordered_by", pa.string()),
    ("n_points", pa.int64()), ("position", pa.int64()), ("revision", pa.string()),
    ("revision_time", UTC_MICROS), ("started_at", UTC_MICROS),
    ("revision_before", pa.string()), ("n_before", pa.int64()), ("n_after", pa.int64()),
    ("median_before", pa.float64()), ("median_after", pa.float64()),
    ("change_pct", pa.float64()), ("ci_low_pct", pa.float64()), ("ci_high_pct", pa.float64()),
    ("confidence", pa.float64()), ("p_value", pa.float64()), ("alpha", pa.float64()),
    ("direction", pa.string()), ("reason", pa.string()),
    ("abs_change_pct", pa.float64()), ("action", pa.bool_()),
    ("paired_with", pa.string()), ("n_unpaired", pa.int64()),
), "campaign", "hardware_type", "config_id", "ordered_by", "n_points", "confidence", "alpha"))

#: Every contract, by table name.
CONTRACTS: dict[str, Contract] = {c.table: c for c in (
    TRISCALE_CONVERGENCE, TRISCALE_KPI, TRISCALE_VARIABILITY, TRISCALE_INDEPENDENCE,
    TRISCALE_PROFILE, TRISCALE_PROFILE_ACF, TRENDS, CHANGE_POINTS)}


def statements() -> list[tuple[str, str]]:
    """``(NNN_<table>, DDL)`` of every contract, as ``sqlfiles.schema_statements`` lists
    a schema file (its stem and text)."""
    return [(f"{c.order}_{c.table}", c.ddl()) for c in CONTRACTS.values()]
