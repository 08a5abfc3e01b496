"""The result-table contracts (perfwarehouse/warehouse/contracts.py): each declares a
table once and yields both the Arrow schema its job builds rows with and the DDL of the
catalog table; DuckDB reads the DDL back as that schema. Every table a job writes is a
contract, and none is declared in sql/schema/; the DDL agrees with the Arrow columns the
code builds. No table is declared twice. Columns added later migrate older catalogs
(tests/integration/test_old_catalogs.py opens catalogs made by earlier code)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from perfwarehouse.compare import FIELDS as COMPARE_FIELDS
from perfwarehouse.jobs import JOBS
from perfwarehouse.jobs.detectable_regression import AA_FIELDS, CURVE_FIELDS, DETECTABLE_FIELDS
from perfwarehouse.jobs.surface import FIELDS as SURFACE_FIELDS
from perfwarehouse.jobs.variability import VARIABILITY_FIELDS
from perfwarehouse.loadtest.results import PEAK_FIELDS
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


# ------------------------------------------------ every result table, one contract each
def test_every_table_a_job_writes_is_a_contract_and_no_sql_file_declares_one(
        tmp_path) -> None:
    from perfwarehouse.warehouse.store import Warehouse, result_tables

    written = {name for job in JOBS for name in job.outputs}  # derived, not listed
    assert written == set(CONTRACTS)
    assert all(contracts.contract(name) is CONTRACTS[name] for name in written)
    wh = Warehouse(tmp_path / "wh", lock_timeout_s=5.0)
    with wh.writing("test"):
        pass
    with wh.catalog() as con:  # every <name>_history a catalog has is a job's contract
        assert set(result_tables(con)) == set(CONTRACTS)
    stored = {c.stored_as for c in contracts.TABLES.values()}
    assert "comparisons" in stored
    for path in (sqlfiles.sql_root() / "schema").glob("*.sql"):
        text = path.read_text()
        assert not any(f"EXISTS {t} " in text or f"EXISTS {t}(" in text or f"TABLE {t} " in text
                       for t in stored), f"{path.name} declares a result table: a contract's"
    with pytest.raises(KeyError, match="no contract"):
        contracts.contract("no_such_table")


def test_the_comparisons_table_is_its_contract_behind_its_id_and_time() -> None:
    c = contracts.COMPARISONS
    schema, nullable = _created(c.ddl(), "comparisons")
    assert c.stored_as == "comparisons" and c.table not in CONTRACTS
    assert _plain(schema)[:2] == [("comparison_id", "int64"), ("created_at", "timestamp[us, tz=UTC]")]
    assert not nullable["comparison_id"] and not nullable["created_at"]
    assert _plain(pa.schema(list(schema)[2:])) == _plain(c.schema)
    assert {x.name: not x.not_null for x in c.columns} == {
        k: v for k, v in nullable.items() if k not in ("comparison_id", "created_at")}
    # the compare columns end it, as compare_table builds them
    assert c.fields()[-len(COMPARE_FIELDS):] == COMPARE_FIELDS


# ------------------------------------------------ columns added to older catalogs
def _columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple]:
    return con.execute("SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
                       "WHERE table_name = ? ORDER BY column_index", [table]).fetchall()


def test_an_added_column_migrates_an_older_table_to_the_new_shape() -> None:
    base = columns(("a", pa.int64()), ("b", pa.string()))
    before = Contract("t", "090", "t: before", not_null(base, "a"))
    after = Contract("t", "090", "t: after", not_null(base, "a")
                     + contracts.added("090b", ("c", pa.float64()))
                     + contracts.added("090c", ("d", pa.list_(pa.string()))))
    assert before.migrations() == []
    names = [n for n, _ in after.migrations()]
    assert names == ["090b_t_c", "090c_t_d"]
    old, new = duckdb.connect(), duckdb.connect()
    try:
        old.execute(before.ddl())
        old.execute("INSERT INTO t_history VALUES (1, 2, 'x')")
        for con in (old, new):
            con.execute(after.ddl())  # a no-op on the old table
            for _, statement in after.migrations():
                con.execute(statement)  # a no-op on the new one
        assert _columns(old, "t_history") == _columns(new, "t_history")
        assert [c[0] for c in _columns(old, "t_history")] == ["job_run_id", "a", "b", "c", "d"]
        assert old.execute("SELECT * FROM t_history").fetchall() == [(1, 2, "x", None, None)]
    finally:
        old.close()
        new.close()


def test_the_change_points_migrations_are_generated_in_their_numbered_places() -> None:
    names = [n for n, _ in sqlfiles.schema_statements()]
    added = ["081b_change_points_abs_change_pct", "081c_change_points_action",
             "081d_change_points_paired_with", "081e_change_points_n_unpaired",
             "081f_change_points_shift", "081g_change_points_mixed"]
    at = names.index("081_change_points")
    assert names[at + 1:at + 7] == added
    assert [c.name for c in contracts.CHANGE_POINTS.columns[-6:]] == [
        "abs_change_pct", "action", "paired_with", "n_unpaired", "shift", "mixed"]


def test_a_contract_refuses_added_columns_it_could_not_migrate() -> None:
    a = columns(("a", pa.int64()))
    with pytest.raises(ValueError, match="last"):  # older catalogs gain it at the end
        Contract("t", "090", "t", contracts.added("090b", ("c", pa.int64())) + a)
    with pytest.raises(ValueError, match="migration order"):
        Contract("t", "090", "t", a + contracts.added("090c", ("c", pa.int64()))
                 + contracts.added("090b", ("d", pa.int64())))
    with pytest.raises(ValueError, match="nullable"):  # ADD COLUMN cannot fill old rows
        Contract("t", "090", "t", a + not_null(contracts.added("090b", ("c", pa.int64())), "c"))
    with pytest.raises(ValueError, match="twice"):
        Contract("t", "090", "t", a + columns(("job_run_id", pa.int64())))


# ------------------------------------------------ rows conformed to their contract
def test_conform_orders_and_casts_and_refuses_a_wrong_set_of_columns() -> None:
    c = Contract("t", "090", "t", not_null(columns(("a", pa.int32()), ("b", pa.string()),
                                                   ("c", pa.float64())), "c"))
    got = c.conform(pa.table({"c": pa.array([1, 2], pa.int64()), "a": [3, None],
                              "b": pa.array([None, None], pa.null())}))
    assert got.schema == c.schema
    assert got.to_pylist() == [{"a": 3, "b": None, "c": 1.0}, {"a": None, "b": None, "c": 2.0}]
    # a nullable column the rows lack is NULL, as INSERT ... BY NAME fills it
    assert c.conform(pa.table({"c": [5.0]})).to_pylist() == [{"a": None, "b": None, "c": 5.0}]
    assert c.conform(pa.table({})).schema == c.schema  # a job's empty output
    with pytest.raises(ValueError, match=r"missing NOT NULL columns \['c'\]"):
        c.conform(pa.table({"a": [1], "b": ["x"]}))
    with pytest.raises(ValueError, match=r"not in its contract \['d'\]"):
        c.conform(pa.table({"a": [1], "b": ["x"], "c": [1.0], "d": [0]}))
    with pytest.raises(pa.ArrowInvalid):  # a value that does not fit is not wrapped
        c.conform(pa.table({"a": [2**40], "b": ["x"], "c": [1.0]}))


def test_the_fields_after_a_key_are_the_contracts_tail() -> None:
    v = contracts.VARIABILITY
    tail = v.fields(contracts.MEASURED)
    assert [n for n, _ in tail] == list(v.names[len(contracts.MEASURED):])
    assert v.fields() == tuple((x.name, x.type) for x in v.columns)
    with pytest.raises(KeyError, match="does not start with"):
        contracts.LOAD_CURVE.fields(contracts.CONFIGURATION_KEY)
