"""Issue 31 item 8: a full disk at the catalog's commit says "No space left on device" in
one line and leaves the warehouse as it was (before: a traceback, `cannot rollback - no
transaction is active`, hid the reason); a full disk just after the commit (refreshing the
persistent views) reports the batch as landed, with a warning (before: exit 1).

DuckDB's behaviour is reproduced exactly (checked on a 64 MB tmpfs filled to 20 KB and
60 KB free, see docs/reliability.md): a COMMIT that cannot write its WAL raises and has
already ended the transaction, so the ROLLBACK after it raises too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pytest

from perfwarehouse.cli import main
from perfwarehouse.warehouse import store
from perfwarehouse.warehouse.store import Warehouse, transaction
from tests.conftest import ORDERSAGE_DIRS

pytestmark = pytest.mark.integration

ENOSPC = 'Could not write file "{}/catalog.duckdb.wal": No space left on device'


class FullDiskAtCommit:
    """A catalog connection whose COMMIT fails as DuckDB's does on a full disk."""

    def __init__(self, con: duckdb.DuckDBPyConnection, wal: Path) -> None:
        self._con, self._wal = con, wal

    def execute(self, query: str, *args: Any) -> Any:
        if query.strip().upper() == "COMMIT":
            self._con.execute("ROLLBACK")  # DuckDB aborts the transaction itself
            raise duckdb.TransactionException(
                "TransactionContext Error: Failed to commit: " + ENOSPC.format(self._wal))
        return self._con.execute(query, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)


def count(home: Path) -> int:
    with Warehouse(home).catalog() as con:
        return int(con.execute("SELECT count(*) FROM measurements").fetchone()[0])


def test_the_first_error_of_a_failed_commit_is_the_one_raised(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(duckdb.TransactionException, match="No space left on device"):
        with transaction(FullDiskAtCommit(con, tmp_path)):  # type: ignore[arg-type]
            con.execute("INSERT INTO t VALUES (1)")
    assert con.execute("SELECT count(*) FROM t").fetchone()[0] == 0


def test_full_disk_at_the_commit_is_one_line_and_changes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "warehouse"
    assert main(["--warehouse", str(home), "-q", "ingest", "ordersage",
                 str(ORDERSAGE_DIRS["npbench"])]) == 0
    real = store.WriteSession.catalog

    @contextmanager
    def failing(self: store.WriteSession) -> Iterator[Any]:
        with real(self) as con:
            yield FullDiskAtCommit(con, self.warehouse.root)

    monkeypatch.setattr(store.WriteSession, "catalog", failing)
    capsys.readouterr()
    code = main(["--warehouse", str(home), "-q", "ingest", "ordersage",
                 str(ORDERSAGE_DIRS["ufs"])])
    err = capsys.readouterr().err
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: No space left on device"), err
    assert "rollback" not in err
    monkeypatch.setattr(store.WriteSession, "catalog", real)
    assert count(home) == 600  # as it was
    assert main(["--warehouse", str(home), "-q", "ingest", "ordersage",
                 str(ORDERSAGE_DIRS["ufs"])]) == 0  # space again: it lands
    assert count(home) == 1000


def test_full_disk_just_after_the_commit_reports_the_batch_as_landed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "warehouse"
    assert main(["--warehouse", str(home), "-q", "init"]) == 0

    def full(self: store.WriteSession, con: duckdb.DuckDBPyConnection) -> None:
        raise duckdb.TransactionException(
            "TransactionContext Error: Failed to commit: " + ENOSPC.format(home))

    monkeypatch.setattr(store.WriteSession, "refresh_views", full)
    capsys.readouterr()
    with pytest.warns(UserWarning, match="landed, but the persistent views were not refreshed"):
        code = main(["--warehouse", str(home), "-q", "ingest", "ordersage",
                     str(ORDERSAGE_DIRS["npbench"])])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.startswith("ingested 600 trials")
    monkeypatch.undo()
    assert count(home) == 600
