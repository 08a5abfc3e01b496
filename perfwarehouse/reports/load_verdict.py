"""The load-test page's verdict: a sentence per family (its peak throughput or peak
rate λ*, where it lies, how sure), then the trials that break the operational laws and
those that are on no curve (:mod:`perfwarehouse.reports.load`)."""

from __future__ import annotations

import polars as pl

from perfwarehouse.reports.columns import col
from perfwarehouse.reports.load_labels import family_parts, short_number
from perfwarehouse.reports.page import Block, Notice, Section, Verdict, capped_table


# ------------------------------------------------------------------ verdict
def short_verdict(peaks: pl.DataFrame | None, checks: pl.DataFrame | None) -> Verdict | None:
    """The answer in a sentence per family: the system, its peak and where it lies (the
    N of the peak, or the offered rate λ*); then the trials left out, in a sentence each.
    The numbers with their CIs and notes follow in "Verdict"."""
    if peaks is None or peaks.height == 0:
        return None
    rows = peaks.to_dicts()
    sentences = []
    for row in rows[:VERDICT_FAMILIES]:
        name = row["family_label"]
        if row["loop"] == "closed" and row["peak_throughput"] is not None:
            text = (f"{name} peaks at {short_number(row['peak_throughput'])} req/s with "
                    f"N = {short_number(row['peak_clients'])} clients (knee at N = "
                    f"{short_number(row['knee_clients'])})")
            if row["falls_after_peak"]:
                text += f" and falls {abs(row['drop_pct'] or 0):.0f} % by the largest N"
            elif row["peak_clients"] is not None and row["reason"] and \
                    "largest N tested" in row["reason"]:
                text += ", the largest N tested: it may rise further"
        elif row["loop"] == "open" and row["lambda_star"] is not None:
            text = (f"{name} holds {row['response_metric']} response time ≤ "
                    f"{short_number(row['r_sat_ms'])} ms up to λ* = {short_number(row['lambda_star'])} req/s")
            if row["lambda_high"] is not None:
                text += f" (exceeded surely at {short_number(row['lambda_high'])} req/s)"
            else:
                text += " (no load tested exceeds it yet)"
        else:
            reason = (row["reason"] or "no peak").split(";")[0].replace("lambda*", "λ*")
            text = f"{name}: {reason}"
        if (row["reason"] or "").startswith("mixed"):  # loadtest/mixing.py: say it first
            parts = row["reason"].removeprefix("mixed: ").split("; ")
            text = (f"MIXED, no single system's peak: {name}: {'; '.join(parts[:2])}. "
                    f"Its numbers mix them: {text.removeprefix(name).lstrip(': ')}")
        sentences.append(text + ".")
    if len(rows) > VERDICT_FAMILIES:
        sentences.append(f"{len(rows) - VERDICT_FAMILIES:,} more families are in the table of "
                         "peaks.")
    if checks is not None:
        bad = checks.filter(pl.col("consistent").fill_null(True).not_()).height
        if bad:
            sentences.append(f"{bad:,} trials break the operational laws and are left out.")
        sentences += unplaced_sentences(checks)
    return Verdict(" ".join(sentences), "info")


def unplaced_sentences(checks: pl.DataFrame) -> list[str]:
    """One sentence on the load-test trials without a load level (by generator): they
    are on no curve, and the page says so with how to give the load."""
    lost = checks.filter(pl.col("loop").is_not_null() & pl.col("load").is_null())
    if lost.height == 0:
        return []
    tools = [family_parts(f)[0] or "other" for f in lost["family"].to_list()]
    by_tool = ", ".join(f"{tools.count(t):,} {t}" for t in sorted(set(tools)))
    k = lost.height
    return [f"{k:,} trial{'s' if k > 1 else ''} without a load level ({by_tool}) "
            f"{'are' if k > 1 else 'is'} on no curve: the tool's output does not state the "
            "load; ingest it with its command line saved above the output, or with --setting "
            "clients=N (--setting loop=open --setting rate_rps=R for a rate)."]


#: Families with a line of their own in the verdict; the table of peaks has every one.
VERDICT_FAMILIES = 6


