"""Warehouses with analysis results, for the report tests.

The reports read the tables that the analysis jobs write. When a job is registered
(``perfwarehouse.jobs.JOBS``), the tests run it for real. Until the job is merged
into this branch, :func:`analyse` writes the same table from a slow, obvious
reference computation (scipy's Kruskal-Wallis, the package's exact median CIs) or
from given rows, into a table with the columns the report queries read, plus a
``job_runs`` row, exactly as ``run_job`` would.

Also: hostile benchmark names (they come from logs) and a campaign that uses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
from scipy import stats as scipy_stats

from perfwarehouse.stats import median_ci
from perfwarehouse.warehouse.store import Warehouse, fetch_arrow, fetch_one

HOSTILE_SCRIPT = "</script><script>document.body.setAttribute('data-pwned','script')</script>"
HOSTILE_IMG = "\"><img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
HOSTILE_NAMES = (HOSTILE_SCRIPT, HOSTILE_IMG, "& \u2028 \u2029 <!-- -->")


def hostile_trials(path: Path, campaign: str = "hostile", runs: int = 16) -> Path:
    """A small campaign whose benchmark names (and a settings value and a metric) are
    hostile, with a clear order effect on the first test (fixed order 10 % faster)."""
    rng = np.random.default_rng(3)
    names = list(HOSTILE_NAMES)
    lines = []
    start = datetime(2024, 3, 1, tzinfo=timezone.utc)
    for r in range(runs):
        kind = "fixed" if r % 2 == 0 else "random"
        order = list(range(len(names))) if kind == "fixed" else list(rng.permutation(len(names)))
        for position, t in enumerate(order):
            base = 100.0 * (0.9 if (t == 0 and kind == "fixed") else 1.0)
            values = list(np.round(base * rng.lognormal(0, 0.01, 3), 4))
            lines.append(json.dumps({
                "v": 1, "campaign": campaign, "run_id": f"h-{r}", "node": "evil-000001",
                "hardware_type": "evil<b>type</b>", "run_index": r, "order_kind": kind,
                "seed": 1000 + r, "position": position, "run_size": len(names),
                "benchmark": names[t], "settings": {"flag": HOSTILE_IMG if t == 1 else "x"},
                "metric": "<i>time</i>" if t == 2 else "time", "unit": "s</script>",
                "higher_is_better": False, "values": [float(v) for v in values],
                "started_at": (start + timedelta(hours=r, seconds=position)).isoformat(),
                "status": "ok"}))
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------ running jobs
def registered(job_name: str) -> bool:
    from perfwarehouse.jobs import JOBS

    return any(job.name == job_name for job in JOBS)


def analyse(warehouse: Warehouse, job_name: str, reference: Callable[[Warehouse], int]) -> int:
    """Run the job ``job_name`` if it is registered, else ``reference`` (which writes the
    job's tables); returns the job_run_id."""
    from perfwarehouse.jobs import get, run_job

    if registered(job_name):
        job = get(job_name)
        return run_job(warehouse, job, job.params()).job_run_id
    return reference(warehouse)


def write_result(warehouse: Warehouse, job_name: str, tables: dict[str, pa.Table],
                 ddl: dict[str, str], campaigns: Sequence[str],
                 params: dict[str, Any] | None = None) -> int:
    """Insert ``tables`` (creating them from ``ddl`` where the warehouse has no such
    table yet) with a new job_run_id, and the ``job_runs`` row."""
    with warehouse.writing(f"test {job_name}") as session, session.catalog() as con:
        job_run_id = int(fetch_one(con, "SELECT coalesce(max(job_run_id), 0) + 1 "
                                        "FROM job_runs")[0])
        rows = 0
        for name, table in tables.items():
            con.execute(ddl[name])
            table = table.append_column("job_run_id", pa.array([job_run_id] * table.num_rows,
                                                               pa.int64()))
            con.register("_rows", table)
            con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM _rows")
            con.unregister("_rows")
            rows += table.num_rows
        con.execute("INSERT INTO job_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [job_run_id, job_name, json.dumps(params or {}), list(campaigns), [],
                     "test", datetime.now(timezone.utc), 0.0, rows])
    return job_run_id


