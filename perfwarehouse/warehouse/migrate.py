"""The catalog's schema version: create missing tables, upgrade an older catalog in
place, and refuse one this release cannot read."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import duckdb

from perfwarehouse.errors import WarehouseError
from perfwarehouse.warehouse import sqlfiles
from perfwarehouse.warehouse.connection import fetch_one, transaction
from perfwarehouse.warehouse.views import HISTORY

SCHEMA_VERSION = 2  # 2: revision, revision_time, attributes (runs, trials, measurement files)

# Schema version 1 -> 2: the revision key and the attributes of a trial. Measurement
# files written before stay as they are (file_version 1); the measurements view reads
# the new columns of those files as NULL.
_MIGRATE_1_TO_2 = (
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS revision VARCHAR",
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS revision_time TIMESTAMPTZ",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS revision VARCHAR",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS revision_time TIMESTAMPTZ",
    "ALTER TABLE valueless_trials ADD COLUMN IF NOT EXISTS attributes JSON",
    "ALTER TABLE data_files ADD COLUMN IF NOT EXISTS file_version INTEGER DEFAULT 1",
    "ALTER TABLE data_files ALTER COLUMN file_version SET DEFAULT 2",
    "UPDATE meta SET value = '2' WHERE key = 'schema_version'",
)


def migrate(con: duckdb.DuckDBPyConnection) -> bool:
    """Create missing tables and upgrade an older catalog; True if it was upgraded."""
    old = None
    if fetch_one(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = 'meta'"):
        row = fetch_one(con, "SELECT value FROM meta WHERE key = 'schema_version'")
        old = int(row[0]) if row else None
    # result tables of catalogs written before the views: <name> becomes <name>_history
    existing = {r[0]: r[1] for r in con.execute(
        "SELECT table_name, 'table' FROM duckdb_tables() WHERE schema_name = 'main' UNION ALL "
        "SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal "
        "AND schema_name = 'main'").fetchall()}
    renamed = False
    for _name, statement in sqlfiles.schema_statements():
        head = statement[statement.find("CREATE TABLE IF NOT EXISTS"):].split("(")[0].split()
        table = head[-1] if len(head) == 6 else ""
        if table.endswith(HISTORY):
            previous = table[: -len(HISTORY)]
            if existing.get(previous) == "table" and table not in existing:
                con.execute(f"ALTER TABLE {previous} RENAME TO {table}")
                renamed = True
    for _name, statement in sqlfiles.schema_statements():
        con.execute(statement)
    from perfwarehouse.warehouse.integrity import CONTENT_COLUMNS

    for column, kind in CONTENT_COLUMNS:  # files landed before checksums: NULL (unknown)
        con.execute(f"ALTER TABLE data_files ADD COLUMN IF NOT EXISTS {column} {kind}")
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    con.execute(
        "INSERT INTO meta VALUES ('schema_version', ?), ('created_at', ?) ON CONFLICT DO NOTHING",
        [str(SCHEMA_VERSION), now],
    )
    if old != 1:
        return renamed
    with transaction(con):
        for statement in _MIGRATE_1_TO_2:
            con.execute(statement)
    return True


def check_version(con: duckdb.DuckDBPyConnection, root: Path) -> None:
    """Refuse a catalog of another schema version, saying how to go on."""
    row = fetch_one(con, "SELECT value FROM meta WHERE key = 'schema_version'")
    version = int(row[0]) if row else None
    if version is not None and version < SCHEMA_VERSION:
        raise WarehouseError(
            f"{root} has warehouse schema version {version}, this perfwarehouse reads "
            f"version {SCHEMA_VERSION}; upgrade it in place with `perfwarehouse --warehouse "
            f"{root} init` (any ingest does it too)")
    if version != SCHEMA_VERSION:
        raise WarehouseError(
            f"{root} has warehouse schema version {version}, this perfwarehouse reads "
            f"version {SCHEMA_VERSION}; use the perfwarehouse release that created it"
        )
