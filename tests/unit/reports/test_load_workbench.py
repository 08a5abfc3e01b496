"""The workbench sections of the load page (Shivam et al., "Cutting Corners", USENIX ATC
2008: search trace, Figure 7; cost of the policies, Figure 8; response surface, §5.5),
built by the pure ``build_page`` from frames made here."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pyarrow as pa
import pytest

from perfwarehouse.jobs.surface import SurfaceParams, compute
from perfwarehouse.reports import workbench as load  # the workbench sections moved (issue 37)
from perfwarehouse.reports.load import LoadFrames, build_page
from perfwarehouse.reports.page import Figure, Missing, Notice, Page, Table
from perfwarehouse.reports.render import render_html
from tests.reports_support import HOSTILE_SCRIPT

T0 = datetime(2024, 5, 1, tzinfo=timezone.utc)
# search -> (policy, seeding, status, reason, lambda*, [(load, status)], generator s)
SEARCHES: dict[str, tuple[str, str, str, str, float | None, list[tuple[float, str]], float]] = {
    "c-s1-00": ("binsearch", "default", "converged", "candidate", 150.0,
                [(50, "ok"), (50, "ok"), (100, "ok"), (100, "ok"), (200, "ok"), (200, "ok"),
                 (150, "ok"), (150, "ok")], 8.0),
    "c-s1-01": ("binsearch", "nearest", "converged", "candidate", 160.0,
                [(150, "ok"), (150, "ok"), (160, "ok"), (160, "ok")], 4.0),
    "c-s2-00": ("model", "default", "converged", "step-knee", 140.0,
                [(50, "ok"), (50, "ok"), (200, "failed"), (140, "ok"), (140, "ok"),
                 (140, "ok")], 5.0),
    "c-s2-01": ("model", "seed-default", "budget", "max-loads", None,
                [(50, "ok"), (50, "ok")], 1.0),
}
UNFINISHED = "c-s3-00"  # trials, no result run yet


def searches_table(campaign: str = "c") -> pa.Table:
    rows = []
    for i, (search, (policy, seeding, status, reason, lam, trials, seconds)) in enumerate(
            SEARCHES.items()):
        rows.append({
            "campaign": campaign, "hardware_type": "hw", "benchmark": "hey",
            "search": search, "started_at": T0 + timedelta(minutes=i), "policy": policy,
            "seeding": seeding, "loop": "open", "sample": int(search[-1]),
            "factors": json.dumps({"cap": str(100 + i)}), "status": status, "reason": reason,
            "lambda_star": lam, "unit": "req/s" if lam is not None else None,
            "trials": len(trials), "generator_s": seconds,
            "loads": len({load for load, _ in trials})})
    return pa.Table.from_pylist(rows)


def trials_table(campaign: str = "c") -> pa.Table:
    rows: list[dict[str, Any]] = []
    every = {s: v[5] for s, v in SEARCHES.items()} | {UNFINISHED: [(50.0, "ok")]}
    for search, trials in every.items():
        for n, (load_, status) in enumerate(trials, 1):
            rows.append({"campaign": campaign, "hardware_type": "hw", "search": search,
                         "run_id": f"{search}-{n:03d}", "trial_number": n, "load": float(load_),
                         "step": n, "trial": 1, "picked_by": "binsearch",
                         "response_ms": 2.0 if status == "ok" else None, "status": status})
    return pa.Table.from_pylist(rows)


def surface_table(loop: str = "open") -> pa.Table:
    """The job's own output for 9 of the 12 samples of λ* = 100 + 40 a + 20 b (± 2 %)."""
    points = [(1, 1), (1, 3), (4, 1), (4, 3), (2, 2), (3, 2), (1, 2), (4, 2), (2, 1)]
    wiggle = [1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.01]
    peaks = pa.Table.from_pylist([
        {"campaign": "surf", "hardware_type": "hw", "benchmark": "hey",
         "settings": json.dumps({"a": a, "b": b, "loop": loop, "search_policy": "binsearch"}),
         "run_id": f"r{i}", "status": "ok", "value": (100 + 40 * a + 20 * b) * w}
        for i, ((a, b), w) in enumerate(zip(points, wiggle))])
    return compute(peaks, SurfaceParams(factors="a,b"))["response_surface"]