# ------------------------------------------------- order effects (reference)
ORDER_EFFECTS_DDL = """
CREATE TABLE IF NOT EXISTS order_effects (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, benchmark VARCHAR, settings VARCHAR,
    metric VARCHAR, hardware_type VARCHAR, unit VARCHAR, higher_is_better BOOLEAN,
    family VARCHAR, n_fixed BIGINT, n_random BIGINT, kw_h DOUBLE, kw_p DOUBLE,
    reject_alpha BOOLEAN, reject_bonferroni BOOLEAN, eta2 DOUBLE, delta_pct DOUBLE,
    delta_median_pct DOUBLE, median_fixed DOUBLE, ci_fixed_low DOUBLE, ci_fixed_high DOUBLE,
    median_random DOUBLE, ci_random_low DOUBLE, ci_random_high DOUBLE, ci_case INTEGER,
    alpha DOUBLE, m BIGINT, ci_confidence DOUBLE)"""


def reference_order_effects(warehouse: Warehouse, alpha: float = 0.05) -> int:
    """order_effects by the book (seed 000 sections 3 and 5, SPEC 5.1), slowly: per
    campaign (the family), per configuration and hardware type, scipy's Kruskal-Wallis
    of fixed against random values, η²_H, Δ%, exact median CIs at 1 - α/m, CI case."""
    with warehouse.catalog() as con:
        values = fetch_arrow(con, """
            SELECT campaign, hardware_type, benchmark, settings, metric, unit,
                   higher_is_better, order_kind, value
            FROM measurements WHERE status = 'ok' AND order_kind IN ('fixed', 'random')
            ORDER BY ALL""").to_pylist()
    groups: dict[tuple[Any, ...], dict[str, list[float]]] = {}
    for row in values:
        key = (row["campaign"], row["hardware_type"], row["benchmark"], row["settings"],
               row["metric"], row["unit"], row["higher_is_better"])
        groups.setdefault(key, {"fixed": [], "random": []})[row["order_kind"]].append(row["value"])
    m_of: dict[str, int] = {}
    for key in groups:
        m_of[key[0]] = m_of.get(key[0], 0) + 1
    rows = []
    for key, by in sorted(groups.items()):
        fixed, random = np.array(by["fixed"]), np.array(by["random"])
        m = m_of[key[0]]
        confidence = 1 - alpha / m
        h = p = eta2 = None
        if fixed.size and random.size and np.ptp(np.r_[fixed, random]) > 0:
            h, p = (float(v) for v in scipy_stats.kruskal(fixed, random))
            n = fixed.size + random.size
            eta2 = (h - 1) / (n - 2) if n > 2 else None
        ci_f = median_ci(fixed, confidence) if fixed.size else None
        ci_r = median_ci(random, confidence) if random.size else None
        med_f = float(np.median(fixed)) if fixed.size else None
        med_r = float(np.median(random)) if random.size else None
        rows.append({
            "campaign": key[0], "hardware_type": key[1], "benchmark": key[2],
            "settings": key[3], "metric": key[4], "unit": key[5], "higher_is_better": key[6],
            "family": key[0], "n_fixed": fixed.size, "n_random": random.size, "kw_h": h,
            "kw_p": p, "reject_alpha": p is not None and p < alpha,
            "reject_bonferroni": p is not None and p < alpha / m, "eta2": eta2,
            "delta_pct": _pct(fixed.mean() if fixed.size else None,
                              random.mean() if random.size else None),
            "delta_median_pct": _pct(med_f, med_r), "median_fixed": med_f,
            "ci_fixed_low": ci_f.low if ci_f else None,
            "ci_fixed_high": ci_f.high if ci_f else None,
            "median_random": med_r,
            "ci_random_low": ci_r.low if ci_r else None,
            "ci_random_high": ci_r.high if ci_r else None,
            "ci_case": _ci_case(med_f, ci_f, med_r, ci_r), "alpha": alpha, "m": m,
            "ci_confidence": confidence,
        })
    campaigns = sorted(m_of)
    return write_result(warehouse, "order-effects", {"order_effects": pa.Table.from_pylist(rows)},
                        {"order_effects": ORDER_EFFECTS_DDL}, campaigns, {"alpha": alpha})


def _pct(fixed: float | None, random: float | None) -> float | None:
    if fixed is None or random is None or fixed == 0:
        return None
    return float((fixed - random) / fixed * 100)


