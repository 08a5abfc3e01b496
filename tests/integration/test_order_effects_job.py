"""The order-effects job end to end: OrderSage fixtures -> warehouse -> job -> order_effects.

Checks against scipy on the raw trials, against the paper's Tables 3-5 (seed 000)
and against OrderSage's own node_stats.csv (``--ordersage-compat``).
"""

from __future__ import annotations

import csv
import math
import shutil
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

from perfwarehouse.ingest.service import ingest_ordersage
from perfwarehouse.jobs import order_effects as oe
from perfwarehouse.jobs.framework import run_job
from perfwarehouse.stats import median_ci
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow
from tests.conftest import ORDERSAGE, ORDERSAGE_DIRS

PAPER = Path(__file__).resolve().parent.parent / "fixtures" / "ordersage_paper_tables.csv"
# The paper prints 0.00 for IS, but its data (and OrderSage's own node_stats.csv) give
# +0.29 %: a transcription slip in the paper, reported in docs-draft/order_effects.md.
PAPER_DELTA_SLIPS = {"IS"}


def paper_rows() -> list[dict[str, str]]:
    lines = [line for line in PAPER.read_text().splitlines() if not line.startswith("#")]
    return list(csv.DictReader(lines))


def raw_trials(directory: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(fixed, random) successful results per test command, from the per-host results file
    (the copy the ingest keeps)."""
    host = [p for p in directory.iterdir()
            if p.name.endswith(("_test_results.csv", "_experiment_results.csv"))
            and "_all_" not in p.name]
    assert len(host) == 1, host
    groups: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    with host[0].open() as f:
        for row in csv.DictReader(f):
            if row["completion_status"] != "Success":
                continue
            command = row.get("test_command") or row["exp_command"]
            groups[command][row["order_type"] == "random"].append(float(row["result"]))
    return {c: (np.array(f), np.array(r)) for c, (f, r) in groups.items()}


def job_rows(warehouse: Warehouse, job_run_id: int, campaign: str) -> dict[str, dict]:
    with warehouse.catalog() as con:
        table = fetch_arrow(con, "SELECT * FROM order_effects_history WHERE job_run_id = $id AND "
                                 "campaign = $c", {"id": job_run_id, "c": campaign})
    return {row["benchmark"]: row for row in table.to_pylist()}


def printed_tolerance(text: str) -> float:
    """Half a unit of the last printed digit of a number as printed in a CSV."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))


@pytest.fixture(scope="module")
def fixture_warehouse(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    warehouse = Warehouse(tmp_path_factory.mktemp("ordersage") / "warehouse")
    for directory in ORDERSAGE_DIRS.values():
        ingest_ordersage(warehouse, [directory])
    return warehouse


@pytest.fixture(scope="module")
def default_run(fixture_warehouse: Warehouse) -> int:
    return run_job(fixture_warehouse, oe.JOB, oe.OrderEffectsParams()).job_run_id


@pytest.mark.parametrize("name", sorted(ORDERSAGE_DIRS))
def test_each_test_matches_scipy_on_the_raw_trials(fixture_warehouse: Warehouse, default_run: int,
                                                   name: str) -> None:
    directory = ORDERSAGE_DIRS[name]
    rows = job_rows(fixture_warehouse, default_run, directory.name)
    trials = raw_trials(directory)
    assert set(rows) == set(trials)
    m = len(trials)
    for command, (fixed, random) in trials.items():
        row = rows[command]
        ref = scipy.stats.kruskal(fixed, random)
        assert row["kw_h"] == pytest.approx(ref.statistic, rel=1e-12)
        assert row["kw_p"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert (row["n_fixed"], row["n_random"], row["m"]) == (fixed.size, random.size, m)
        n = fixed.size + random.size
        assert row["eta2"] == pytest.approx((ref.statistic - 1) / (n - 2), rel=1e-12)
        assert row["delta_pct"] == pytest.approx(
            (fixed.mean() - random.mean()) / fixed.mean() * 100, rel=1e-9, abs=1e-12)
        assert row["median_fixed"] == np.median(fixed) and row["median_random"] == np.median(random)
        assert row["ci_confidence"] == pytest.approx(1 - 0.05 / m)
        for group, values in (("fixed", fixed), ("random", random)):
            ci = median_ci(values, 1 - 0.05 / m)
            assert (row[f"ci_{group}_low"], row[f"ci_{group}_high"]) == (ci.low, ci.high)
            assert row[f"ci_{group}_coverage"] == pytest.approx(ci.coverage)
        assert row["reject_alpha"] == (ref.pvalue < 0.05)
        assert row["reject_bonferroni"] == (ref.pvalue < 0.05 / m)


@pytest.mark.parametrize("paper", paper_rows(), ids=lambda r: f"table{r['table']}-{r['test']}")
def test_paper_tables_3_to_5(fixture_warehouse: Warehouse, default_run: int,
                             paper: dict[str, str]) -> None:
    row = job_rows(fixture_warehouse, default_run, paper["directory"])[paper["command"]]
    assert row["kw_p"] == pytest.approx(float(paper["kw_p"]), abs=printed_tolerance(paper["kw_p"]))
    assert row["reject_alpha"] == (paper["dot"] == "filled")
    assert row["ci_case"] == int(paper["ci_case"])
    if paper["test"] in PAPER_DELTA_SLIPS:
        assert row["delta_pct"] == pytest.approx(0.292, abs=0.0005)
    else:
        # one unit of the printed digit: the paper rounds -0.294 to -0.2 for ufs.CMP
        assert row["delta_pct"] == pytest.approx(float(paper["delta_pct"]),
                                                 abs=2 * printed_tolerance(paper["delta_pct"]))


def test_family_verdict_is_algorithm_1(fixture_warehouse: Warehouse, default_run: int) -> None:
    """Table 3 (memcached): get_hits p = 8.5e-5 < 0.05/3: order matters. Tables 4 and 5: no
    test below alpha/m (softmax 0.029 > 0.0167, ufs.ADPS 0.0126 > 0.0025)."""
    verdicts = {}
    for directory in ORDERSAGE_DIRS.values():
        rows = job_rows(fixture_warehouse, default_run, directory.name).values()
        verdicts[directory.name] = {r["order_matters"] for r in rows}
        assert {r["family"] for r in rows} == {directory.name}
    assert verdicts == {ORDERSAGE_DIRS["memcached"].name: {True},
                        ORDERSAGE_DIRS["npbench"].name: {False},
                        ORDERSAGE_DIRS["ufs"].name: {False}}


def test_job_runs_records_the_run(fixture_warehouse: Warehouse, default_run: int) -> None:
    with fixture_warehouse.catalog() as con:
        row = fetch_arrow(con, "SELECT job, params, duration_s, rows_out FROM job_runs "
                               "WHERE job_run_id = $id", {"id": default_run}).to_pylist()[0]
    assert row["job"] == "order-effects"
    assert row["duration_s"] > 0 and row["rows_out"] == 26
    assert '"family_by": "campaign"' in row["params"]


# ------------------------------------------------------------ OrderSage compat
def node_stats(directory: Path) -> dict[str, dict[str, str]]:
    path = next(directory.glob("*_node_stats.csv"))
    with path.open() as f:
        rows = list(csv.DictReader(f))
    key = "test_command" if "test_command" in rows[0] else "exp_command"
    return {row[key]: row for row in rows}


def compat_run(warehouse: Warehouse, campaign: str, confidence: str | None) -> dict[str, dict]:
    params = oe.OrderEffectsParams(campaign=campaign, ordersage_compat=True,
                                   ci_confidence=confidence)
    result = run_job(warehouse, oe.JOB, params, campaigns=[campaign])
    return job_rows(warehouse, result.job_run_id, campaign)


# node_stats column -> order_effects column (compat)
COMPAT_COLUMNS = {
    "KW_test_stat": "kw_h", "KW_p-value": "kw_p", "percent_diff": "delta_pct",
    "KW_effect_size": "eta2", "fixed_pth_quantile": "median_fixed",
    "fixed_ci_low": "ci_fixed_low", "fixed_ci_high": "ci_fixed_high",
    "random_pth_quantile": "median_random", "random_ci_low": "ci_random_low",
    "random_ci_high": "ci_random_high", "coeff_of_variation_fixed": "cv_fixed",
    "coeff_of_variation_random": "cv_random", "coeff_of_variation": "cv_all",
    "inner_diff": "inner_diff",
}


def assert_compat_matches(rows: dict[str, dict], stats: dict[str, dict[str, str]]) -> None:
    assert set(rows) == set(stats)
    for command, expected in stats.items():
        row = rows[command]
        for theirs, ours in COMPAT_COLUMNS.items():
            if theirs not in expected:
                continue
            text = expected[theirs]
            if text == "":
                assert row[ours] is None, (command, ours)
                continue
            value = float(text)
            # the files were re-saved with fewer digits (and rounding noise between the
            # two copies of each trial): equal to the printed precision, or to 1e-9
            tolerance = max(printed_tolerance(text), 1e-9 * abs(value))
            assert row[ours] == pytest.approx(value, abs=tolerance), (command, theirs)
        assert row["ci_case"] == int(float(expected["ci_case"])), command
        assert ("different" if row["reject_alpha"] else "same") == expected["KW_dist_type"]
        if "abs_percent_diff" in expected:
            assert abs(row["delta_pct"]) == pytest.approx(float(expected["abs_percent_diff"]))


@pytest.mark.parametrize("name", ["npbench", "ufs"])
def test_compat_reproduces_node_stats_2022(fixture_warehouse: Warehouse, name: str) -> None:
    """The 2022 tool: Bonferroni CI confidence 1 - 0.05/m (m = tests), the default."""
    directory = ORDERSAGE_DIRS[name]
    rows = compat_run(fixture_warehouse, directory.name, None)
    assert_compat_matches(rows, node_stats(directory))


def test_compat_reproduces_node_stats_2021(fixture_warehouse: Warehouse) -> None:
    """The 2021 memcached file came from an early toolstats with 95 % CIs (no Bonferroni):
    its numbers match at 0.95 and not at the family-wise 1 - 0.05/3."""
    directory = ORDERSAGE_DIRS["memcached"]
    stats = node_stats(directory)
    assert_compat_matches(compat_run(fixture_warehouse, directory.name, "0.95"), stats)
    family_wise = compat_run(fixture_warehouse, directory.name, None)
    with pytest.raises(AssertionError):
        assert_compat_matches(family_wise, stats)
    # get_hits: disjoint 95 % CIs in the tool's file (case 1); at 1 - 0.05/3 they overlap,
    # which is the paper's Table 3 (case 3), with either CI method
    assert stats["./get_hits_test.sh"]["ci_case"] == "1"
    assert family_wise["./get_hits_test.sh"]["ci_case"] == 3
    default = run_job(fixture_warehouse, oe.JOB, oe.OrderEffectsParams(campaign=directory.name),
                      campaigns=[directory.name])
    assert job_rows(fixture_warehouse, default.job_run_id, directory.name)[
        "./get_hits_test.sh"]["ci_case"] == 3


def test_compat_drops_fixed_runs_with_a_failure(warehouse: Warehouse, tmp_path: Path) -> None:
    """OrderSage's rule: a failed fixed trial drops its whole run, a failed random trial only
    itself. The default keeps every successful value."""
    directory = tmp_path / "20221005_12:13:03_results"
    shutil.copytree(ORDERSAGE_DIRS["npbench"], directory)
    failed_runs = rewrite_failures(directory)
    ingest_ordersage(warehouse, [directory])
    trials = raw_trials(directory)  # successes only
    default = run_job(warehouse, oe.JOB, oe.OrderEffectsParams())
    rows = job_rows(warehouse, default.job_run_id, directory.name)
    for command, (fixed, random) in trials.items():
        assert (rows[command]["n_fixed"], rows[command]["n_random"]) == (fixed.size, random.size)
        assert rows[command]["kw_p"] == pytest.approx(scipy.stats.kruskal(fixed, random).pvalue)
    compat = run_job(warehouse, oe.JOB, oe.OrderEffectsParams(ordersage_compat=True))
    rows = job_rows(warehouse, compat.job_run_id, directory.name)
    kept = ordersage_process_data(directory)
    for command, (fixed, random) in kept.items():
        assert (rows[command]["n_fixed"], rows[command]["n_random"]) == (fixed.size, random.size)
        assert rows[command]["kw_h"] == pytest.approx(scipy.stats.kruskal(fixed, random).statistic)
    assert failed_runs["fixed"] and failed_runs["random"]


def rewrite_failures(directory: Path) -> dict[str, list[str]]:
    """Mark trials as failed, in both copies: position 0 of the first fixed run, position 2
    of the third fixed run, position 1 of the first random run."""
    paths = sorted(directory.glob("*test_results.csv"))
    with paths[0].open() as f:
        rows = list(csv.DictReader(f))
    runs = {kind: list(dict.fromkeys(r["run_uuid"] for r in rows if r["order_type"] == kind))
            for kind in ("fixed", "random")}
    targets = {(runs["fixed"][0], "0"), (runs["fixed"][2], "2"), (runs["random"][0], "1")}
    for path in paths:
        with path.open() as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        for row in rows:
            if (row["run_uuid"], row["order_number"]) in targets:
                row["completion_status"] = "Failure"
                row["result"] = ""
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    return {"fixed": [runs["fixed"][0], runs["fixed"][2]], "random": [runs["random"][0]]}


def ordersage_process_data(directory: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """OrderSage's process_data, written out: drop fixed runs with a failure, then failures."""
    path = next(p for p in directory.glob("*_test_results.csv") if "_all_" not in p.name)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    bad_runs = {r["run_uuid"] for r in rows
                if r["completion_status"] == "Failure" and r["order_type"] == "fixed"}
    groups: dict[str, tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    for r in rows:
        if r["run_uuid"] in bad_runs or r["completion_status"] == "Failure":
            continue
        groups[r["test_command"]][r["order_type"] == "random"].append(float(r["result"]))
    return {c: (np.array(f), np.array(r)) for c, (f, r) in groups.items()}


# ---------------------------------------------------- 2021 layout, STREAM rows
def test_2021_layout_with_four_values_per_stream_row(warehouse: Warehouse, tmp_path: Path) -> None:
    """A 2021-layout directory whose results are "a,b,c,d" STREAM rows: one configuration per
    value, named copy/scale/add/triad, each with scipy's numbers."""
    directory = tmp_path / "20211012_21:02:01_results"
    shutil.copytree(ORDERSAGE_DIRS["memcached"], directory)
    rng = np.random.default_rng(5)
    expected: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    noise: dict[tuple[str, str], list[float]] = {}
    for path in sorted(directory.glob("*exp*_results.csv")):  # both copies of the trials
        with path.open() as f:
            reader = csv.DictReader(f)
            fields, rows = reader.fieldnames, list(reader)
        for row in rows:
            command = row["exp_command"].replace("./", "./stream_")
            key = (row["run_uuid"], row["order_number"])
            if key not in noise:  # the same four values in both copies of a trial
                base = float(row["result"])
                noise[key] = [base, base * 1.01, round(float(rng.normal(100, 5)), 3),
                              float(rng.integers(0, 4))]  # ties in the last metric
                for name, value in zip(("copy", "scale", "add", "triad"), noise[key]):
                    expected[(command, name)][row["order_type"] == "random"].append(value)
            row["exp_command"] = command
            row["result"] = ",".join(repr(v) for v in noise[key])
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    summary = ingest_ordersage(warehouse, [directory])
    assert summary.trials_added == 300 * 4  # a trial per (run, position, configuration)
    result = run_job(warehouse, oe.JOB, oe.OrderEffectsParams(family_by="metric"))
    with warehouse.catalog() as con:
        rows = fetch_arrow(con, "SELECT * FROM order_effects_history WHERE job_run_id = $id",
                           {"id": result.job_run_id}).to_pylist()
    assert len(rows) == 12
    assert {r["metric"] for r in rows} == {"copy", "scale", "add", "triad"}
    for row in rows:
        fixed, random = (np.array(v) for v in expected[(row["benchmark"], row["metric"])])
        assert row["family"] == row["metric"] and row["m"] == 3
        assert row["kw_p"] == pytest.approx(scipy.stats.kruskal(fixed, random).pvalue, rel=1e-12)
        delta = (fixed.mean() - random.mean()) / fixed.mean() * 100
        assert row["delta_pct"] == pytest.approx(delta)
        ci = median_ci(fixed, 1 - 0.05 / 3)
        assert (row["ci_fixed_low"], row["ci_fixed_high"]) == (ci.low, ci.high)
    # copy and scale are a monotone map of the original result: the same H as memcached's
    by_metric = {(r["benchmark"], r["metric"]): r for r in rows}
    for command, (fixed, random) in raw_trials(ORDERSAGE_DIRS["memcached"]).items():
        h = scipy.stats.kruskal(fixed, random).statistic
        for metric in ("copy", "scale"):
            stream = command.replace("./", "./stream_")
            assert by_metric[(stream, metric)]["kw_h"] == pytest.approx(h)


def test_all_fixture_directories_are_known() -> None:
    assert sorted(p.name for p in ORDERSAGE.iterdir() if p.is_dir()) == sorted(
        d.name for d in ORDERSAGE_DIRS.values())
    assert not math.isnan(float(paper_rows()[0]["kw_p"]))


@pytest.mark.parametrize("correction", ["holm", "bh"])
def test_holm_and_bh_per_family(fixture_warehouse: Warehouse, correction: str) -> None:
    """--correction adjusts the p-values of each family (here: per benchmark of the uFS
    experiment, i.e. one test per family, and per campaign)."""
    from tests.naive.order_effects import adjust

    campaign = ORDERSAGE_DIRS["ufs"].name
    for family_by in ("campaign", "metric"):
        params = oe.OrderEffectsParams(campaign=campaign, correction=correction,
                                       family_by=family_by, ci_method="le-boudec")
        result = run_job(fixture_warehouse, oe.JOB, params, campaigns=[campaign])
        rows = list(job_rows(fixture_warehouse, result.job_run_id, campaign).values())
        expected = adjust([r["kw_p"] for r in rows], correction)
        for row, p_adjusted in zip(rows, expected):
            assert row["p_adjusted"] == pytest.approx(p_adjusted, rel=1e-12)
            assert row["reject_adjusted"] == (p_adjusted < 0.05)
            assert row["correction"] == correction and row["ci_method"] == "le-boudec"
            assert row["m"] == 20
        assert {r["order_matters"] for r in rows} == {any(p < 0.05 for p in expected)}