def page(**frames: Any) -> Page:
    return build_page(LoadFrames(Missing("load_curve", "perfwarehouse analyze load"), **frames))


def section(p: Page, title: str) -> list[Any]:
    return list(next(s for s in p.sections if s.title == title).blocks)


def chart_rows(figure: Figure) -> list[dict[str, Any]]:
    """The rows of the chart's largest dataset (its main data)."""
    return max(figure.spec()["datasets"].values(), key=len)


TRACE, COST, SURFACE = ("Search trace of the peak-rate searches", "Cost of the policies",
                        "Response surface of the peak rate")


def test_sections_appear_only_with_their_data() -> None:
    assert [s.title for s in page().sections] == ["Verdict"]
    empty = searches_table().slice(0, 0)
    assert [s.title for s in page(searches=empty, surface=surface_table().slice(0, 0))
            .sections] == ["Verdict"]
    assert [s.title for s in page(searches=searches_table(), trials=trials_table()).sections] \
        == ["Verdict", TRACE, COST]
    assert [s.title for s in page(surface=surface_table()).sections] == ["Verdict", SURFACE]


def test_trace_one_point_per_trial_at_its_load_factor() -> None:
    blocks = section(page(searches=searches_table(), trials=trials_table()), TRACE)
    assert isinstance(blocks[0], Notice)
    assert blocks[0].text == (
        "4 searches (binsearch, model): λ* found within 4–8 trials (3 met the target, 1 ran "
        "out of budget: max-loads); 1 without an estimate of λ* (not drawn); the model policy "
        "needed the fewest trials (median 4, against 6 for binsearch); 1 unfinished search "
        "(no result yet) not drawn.")
    figure = next(b for b in blocks if isinstance(b, Figure))
    rows = chart_rows(figure)
    drawn = {s: v for s, v in SEARCHES.items() if v[4] is not None}
    assert len(rows) == sum(len(v[5]) for v in drawn.values()) == 18
    for search, (policy, seeding, _, _, lam, trials, _) in drawn.items():
        assert lam is not None
        mine = sorted((r for r in rows if r["search"] == search),
                      key=lambda r: r["trial_number"])
        assert [r["trial_number"] for r in mine] == list(range(1, len(trials) + 1))
        assert [r["load_factor"] for r in mine] == pytest.approx(
            [load_ / lam for load_, _ in trials], rel=1e-4)
        assert {r["policy"] for r in mine} == {policy}
        assert {r["seeding"] for r in mine} == {
            "with seeding" if seeding == "nearest" else "without seeding"}
    assert [r["outcome"] for r in rows if r["load"] == 200 and r["search"] == "c-s2-00"] == \
        ["failed"]
    assert "Figure 7" in load.trace_section.__doc__  # type: ignore[operator]
    table = next(b for b in blocks if isinstance(b, Table))
    assert table.data.num_rows == 4
    assert table.data.column("trials").to_pylist() == [8, 4, 6, 2]


def test_trace_draws_at_most_the_cap_per_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = searches_table().to_pylist()
    rows[3] |= {"lambda_star": 100.0, "unit": "req/s"}  # two model searches without seeding
    monkeypatch.setattr(load, "TRACE_SEARCHES", 1)
    blocks = section(page(searches=pa.Table.from_pylist(rows), trials=trials_table()), TRACE)
    searches = {r["search"] for r in chart_rows(next(b for b in blocks
                                                     if isinstance(b, Figure)))}
    assert searches == {"c-s1-00", "c-s1-01", "c-s2-00"}  # the first per policy and seeding
    assert any(isinstance(b, Notice) and b.text.startswith(
        "The trace draws the first 1 searches of each policy and seeding (3 of 4)")
        for b in blocks)