def _ci_case(med_f: float | None, ci_f: Any, med_r: float | None, ci_r: Any) -> int | None:
    """Seed 000 Algorithm 2: 1 disjoint, 2 a median inside the other CI, 3 otherwise."""
    if ci_f is None or ci_r is None or ci_f.low is None or ci_r.low is None:
        return None
    if ci_f.high < ci_r.low or ci_r.high < ci_f.low:
        return 1
    if ci_r.low < med_f < ci_r.high or ci_f.low < med_r < ci_f.high:
        return 2
    return 3


# ------------------------------------------------------ Laaber tables (reference)
VARIABILITY_DDL = """
CREATE TABLE IF NOT EXISTS variability (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, config_id UBIGINT,
    benchmark VARCHAR, settings VARCHAR, metric VARCHAR, unit VARCHAR,
    higher_is_better BOOLEAN, n_values BIGINT, n_outliers BIGINT, outlier_factor DOUBLE,
    n_nodes INTEGER, n_runs INTEGER, mean DOUBLE, median DOUBLE, rsd_total_pct DOUBLE,
    rsd_node_mean_pct DOUBLE, rsd_node_sd_pct DOUBLE, n_nodes_rsd INTEGER,
    rsd_run_mean_pct DOUBLE, rsd_run_sd_pct DOUBLE, n_runs_rsd INTEGER,
    share_nodes_pct DOUBLE, share_runs_pct DOUBLE, share_within_pct DOUBLE, reason VARCHAR)"""

REFERENCE_VARIABILITY_SQL = """
WITH v AS (
    SELECT campaign, hardware_type, config_id, any_value(benchmark) OVER w AS benchmark,
           any_value(settings) OVER w AS settings, any_value(metric) OVER w AS metric,
           any_value(unit) OVER w AS unit, node, run_id, value
    FROM measurements WHERE status = 'ok'
    WINDOW w AS (PARTITION BY campaign, hardware_type, config_id)),
per_run AS (SELECT campaign, hardware_type, config_id, node, run_id,
                   100 * stddev_samp(value) / abs(avg(value)) AS rsd, avg(value) AS mean,
                   count(*) AS n FROM v GROUP BY ALL),
per_node AS (SELECT campaign, hardware_type, config_id, node,
                    100 * stddev_samp(value) / abs(avg(value)) AS rsd, avg(value) AS mean,
                    count(*) AS n FROM v GROUP BY ALL),
total AS (SELECT campaign, hardware_type, config_id, any_value(benchmark) AS benchmark,
                 any_value(settings) AS settings, any_value(metric) AS metric,
                 any_value(unit) AS unit, count(*) AS n_values, avg(value) AS mean,
                 median(value) AS median, var_pop(value) * count(*) AS ss_total,
                 100 * stddev_samp(value) / abs(avg(value)) AS rsd_total_pct,
                 count(DISTINCT node) AS n_nodes, count(DISTINCT run_id) AS n_runs
          FROM v GROUP BY ALL)
SELECT t.*, 0 AS n_outliers, 10.0 AS outlier_factor,
       (SELECT avg(rsd) FROM per_node p WHERE p.campaign = t.campaign
           AND p.hardware_type = t.hardware_type AND p.config_id = t.config_id) AS rsd_node_mean_pct,
       (SELECT stddev_samp(rsd) FROM per_node p WHERE p.campaign = t.campaign
           AND p.hardware_type = t.hardware_type AND p.config_id = t.config_id) AS rsd_node_sd_pct,
       (SELECT avg(rsd) FROM per_run p WHERE p.campaign = t.campaign
           AND p.hardware_type = t.hardware_type AND p.config_id = t.config_id) AS rsd_run_mean_pct,
       (SELECT stddev_samp(rsd) FROM per_run p WHERE p.campaign = t.campaign
           AND p.hardware_type = t.hardware_type AND p.config_id = t.config_id) AS rsd_run_sd_pct,
       100 * (SELECT sum(n * (mean - t.mean) ^ 2) FROM per_node p WHERE p.campaign = t.campaign
           AND p.hardware_type = t.hardware_type AND p.config_id = t.config_id)
           / nullif(t.ss_total, 0) AS share_nodes_pct
FROM total AS t"""


