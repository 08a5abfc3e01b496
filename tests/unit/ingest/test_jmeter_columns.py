"""JTLs of any column set (issue 43): real JMeter 2.13 outputs in eleven save-service
configurations (``tests/fixtures/generate/jmeter_jtls.py``), each checked against a reading
of its own: the header, or for a header-less file the header JMeter wrote for the same
configuration (its twin run)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import jmeter, jmeter_columns
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.service import Skipped, collect_inputs
from tests.conftest import REPO

SHAPES = REPO / "tests" / "fixtures" / "importers" / "jmeter" / "shapes"
TWINS: dict[str, dict] = json.loads((REPO / "tests" / "fixtures" / "jmeter_jtls_expected.json")
                                    .read_text())
JTLS = sorted(p.name for p in SHAPES.iterdir() if p.name != "statistics.json")
TRANSACTION = "Number of samples in transaction"


def reading(name: str) -> list[dict[str, str]]:
    """The samples as dicts, read with csv (or a regex-free XML walk) and JMeter's names."""
    path = SHAPES / name
    if name.endswith(".xml"):
        import xml.etree.ElementTree as ET

        names = {"ts": "timeStamp", "t": "elapsed", "s": "success", "rc": "responseCode",
                 "rm": "responseMessage", "na": "allThreads"}
        return [{names[k]: v for k, v in e.attrib.items() if k in names}
                for e in ET.parse(path).getroot()]
    text = path.read_text()
    if name in TWINS:
        return list(csv.DictReader(text.splitlines(), fieldnames=TWINS[name]["columns"],
                                   delimiter=TWINS[name]["delimiter"]))
    delimiter = next(d for d in ",;|\t" if d in text.split("\n", 1)[0])
    return list(csv.DictReader(text.splitlines(), delimiter=delimiter))


def parse(name: str, **options: str) -> list[dict]:
    path = SHAPES / name
    return jmeter.parse(path.read_bytes(), str(path), ImportOptions(**options))


@pytest.mark.parametrize("name", JTLS)
def test_every_configuration_is_detected_and_read_as_jmeter_wrote_it(name: str) -> None:
    [item] = collect_inputs("auto", [SHAPES / name])
    assert item.format == "jmeter"
    records = parse(name)
    metrics = {r["metric"]: r["values"][0] for r in records}
    rows = reading(name)
    transactions = [r for r in rows if r.get("responseMessage", "").startswith(TRANSACTION)]
    samples = [r for r in rows if r not in transactions] if len(transactions) < len(rows) \
        else rows
    assert metrics["requests"] == len(samples)
    if rows and "success" in rows[0]:
        failed = sum(r["success"] == "false" for r in samples)
    else:  # without success: a code outside 200-399 (a sentence too) is a failure
        failed = sum(not (r["responseCode"].isdigit() and r["responseCode"][0] in "23")
                     for r in samples)
    assert metrics["errors"] == failed > 0
    assert sorted(records[0]["latency"]["samples"]) == sorted(float(r["elapsed"])
                                                              for r in samples)
    assert records[0]["settings"]["clients"] == int(rows[0]["allThreads"])
    attributes = records[0]["attributes"]
    assert attributes.get("transaction_rows", {}).get("checkout", 0) == len(transactions)
    if name in TWINS:  # the layout inferred is the header JMeter writes for it
        assert attributes["jtl_columns"] == TWINS[name]["columns"]
        assert any("columns inferred as" in note for note in attributes["notes"])
    codes = attributes["response_codes"]
    assert codes.get("Non HTTP response code: java.net.ConnectException", 0) == sum(
        r["responseCode"].startswith("Non HTTP") for r in samples)


def test_the_header_less_pipe_jtl_of_13_columns_goes_in() -> None:
    """The file the issue names: 13 `|`-separated columns, no header (JMeter 2.x's
    defaults plus the hostname)."""
    path = SHAPES / "pipe_hostname_noheader.jtl"
    assert len(path.read_text().split("\n", 1)[0].split("|")) == 13
    assert [i.format for i in collect_inputs("auto", [path])] == ["jmeter"]
    assert parse(path.name)[0]["attributes"]["jtl_columns"][-1] == "Hostname"


