"""The code stays free of unused and undefined names and keeps its imports sorted."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None, "ruff is not installed in this environment (.ci/setup installs it)"
    result = subprocess.run([ruff, "check", "perfwarehouse", "tests", "benchmarks"],
                            cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