def test_cost_per_policy_and_seeding() -> None:
    blocks = section(page(searches=searches_table(), trials=trials_table()), COST)
    assert isinstance(blocks[0], Notice)
    assert blocks[0].text == (
        "Cheapest per search: model, without seeding (median 4 trials, 3 s of load generator, "
        "2 loads; 2 searches); costliest: binsearch, without seeding (median 8 trials); a "
        "search took a median of 4 trials with seeding, 6 without.")
    table = next(b for b in blocks if isinstance(b, Table))
    got = {(r["policy"], r["seeding"]): r for r in table.data.to_pylist()}
    assert set(got) == {("binsearch", "without seeding"), ("binsearch", "with seeding"),
                        ("model", "without seeding")}
    model = got[("model", "without seeding")]
    assert (model["searches"], model["met"], model["trials"], model["total_trials"],
            model["generator_s"], model["total_generator_s"]) == (2, 1, 4.0, 8, 3.0, 6.0)
    assert sum(r["total_trials"] for r in got.values()) == sum(
        len(v[5]) for v in SEARCHES.values())
    chart = next(b for b in blocks if isinstance(b, Figure))
    bars = chart.spec()["hconcat"]
    assert [p["layer"][0]["encoding"]["x"]["field"] for p in bars] == \
        ["trials", "generator_s", "loads"]
    assert "(s, median)" in bars[1]["layer"][0]["encoding"]["x"]["title"]


def test_surface_heatmap_caption_and_coefficients() -> None:
    rows = surface_table()
    mape = rows.column("loo_mape")[0].as_py()
    blocks = section(page(surface=rows), SURFACE)
    assert isinstance(blocks[0], Notice)
    assert blocks[0].text.startswith("surf hey on hw: λ* over a and b from 9 samples: "
                                     f"leave-one-out MAPE {100 * mape:.1f} %, R² ")
    assert mape is not None and blocks[0].text.endswith(
        "req/s over 12 combinations of the levels.")
    figure = next(b for b in blocks if isinstance(b, Figure))
    assert f"leave-one-out MAPE {100 * mape:.1f} %" in figure.caption
    cells = chart_rows(figure)
    assert len(cells) == 12
    measured = [c for c in cells if c["sample"] == "measured sample"]
    assert len(measured) == 9 and all("meas." in c["label"] for c in measured)
    assert all(c["measured"] is None and "meas." not in c["label"]
               for c in cells if c["sample"] is None)
    tables = [b for b in blocks if isinstance(b, Table)]
    coefficients = tables[0].data.to_pylist()
    assert [r["term"] for r in coefficients] == ["1", "a", "b", "a*b", "a^2", "b^2"]
    assert all(r["ci_low"] <= r["estimate"] <= r["ci_high"] for r in coefficients)
    assert tables[1].data.num_rows == 12
    assert "a=1 b=1" in tables[1].data.column("levels").to_pylist()


def test_surfaces_beyond_the_cap_are_in_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load, "MAX_SURFACES", 1)
    rows = pa.concat_tables([surface_table("closed"), surface_table("open")])
    blocks = section(page(surface=rows), SURFACE)
    assert len([b for b in blocks if isinstance(b, Figure)]) == 1
    verdict = blocks[0].text
    assert verdict.startswith("surf hey on hw loop=closed: ")
    assert "clients over 12 combinations" in verdict  # λ* of a closed loop is in clients
    assert verdict.endswith("; 1 more surface in the tables.")
    tables = [b for b in blocks if isinstance(b, Table)]
    assert tables[0].data.num_rows == 12 and tables[1].data.num_rows == 24
    assert set(tables[1].data.column("unit").to_pylist()) == {"clients", "req/s"}


def test_surface_with_other_than_two_factors_has_no_heatmap() -> None:
    peaks = pa.Table.from_pylist([
        {"campaign": "one", "hardware_type": "hw", "benchmark": "hey",
         "settings": json.dumps({"a": a}), "run_id": f"r{a}", "status": "ok",
         "value": 100.0 + 10 * a + a * a} for a in (1, 2, 3, 4)])
    rows = compute(peaks, SurfaceParams(factors="a"))["response_surface"]
    blocks = section(page(surface=rows), SURFACE)
    assert not any(isinstance(b, Figure) for b in blocks)
    assert any(isinstance(b, Notice) and "needs two factors" in b.text for b in blocks)


def test_strings_from_the_data_stay_text() -> None:
    p = page(searches=searches_table(HOSTILE_SCRIPT), trials=trials_table(HOSTILE_SCRIPT))
    html = render_html(p)
    assert HOSTILE_SCRIPT not in html
    assert len(p.figures()) == 2