def reference_variability(warehouse: Warehouse) -> int:
    """variability by the book (seed 001 section 4.1), in one SQL statement: RSD over all
    values, the mean and sd of the per-node and per-run RSD, the share of the sum of
    squares between nodes (runs and within split the rest evenly: test data only)."""
    with warehouse.catalog() as con:
        table = fetch_arrow(con, REFERENCE_VARIABILITY_SQL)
    rows = table.drop(["ss_total", "config_id"]).to_pylist()
    for row in rows:
        nodes = row["share_nodes_pct"]
        row["share_runs_pct"] = row["share_within_pct"] = \
            None if nodes is None else (100 - nodes) / 2
        row["n_nodes_rsd"], row["n_runs_rsd"], row["reason"] = row["n_nodes"], row["n_runs"], None
    campaigns = sorted({r["campaign"] for r in rows})
    return write_result(warehouse, "variability", {"variability": pa.Table.from_pylist(rows)},
                        {"variability": VARIABILITY_DDL}, campaigns)


DETECTABLE_DDL = {
    "detectable_regression": """
CREATE TABLE IF NOT EXISTS detectable_regression (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, benchmark VARCHAR,
    settings VARCHAR, metric VARCHAR, unit VARCHAR, strategy VARCHAR, n_nodes INTEGER,
    trials_per_node INTEGER, detectable_pct DOUBLE, status VARCHAR, reason VARCHAR)""",
    "detectable_regression_curve": """
CREATE TABLE IF NOT EXISTS detectable_regression_curve (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, benchmark VARCHAR,
    settings VARCHAR, metric VARCHAR, strategy VARCHAR, n_nodes INTEGER, r_pct DOUBLE,
    fp_rate DOUBLE, tp_rate DOUBLE, passes BOOLEAN)""",
    "aa_fpr": """
CREATE TABLE IF NOT EXISTS aa_fpr (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, benchmark VARCHAR,
    settings VARCHAR, metric VARCHAR, strategy VARCHAR, n_nodes INTEGER, draws INTEGER,
    alpha DOUBLE, fp_rate DOUBLE, reason VARCHAR)"""}

R_VALUES = (1, 2, 3, 4, 5, 10, 15, 20, 25, 50, 75, 100)


def synthetic_detectable(warehouse: Warehouse, seed: int = 1) -> int:
    """detectable_regression, its curve and aa_fpr with the right keys and plausible
    random numbers (larger groups detect smaller regressions); for drawing tests only."""
    rng = np.random.default_rng(seed)
    with warehouse.catalog() as con:
        keys = fetch_arrow(con, """
            SELECT DISTINCT campaign, hardware_type, benchmark, settings, metric, unit
            FROM measurements ORDER BY ALL""").to_pylist()
    detect, curve, aa = [], [], []
    for key in keys:
        base = {k: key[k] for k in ("campaign", "hardware_type", "benchmark", "settings",
                                    "metric")}
        for strategy, nodes in (("instance", (1, 5, 20)), ("trial", (1, 20))):
            for k in nodes:
                status = "insufficient" if k == 20 else rng.choice(["detectable", "none"],
                                                                     p=[0.8, 0.2])
                r = float(rng.choice(R_VALUES[: 12 - 2 * nodes.index(k)])) \
                    if status == "detectable" else None
                detect.append(base | {"unit": key["unit"], "strategy": strategy, "n_nodes": k,
                                      "trials_per_node": 5, "detectable_pct": r,
                                      "status": str(status), "reason": None})
                aa.append(base | {"strategy": strategy, "n_nodes": k, "draws": 100,
                                  "alpha": 0.05, "reason": None,
                                  "fp_rate": None if k == 20 else float(rng.uniform(0, 0.6))})
                if status == "insufficient":
                    continue
                for rr in R_VALUES:
                    fp = float(np.clip(0.5 / rr + rng.normal(0, 0.02), 0, 1))
                    tp = float(np.clip(rr / 10 + rng.normal(0, 0.02), 0, 1))
                    curve.append(base | {"strategy": strategy, "n_nodes": k, "r_pct": float(rr),
                                         "fp_rate": fp, "tp_rate": tp,
                                         "passes": fp <= 0.05 and tp >= 0.95})
    campaigns = sorted({k["campaign"] for k in keys})
    write_result(warehouse, "aa-fpr", {"aa_fpr": pa.Table.from_pylist(aa)}, DETECTABLE_DDL,
                 campaigns)
    return write_result(warehouse, "detectable-regression",
                        {"detectable_regression": pa.Table.from_pylist(detect),
                         "detectable_regression_curve": pa.Table.from_pylist(curve)},
                        DETECTABLE_DDL, campaigns)