def test_dates_of_timestamp_format_are_read_as_utc_with_a_note() -> None:
    records = parse("tab_dates_noheader.tsv")
    first = min(datetime.strptime(r["timeStamp"], "%Y/%m/%d %H:%M:%S.%f").replace(
        tzinfo=timezone.utc) for r in reading("tab_dates_noheader.tsv"))
    assert datetime.fromisoformat(records[0]["started_at"].replace("Z", "+00:00")) == first
    assert any("read as UTC" in n for n in records[0]["attributes"]["notes"])


def test_columns_named_on_the_command_line_win_over_inference() -> None:
    columns = ",".join(TWINS["default_noheader.jtl"]["columns"])
    named = parse("default_noheader.jtl", columns=columns)
    inferred = parse("default_noheader.jtl")
    assert [r["values"] for r in named] == [r["values"] for r in inferred]
    assert "notes" not in named[0]["attributes"]
    wrong = ",".join(TWINS["default_noheader.jtl"]["columns"][:-1])
    with pytest.raises(TrialParseError, match=r"--columns names 11 columns, the rows have 12"):
        parse("default_noheader.jtl", columns=wrong)
    with pytest.raises(ValueError, match="did you mean 'elapsed'"):
        jmeter_columns.named_layout("timeStamp,Elapsed,label")


def test_a_file_no_layout_fits_is_refused_in_one_line_saying_what_to_do() -> None:
    text = "".join("x" + line[13:] + "\n" for line in
                   (SHAPES / "default_noheader.jtl").read_text().splitlines())
    with pytest.raises(TrialParseError) as info:
        jmeter.parse(text.encode(), "x.jtl", ImportOptions())
    message = str(info.value)
    assert info.value.rule == "missing-column" and "\n" not in message
    assert "not JMeter's timeStamp" in message and "--columns" in message


def test_statistics_json_is_read_when_named_and_never_by_auto(tmp_path: Path) -> None:
    path = SHAPES / "statistics.json"
    total = json.loads(path.read_text())["Total"]
    assert collect_inputs("jmeter", [path])[0].format == "jmeter"
    records = jmeter.parse(path.read_bytes(), str(path), ImportOptions())
    metrics = {r["metric"]: r["values"][0] for r in records}
    assert metrics == {"throughput": total["throughput"], "requests": total["sampleCount"],
                       "errors": total["errorCount"], "mean": total["meanResTime"],
                       "p50": total["medianResTime"], "min": total["minResTime"],
                       "max": total["maxResTime"]}
    assert records[0]["attributes"]["report_percentiles"]["pct3ResTime"] == total["pct3ResTime"]
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "statistics.json").write_bytes(path.read_bytes())
    (folder / "results.jtl").write_bytes((SHAPES / "default_header.jtl").read_bytes())
    skipped: list[Skipped] = []
    walked = collect_inputs("auto", [folder], skipped)
    assert [i.path.name for i in walked] == ["results.jtl"]
    assert [(s.path.name, s.reason) for s in skipped] == [("statistics.json",
                                                           "no format recognises it")]


def test_the_cli_takes_columns_and_refuses_them_for_other_formats(tmp_path: Path) -> None:
    columns = "|".join(TWINS["pipe_hostname_noheader.jtl"]["columns"])
    base = [sys.executable, "-m", "perfwarehouse", "--warehouse", str(tmp_path / "wh")]
    ok = subprocess.run([*base, "ingest", "auto", str(SHAPES / "pipe_hostname_noheader.jtl"),
                         "--node", "n1", "--columns", columns, "--dry-run"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "pipe_hostname_noheader.jtl: jmeter" in ok.stdout and "in 1 runs" in ok.stdout
    assert "note:" not in ok.stderr  # named: nothing inferred
    guessed = subprocess.run([*base, "ingest", "auto", str(SHAPES / "pipe_hostname_noheader.jtl"),
                              "--node", "n1", "--dry-run"], capture_output=True, text=True)
    assert guessed.returncode == 0 and f"note: {SHAPES / 'pipe_hostname_noheader.jtl'}: no " \
        f"header: columns inferred as {columns}" in guessed.stderr
    bad = subprocess.run([*base, "ingest", "wrk", str(SHAPES), "--columns", columns],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "--columns names the columns of a JMeter JTL" in bad.stderr
