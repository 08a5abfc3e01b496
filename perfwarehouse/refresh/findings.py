"""Findings: what the analyses say at a point, and what is new between two points.

A finding is one row of ``sql/queries/refresh_findings.sql``: a change point that is a
step that needs action (a regression or an improvement, ``change_points.shift = 'step'``
and ``action``: its interval lies beyond +-``--min-effect``), a configuration
whose order matters (``order_effects.reject_adjusted``, as the order-effects page counts), a drift (``trends.drifting``) or an
inconclusive row of a kept comparison. Its ``key`` names it across points (a change point
by its campaign, hardware type, configuration, revision and direction), so the findings
new at a refresh are those whose key the previous point did not hold, except a change
point that is the same change as one the previous point held (:func:`same_changes`: moved
by a couple of positions, re-classified, or re-placed within the history the previous
analysis had already judged) and a drift that the series' steps explain
(:mod:`perfwarehouse.refresh.drifts`).

The formatting functions here are pure (findings in, text out).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

#: The kinds of finding, in the order they are reported.
KINDS = ("regression", "improvement", "order-dependence", "drift", "inconclusive")
#: What the text says of each kind, and the site page a finding of that kind links to
#: (relative to the site; ``{slug}`` is the campaign's directory).
LABELS = {"regression": ("regressions", "{slug}/history.html"),
          "improvement": ("improvements", "{slug}/history.html"),
          "order-dependence": ("order dependencies", "{slug}/order-effects.html"),
          "drift": ("drifts", "{slug}/history.html"),
          "inconclusive": ("inconclusive comparisons", "compare.html")}
SINGULAR = {"regression": "regression", "improvement": "improvement",
            "order-dependence": "order dependency", "drift": "drift",
            "inconclusive": "inconclusive comparison"}


@dataclass(frozen=True)
class Finding:
    """One finding. ``change_pct``: the change in % of the typical value (a change
    point's step, an order effect's median difference, a drift's slope in % per 30
    days), ``low_pct``/``high_pct`` its interval (None where the method gives none);
    ``revision``: the first revision after a change point (a comparison's contender),
    ``revision_before`` the one before it; ``link``: the page, relative to the site."""

    kind: str
    campaign: str
    hardware_type: str
    benchmark: str
    settings: str
    metric: str
    config_id: int
    change_pct: float | None
    low_pct: float | None
    high_pct: float | None
    revision: str | None
    revision_before: str | None
    link: str
    key: str
    position: int | None = None  # a change point's index in its series

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("key")
        out.pop("position")
        return out


@dataclass(frozen=True)
class ChangePoint:
    """One stored change point of any kind (``refresh_change_points.sql``): ``n_points``
    is the length of its series in that analysis run, ``shift`` its kind (``step``,
    ``level shift``, ``tail``), ``started_at`` the start of its first trial after it."""

    campaign: str
    hardware_type: str
    config_id: int
    direction: str | None
    position: int
    n_points: int
    shift: str | None
    started_at: Any = None

    @property
    def series(self) -> tuple[str, str, int]:
        return self.campaign, self.hardware_type, self.config_id


def change_points_of(rows: Sequence[dict[str, Any]]) -> list[ChangePoint]:
    """:class:`ChangePoint` of each row of ``refresh_change_points.sql``."""
    return [ChangePoint(r["campaign"], r["hardware_type"], int(r["config_id"]),
                        r["direction"], int(r["position"]), int(r["n_points"] or 0),
                        r["shift"], r.get("started_at")) for r in rows]


def findings_of(rows: Sequence[dict[str, Any]], slug: Any) -> list[Finding]:
    """Findings from the rows of ``refresh_findings.sql``; ``slug(campaign)`` gives the
    campaign's directory in the site."""
    out = []
    for r in rows:
        link = LABELS[r["kind"]][1].format(slug=slug(r["campaign"]))
        out.append(Finding(
            r["kind"], r["campaign"], r["hardware_type"], r["benchmark"],
            r["settings"] or "", r["metric"], int(r["config_id"]), _num(r["change_pct"]),
            _num(r["ci_low_pct"]), _num(r["ci_high_pct"]), r["revision"],
            r["revision_before"], link, r["key"],
            None if r.get("position") is None else int(r["position"])))
    return out


def _num(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def new_findings(now: Sequence[Finding], before: Sequence[Finding],
                 points: tuple[Sequence[ChangePoint], Sequence[ChangePoint]] | None = None
                 ) -> list[Finding]:
    """The findings of ``now`` whose key ``before`` does not hold, regressions first,
    then by campaign and the size of the change (largest first). A change point that a
    rerun placed one revision later or earlier (:func:`moved`) is not new, nor, given
    ``points`` (every change point now and at the previous point), one that
    :func:`same_changes` matches with a change point of before."""
    seen = {f.key for f in before}
    steps: dict[tuple[str, str, str, int], list[Finding]] = {}
    for f in before:
        if f.kind in STEP_KINDS:
            steps.setdefault(_series(f), []).append(f)
    same = same_changes(*points, before) if points is not None else set()
    fresh = [f for f in now if f.key not in seen
             and not any(moved(f, g) for g in steps.get(_series(f), ()))
             and not (f.kind in STEP_KINDS and f.position is not None
                      and (f.campaign, f.hardware_type, f.config_id, f.position) in same)]
    return sorted(fresh, key=lambda f: (KINDS.index(f.kind), f.campaign,
                                        -abs(f.change_pct or 0.0), f.benchmark, f.key))


#: The kinds of finding that are change points.
STEP_KINDS = ("regression", "improvement")


def _series(f: Finding) -> tuple[str, str, str, int]:
    return f.kind, f.campaign, f.hardware_type, f.config_id


def moved(now: Finding, before: Finding) -> bool:
    """``now`` is the change point ``before`` placed one revision later or earlier (the
    same series and direction): a search grown by new points may re-place a change by one
    position (the tolerance ``changepoints.incremental`` is held to)."""
    return (_series(now) == _series(before) and now.revision is not None
            and before.revision is not None
            and (now.revision_before == before.revision
                 or now.revision == before.revision_before))


#: A change point that a rerun moved by at most this many positions is the same change
#: (the search's re-placement; two changes of one series are at least ``--min-size``, 4,
#: apart).
MOVE = 2
#: Points a stored change point had after it for its series' history to count as judged
#: (the incremental search's anchor margin, 2 x the 8 points of a test at --min-size 4:
#: :func:`perfwarehouse.changepoints.incremental.anchor_margin`).
SETTLED = 16


def same_changes(now: Sequence[ChangePoint], before: Sequence[ChangePoint],
                 reported: Sequence[Finding] = ()) -> set[tuple[str, str, int, int]]:
    """The change points of ``now`` (campaign, hardware type, config_id, position) that
    are a change point of ``before`` again, so not new findings. A change point p of
    before is *known* when it was a finding then (in ``reported``) or had at least
    :data:`SETTLED` points after it in its series then, whatever its kind (a level shift
    or a step inside +-min-effect is the same change when it becomes a step that needs
    action; not a ``tail``, the last points at no new revision, which are not judged yet).
    A change point q of now with the same series and direction is p again when no other
    change point of now lies between them and either q is within :data:`MOVE` positions
    of p or q lies in the history that before had judged (at least SETTLED points before
    its end): a longer series may re-place an old change. Each p and each q is matched
    once, closest pairs first, so a change in the new points is new unless a known one
    was within MOVE positions of it."""
    was = {(f.campaign, f.hardware_type, f.config_id, f.position) for f in reported
           if f.kind in STEP_KINDS and f.position is not None}
    now_by: dict[tuple[str, str, int], list[ChangePoint]] = {}
    for q in now:
        now_by.setdefault(q.series, []).append(q)
    before_by: dict[tuple[str, str, int], list[ChangePoint]] = {}
    for p in before:
        if (*p.series, p.position) in was or (
                p.shift != "tail" and p.n_points - p.position >= SETTLED):
            before_by.setdefault(p.series, []).append(p)
    out: set[tuple[str, str, int, int]] = set()
    for series, known in before_by.items():
        here = now_by.get(series, [])
        positions = [q.position for q in here]
        pairs = []
        for p in known:
            for q in here:
                low, high = sorted((p.position, q.position))
                if (q.direction == p.direction
                        and not any(low < x < high for x in positions)
                        and (high - low <= MOVE or q.position <= p.n_points - SETTLED)):
                    pairs.append((high - low, p.position, q.position))
        used_p: set[int] = set()
        used_q: set[int] = set()
        for _d, a, b in sorted(pairs):
            if a not in used_p and b not in used_q:
                used_p.add(a)
                used_q.add(b)
                out.add((*series, b))
    return out


def counts(findings: Sequence[Finding]) -> dict[str, int]:
    """How many findings of each kind (every kind, zeros included)."""
    return {k: sum(1 for f in findings if f.kind == k) for k in KINDS}


def headline(findings: Sequence[Finding], since: str) -> str:
    """The verdict line: how many new findings of each kind, since when."""
    n = counts(findings)
    if not findings:
        return f"nothing new since {since}"
    parts = [f"{v} {LABELS[k][0] if v != 1 else SINGULAR[k]}" for k, v in n.items() if v]
    return f"new since {since}: " + ", ".join(parts)


def _pct(value: float | None) -> str:
    return "?" if value is None else f"{value:+.1f} %"


def _interval(f: Finding) -> str:
    if f.low_pct is None or f.high_pct is None:
        return ""
    return f" [{f.low_pct:+.1f}, {f.high_pct:+.1f}]"


def describe(f: Finding) -> str:
    """One line for one finding (without its kind)."""
    what = f"{f.benchmark}" + (f" {f.settings}" if f.settings not in ("", "{}") else "")
    where = f"{f.campaign} / {f.hardware_type}"
    if f.kind in ("regression", "improvement"):
        after = (f" (after {f.revision_before})"
                 if f.revision and f.revision_before and f.revision_before != f.revision
                 else "")
        at = f" at revision {f.revision}" if f.revision else " (a series ordered by time)"
        return f"{what} on {where}: {_pct(f.change_pct)}{_interval(f)}{at}{after}"
    if f.kind == "drift":
        return f"{what} on {where}: {_pct(f.change_pct)} per 30 days{_interval(f)}"
    if f.kind == "order-dependence":
        return f"{what} on {where}: random vs fixed order {_pct(f.change_pct)} (median)"
    return (f"{what} on {where}: {f.revision_before} -> {f.revision} "
            f"{_pct(f.change_pct)}{_interval(f)}")


def text_lines(findings: Sequence[Finding], since: str, limit: int = 20) -> list[str]:
    """The text report: the headline, then each kind's findings (at most ``limit``
    per kind, then how many more)."""
    lines = [headline(findings, since)]
    for kind in KINDS:
        these = [f for f in findings if f.kind == kind]
        if not these:
            continue
        lines.append(f"{LABELS[kind][0]} ({len(these)}):")
        lines += [f"  {describe(f)}" for f in these[:limit]]
        if len(these) > limit:
            lines.append(f"  ... and {len(these) - limit} more (--format json lists all)")
    return lines


def markdown(findings: Sequence[Finding], since: str, site: str = "") -> str:
    """The report as Markdown (a CI job summary, an issue): the headline in bold, then a
    table per kind with a link to each finding's page under ``site``."""
    out = [f"**{headline(findings, since)}**", ""]
    for kind in KINDS:
        these = [f for f in findings if f.kind == kind]
        if not these:
            continue
        out += [f"### {LABELS[kind][0].capitalize()} ({len(these)})", "",
                "| campaign | hardware type | benchmark | change | revision | page |",
                "|---|---|---|---|---|---|"]
        for f in these:
            out.append(f"| {_md(f.campaign)} | {_md(f.hardware_type)} | {_md(f.benchmark)} | "
                       f"{_pct(f.change_pct)}{_interval(f)} | {_md(f.revision or '')} | "
                       f"[page]({site}{f.link}) |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def as_json(findings: Sequence[Finding], since: str, **extra: Any) -> str:
    """The report as one JSON object: ``since``, ``counts``, ``new`` (each finding), and
    ``extra``."""
    return json.dumps({"since": since, "counts": counts(findings),
                       "new": [f.as_json() for f in findings], **extra}, indent=2,
                      default=str)
