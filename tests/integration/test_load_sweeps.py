"""Real sweeps (tests/fixtures/loadtest_sweeps, made by
tests/fixtures/generate/load_sweeps.sh with sysbench, wrk, hey and nginx on this
machine) form one curve per system under test, and the peak and knee (closed loop) or
lambda* (open loop) equal those read from the raw outputs with regexes of this file
(issue 28).

The twin: per level, the mean throughput over the trials an independent operational-law
check keeps (sysbench: |X R / N - 1| <= 10 % unless the 0.01 ms rounding alone moves X R
by more; wrk: not checkable, every trial kept; hey -q: |X / (c q) - 1| <= 10 %); the peak
is the largest mean, the knee the smallest N reaching 95 % of it.
"""

from __future__ import annotations

import re
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from perfwarehouse.ingest.formats import hey, sysbench, wrk
from perfwarehouse.ingest.formats.records import ImportOptions, apply_options
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.jobs import get, run_job
from perfwarehouse.reports import Request
from perfwarehouse.reports import get as get_report
from perfwarehouse.reports.load_labels import short_name
from perfwarehouse.reports.render import render_html
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO
from tests.trial_logs import write

pytestmark = pytest.mark.integration

SWEEPS = REPO / "tests" / "fixtures" / "loadtest_sweeps"
R_SAT_MS = 5.0
TOLERANCE = 0.10


def _files() -> list[tuple[object, Path]]:
    return ([(sysbench, SWEEPS / "sysbench_cpu_sweep.txt"),
             (sysbench, SWEEPS / "sysbench_memory_sweep.txt")]
            + [(wrk, p) for p in sorted((SWEEPS / "wrk").glob("*.txt"))]
            + [(hey, p) for p in sorted((SWEEPS / "hey").glob("*.txt"))]
            + [(wrk, p) for p in sorted((SWEEPS / "wrk2").glob("*.txt"))])


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("sweeps")
    rows = []
    for module, path in _files():
        records = module.parse(path.read_bytes(), str(path), ImportOptions())  # type: ignore[attr-defined]
        apply_options(records, ImportOptions(node="box"), str(path), "sweeps")
        for record in records:
            record["started_at"] = record["started_at"] or "2026-01-01T00:00:00Z"
        rows += records
    wh = Warehouse(tmp / "warehouse", lock_timeout_s=5.0)
    assert ingest_jsonl(wh, [write(tmp / "all.jsonl", rows)]).outcome == "landed"
    job = get("load")
    tables = run_job(wh, job, job.params(r_sat=str(R_SAT_MS))).tables
    return {**tables, "warehouse": wh}


# ------------------------------------------------------------------ the raw outputs
def _sysbench_raw(path: Path) -> dict[str, list[tuple[float, float, float]]]:
    """benchmark -> (threads, events/s, avg latency ms) per run of the appended log."""
    out: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for run in re.split(r"^(?=sysbench \d)", path.read_text(), flags=re.M)[1:]:
        kind = "sysbench cpu" if "Prime numbers limit" in run else "sysbench memory"
        threads = float(re.search(r"Number of threads: (\d+)", run).group(1))
        if kind == "sysbench cpu":
            x = float(re.search(r"events per second:\s+([0-9.]+)", run).group(1))
        else:
            events = float(re.search(r"total number of events:\s+(\d+)", run).group(1))
            x = events / float(re.search(r"total time:\s+([0-9.]+)s", run).group(1))
        avg = float(re.search(r"avg:\s+([0-9.]+)", run).group(1))
        out[kind].append((threads, x, avg))
    return out


def _sysbench_kept(n: float, x: float, r_ms: float) -> bool:
    if x * 0.005e-3 / n > TOLERANCE:  # the rounding of the printed latency decides nothing
        return True
    return abs(x * r_ms / 1e3 / n - 1.0) <= TOLERANCE


def _peak_and_knee(levels: dict[float, list[float]]) -> tuple[float, float, float]:
    means = {n: sum(v) / len(v) for n, v in levels.items() if v}
    peak_n = max(means, key=lambda n: means[n])
    knee = min(n for n, m in means.items() if m >= 0.95 * means[peak_n])
    return means[peak_n], peak_n, knee


