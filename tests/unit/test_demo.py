"""The demo's terminal output (issue 40): the verdicts campaign by campaign, the long-term
campaign first and what needs action first in each; the order the analyses start in."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from perfwarehouse.demo import LONGTERM, first_sentence, start_order, verdict_lines
from perfwarehouse.reports.site import MANIFEST, campaign_slug


def _manifest(site: Path, campaign: str, pages: list[tuple[str, str, str]]) -> None:
    folder = site / campaign_slug(campaign)
    folder.mkdir(parents=True)
    (folder / MANIFEST).write_text(json.dumps({
        "campaign": campaign, "configurations": 3,
        "pages": [{"href": f"{name}.html", "title": name,
                   "verdict": [f"Campaign {campaign}: {text}", level]}
                  for name, text, level in pages]}))


def test_the_long_term_campaign_leads_and_action_comes_first(tmp_path: Path) -> None:
    _manifest(tmp_path, "NPB", [("order-effects", "Order does not matter in any of the 3 "
                                 "configurations. More detail.", "ok")])
    _manifest(tmp_path, LONGTERM, [
        ("variability", "The most variable hardware type is xl170.", "info"),
        ("order-effects", "Order matters in 266 of 1,880 configurations, mostly stream. "
         "Worst polluter: npb-lu.", "alarm")])
    lines = verdict_lines(tmp_path, ["NPB", LONGTERM, "no-pages"])
    text = "\n".join(lines)
    assert text.index(f"campaign {LONGTERM}:") < text.index("campaign NPB:")
    assert "no-pages" not in text  # no manifest: no page written, nothing to say
    longterm = lines[lines.index(f"campaign {LONGTERM}:") + 1:lines.index("campaign NPB:")]
    assert longterm[0].split() == ["ACTION", "order-effects:", "Order", "matters", "in", "266",
                                   "of", "1,880", "configurations,", "mostly", "stream."]
    assert longterm[1].split()[:2] == ["info", "variability:"]
    # the campaign's name is said once, not in every verdict; the rest is on the page
    assert "Campaign " not in text and "Worst polluter" not in text and "More detail" not in text


def test_first_sentence_keeps_decimals_and_cuts_long_ones() -> None:
    assert first_sentence("Median RSD 4.6 % before. 4.7 % now. Next one.") == (
        "Median RSD 4.6 % before. 4.7 % now.")
    assert first_sentence("no full stop") == "no full stop"
    long = first_sentence("x" * 500 + ". Rest.", limit=100)
    assert len(long) == 100 and long.endswith("…")


@dataclass
class _Job:
    name: str
    relative_cost: float


def test_the_costliest_analyses_start_first_and_ties_keep_the_plan() -> None:
    runs = [(_Job("a", 1.0), None, ()), (_Job("b", 4.0), None, ()),
            (_Job("c", 2.0), None, ()), (_Job("d", 1.0), None, ()), (_Job("e", 2.0), None, ())]
    assert [r[0].name for r in start_order(runs)] == ["b", "c", "e", "a", "d"]
