"""refresh's site: the JavaScript bundle (about 2 CPU s to make) is made again only when
what makes it changed; the small assets are always written."""

from __future__ import annotations

from pathlib import Path

import pytest

from perfwarehouse.reports import refresh_site
from perfwarehouse.reports.render import ASSETS, VEGA_FILE


def test_the_bundle_is_made_once_per_vl_convert_version(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Path] = []

    def fake_assets(directory: Path) -> Path:
        made.append(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for name in (VEGA_FILE, *ASSETS):
            (directory / name).write_text("/* made */")
        return directory

    monkeypatch.setattr(refresh_site, "write_assets", fake_assets)
    assert not refresh_site.bundle_current(tmp_path)  # an empty site
    refresh_site.write_shared(tmp_path, refresh_site.bundle_current(tmp_path))
    assert len(made) == 1 and refresh_site.bundle_current(tmp_path)
    (tmp_path / "assets" / ASSETS[0]).unlink()
    refresh_site.write_shared(tmp_path, refresh_site.bundle_current(tmp_path))
    assert len(made) == 1  # not made again; the small files are written all the same
    assert all((tmp_path / "assets" / name).is_file() for name in ASSETS)
    # another vl-convert (or Vega-Lite) version: made again
    (tmp_path / "assets" / refresh_site.STAMP).write_text("vl-convert 0.1, Vega-Lite 1.0\n")
    assert not refresh_site.bundle_current(tmp_path)
    (tmp_path / "assets" / refresh_site.STAMP).unlink()
    assert not refresh_site.bundle_current(tmp_path)  # a site report all wrote: no stamp
