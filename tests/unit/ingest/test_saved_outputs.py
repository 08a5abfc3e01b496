"""Text outputs as people save them (issue 43): anything above the output, runs
concatenated with labels, CRLF, a label that is not UTF-8. The files are real wrk and hey
runs (and committed real sysbench, redis-benchmark and wrk2 outputs) wrapped by
``tests/fixtures/generate/saved_outputs.py``, which also wrote what each file holds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _text, load
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import collect_inputs, ingest_import
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO

FIXTURES = REPO / "tests" / "fixtures"
EXPECTED: dict[str, dict[str, list[dict]]] = json.loads(
    (FIXTURES / "saved_outputs_expected.json").read_text())
CASES = [(verb, name) for verb, files in EXPECTED.items() for name in files]
#: an independent reading of each trial's throughput, in file order
THROUGHPUT = {"wrk": r"^Requests/sec:\s+(\S+)", "hey": r"^\s+Requests/sec:\s+(\S+)",
              "sysbench": r"events per second:\s+(\S+)", "redis-benchmark": r'^"[^"]+","([\d.]+)"'}


def path_of(verb: str, name: str) -> Path:
    return FIXTURES / "importers" / verb / "saved" / name


def trials(records: list[dict]) -> list[list[dict]]:
    out: dict[int, list[dict]] = {}
    for record in records:
        out.setdefault(record["position"], []).append(record)
    return [out[k] for k in sorted(out)]


@pytest.mark.parametrize(("verb", "name"), CASES)
def test_auto_detects_and_reads_every_run_with_its_label(verb: str, name: str) -> None:
    path = path_of(verb, name)
    [item] = collect_inputs("auto", [path])
    assert item.format == verb
    records = load(verb).parse(item.content(), str(path), ImportOptions())
    got = trials(records)
    expected = EXPECTED[verb][name]
    if verb == "redis-benchmark":  # one trial per test row, the label on each
        assert {r["attributes"].get("label") for r in records} == {expected[0]["label"]}
        return
    assert len(got) == len(expected)
    for trial, want in zip(got, expected):
        settings = trial[0]["settings"]
        assert settings["loop"] == want["loop"]
        assert settings.get("clients") == want.get("clients")
        assert settings.get("rate_rps") == want.get("rate")
        assert trial[0]["attributes"].get("label") == want["label"]
    text = path.read_bytes().decode("utf-8", "replace")
    independent = [float(v) for v in re.findall(THROUGHPUT[verb], text, re.M)]
    mine = [next(r["values"][0] for r in t if r["metric"] == "throughput") for t in got]
    if verb == "hey":  # hey's figure (transport errors aside, equal to ours)
        mine = [t[0]["attributes"]["hey_requests_per_s"] for t in got]
    assert mine == pytest.approx(independent)


def test_crlf_and_a_latin1_label_read_as_the_plain_output_with_a_note() -> None:
    path = path_of("wrk", "wrk_crlf_latin1_label.txt")
    raw = path.read_bytes()
    assert b"\r\n" in raw and b"Caf\xe9" in raw
    records = load("wrk").parse(raw, str(path), ImportOptions())
    plain = raw.split(b"\r\n", 2)[2].replace(b"\r\n", b"\n")  # label and command dropped
    same = load("wrk").parse(plain, "plain", ImportOptions())
    assert [r["values"] for r in records] == [r["values"] for r in same]
    assert records[0]["attributes"]["notes"] == [
        "line 1: bytes that are not UTF-8 replaced by U+FFFD (in a label)"]
    assert records[0]["attributes"]["command"].startswith("-t2 -c4")


def test_the_note_reaches_the_user_and_the_labels_the_warehouse(tmp_path: Path) -> None:
    notes: list[str] = []
    folder = FIXTURES / "importers" / "wrk" / "saved"
    inputs, preview = ingest_import(Warehouse(tmp_path / "wh"), "auto", [folder],
                                    ImportOptions(node="n1"), dry_run=True, notes=notes)
    assert {i.path.name for i in inputs} == set(EXPECTED["wrk"])
    assert notes == [f"{folder / 'wrk_crlf_latin1_label.txt'}: line 1: bytes that are not "
                     "UTF-8 replaced by U+FFFD (in a label)"]
    assert preview.trials > 0


def test_bytes_that_are_not_utf8_inside_the_output_are_still_refused() -> None:
    broken = FIXTURES / "importers" / "wrk" / "broken" / "broken-utf8__latin1_byte.txt"
    labelled = b"Caf\xe9 run\n" + broken.read_bytes()
    with pytest.raises(TrialParseError) as info:
        load("wrk").parse(labelled, "x.txt", ImportOptions())
    assert info.value.rule == "broken-utf8" and info.value.line > 1


def test_the_preamble_is_bounded() -> None:
    out = (FIXTURES / "importers" / "wrk" / "good" / "wrk_c4.txt").read_bytes()
    taken = b"note\n" * _text.PREAMBLE_LINES + out
    refused = b"note\n" * (_text.PREAMBLE_LINES + 2) + out
    sniff = load("wrk").sniff
    assert sniff(taken, "x.txt") and not sniff(refused, "x.txt")


def test_a_label_between_runs_never_becomes_part_of_the_run_above() -> None:
    path = path_of("hey", "hey_two_runs_labelled.txt")
    first, second = trials(load("hey").parse(path.read_bytes(), str(path), ImportOptions()))
    assert first[0]["attributes"]["command"].startswith("-z 2s -c 1 ")
    assert second[0]["attributes"]["command"].startswith("-z 2s -c 4 -q 20 ")
    assert first[0]["run_id"] == second[0]["run_id"]  # one file, one run of two trials


def test_a_redis_benchmark_csv_under_a_latin1_label_with_crlf_reads_as_the_plain_one() -> None:
    plain = (FIXTURES / "importers" / "redis-benchmark" / "good" / "redis_c4.csv").read_bytes()
    saved = b"Caf\xe9 box, 4 clients\r\n" + plain.replace(b"\n", b"\r\n")
    module = load("redis-benchmark")
    assert module.sniff(saved, "r.csv")
    records = module.parse(saved, "r.csv", ImportOptions())
    assert [r["values"] for r in records] == [
        r["values"] for r in module.parse(plain, "p.csv", ImportOptions())]
    assert records[0]["attributes"]["label"] == "Caf\ufffd box, 4 clients"
    assert records[0]["attributes"]["notes"] == [
        "line 1: bytes that are not UTF-8 replaced by U+FFFD (in a label)"]
    with pytest.raises(TrialParseError) as info:  # inside the CSV: refused, as before
        module.parse(plain.replace(b"SET", b"S\xe9T", 1), "r.csv", ImportOptions())
    assert info.value.rule == "broken-utf8"
