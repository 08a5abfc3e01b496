"""The verdict of a configuration's drill-down (:mod:`perfwarehouse.reports.configuration`):
what the warehouse's analyses found for it and only that (order effect, variability,
trend, change points), each with its numbers, signed + = worse as on the other pages."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from perfwarehouse.reports import charts
from perfwarehouse.reports.formatting import format_number, format_pvalue, p_statement
from perfwarehouse.reports.page import Missing, Verdict
from perfwarehouse.warehouse.lookup import Configuration


def as_frame(table: pa.Table | Missing) -> pl.DataFrame | None:
    """The rows of an analysis table as a frame (None: the analysis has not run)."""
    if isinstance(table, Missing):
        return None
    df = pl.from_arrow(table)
    assert isinstance(df, pl.DataFrame)
    return df


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def verdict(config: Configuration, analyses: dict[str, pa.Table | Missing]) -> Verdict:
    """What the analyses say about the configuration, with their numbers; only the
    analyses that have rows for it are cited, the others are named as not run."""
    parts: list[str] = []
    alarm = False
    missing = [m.command for m in analyses.values() if isinstance(m, Missing)]
    order = as_frame(analyses["order_effects"])
    if order is not None:
        text, hit = _order_verdict(order)
        parts.append(text)
        alarm |= hit
    var = as_frame(analyses["variability"])
    if var is not None:
        parts.append(_variability_verdict(var))
    trends = as_frame(analyses["trends"])
    if trends is not None:
        text, hit = _trend_verdict(trends, config.higher_is_better)
        parts.append(text)
        alarm |= hit
    cps = as_frame(analyses["change_points"])
    if cps is not None:
        text, hit = _change_verdict(cps, config.higher_is_better)
        parts.append(text)
        alarm |= hit
    if not parts:
        return Verdict("No analysis has results for this configuration yet: run "
                       + ", ".join(f"`{m}`" for m in missing)
                       + ", then write this page again.", "missing")
    if missing:
        parts.append("Not analysed yet: " + ", ".join(f"`{m}`" for m in missing) + ".")
    return Verdict(" ".join(parts), "alarm" if alarm else "ok")


def _order_numbers(r: dict[str, object], named: bool = True) -> str:
    where = f"{r['hardware_type']}: " if named else ""
    parts = [f"{where}Δ {r['delta_pct']:+.2f} %" if r["delta_pct"] is not None
             else f"{where}Δ undefined"]
    if r["kw_p"] is not None:
        parts.append(p_statement(float(r["kw_p"])))  # type: ignore[arg-type]
    if r["p_adjusted"] is not None:
        parts.append(f"adjusted {format_pvalue(float(r['p_adjusted']))}")  # type: ignore[arg-type]
    return ", ".join(parts)


def _order_verdict(df: pl.DataFrame) -> tuple[str, bool]:
    """Order matters where the configuration's adjusted p is below α (the job's
    correction over its family, as on the order-effects page)."""
    hits = df.filter(pl.col("significant").fill_null(False))
    rest = df.filter(~pl.col("significant").fill_null(False))
    alpha, correction = df["alpha"][0], df["correction"][0]
    words = []
    if hits.height:
        words.append(f"Order matters on {_names(hits['hardware_type'].to_list())} ("
                     + "; ".join(_order_numbers(r, hits.height > 1)
                                 for r in hits.iter_rows(named=True))
                     + "; Δ > 0: the fixed order's mean is larger)")
    if rest.height == 1:
        words.append(("order does not matter" if hits.height else "Order does not matter")
                     + f" on {rest['hardware_type'][0]} ("
                     + _order_numbers(rest.row(0, named=True), False) + f"; adjusted p ≥ α = "
                     f"{alpha:g}, {correction})")
    elif rest.height:  # the numbers of each are in the table below
        ps = [p for p in rest["kw_p"].to_list() if p is not None]
        smallest = f"; smallest {p_statement(min(ps))}" if ps else ""
        words.append(("order does not matter" if hits.height else "Order does not matter")
                     + f" on {_names(rest['hardware_type'].to_list())} (adjusted p ≥ α = "
                     f"{alpha:g}, {correction}{smallest})")
    return "; ".join(words) + ".", bool(hits.height)


def _variability_verdict(df: pl.DataFrame) -> str:
    ok = df.filter(pl.col("rsd_total_pct").is_not_null()).sort("rsd_total_pct",
                                                                  descending=True)
    if ok.height == 0:
        return "Variability: undefined (" + str(df["reason"][0] or "no values") + ")."
    items = [f"{r['hardware_type']} {format_number(r['rsd_total_pct'])} %"
             for r in ok.iter_rows(named=True)]
    return ("Variability (RSD of all values, most variable first): " + ", ".join(items) + ".")


def _trend_verdict(df: pl.DataFrame, higher_is_better: bool | None) -> tuple[str, bool]:
    drifting = charts.plus_is_worse(
        df.filter(pl.col("drifting").fill_null(False)), "slope_pct_per_30d",
        "ci_low_pct_per_30d", "ci_high_pct_per_30d", ("worse", "worse_low", "worse_high"),
        pl.lit(higher_is_better))
    if drifting.height == 0:
        return (f"No drift over time on {_names(df['hardware_type'].to_list())} (every "
                "Theil-Sen CI includes 0)."), False
    items = [f"{r['hardware_type']} {r['worse']:+.2f} % per 30 days (CI "
             f"{r['worse_low']:+.2f} to {r['worse_high']:+.2f} %)"
             for r in drifting.iter_rows(named=True)]
    return "Drifts over time: " + "; ".join(items) + ".", True


def _change_verdict(df: pl.DataFrame, higher_is_better: bool | None) -> tuple[str, bool]:
    changes = df.filter(pl.col("position").is_not_null())
    if changes.height == 0:
        return "No change point in any series.", False
    big = charts.plus_is_worse(
        changes.sort(pl.col("change_pct").abs(), descending=True).head(1), "change_pct",
        None, None, ("worse_pct", "", ""), pl.lit(higher_is_better)).row(0, named=True)
    regressions = changes.filter(pl.col("direction") == "regression").height
    return (f"{changes.height} change point{'s' if changes.height != 1 else ''} "
            f"({regressions} regression{'s' if regressions != 1 else ''}); largest "
            f"{big['worse_pct']:+.2f} %, + = worse ({big['direction']}) on "
            f"{big['hardware_type']}."), regressions > 0


