"""What a person (or a program) reads of a bisection: :func:`render_text` (the culprit
first, then the change, then every revision measured) and :func:`to_json`."""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from perfwarehouse.bisect.results import Comparison, Measured, Outcome
from perfwarehouse.compare.summary import ratio_text, readable


def change_text(c: Comparison, unit: str | None = None) -> str:
    """'+35.1 % [+33.0, +37.2]' with the ratio and the medians when ``unit`` is given."""
    if math.isnan(c.change_pct):
        return "no change measured"
    text = f"{c.change_pct:+.1f} %"
    if c.ci_low_pct is not None and c.ci_high_pct is not None:
        text += f" [{c.ci_low_pct:+.1f}, {c.ci_high_pct:+.1f}]"
    if unit is not None:
        ratio = ratio_text(c.change_pct, None)
        text += (f"{', ' + ratio if ratio else ''}: {readable(c.median_baseline, unit)} -> "
                 f"{readable(c.median_contender, unit)}, {c.n_baseline} + {c.n_contender} "
                 f"trials, p = {c.p_value:.2g}")
    return text


def measured_shas(o: Outcome) -> list[str]:
    """The revisions measured, each once, in the order they were first measured."""
    return list(dict.fromkeys(m.commit.sha for m in o.measured))


def _verdict(m: Measured) -> str:
    return {"good": "like good", "bad": "like bad"}.get(m.verdict, m.verdict)


def render_text(o: Outcome, confidence: float) -> str:
    """The answer: the culprit (or the commits it may be), the change it made with its
    interval, the ends, then every revision measured (first-parent order) with its verdict."""
    unit = o.unit or ""
    lines: list[str] = []
    if o.culprit is not None:
        c = o.culprit
        lines.append(f"culprit: {c.sha} {c.subject!r} (author date {c.author_date})")
    else:
        why = o.stopped or "skipped or undecided commits between the last good and first bad"
        lines.append(f"the culprit is one of {len(o.candidates)} commits ({why}):")
        lines += [f"  {c.sha} {c.subject!r} (author date {c.author_date})"
                  for c in o.candidates]
    if o.change is not None and o.change_between is not None:
        before, after = o.change_between
        lines.append(f"change: {change_text(o.change, unit)} ({o.metric}, {after.short} "
                     f"against {before.short}, {100 * confidence:g} % interval; "
                     f"compare says {o.change.verdict})")
    lines.append(f"good {o.good.short} -> bad {o.bad.short}: {change_text(o.ends, unit)}")
    lines.append(f"{len(measured_shas(o))} of {o.commits_between + 2} revisions measured, "
                 f"{o.trials} trials stored in campaign {o.campaign!r} (benchmark "
                 f"{o.benchmark!r}, metric {o.metric}, under each revision and its commit "
                 "time)")
    lines.append("")
    step = {id(m): i for i, m in enumerate(o.measured)}
    rows = [["revision", "line", "step", "verdict", "decided", "trials", "change from good",
             "subject"]]
    for m in sorted(o.measured, key=lambda m: m.index):
        change = ""
        if m.change_pct is not None and not math.isnan(m.change_pct):
            change = f"{m.change_pct:+.1f} %"
            if m.ci_low_pct is not None and m.ci_high_pct is not None:
                change += f" [{m.ci_low_pct:+.1f}, {m.ci_high_pct:+.1f}]"
        placed = m.verdict in ("good", "bad")
        rows.append([m.commit.short, str(m.index), str(step[id(m)] - 1) if step[id(m)] > 1
                     else "", _verdict(m) + (f" ({m.reason})" if m.verdict == "skip" else ""),
                     m.reason if placed else "", str(m.trials), change, m.commit.subject[:50]])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        lines.append("  ".join(v.ljust(w) for v, w in zip(r, widths)) + "  " + r[-1])
    lines += [f"note: {n}" for n in o.notes]
    return "\n".join(lines) + "\n"


def comparison_json(c: Comparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in asdict(c).items()}


def to_json(o: Outcome) -> dict[str, Any]:
    """``{"culprit": sha or null, "measured": [sha, ...] (each revision once, in the order
    measured), "revisions": [one row per step: sha, verdict, trials, change, ...], ...}``."""
    def commit(c: Any) -> dict[str, str]:
        return {"sha": c.sha, "subject": c.subject, "author_date": c.author_date,
                "commit_time": c.commit_time}

    return {
        "culprit": o.culprit.sha if o.culprit else None,
        "candidates": [c.sha for c in o.candidates],
        "measured": measured_shas(o),
        "revisions": [{**commit(m.commit), "index": m.index, "step": i - 1 if i > 1 else None,
                       "verdict": m.verdict, "trials": m.trials, "change_pct": m.change_pct,
                       "ci_low_pct": m.ci_low_pct, "ci_high_pct": m.ci_high_pct,
                       "reason": m.reason or None}
                      for i, m in enumerate(o.measured)],
        "culprit_commit": commit(o.culprit) if o.culprit else None,
        "change": comparison_json(o.change),
        "change_between": [c.sha for c in o.change_between] if o.change_between else None,
        "good": o.good.sha, "bad": o.bad.sha, "ends": comparison_json(o.ends),
        "commits_between": o.commits_between, "trials": o.trials, "campaign": o.campaign,
        "benchmark": o.benchmark, "metric": o.metric, "unit": o.unit, "stopped": o.stopped,
        "notes": list(o.notes),
    }
