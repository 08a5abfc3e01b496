"""The plumbing of `ingest <format>` and `ingest auto`: reading (.gz by its bytes),
detecting, --setting values, the hardware type of a node, the no-node error, and the
batch's spill directory."""

from __future__ import annotations

import gzip
import shutil
import tempfile
from pathlib import Path

import click
import pytest

from perfwarehouse.cli.ingest import _parse_setting
from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import IMPORTERS, load
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import collect_inputs, read_input, stage_inputs
from tests.unit.ingest.importer_support import FIXTURES

SUITE = FIXTURES / "pyperf" / "good" / "suite.json"
GBENCH = FIXTURES / "gbench" / "good" / "single.json"


def test_every_registered_format_loads_and_follows_the_contract() -> None:
    for name in IMPORTERS:
        module = load(name)
        assert module.NAME == name and module.DESCRIPTION
        assert callable(module.sniff) and callable(module.parse)
    with pytest.raises(UsageError, match="unknown format"):
        load("nope")


def test_settings_from_the_command_line() -> None:
    got = _parse_setting(None, None, ("threads=4", "ratio=1.5", "jit=true", "name=x=y",  # type: ignore[arg-type]
                                      "big=1e999", "nan=NaN", "empty="))
    assert got == (("threads", 4), ("ratio", 1.5), ("jit", True), ("name", "x=y"),
                   ("big", "1e999"), ("nan", "NaN"), ("empty", ""))
    with pytest.raises(click.BadParameter):
        _parse_setting(None, None, ("novalue",))  # type: ignore[arg-type]


def test_a_negative_load_from_the_command_line_is_refused() -> None:
    """Issue 31 item 11: ``--setting clients=-3`` is refused as the tools' negative loads
    are; a load of 0 and other settings' negative values are not loads and pass."""
    from perfwarehouse.ingest.formats.records import apply_options

    def record() -> dict[str, object]:
        return {"node": "n1", "settings": {"loop": "closed"}}

    for key, value in (("clients", -3), ("rate_rps", -0.5), ("think_time_s", -1.0)):
        with pytest.raises(TrialParseError) as caught:
            apply_options([record()], ImportOptions(settings=((key, value),)), "f.txt", "c")
        assert caught.value.rule == "negative" and key in str(caught.value)
    kept = apply_options([record()], ImportOptions(settings=(("clients", 0), ("offset", -2))),
                         "f.txt", "c")
    assert kept[0]["settings"] == {"loop": "closed", "clients": 0, "offset": -2}


def test_gzip_is_told_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    hidden = tmp_path / "results.json"
    hidden.write_bytes(gzip.compress(SUITE.read_bytes()))
    plain = tmp_path / "plain.json.gz"
    shutil.copy(SUITE, plain)
    assert read_input(hidden) == read_input(plain) == SUITE.read_bytes()
    assert [(i.path.name, i.format) for i in collect_inputs("auto", [hidden, plain])] == [
        ("results.json", "pyperf"), ("plain.json.gz", "pyperf")]


def test_auto_refuses_what_no_format_claims_and_explicit_formats_are_checked(
    tmp_path: Path
) -> None:
    csv = tmp_path / "table.csv"
    csv.write_text("a,b\n1,2\n")
    with pytest.raises(UsageError, match=r"table\.csv: cannot tell its format"):
        collect_inputs("auto", [csv])
    with pytest.raises(UsageError, match="looks like pyperf results, not gbench"):
        collect_inputs("gbench", [SUITE])
    with pytest.raises(UsageError, match="is not a file"):
        collect_inputs("pyperf", [tmp_path / "missing.json"])


def test_a_directory_stands_for_the_files_it_holds_of_the_format(tmp_path: Path) -> None:
    shutil.copy(SUITE, tmp_path / "a.json")
    shutil.copy(GBENCH, tmp_path / "b.json")
    (tmp_path / "notes.txt").write_text("hello")
    assert [(i.path.name, i.format) for i in collect_inputs("auto", [tmp_path])] == [
        ("a.json", "pyperf"), ("b.json", "gbench")]
    assert [i.path.name for i in collect_inputs("gbench", [tmp_path])] == ["b.json"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no file in this directory"):
        collect_inputs("auto", [empty])


def test_a_node_without_a_type_takes_the_type_the_batch_gives_it() -> None:
    batch = stage.Batch("x", "auto")
    try:
        stage_inputs(batch, collect_inputs("auto", [SUITE, GBENCH]), ImportOptions())
        types = batch.con.execute("SELECT DISTINCT node, hardware_type FROM raw_trials").fetchall()
    finally:
        batch.close()
    assert types == [("vm", "AMD EPYC")]


def test_a_file_without_a_machine_says_to_pass_node(tmp_path: Path) -> None:
    text = GBENCH.read_text().replace('"host_name": "vm",', "")
    nameless = tmp_path / "g.json"
    nameless.write_text(text)
    batch = stage.Batch("x", "gbench")
    try:
        with pytest.raises(TrialParseError) as info:
            stage_inputs(batch, collect_inputs("gbench", [nameless]), ImportOptions())
        assert info.value.rule == "no-node"
        assert "pass --node NAME (and --hardware-type TYPE)" in str(info.value)
        stage_inputs(batch, collect_inputs("gbench", [nameless]), ImportOptions(node="n1"))
        assert batch.con.execute("SELECT DISTINCT node, hardware_type FROM raw_trials"
                                 ).fetchall() == [("n1", "n1")]
    finally:
        batch.close()


def test_a_batch_spills_to_its_own_directory_made_only_when_needed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    small = stage.Batch("x", "jsonl")
    small.close()
    batch = stage.Batch("x", "jsonl", memory_limit="64MB")
    try:
        assert batch.spill.parent == tmp_path and not batch.spill.exists()
        batch.con.execute("CREATE TABLE big AS SELECT range AS i, random() AS r FROM range(4000000)")
        batch.con.execute("CREATE TABLE sorted AS SELECT * FROM big ORDER BY r")
        assert batch.spill.exists()  # more than 64 MB: DuckDB spilled there
    finally:
        batch.close()
    assert not any(tmp_path.iterdir())
