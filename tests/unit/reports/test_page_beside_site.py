"""A page written alone into a report site's directory says so and names the site's own
copies (issue 40: `report fleet` after the demo wrote reports/fleet.html silently)."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.cli.report import _beside_site


def test_alone_outside_a_site_says_nothing(tmp_path: Path) -> None:
    assert _beside_site(tmp_path / "fleet.html") == ""


def test_alone_beside_a_site_names_its_copies(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<html></html>")
    for campaign in ("a", "b"):
        (tmp_path / campaign).mkdir()
        (tmp_path / campaign / "fleet.html").write_text("<html></html>")
    said = _beside_site(tmp_path / "fleet.html")
    assert "a page on its own, beside the report site" in said
    assert f"copies are {tmp_path / 'a' / 'fleet.html'}, {tmp_path / 'b' / 'fleet.html'}" in said
    assert "report all" in said