def raw_closed_peaks() -> dict[str, tuple[float, float, float]]:
    """benchmark -> (peak throughput, N at the peak, knee N), from the raw files."""
    levels: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for name in ("sysbench_cpu_sweep.txt", "sysbench_memory_sweep.txt"):
        for kind, runs in _sysbench_raw(SWEEPS / name).items():
            for n, x, r in runs:
                levels[kind].setdefault(n, [])
                if _sysbench_kept(n, x, r):
                    levels[kind][n].append(x)
    for path in (SWEEPS / "wrk").glob("*.txt"):
        text = path.read_text()
        url = re.search(r"^Running \S+ test @ (\S+)", text, re.M).group(1)
        c = float(re.search(r"(\d+) connections", text).group(1))
        levels[url][c].append(float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1)))
    return {bench: _peak_and_knee(lv) for bench, lv in levels.items()}


def raw_lambda_star() -> tuple[str, float]:
    """(URL, lambda*): the highest offered rate c*q whose trial kept flow balance and
    whose mean response time is within R_SAT_MS."""
    ok = []
    for path in (SWEEPS / "hey").glob("*.txt"):
        text = path.read_text()
        cmd = re.match(r"\$ hey (.*)", text).group(1)
        rate = int(re.search(r"-c (\d+)", cmd).group(1)) * int(re.search(r"-q (\d+)", cmd).group(1))
        x = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
        mean_ms = float(re.search(r"Average:\s+([0-9.]+) secs", text).group(1)) * 1e3
        if abs(x / rate - 1.0) <= TOLERANCE and mean_ms <= R_SAT_MS:
            ok.append(rate)
    return cmd.split()[-1], float(max(ok))


def raw_wrk2_lambda_star() -> tuple[str, float]:
    """The same from the wrk2 sweep (emulated shape: see its generator): the rate is
    -R of the command line, the mean the 'Latency' Avg, X 'Requests/sec'."""
    ok = []
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3}
    for path in (SWEEPS / "wrk2").glob("*.txt"):
        text = path.read_text()
        rate = float(re.search(r"^\$ wrk2 .*-R(\d+)", text, re.M).group(1))
        url = re.search(r"^Running \S+ test @ (\S+)", text, re.M).group(1)
        x = float(re.search(r"Requests/sec:\s+([0-9.]+)", text).group(1))
        value, u = re.search(r"Latency\s+([0-9.]+)(us|ms|s)\s", text).groups()
        if abs(x / rate - 1.0) <= TOLERANCE and float(value) * scale[u] <= R_SAT_MS:
            ok.append(rate)
    return url, max(ok)


# ------------------------------------------------------------------ the tests
def test_one_curve_per_system_under_test(analysed: dict) -> None:
    peaks = analysed["peak_rate"].to_pylist()
    closed = sorted(r["benchmark"] for r in peaks if r["loop"] == "closed")
    assert closed == sorted(raw_closed_peaks())  # 2 sysbench tests + 2 nginx pages
    assert sorted(r["benchmark"] for r in peaks if r["loop"] == "open") == sorted(
        [raw_lambda_star()[0], raw_wrk2_lambda_star()[0]])
    # every trial of every sweep is on its curve (has its load level)
    checks = analysed["load_law_checks"].to_pylist()
    n_files = sum(1 for _m, _p in _files()) - 2
    n_sysbench = sum(len(v) for name in ("sysbench_cpu_sweep.txt", "sysbench_memory_sweep.txt")
                     for v in _sysbench_raw(SWEEPS / name).values())
    assert len(checks) == n_files + n_sysbench
    assert all(c["load"] is not None for c in checks)
    curve = analysed["load_curve"].to_pylist()
    assert sum(r["n_trials"] for r in curve) == len(checks)


def test_peak_and_knee_equal_the_raw_outputs(analysed: dict) -> None:
    raw = raw_closed_peaks()
    for row in analysed["peak_rate"].to_pylist():
        if row["loop"] != "closed":
            continue
        peak, at, knee = raw[row["benchmark"]]
        assert row["peak_throughput"] == pytest.approx(peak, rel=1e-12), row["benchmark"]
        assert (row["peak_clients"], row["knee_clients"]) == (at, knee), row["benchmark"]


