"""A wheel built with plain `pip wheel .` carries the SQL, ingest defaults and examples."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_wheel_contains_the_data_files(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(tmp_path), str(REPO)], check=True)
    wheel = next(tmp_path.glob("perfwarehouse-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for sql in (REPO / "sql").rglob("*.sql"):
        assert f"perfwarehouse/_sql/{sql.relative_to(REPO / 'sql').as_posix()}" in names
    assert "perfwarehouse/_ingest_defaults/hardware_types.toml" in names
    assert "perfwarehouse/_ingest_defaults/trial-log.schema.json" in names
    for asset in ("report.css", "draw.js", "tables.js"):  # the report pages' CSS and scripts
        assert f"perfwarehouse/reports/assets/{asset}" in names
    assert any(n.startswith("perfwarehouse/_examples/ordersage/20221012_19:59:50_results/")
               for n in names)
    assert not any("/tests/" in n or n.startswith("tests/") for n in names)
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt")))
    assert b"perfwarehouse = perfwarehouse.cli:main" in entry