def laaber_analyses(warehouse: Warehouse) -> None:
    """The variability, aa-fpr and detectable-regression results, real when the jobs
    are registered."""
    analyse(warehouse, "variability", reference_variability)
    if registered("detectable-regression") and registered("aa-fpr"):
        analyse(warehouse, "aa-fpr", synthetic_detectable)
        analyse(warehouse, "detectable-regression", synthetic_detectable)
    else:
        synthetic_detectable(warehouse)


# ------------------------------------------------- TriScale tables (synthetic)
TRISCALE_DDL = {
    "triscale_kpi": """
CREATE TABLE IF NOT EXISTS triscale_kpi (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, benchmark VARCHAR,
    settings VARCHAR, metric VARCHAR, unit VARCHAR, series VARCHAR, percentile DOUBLE,
    confidence DOUBLE, kpi DOUBLE, metric_median DOUBLE, n_runs BIGINT, independent BOOLEAN,
    n_required BIGINT)""",
    "triscale_variability_score": """
CREATE TABLE IF NOT EXISTS triscale_variability_score (
    job_run_id BIGINT NOT NULL, campaign VARCHAR, hardware_type VARCHAR, benchmark VARCHAR,
    settings VARCHAR, metric VARCHAR, unit VARCHAR, percentile DOUBLE, confidence DOUBLE,
    low DOUBLE, high DOUBLE, score DOUBLE, relative DOUBLE, n_series BIGINT,
    independent BOOLEAN)"""}


def synthetic_triscale(warehouse: Warehouse, seed: int = 1) -> None:
    """KPI and variability-score rows in the provisional layout of the report queries
    (sql/queries/report_triscale_*.sql), from each configuration's median: drawing tests
    only, until the TriScale jobs write the real tables."""
    rng = np.random.default_rng(seed)
    with warehouse.catalog() as con:
        keys = fetch_arrow(con, """
            SELECT campaign, hardware_type, benchmark, settings, metric, unit,
                   median(value) AS median
            FROM measurements GROUP BY ALL ORDER BY ALL""").to_pylist()
    kpis, scores = [], []
    for key in keys[:40]:
        base = {k: key[k] for k in ("campaign", "hardware_type", "benchmark", "settings",
                                    "metric", "unit")}
        values = []
        for series in range(3):
            kpi = key["median"] * (1 + rng.uniform(0, 0.05))
            values.append(kpi)
            kpis.append(base | {"series": f"week {series + 1}", "percentile": 0.75,
                                "confidence": 0.75, "kpi": kpi, "metric_median": key["median"],
                                "n_runs": 10, "independent": bool(rng.random() < 0.8),
                                "n_required": None})
        low, high = min(values), max(values)
        scores.append(base | {"percentile": 0.25, "confidence": 0.75, "low": low, "high": high,
                              "score": high - low, "relative": (high - low) / ((high + low) / 2),
                              "n_series": 3, "independent": True})
    campaigns = sorted({k["campaign"] for k in keys})
    write_result(warehouse, "triscale-kpi", {"triscale_kpi": pa.Table.from_pylist(kpis)},
                 TRISCALE_DDL, campaigns)
    write_result(warehouse, "triscale-variability",
                 {"triscale_variability_score": pa.Table.from_pylist(scores)}, TRISCALE_DDL,
                 campaigns)


# ------------------------------------------------- a long-term campaign (shared)
FLEET_SEED, FLEET_SCALE = 5, 0.1


def longterm_warehouse(base: Path) -> tuple[Warehouse, dict[str, Any]]:
    """A 10 % ordersage-longterm campaign (about 230,000 trials, every planted effect),
    ingested once per test session under ``base``; returns it with its truth."""
    from perfwarehouse.generate import generate_to_file
    from perfwarehouse.ingest.service import ingest_jsonl

    root = base / "longterm-10pct"
    warehouse = Warehouse(root / "warehouse")
    trials = root / "longterm.jsonl"
    truth = Path(f"{trials}.truth.json")
    if not warehouse.exists():
        root.mkdir(parents=True, exist_ok=True)
        generate_to_file("ordersage-longterm", trials, seed=FLEET_SEED, scale=FLEET_SCALE)
        ingest_jsonl(warehouse, [trials])
    return warehouse, json.loads(truth.read_text())