def test_lambda_star_equals_the_raw_outputs(analysed: dict) -> None:
    got = {r["benchmark"]: r["lambda_star"] for r in analysed["peak_rate"].to_pylist()
           if r["loop"] == "open"}
    for url, lam in (raw_lambda_star(), raw_wrk2_lambda_star()):
        assert got[url] == lam, url


def test_tools_whose_numbers_cannot_satisfy_the_law_are_said_once_per_family(
        analysed: dict) -> None:
    checks = analysed["load_law_checks"].to_pylist()
    wrk_checks = [c for c in checks if '"generator":"wrk"' in c["family"]]
    assert wrk_checks and all(c["consistent"] is None for c in wrk_checks)
    assert all("coordinated omission" in c["reason"] for c in wrk_checks)
    for row in analysed["peak_rate"].to_pylist():
        if '"generator":"wrk"' in row["family"]:
            assert row["reason"].count("coordinated omission") == 1
    # the curve draws no N/(R+Z) line for a tool the law does not fit
    for row in analysed["load_curve"].to_pylist():
        if '"generator":"wrk"' in row["family"]:
            assert row["throughput_law"] is None


def test_the_page_verdict_names_each_system_its_peak_and_where(analysed: dict) -> None:
    """Issue 28: a sentence per family (system, peak, where), URLs shortened, the left-out
    trials said, and no library warning on a warehouse of open- and closed-loop families
    with a family without a peak."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        page = get_report("load").page(analysed["warehouse"], Request())
        render_html(page)
    verdict, _sections = page.shown()
    assert verdict is not None
    text = verdict.text
    for bench, (peak, at, _knee) in raw_closed_peaks().items():
        name = short_name(bench)
        assert "://" not in name
        peak_text = f"{peak:,.0f}" if peak >= 1e4 else f"{peak:,.4g}"
        said = rf"{re.escape(name)}(?: \(\w+\))? peaks at {re.escape(peak_text)} req/s with " \
               rf"N = {at:g} clients"
        assert re.search(said, text), (said, text)
    url, lam = raw_lambda_star()
    assert re.search(rf"{re.escape(short_name(url))}(?: \(hey\))? holds mean response time "
                     rf"≤ 5 ms up to λ\* = {lam:,.0f}", text), text
    assert "http://" not in text
    bad = sum(1 for c in analysed["load_law_checks"].to_pylist() if c["consistent"] is False)
    assert f"{bad} trials break the operational laws" in text


@pytest.mark.parametrize(("name", "short"), [
    ("http://127.0.0.1:8080/index.html", "127.0.0.1:8080/index.html"),
    ("https://api.example.com/v1/orders?id=3#x", "api.example.com/v1/orders"),
    ("https://shop.example.com/api/v2/catalog/categories/electronics/products/search",
     "shop.example.com/…/search"),
    ("sysbench cpu", "sysbench cpu"),
])
def test_short_names(name: str, short: str) -> None:
    assert short_name(name) == short


def test_short_names_stay_short() -> None:
    rng = __import__("random").Random(5)
    for _ in range(300):
        parts = ["".join(rng.choice("abcdef") for _ in range(rng.randint(1, 30)))
                 for _ in range(rng.randint(1, 8))]
        name = "https://" + "/".join(parts)
        assert len(short_name(name)) <= 48


def test_a_family_without_a_peak_draws_without_a_library_warning(analysed: dict) -> None:
    """The polars UserWarning of comparing a column with None (issue 28): a closed-loop
    family whose peak is unknown (every level inconsistent) has no marks, silently."""
    import polars as pl

    from perfwarehouse.reports.load import curve_sections
    from perfwarehouse.reports.load_labels import with_labels as _with_labels

    curve = _with_labels(pl.from_arrow(analysed["load_curve"]))
    peaks = _with_labels(pl.from_arrow(analysed["peak_rate"])).with_columns(
        peak_clients=pl.lit(None, pl.Float64), knee_clients=pl.lit(None, pl.Float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sections = curve_sections(curve, peaks)
    assert [s.title for s in sections] == ["Peak throughput (closed loop)",
                                           "Latency under load (open loop)"]
