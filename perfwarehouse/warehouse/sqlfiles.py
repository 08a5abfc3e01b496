"""SQL lives in ``sql/`` (one statement per file); this module loads it by name."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from perfwarehouse.config import data_dir


def sql_root() -> Path:
    return data_dir("sql")


@cache
def load(name: str) -> str:
    """The text of ``sql/<name>.sql`` (``name`` like ``views/measurements``)."""
    path = sql_root() / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no SQL file {name!r} under {sql_root()}")
    return path.read_text()


def schema_statements() -> list[tuple[str, str]]:
    """``(file name, statement)`` of every schema file and of every result-table contract
    (:mod:`perfwarehouse.warehouse.contracts`, named ``NNN_<table>`` as a file would be),
    in numbered order."""
    from perfwarehouse.warehouse.contracts import statements

    folder = sql_root() / "schema"
    return sorted([(p.stem, p.read_text()) for p in folder.glob("*.sql")] + statements())


def quote_literal(text: str) -> str:
    """An SQL string literal (for the few places DDL cannot take parameters)."""
    return "'" + text.replace("'", "''") + "'"
