"""Issue 44, H1, H3, H13: content damage that `check` could not see, damaged files that
gave tracebacks, a FIFO that hung readers and a `--forget-damaged` that committed its
catalog change and then failed. Each test corrupts the real Parquet files of a small
real warehouse (two OrderSage campaigns, one data file each) and fails on d99f738.

Before: a byte flipped in a column chunk (the file still decodes, to other values)
passed `check` and `sql` returned the other values; a flipped footer byte gave a
`TProtocolException` (or `UnicodeDecodeError`) traceback from `sql` and `status`; a
Parquet file of other columns in place of a listed one gave a `BinderException`
traceback; a FIFO in place of a listed file hung `sql` and `status`; `--forget-damaged`
with `_damaged` taken by a file dropped the rows, then failed, leaving the file unlisted
in `measurements/` without saying where it was."""

from __future__ import annotations

import io
import os
import shutil
import struct
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from perfwarehouse.errors import WarehouseError
from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.warehouse.integrity import content_record, value_bounds
from perfwarehouse.warehouse.store import Warehouse
from perfwarehouse.warehouse.verify import check, forget_damaged, listed_files, recovery_lines
from tests.conftest import ORDERSAGE_DIRS, CliRunner

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two campaigns of real OrderSage results, one data file each (built once)."""
    home = tmp_path_factory.mktemp("integrity") / "warehouse"
    wh = Warehouse(home, lock_timeout_s=5.0)
    ingest_ordersage(wh, [ORDERSAGE_DIRS["npbench"]])
    ingest_ordersage(wh, [ORDERSAGE_DIRS["ufs"]])
    return home


@pytest.fixture
def home(base: Path, tmp_path: Path) -> Path:
    """A copy of ``base`` (times kept, as the catalog recorded them)."""
    return Path(shutil.copytree(base, tmp_path / "warehouse", copy_function=shutil.copy2))


def data_file(home: Path, batch: int = 1) -> Path:
    return next((home / "measurements").rglob(f"b{batch:06d}-0.parquet"))


def rel(home: Path, path: Path) -> str:
    return path.relative_to(home).as_posix()


def rewrite_keeping_time(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path`` and give it back its modification time (as a disk
    that rots bytes would: nothing tells a reader the file changed)."""
    st = path.stat()
    path.write_bytes(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def flipped_value_byte(path: Path) -> tuple[bytes, list[float]]:
    """The file's bytes with one byte of its ``value`` column chunk flipped such that
    the file still decodes, to other values (found by trying each byte in turn); and
    those values."""
    original = path.read_bytes()
    meta = pq.read_metadata(path)
    chunk = meta.row_group(0).column(meta.schema.names.index("value"))
    before = pq.read_table(io.BytesIO(original), columns=["value"])["value"].to_pylist()
    for pos in range(chunk.data_page_offset, chunk.data_page_offset + chunk.total_compressed_size):
        data = bytearray(original)
        data[pos] ^= 0x01
        try:
            after = pq.read_table(io.BytesIO(bytes(data)), columns=["value"])["value"].to_pylist()
        except (OSError, pa.ArrowException):
            continue
        if len(after) == len(before) and after != before:
            return bytes(data), after
    raise AssertionError("no byte of the value chunk changes the values and still decodes")


def one_line_error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_landing_records_checksum_rows_bounds_and_time(home: Path) -> None:
    with duckdb.connect(str(home / "catalog.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT path, row_count, bytes, sha256, min_value, max_value, "
                           "mtime_ns FROM data_files ORDER BY path").fetchall()
    assert len(rows) == 2
    for path, row_count, size, sha256, low, high, mtime_ns in rows:
        values = pq.read_table(home / path, columns=["value"])["value"].to_pylist()
        assert row_count == len(values) and size == (home / path).stat().st_size
        assert (low, high) == (min(values), max(values))  # a slow obvious twin of the footer
        import hashlib

        assert sha256 == hashlib.sha256((home / path).read_bytes()).hexdigest()
        assert mtime_ns == (home / path).stat().st_mtime_ns


def test_a_changed_value_is_named_by_check_and_every_reader(cli: CliRunner, home: Path) -> None:
    """H1: the issue's flip of one byte in a column chunk (1.5 became 1.59e+183, exit 0)."""
    target = data_file(home)
    name = rel(home, target)
    data, values = flipped_value_byte(target)
    target.write_bytes(data)  # rewritten: its time changes, so readers hash it
    for args in (["sql", "SELECT max(value) FROM measurements"], ["analyze", "variability"],
                 ["report", "variability", "--out", "r.html"]):
        line = one_line_error(cli(*args, warehouse=home))
        assert name in line and "changed since it landed" in line, (args, line)
        assert "check --forget-damaged" in line
    # a query that does not read the file answers; status (from the catalog) says it
    other = cli("sql", "SELECT count(*) AS n FROM measurements WHERE campaign <> ?".replace(
        "?", f"'{target.parent.parent.name.split('=', 1)[1].replace('%3A', ':')}'"),
        "--format", "csv", warehouse=home, check=True).stdout
    assert other.split()[1] == "400"
    status = cli("status", warehouse=home, check=True).stdout.splitlines()
    assert status[1].startswith(f"DAMAGED: data file {name} is damaged (changed since")
    report = cli("check", warehouse=home)
    assert report.returncode == 1, report.stdout
    assert report.stdout.startswith("DAMAGED: 1 of 2 data files")
    assert f"{name}: content changed since it landed" in report.stdout
    # --quick reads footers only and says so: it cannot see this
    quick = cli("check", "--quick", warehouse=home, check=True).stdout
    assert quick.startswith("ok: 2 data files") and "quick: content not read" in quick
    forgot = cli("check", "--forget-damaged", warehouse=home, check=True).stdout
    moved = "_damaged/" + name.removeprefix("measurements/")
    assert f"moved to {moved}" in forgot
    assert (home / moved).read_bytes() == data and not target.exists()
    assert cli("check", warehouse=home, check=True).stdout.startswith("ok: 1 data files")
    out = cli("sql", "SELECT count(*) AS n FROM measurements", "--format", "csv",
              warehouse=home, check=True).stdout
    assert out.split()[1] == "400" and len(values) == 600


def test_bit_rot_that_keeps_the_time_is_found_by_check(home: Path) -> None:
    """A byte changed with the file's time kept: a full check hashes every file."""
    target = data_file(home, 2)
    data, _ = flipped_value_byte(target)
    rewrite_keeping_time(target, data)
    wh = Warehouse(home, lock_timeout_s=5.0)
    result = check(wh)
    assert [d.file.path for d in result.damaged] == [rel(home, target)]
    assert result.damaged[0].problem.startswith("content changed since it landed")
    assert not check(wh, quick=True).damaged  # the footer is intact


def test_a_file_of_another_warehouse_with_the_same_size_and_rows(cli: CliRunner, home: Path,
                                                                  tmp_path: Path) -> None:
    """H1: the same campaign ingested second into another warehouse: a valid Parquet file
    of the same size and row count (its batch_id column differs), copied over ours."""
    other = Warehouse(tmp_path / "other", lock_timeout_s=5.0)
    ingest_ordersage(other, [ORDERSAGE_DIRS["ufs"]])
    ingest_ordersage(other, [ORDERSAGE_DIRS["npbench"]])
    target = data_file(home, 1)
    stranger = data_file(other.root, 2)
    assert stranger.parent.name == target.parent.name  # the same campaign and hardware
    assert stranger.stat().st_size == target.stat().st_size
    assert pq.read_metadata(stranger).num_rows == pq.read_metadata(target).num_rows
    shutil.copy2(stranger, target)  # its own time comes along
    line = one_line_error(cli("sql", "SELECT DISTINCT batch_id FROM measurements",
                              warehouse=home))
    assert rel(home, target) in line and "changed since it landed" in line
    result = check(Warehouse(home, lock_timeout_s=5.0))
    assert [d.file.path for d in result.damaged] == [rel(home, target)]


@pytest.mark.parametrize("where", ["footer", "schema"])
def test_damaged_footers_and_other_schemas_give_one_line(cli: CliRunner, home: Path,
                                                         where: str) -> None:
    """H3: every flipped footer byte (time kept: readers cannot tell from a stat) and a
    Parquet file of other columns in place of a listed one: one line naming the file
    from the readers, never a traceback; `check` names it too."""
    target = data_file(home)
    name = rel(home, target)
    original = target.read_bytes()
    wh = Warehouse(home, lock_timeout_s=5.0)
    if where == "schema":
        pq.write_table(pa.table({"x": [1.0, 2.0]}), target)
        line = one_line_error(cli("sql", "SELECT avg(value) FROM measurements",
                                  warehouse=home))
        assert name in line and "damaged" in line
        assert check(wh, quick=True).damaged[0].file.path == name
        return
    footer = len(original) - 8 - struct.unpack("<I", original[-8:-4])[0]
    failed = []
    for pos in range(footer, len(original) - 8, 83):
        data = bytearray(original)
        data[pos] ^= 0xFF
        rewrite_keeping_time(target, bytes(data))
        try:  # in-process: what `sql` reads
            with wh.catalog() as con:
                con.execute("SELECT avg(value) FROM measurements").fetchall()
        except WarehouseError as exc:
            failed.append(pos)
            assert name in str(exc) and "\n" not in str(exc), str(exc)
        except duckdb.Error as exc:  # the command line names it: damaged_file_line
            from perfwarehouse.warehouse.damage import damaged_file_line

            failed.append(pos)
            line = damaged_file_line(exc)
            assert line is not None and name in line, str(exc)
    assert len(failed) >= 5, failed  # most footer bytes matter; each was named
    # the command line on two of them (before: TProtocolException, UnicodeDecodeError)
    for pos in failed[:: max(1, len(failed) // 2)][:2]:
        data = bytearray(original)
        data[pos] ^= 0xFF
        rewrite_keeping_time(target, bytes(data))
        assert name in one_line_error(cli("sql", "SELECT avg(value) FROM measurements",
                                          warehouse=home))


def test_a_fifo_in_place_of_a_data_file_does_not_hang(cli: CliRunner, home: Path) -> None:
    """H13: never opened (a reader would block forever); named, and forgotten."""
    target = data_file(home)
    name = rel(home, target)
    target.unlink()
    os.mkfifo(target)
    line = one_line_error(cli("sql", "SELECT count(*) FROM measurements", warehouse=home,
                              timeout=120))
    assert name in line and "a FIFO" in line
    status = cli("status", warehouse=home, timeout=120, check=True).stdout
    assert f"DAMAGED: data file {name} is damaged (a FIFO, not a Parquet file)" in status
    report = cli("check", warehouse=home, timeout=120)
    assert report.returncode == 1 and f"{name}: a FIFO, not a Parquet file" in report.stdout
    result = forget_damaged(Warehouse(home, lock_timeout_s=5.0))
    assert [d.moved_to for d in result.damaged] == ["_damaged/" + name.removeprefix("measurements/")]


def test_forget_damaged_moves_first_to_a_free_name_and_says_where(home: Path) -> None:
    """H13: `_damaged` is a file: the damaged file goes to `_damaged-2/`, then the catalog
    forgets it (before: the catalog forgot it, then the move failed)."""
    target = data_file(home)
    name = rel(home, target)
    target.write_bytes(target.read_bytes()[:100])
    (home / "_damaged").write_text("someone's notes")
    wh = Warehouse(home, lock_timeout_s=5.0)
    result = forget_damaged(wh)
    where = "_damaged-2/" + name.removeprefix("measurements/")
    assert [(d.file.path, d.moved_to) for d in result.damaged] == [(name, where)]
    assert (home / where).stat().st_size == 100 and not target.exists()
    assert (home / "_damaged").read_text() == "someone's notes"
    assert [f.path for f in wh.data_files()] == [rel(home, data_file(home, 2))]


def test_forget_damaged_that_fails_changes_nothing(home: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed move (the second of two) moves the first back before the catalog is
    touched; a failed transaction moves the files back: both files stay listed, in place."""
    import perfwarehouse.warehouse.verify as verify

    targets = [data_file(home, 1), data_file(home, 2)]
    for target in targets:
        target.write_bytes(target.read_bytes()[:100])
    wh = Warehouse(home, lock_timeout_s=5.0)
    rename = os.rename
    calls = []

    def second_fails(src: Path, dst: Path) -> None:
        calls.append(src)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied", str(dst))
        rename(src, dst)

    monkeypatch.setattr(verify.os, "rename", second_fails)
    with pytest.raises(PermissionError):
        forget_damaged(wh)
    monkeypatch.setattr(verify.os, "rename", rename)

    def failing_transaction(cat: object) -> None:
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(verify, "transaction", failing_transaction)
    with pytest.raises(RuntimeError):
        forget_damaged(wh)
    assert all(t.stat().st_size == 100 for t in targets)
    assert len(listed_files(wh)) == 2 and not list((home / "_damaged").rglob("*.parquet"))


def test_a_warehouse_without_checksums_is_read_then_adopted(home: Path) -> None:
    """Migration: a catalog of an older release (no content columns) is read as before;
    the first full check reads its files in full and records their checksums."""
    with duckdb.connect(str(home / "catalog.duckdb")) as con:
        for column in ("sha256", "min_value", "max_value", "mtime_ns"):
            con.execute(f"ALTER TABLE data_files DROP COLUMN {column}")
    wh = Warehouse(home, lock_timeout_s=5.0)
    with wh.catalog() as con:  # read-only: no migration, the view reads as before
        assert con.execute("SELECT count(*) FROM measurements").fetchall() == [(1000,)]
    quick = check(wh, quick=True)
    assert quick.unverified == 2 and "no recorded checksum" in recovery_lines(quick, home)[1]
    full = check(wh)
    assert not full.damaged and full.recorded == "recorded" and len(full.adopted) == 2
    assert "read in full and found readable" in recovery_lines(full, home)[1]
    listed = {f.path: f for f in wh.data_files()}
    for path, f in listed.items():
        assert f.sha256 == content_record(home / path)["sha256"]
    assert not check(wh).adopted  # recorded once


def test_value_bounds_from_the_footer(tmp_path: Path) -> None:
    path = tmp_path / "v.parquet"
    pq.write_table(pa.table({"value": [3.0, None, -2.5, 7.25]}), path, row_group_size=2)
    assert value_bounds(pq.read_metadata(path)) == (-2.5, 7.25)
    pq.write_table(pa.table({"value": [1.0]}), path, write_statistics=False)
    assert value_bounds(pq.read_metadata(path)) == (None, None)