def verdict_section(curve: pl.DataFrame, peaks: pl.DataFrame | None,
                    checks: pl.DataFrame | None, tolerance: float) -> Section:
    blocks: list[Block] = []
    conf = curve["confidence"][0] if curve.height else 0.95
    rows = peaks.to_dicts() if peaks is not None else []
    if len(rows) > VERDICT_FAMILIES:
        found = sum(1 for r in rows if r["peak_throughput"] is not None
                    or r["lambda_star"] is not None)
        blocks.append(Notice(
            f"{len(rows):,} families: a peak (closed loop) or peak rate λ* (open loop) found "
            f"for {found:,}; the first {VERDICT_FAMILIES} follow, every one is in the table "
            "of peaks under Tables."))
    for row in rows[:VERDICT_FAMILIES]:
        blocks.append(Notice(_verdict_line(row, conf)))
    if checks is not None:
        bad = checks.filter(pl.col("consistent") == False)  # noqa: E712
        unknown = checks.filter(pl.col("consistent").is_null()).height
        checked = checks.height - unknown
        if bad.height:
            where = (bad.group_by("family_label", "loop", "load").agg(n=pl.len())
                     .sort("family_label", "load"))
            spots = "; ".join(
                f"{r['family_label']}: {r['n']} at {'N' if r['loop'] == 'closed' else 'λ'} = "
                f"{short_number(r['load'])}" for r in where.head(12).to_dicts())
            more = " …" if where.height > 12 else ""
            blocks.append(Notice(
                f"{bad.height:,} of {checked:,} trials break the operational laws by more "
                f"than {tolerance:g} % and are left out of the curves and the peak: {spots}{more}. "
                "The table below gives each one with its reason."))
        elif checked:
            blocks.append(Notice(f"All {checked:,} checked trials satisfy the operational laws "
                                 f"within {tolerance:g} %."))
        if unknown:
            why = (checks.filter(pl.col("consistent").is_null())
                   .group_by("reason").agg(n=pl.len()).sort("n", descending=True))
            blocks.append(Notice(
                f"{unknown:,} trials were not checked: " + "; ".join(
                    f"{r['n']:,} {str(r['reason']).removeprefix('not checked: ')}"
                    for r in why.head(4).to_dicts()) + "."))
        blocks += [Notice(t) for t in unplaced_sentences(checks)]
    if checks is not None:
        bad = checks.filter(pl.col("consistent") == False)  # noqa: E712
        if bad.height:
            blocks.append(capped_table(
                "Inconsistent trials",
                "The operational law each trial breaks, its relative residual and what it "
                "usually means.",
                (col("family_label"), col("hardware_type"),
                 col("loop"), col("load"),
                 col("run_id"), col("position"),
                 col("throughput"),
                 col("r_ms"), col("law"),
                 col("residual_pct"), col("reason")),
                bad.with_columns(residual_pct=pl.col("residual") * 100), limit=200))
    return Section("Verdict", "", tuple(blocks))


def _verdict_line(row: dict, conf: float) -> str:
    name = f"{row['family_label']} ({row['loop']} loop)"
    if row["loop"] == "closed":
        if row["peak_throughput"] is None:
            return f"{name}: no peak: {row['reason']}."
        ci = (f" ({conf:.0%} CI {short_number(max(row['peak_low'], 0.0))} – {short_number(row['peak_high'])}, "
              "simultaneous over the levels)" if row["peak_low"] is not None else
              " (no CI: too few trials)")
        text = (f"{name}: peak throughput {short_number(row['peak_throughput'])} req/s{ci} at "
                f"N = {short_number(row['peak_clients'])} clients; knee at N = "
                f"{short_number(row['knee_clients'])} (the first to reach "
                f"{row['knee_fraction']:.0%} of the peak)")
        if row["falls_after_peak"] is not None:  # null: one trial per level, not established
            text += (f"; throughput falls after the peak ({row['drop_pct']:+.0f} % at the "
                     "largest N): per-connection overhead" if row["falls_after_peak"]
                     else "; throughput holds after the peak")
        if row["reason"]:
            text += f". Note: {row['reason']}"
        return text + "."
    if row["lambda_star"] is None:
        return f"{name}: no peak rate: {row['reason']}."
    bracket = ""
    if row["lambda_low"] is not None or row["lambda_high"] is not None:
        bracket = (f"; the true peak rate lies between {short_number(row['lambda_low'])} and "
                   f"{short_number(row['lambda_high'])} req/s (the loads surely below / above R_sat "
                   f"at {conf:.0%})")
    acc = f", accuracy {row['accuracy']:.0%}" if row["accuracy"] is not None else ""
    ci = (f"CI {short_number(row['r_star_low_ms'], 3)} – {short_number(row['r_star_high_ms'], 3)}{acc}"
          if row["r_star_low_ms"] is not None else "no CI: one trial at this load")
    text = (f"{name}: peak rate λ* = {short_number(row['lambda_star'])} req/s: {row['response_metric']} "
            f"response time {short_number(row['r_star_ms'], 3)} ms ({ci}) ≤ R_sat = "
            f"{short_number(row['r_sat_ms'])} ms{bracket}")
    if row["reason"]:
        text += f". Note: {row['reason'].replace('lambda*', 'λ*')}"
    return text + "."


