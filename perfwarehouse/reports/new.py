"""The new.html page of the site: what is new since the last refresh (``perfwarehouse
refresh``), and the refresh history (when, what was added, what was found).

It reads the ``refreshes`` table only: each refresh keeps the findings it reported as
new (:mod:`perfwarehouse.refresh.findings`), so the page shows the latest refresh's list
as the command printed it and the history's counts, without running anything.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import polars as pl

from perfwarehouse.reports.base import OUT, Report, ReportData, Request
from perfwarehouse.reports.columns import col
from perfwarehouse.reports.page import (
    Notice,
    Page,
    Section,
    Verdict,
    VerdictLevel,
    capped_table,
)

INTRO = (
    "What the latest `perfwarehouse refresh` found that the analyses of the refresh before "
    "it did not: new regressions and improvements (change points that are steps, with the "
    "first revision after the step and the change with its interval), new order "
    "dependencies, new drifts (% per 30 days) and new inconclusive comparisons; then every "
    "refresh, newest first. + = larger value (a change point's and a drift's sign is the "
    "metric's own: see each finding's page for which way is worse).")
LINKS = (("all reports", "index.html"),)
HISTORY = 60
"""Refreshes listed at most."""
#: Plural names of the kinds of finding, in the order they are reported.
KIND_NAMES = {"regression": "regressions", "improvement": "improvements",
              "order-dependence": "order dependencies", "drift": "drifts",
              "inconclusive": "inconclusive comparisons"}
#: The fields of a kept finding the page shows (``Finding.as_json``), and their types.
FINDING_SCHEMA = {**{k: pl.String for k in (
    "kind", "campaign", "hardware_type", "benchmark", "settings", "metric")},
    **{k: pl.Float64 for k in ("change_pct", "low_pct", "high_pct")},
    **{k: pl.String for k in ("revision", "revision_before", "link")}}
#: ... and singular.
KIND_NAME = {"regression": "regression", "improvement": "improvement",
             "order-dependence": "order dependency", "drift": "drift",
             "inconclusive": "inconclusive comparison"}


def build(data: ReportData, request: Request) -> Page:
    """The page from the latest refreshes (``report_refreshes.sql``)."""
    rows = (data.query("refreshes", limit=HISTORY).to_pylist()
            if data.has_table("refreshes") else [])
    return build_page(rows)


def _utc(when: object) -> datetime:
    assert isinstance(when, datetime)
    return when.astimezone(timezone.utc) if when.tzinfo is not None else when


def _counts(findings: list[dict[str, object]]) -> str:
    n = {k: sum(1 for f in findings if f["kind"] == k) for k in KIND_NAMES}
    parts = [f"{v} {KIND_NAMES[k] if v != 1 else KIND_NAME[k]}" for k, v in n.items() if v]
    return ", ".join(parts) or "nothing new"


def build_page(rows: list[dict[str, object]]) -> Page:
    """The page from the refreshes, newest first (pure)."""
    if not rows:
        text = ("No refresh yet: run `perfwarehouse refresh` (nightly: docs/refresh.md), "
                "then this page lists what each refresh found new.")
        return Page("What is new", INTRO, (Section("No refresh yet", "",
                                                   (Notice(text, "missing"),)),),
                    name="new", verdict=Verdict(text, "missing"), links=LINKS)
    latest = rows[0]
    found = json.loads(str(latest["findings"]))
    when = f"{_utc(latest['finished_at']):%Y-%m-%d %H:%M} UTC"
    regressions = sum(1 for f in found if f["kind"] == "regression")
    level: VerdictLevel = "alarm" if regressions else "info" if found else "ok"
    verdict = Verdict(f"The refresh of {when} (refresh {latest['refresh_id']}) found "
                      f"{_counts(found)} new since {latest['since']}.", level)
    sections = []
    if found:
        df = pl.DataFrame([{k: f.get(k) for k in FINDING_SCHEMA} for f in found],
                          schema=FINDING_SCHEMA).with_columns(pl.col("kind").replace(KIND_NAME))
        cols = (col("kind", key=True), col("benchmark", key=True),
                col("settings"),
                col("hardware_type"), col("campaign"),
                col("metric"), col("change_pct"),
                col("low_pct"), col("high_pct"),
                col("revision_short"), col("revision_before_short"),
                col("link"))
        sections.append(Section(f"New at the refresh of {when}", (
            f"New since {latest['since']}. Regressions first, then by campaign and the size of the change; drifts in % "
            "per 30 days."), (capped_table("New findings", "", cols, df),)))
    else:
        sections.append(Section(f"New at the refresh of {when}", "", (
            Notice(f"Nothing new since {latest['since']}."),)))
    history = pl.DataFrame([{
        "refresh_id": r["refresh_id"], "finished": f"{_utc(r['finished_at']):%Y-%m-%d %H:%M}",
        "batches": r["batches"], "job_runs": r["job_runs"], "campaigns": r["campaigns"],
        "since": r["since"],
        "found": _counts(json.loads(str(r["findings"])))} for r in rows])
    sections.append(Section("Refresh history", (
        "Every refresh, newest first: what it found new, the ingest batches that landed "
        "since the refresh before it, the analyses it ran (those whose inputs changed) and "
        "the campaigns whose pages it wrote."), (capped_table("Refreshes", "", (
            col("refresh_id", key=True),
            col("finished"), col("found"),
            col("batches"), col("job_runs"),
            col("since"), col("campaigns_written")),
            history),)))
    return Page("What is new", INTRO, tuple(sections), name="new", verdict=verdict,
                links=LINKS)


REPORT = Report(
    "new",
    "What is new: what the latest refresh found (regressions, improvements, order "
    "dependencies, drifts, inconclusive comparisons) and every refresh.",
    build, options=(OUT,), in_all=False)
