"""Job ``surface``: the quadratic response surface of the peak rate (Shivam et al., §5.5).

Input: the ``peak_rate`` records the workbench controller writes at the end of
each search (``perfwarehouse agent peak-rate`` / ``agent surface``), one per
sample, whose settings hold the factors. Output table ``response_surface`` (declared in
``perfwarehouse/warehouse/contracts.py``): coefficients with t intervals,
leave-one-out MAPE, and the predicted peak rate at every combination of the
factor levels (the levels seen in the samples, or ``--levels``). The fit is
:func:`perfwarehouse.workbench.surface.fit_quadratic`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from perfwarehouse.errors import UsageError
from perfwarehouse.jobs.framework import Job, JobParams, Tables, param
from perfwarehouse.stats.fractions import confidence as as_confidence
from perfwarehouse.warehouse import contracts

FIELDS = contracts.RESPONSE_SURFACE.fields()
# settings the controller adds that say how the search ran, not what was measured
SEARCH_KEYS = frozenset({"rate_rps", "clients", "search_policy", "search_seeding"})


@dataclass(frozen=True)
class SurfaceParams(JobParams):
    factors: str = param("", "Comma-separated factor names (numeric settings), e.g. A,B.")
    levels: str = param("", "Predict at every combination of these levels: "
                            "'A=1,2,3;B=10,20' (default: the levels seen in the samples).")
    metric: str = param("peak_rate", "The metric holding each sample's peak rate.")
    budget_estimates: bool = param(
        True, "Use the best estimate of searches that ran out of budget (counted in n_budget); "
              "off: only searches that met their target.")
    confidence: float = param(0.95, "Confidence of the coefficients' intervals (0.95 or 95).")


def _factor_names(params: SurfaceParams) -> list[str]:
    names = [f.strip() for f in params.factors.split(",") if f.strip()]
    if len(set(names)) != len(names):
        raise UsageError(f"--factors names a factor twice: {params.factors}")
    return names


def parse_levels(text: str, factors: list[str]) -> dict[str, list[float]]:
    """``'A=1,2,3;B=10,20'`` as {factor: levels}; refuses unknown factors and non-numbers."""
    out: dict[str, list[float]] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        name, sep, values = part.partition("=")
        name = name.strip()
        if not sep or name not in factors:
            raise UsageError(f"--levels: {part!r} is not FACTOR=V1,V2,... for one of "
                             f"{', '.join(factors)}")
        try:
            out[name] = sorted({float(v) for v in values.split(",") if v.strip()})
        except ValueError:
            raise UsageError(f"--levels: the levels of {name} must be numbers: {values}") from None
    return out


def compute(table: pa.Table, params: SurfaceParams) -> Tables:
    from perfwarehouse.workbench.seeding import as_number
    from perfwarehouse.workbench.surface import fit_quadratic

    factors = _factor_names(params)
    confidence = as_confidence(params.confidence, "--confidence")
    if not factors:  # the demo runs every job with its defaults
        return {"response_surface": _table([])}
    given_levels = parse_levels(params.levels, factors)
    rows = table.to_pylist()
    groups: dict[tuple[str, str, str, str], dict[tuple[float, ...], list[float]]] = {}
    budget: dict[tuple[str, str, str, str], int] = {}
    for row in rows:
        if row.get("status") == "budget" and not params.budget_estimates:
            continue
        settings = json.loads(row["settings"]) if isinstance(row["settings"], str) \
            else dict(row["settings"] or {})
        missing = [f for f in factors if f not in settings]
        if missing:
            continue  # a search of another kind in the same campaign
        point = tuple(as_number(settings[f]) for f in factors)
        if any(v is None for v in point):
            bad = [f"{f}={settings[f]}" for f, v in zip(factors, point) if v is None]
            raise UsageError(f"the factor value(s) {', '.join(bad)} are not numbers; the "
                             "quadratic model needs numeric factors")
        fixed = {k: v for k, v in settings.items() if k not in factors and k not in SEARCH_KEYS}
        key = (row["campaign"], row["hardware_type"], row["benchmark"],
               json.dumps(fixed, sort_keys=True))
        value = float(row["value"])
        groups.setdefault(key, {}).setdefault(point, []).append(value)  # type: ignore[arg-type]
        budget[key] = budget.get(key, 0) + (row.get("status") == "budget")
    out: list[dict[str, object]] = []
    for key, samples in sorted(groups.items()):
        campaign, hardware_type, benchmark, fixed_json = key
        points = sorted(samples)
        x = np.array(points, dtype=np.float64).reshape(-1, len(factors))
        y = np.array([float(np.mean(samples[p])) for p in points])
        fit = fit_quadratic(factors, x, y, confidence)
        common = {"campaign": campaign, "hardware_type": hardware_type, "benchmark": benchmark,
                  "fixed_settings": fixed_json, "factors": ",".join(factors),
                  "n_samples": fit.n, "n_budget": budget.get(key, 0), "dof": fit.dof,
                  "r_squared": fit.r_squared,
                  "loo_mape": fit.loo_mape, "confidence": confidence}
        for term, est, lo, hi in zip(fit.terms, fit.coefficients, fit.ci_low, fit.ci_high):
            out.append({**common, "kind": "coefficient", "term": term, "point": None,
                        "estimate": est, "ci_low": lo, "ci_high": hi, "measured": None})
        levels = [given_levels.get(f) or sorted({p[i] for p in points})
                  for i, f in enumerate(factors)]
        combos = list(itertools.product(*levels))
        predicted = fit.predict(np.array(combos, dtype=np.float64))
        for combo, est in zip(combos, predicted):
            measured = samples.get(tuple(combo))
            out.append({**common, "kind": "prediction", "term": None,
                        "point": json.dumps(dict(zip(factors, combo))), "estimate": float(est),
                        "ci_low": None, "ci_high": None,
                        "measured": float(np.mean(measured)) if measured else None})
    return {"response_surface": _table(out)}


def _table(rows: list[dict[str, object]]) -> pa.Table:
    import math

    def clean(v: object) -> object:
        return None if isinstance(v, float) and math.isnan(v) else v

    return pa.table({name: pa.array([clean(r[name]) for r in rows], dtype)
                     for name, dtype in FIELDS})


def summarize(tables: Tables, params: SurfaceParams) -> list[str]:
    t = tables["response_surface"]
    if not _factor_names(params):
        return ["surface: no --factors given (e.g. --factors A,B): nothing fitted"]
    if t.num_rows == 0:
        return [f"surface: no {params.metric} records with factors {params.factors}"]
    lines = []
    seen = set()
    for row in t.to_pylist():
        key = (row["hardware_type"], row["benchmark"], row["fixed_settings"])
        if key in seen:
            continue
        seen.add(key)
        mape = row["loo_mape"]
        mape_text = f"{100 * mape:.1f} %" if mape is not None else "undefined"
        lines.append(f"surface {row['benchmark']} on {row['hardware_type']}: {row['n_samples']} "
                     f"samples ({row['n_budget']} best estimates of searches out of budget), "
                     f"R² {row['r_squared'] or float('nan'):.3f}, leave-one-out MAPE "
                     f"{mape_text}")
    return lines


def _query_params(params: SurfaceParams) -> dict[str, object]:
    _factor_names(params)
    as_confidence(params.confidence, "--confidence")
    return {"metric": params.metric}


JOB = Job(
    name="surface",
    help="Quadratic response surface of the peak rate in --factors (least squares; "
         "coefficient CIs, leave-one-out MAPE, predictions) -> response_surface.",
    params=SurfaceParams,
    query="surface_peak_rates",
    compute=compute,
    outputs=("response_surface",),
    summarize=summarize,
    query_params=_query_params,
)
