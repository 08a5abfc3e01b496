"""``ingest auto DIR`` sniffs a bounded prefix, reads whole only claimed files, refuses a
file past limits.INPUT_MAX in one line, and lists FIFOs, devices and dangling links among
the skipped files without opening them (issue 44 H5 and H14)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import inputs
from perfwarehouse.ingest.formats.records import SNIFF_BYTES, ImportOptions
from perfwarehouse.ingest.limits import INPUT_MAX
from perfwarehouse.ingest.service import Skipped, collect_inputs, ingest_import
from perfwarehouse.warehouse.store import Warehouse
from tests.unit.ingest.importer_support import FIXTURES

WRK = FIXTURES / "wrk" / "good" / "wrk_c4.txt"


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    root.mkdir()
    (root / "wrk_c4.txt").write_bytes(WRK.read_bytes())
    return root


def test_an_unclaimed_huge_file_is_sniffed_from_its_head_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _tree(tmp_path)
    stray = root / "core.dump"
    with open(stray, "wb") as f:  # sparse: 3 GB of size, no disk
        f.truncate(3 << 30)
    seen: list[tuple[Path, int]] = []
    real_head, real_whole = inputs.read_head, inputs.read_input

    def head(path: Path, size: int | None = None) -> bytes:
        out = real_head(path, size)
        seen.append((path, len(out)))
        return out

    def whole(path: Path) -> bytes:
        assert path != stray, "an unclaimed file was read whole"
        return real_whole(path)

    monkeypatch.setattr(inputs, "read_head", head)
    monkeypatch.setattr(inputs, "read_input", whole)
    skipped: list[Skipped] = []
    got = collect_inputs("auto", [root], skipped)
    assert [(i.path.name, i.format) for i in got] == [("wrk_c4.txt", "wrk")]
    assert got[0].data is None  # read when parsed, one file at a time
    assert got[0].content() == WRK.read_bytes()
    assert (stray, SNIFF_BYTES) in seen
    assert [(s.path, s.reason) for s in skipped] == [(stray, "no format recognises it")]


def test_a_claimed_file_past_the_limit_is_refused_in_one_line_naming_it(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    big = root / "wrk_big.txt"
    with open(big, "wb") as f:
        f.write(WRK.read_bytes())
        f.truncate(INPUT_MAX + 1)  # the rest is a hole: claimed by its head
    skipped: list[Skipped] = []
    inputs_, _summary = ingest_import(Warehouse(tmp_path / "wh"), "auto", [root],
                                      ImportOptions(node="n1"), dry_run=True, skipped=skipped)
    assert [i.path.name for i in inputs_] == ["wrk_c4.txt"]
    assert len(skipped) == 1 and skipped[0].path == big
    assert skipped[0].reason.startswith("[too-large] ") and "INPUT_MAX" in skipped[0].reason
    with pytest.raises(TrialParseError) as info:  # named on the command line: refused
        ingest_import(Warehouse(tmp_path / "wh"), "auto", [big], ImportOptions(node="n1"),
                      dry_run=True)
    assert info.value.rule == "too-large" and str(info.value).startswith(str(big))
    assert "\n" not in str(info.value)


def test_fifos_devices_and_dangling_links_are_listed_and_never_opened(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.mkfifo(root / "pipe")  # opening it for reading would block forever
    (root / "zero").symlink_to("/dev/zero")
    (root / "gone").symlink_to(root / "nowhere")
    (root / "good_link.txt").symlink_to(root / "wrk_c4.txt")
    skipped: list[Skipped] = []
    got = collect_inputs("auto", [root], skipped)
    assert sorted(i.path.name for i in got) == ["good_link.txt", "wrk_c4.txt"]
    reasons = {s.path.name: s.reason for s in skipped}
    assert reasons == {"pipe": "a FIFO: not read",
                       "zero": "a link to a character device: not read",
                       "gone": "a dangling link (its target does not exist): not read"}


def test_a_fifo_in_place_of_a_claimed_file_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "wrk.txt"
    os.mkfifo(fifo)
    with pytest.raises(TrialParseError) as info:
        inputs.read_input(fifo)
    assert info.value.rule == "not-a-file"
    with pytest.raises(UsageError, match="is not a file"):
        collect_inputs("auto", [fifo])


def test_the_head_of_a_gzip_file_is_decompressed_up_to_the_sniff_size(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "big.txt.gz"
    path.write_bytes(gzip.compress(WRK.read_bytes() + b"x" * (4 * SNIFF_BYTES)))
    head = inputs.read_head(path)
    assert len(head) == SNIFF_BYTES and head.startswith(WRK.read_bytes())
