"""`ingest pull`'s chunk directories (issue 44, H4): what other users put into the
temporary directory under the pull's prefix never stops a pull, and only this user's
directories of killed pulls are removed."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from perfwarehouse.ingest import scratch
from perfwarehouse.ingest.pull import TEMP_PREFIX, pull
from perfwarehouse.warehouse.store import Warehouse


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def _dir(path: Path) -> Path:
    path.mkdir()
    (path / "chunk.jsonl").write_text("{}\n")
    return path


def test_hostile_names_never_stop_a_pull_and_only_our_stale_dirs_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    dead = _dead_pid()
    kept = [_dir(temp / f"{TEMP_PREFIX}{name}-x") for name in (
        "99999999999", "4294967296", "18446744073709551617", "\u0663\u0663", "\u00b2",
        "1\u00b9", "", "0", "-1", "abc")]
    kept.append(_dir(temp / f"{TEMP_PREFIX}{os.getppid()}-alive"))
    elsewhere = _dir(tmp_path / "elsewhere")
    link = temp / f"{TEMP_PREFIX}{dead}-link"
    link.symlink_to(elsewhere)
    plain = temp / f"{TEMP_PREFIX}{dead}-file"
    plain.write_text("not a directory")
    kept += [link, plain]
    if os.getuid() == 0:  # a directory of another user, as root can make one
        theirs = _dir(temp / f"{TEMP_PREFIX}{dead}-theirs")
        os.chown(theirs, 65534, 65534)
        kept.append(theirs)
    stale = _dir(temp / f"{TEMP_PREFIX}{dead}-abc_123")

    assert pull(Warehouse(tmp_path / "wh"), []) == []

    assert not stale.exists()
    assert all(p.exists() or p.is_symlink() for p in kept), [p for p in kept if not p.exists()]
    assert (elsewhere / "chunk.jsonl").exists()
    assert sorted(temp.iterdir()) == sorted(kept)  # and the pull's own directory is gone


def test_the_chunk_directory_is_private_and_unguessable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    # another user's pre-made directory of the name a pid alone would give
    squatted = tmp_path / f"{TEMP_PREFIX}{os.getpid()}-"
    squatted.mkdir()
    with scratch.chunk_dir(TEMP_PREFIX) as one, scratch.chunk_dir(TEMP_PREFIX) as two:
        assert one != two and squatted not in (one, two)
        for path in (one, two):
            info = path.lstat()
            assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            assert stat.S_IMODE(info.st_mode) == 0o700
            assert path.name.startswith(f"{TEMP_PREFIX}{os.getpid()}-")
    assert not one.exists() and not two.exists() and squatted.exists()
