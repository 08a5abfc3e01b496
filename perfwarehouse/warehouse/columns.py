"""How a result table is declared: its :class:`Column` s and the :class:`Contract` that
yields the Arrow schema a job builds its rows with and the DDL of the catalog table
they land in; and the key columns the tables share (:data:`CONFIGURATION_KEY`, spelled
here only). The tables themselves are declared in :mod:`perfwarehouse.warehouse.contracts`
(see there for the rules).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

HISTORY = "_history"  # <table>_history holds a result table's rows of every run
UTC_MICROS = pa.timestamp("us", tz="UTC")


@dataclass(frozen=True)
class Column:
    """One column: its name, Arrow type, whether the catalog refuses NULL in it, and the
    migration that added it to catalogs made before it (``since``, a schema order such
    as "081b"; None: the table always had it)."""

    name: str
    type: pa.DataType
    not_null: bool = False
    since: str | None = None


def columns(*pairs: tuple[str, pa.DataType]) -> tuple[Column, ...]:
    """Nullable ``Column``s from ``(name, type)`` pairs."""
    return tuple(Column(n, t) for n, t in pairs)


def not_null(cols: tuple[Column, ...], *names: str) -> tuple[Column, ...]:
    """``cols`` with the columns ``names`` declared ``NOT NULL``."""
    unknown = set(names) - {c.name for c in cols}
    if unknown:
        raise KeyError(f"no column {sorted(unknown)}")
    return tuple(Column(c.name, c.type, c.not_null or c.name in names, c.since) for c in cols)


def added(since: str, *pairs: tuple[str, pa.DataType]) -> tuple[Column, ...]:
    """Nullable ``Column``s added by the migration ``since`` to older catalogs."""
    return tuple(Column(n, t, since=since) for n, t in pairs)


#: The column in front of every job result row: the run that wrote it (``job_runs``).
JOB_RUN = (Column("job_run_id", pa.int64(), not_null=True),)


@dataclass(frozen=True)
class Contract:
    """A result table ``table``: stored as ``<table>_history`` behind ``front`` (the
    ``job_run_id`` of a job's run), or, ``history=False``, as ``<table>`` itself."""

    table: str
    order: str  # the place of its DDL among sql/schema's numbered files ("046")
    doc: str  # what a row is (the comment above the DDL)
    columns: tuple[Column, ...]
    front: tuple[Column, ...] = JOB_RUN  # added by the catalog when it stores the rows
    history: bool = True

    def __post_init__(self) -> None:
        names = [c.name for c in self.front + self.columns]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.table}: a column declared twice")
        # older catalogs gain the added columns at their end, in migration order; a new
        # catalog must have them in the same place
        first = next((i for i, c in enumerate(self.columns) if c.since), len(self.columns))
        later = self.columns[first:]
        since = [c.since or "" for c in later]
        if "" in since or since != sorted(since) or any(c.not_null for c in later):
            raise ValueError(f"{self.table}: added columns must come last, nullable, in "
                             "migration order")

    @property
    def stored_as(self) -> str:
        """The catalog table holding the rows."""
        return f"{self.table}{HISTORY}" if self.history else self.table

    @property
    def schema(self) -> pa.Schema:
        """The Arrow schema of the rows a job builds (without the ``front`` columns)."""
        return pa.schema([pa.field(c.name, c.type) for c in self.columns])

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def fields(self, after: tuple[Column, ...] = ()) -> tuple[tuple[str, pa.DataType], ...]:
        """``(name, type)`` of the columns after the leading ``after`` (those a job
        computes, behind the key columns it copies from its input)."""
        if [(c.name, c.type) for c in self.columns[:len(after)]] != [
                (c.name, c.type) for c in after]:
            raise KeyError(f"{self.table} does not start with {[c.name for c in after]}")
        return tuple((c.name, c.type) for c in self.columns[len(after):])

    def conform(self, table: pa.Table) -> pa.Table:
        """``table`` as the contract has it: its columns in the contract's order, cast
        to its types (a value that does not fit raises). A nullable column ``table``
        lacks is NULL (as the catalog's ``INSERT ... BY NAME`` fills it: order_effects
        has the OrderSage-compatible columns only with ``--ordersage-compat``); a
        missing ``NOT NULL`` column or one not in the contract raises ``ValueError``."""
        if table.num_rows == 0 and table.num_columns == 0:
            return self.schema.empty_table()
        missing = [c.name for c in self.columns
                   if c.not_null and c.name not in table.column_names]
        extra = [n for n in table.column_names if n not in self.names]
        if missing or extra:
            raise ValueError(f"rows for {self.table}: missing NOT NULL columns {missing}, "
                             f"columns not in its contract {extra}")
        return pa.table([table.column(c.name).cast(c.type) if c.name in table.column_names
                         else pa.nulls(table.num_rows, c.type) for c in self.columns],
                        schema=self.schema)

    def ddl(self) -> str:
        """``CREATE TABLE IF NOT EXISTS`` the stored table: ``front``, then the columns."""
        cols = self.front + self.columns
        width = max(len(c.name) for c in cols)
        lines = [f"    {c.name:<{width}} {sql_type(c.type)}{' NOT NULL' if c.not_null else ''}"
                 for c in cols]
        return (f"{_comment(self.doc)}\nCREATE TABLE IF NOT EXISTS {self.stored_as} (\n"
                + ",\n".join(lines) + "\n);\n")

    def migrations(self) -> list[tuple[str, str]]:
        """``(NNNx_<table>_<column>, ALTER TABLE ...)`` adding each later column to the
        catalogs made before it (a no-op on those that have it)."""
        return [(f"{c.since}_{self.table}_{c.name}",
                 _comment(f"{c.name} of {self.table}, for catalogs created before it.")
                 + f"\nALTER TABLE {self.stored_as} ADD COLUMN IF NOT EXISTS {c.name} "
                 f"{sql_type(c.type)}\n")
                for c in self.columns if c.since is not None]


def _comment(text: str) -> str:
    return "\n".join(f"-- {line}".rstrip() for line in text.strip().splitlines())


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
KEY_NAMES = tuple(c.name for c in CONFIGURATION_KEY)
#: The configuration key with the configuration's unit and whether higher is better
#: (as ``configurations`` has them; NULL when the source did not say).
MEASURED = CONFIGURATION_KEY + columns(("unit", pa.string()), ("higher_is_better", pa.bool_()))
#: A profiled environment (hardware type, or one node).
ENVIRONMENT_KEY = columns(("campaign", pa.string()), ("hardware_type", pa.string()),
                          ("node", pa.string()))
#: A load-test configuration family (benchmark + settings but the load) on one hardware
#: type, and its loop (closed | open).
LOAD_FAMILY = columns(("campaign", pa.string()), ("hardware_type", pa.string()),
                      ("benchmark", pa.string()), ("family", pa.string()),
                      ("loop", pa.string()))
