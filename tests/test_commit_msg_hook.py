"""The repository's commit-msg hook holds subjects to 72 characters (issue 37)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

HOOK = Path(__file__).resolve().parent.parent / ".githooks" / "commit-msg"


def _run(message: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "COMMIT_EDITMSG"
    path.write_text(message)
    return subprocess.run(["bash", str(HOOK), str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("message", [
    "ingest: read pytest-benchmark saves\n",
    "x" * 72 + "\n\nA body line that is much longer than seventy-two characters is fine here.\n",
    "compare: fit COLUMNS\n# Please enter the commit message\n",
])
def test_accepts_short_subjects(message: str, tmp_path: Path) -> None:
    assert _run(message, tmp_path).returncode == 0


@pytest.mark.parametrize(("message", "words"), [
    ("x" * 73 + "\n", "73 characters"),
    ("\n\nbody only\n", "empty"),
    ("subject\nno blank line\n", "blank"),
])
def test_refuses_long_or_malformed(message: str, words: str, tmp_path: Path) -> None:
    result = _run(message, tmp_path)
    assert result.returncode == 1
    assert words in result.stderr
