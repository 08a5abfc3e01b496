"""The result-table contracts (perfwarehouse/warehouse/contracts.py): each declares a
table once and yields both the Arrow schema its job builds rows with and the DDL of the
catalog table; DuckDB reads the DDL back as that schema. The result tables still
declared in SQL agree with the Arrow columns their code builds. No table is declared
twice."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from perfwarehouse.compare import FIELDS as COMPARE_FIELDS
from perfwarehouse.jobs import JOBS
from perfwarehouse.jobs.detectable_regression import AA_FIELDS, CURVE_FIELDS, DETECTABLE_FIELDS
from perfwarehouse.jobs.surface import FIELDS as SURFACE_FIELDS
from perfwarehouse.jobs.variability import VARIABILITY_FIELDS
from perfwarehouse.loadtest.curve import PEAK_FIELDS
from perfwarehouse.warehouse import contracts, sqlfiles
from perfwarehouse.warehouse.contracts import CONTRACTS, Column, Contract, columns, not_null
from perfwarehouse.warehouse.store import fetch_arrow


def _created(ddl: str, table: str) -> tuple[pa.Schema, dict[str, bool]]:
    """The Arrow schema DuckDB gives ``table`` once ``ddl`` ran, and which columns are
    nullable."""
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(ddl)
        schema = fetch_arrow(con, f"SELECT * FROM {table}", None).schema
        nullable = dict(con.execute(
            "SELECT column_name, is_nullable = 'YES' FROM information_schema.columns "
            "WHERE table_name = ?", [table]).fetchall())
    finally:
        con.close()
    return schema, nullable


def _plain(schema: pa.Schema) -> list[tuple[str, str]]:
    """Names and types (list item names and field nullability aside)."""
    def text(t: pa.DataType) -> str:
        return f"list<{text(t.value_type)}>" if pa.types.is_list(t) else str(t)
    return [(f.name, text(f.type)) for f in schema]


@pytest.mark.parametrize("name", sorted(CONTRACTS))
def test_the_ddl_creates_the_arrow_schema(name: str) -> None:
    contract = CONTRACTS[name]
    schema, nullable = _created(contract.ddl(), f"{name}_history")
    assert schema.names[0] == "job_run_id" and schema.field(0).type == pa.int64()
    assert not nullable["job_run_id"]
    assert _plain(pa.schema(list(schema)[1:])) == _plain(contract.schema)
    assert {c.name: not c.not_null for c in contract.columns} == {
        k: v for k, v in nullable.items() if k != "job_run_id"}
    assert all(f.nullable for f in contract.schema)  # jobs build rows before the catalog checks


def test_the_configuration_key_is_spelled_once() -> None:
    keyed = [c for c in CONTRACTS.values()
             if c.names[:6] == ("campaign", "hardware_type", "config_id", "benchmark",
                                "settings", "metric")]
    assert len(keyed) >= 6
    for c in keyed:
        assert [(x.name, x.type) for x in c.columns[:6]] == [
            (x.name, x.type) for x in contracts.CONFIGURATION_KEY]


def test_every_table_is_declared_once_and_every_contract_is_a_job_output() -> None:
    tables = []
    for _name, statement in sqlfiles.schema_statements():
        if "CREATE TABLE IF NOT EXISTS" not in statement:  # a migration (ALTER TABLE ...)
            continue
        head = statement[statement.find("CREATE TABLE IF NOT EXISTS"):].split("(")[0].split()
        tables.append(head[-1])
    assert len(tables) == len(set(tables))
    assert {f"{t}_history" for t in CONTRACTS} <= set(tables)
    outputs = {name for job in JOBS for name in job.outputs}
    assert set(CONTRACTS) <= outputs
    # numbered among the files: the DDL runs in the order it always did
    names = [n for n, _ in sqlfiles.schema_statements()]
    assert names == sorted(names)
    assert "046_trends" in names and "081_change_points" in names


def _sql_columns(table: str) -> list[tuple[str, str]]:
    for _name, statement in sqlfiles.schema_statements():
        if f"EXISTS {table} (" in statement or f"EXISTS {table}\n" in statement:
            schema, _ = _created(statement, table)
            return _plain(schema)
    raise KeyError(table)


LAABER_META = [("campaign", "string"), ("hardware_type", "string"), ("config_id", "uint64"),
               ("benchmark", "string"), ("settings", "string"), ("metric", "string"),
               ("unit", "string"), ("higher_is_better", "bool")]


@pytest.mark.parametrize(("table", "fields", "front"), [
    ("variability_history", VARIABILITY_FIELDS, LAABER_META),
    ("aa_fpr_history", AA_FIELDS, LAABER_META),
    ("detectable_regression_history", DETECTABLE_FIELDS, LAABER_META),
    ("detectable_regression_curve_history", CURVE_FIELDS, LAABER_META[:6]),
    ("response_surface_history", SURFACE_FIELDS, []),
    ("peak_rate_history", PEAK_FIELDS, []),
])
def test_the_tables_declared_in_sql_match_their_arrow_columns(
        table: str, fields: tuple[tuple[str, pa.DataType], ...],
        front: list[tuple[str, str]]) -> None:
    declared = _sql_columns(table)
    assert declared[0] == ("job_run_id", "int64")
    assert declared[1:] == front + _plain(pa.schema(list(fields)))


def test_the_comparisons_table_ends_with_the_compare_columns() -> None:
    declared = _sql_columns("comparisons")
    n = len(COMPARE_FIELDS)
    assert declared[-n:] == _plain(pa.schema(list(COMPARE_FIELDS)))


def test_a_contract_refuses_what_it_cannot_declare() -> None:
    with pytest.raises(KeyError):
        not_null(columns(("a", pa.int64())), "b")
    odd = Contract("odd", "999", "odd", (Column("x", pa.float16()),))
    with pytest.raises(TypeError):
        odd.ddl()
