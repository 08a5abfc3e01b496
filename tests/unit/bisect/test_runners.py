"""The bisector's side of measuring on an agent (:mod:`perfwarehouse.bisect.runners`):
which agent ``--agent`` names, and what answer it accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.bisect.runners import _answer_ok, find_agent
from perfwarehouse.errors import UsageError


def trial(**changes: Any) -> dict[str, Any]:
    return {"status": "ok", "value": 0.006, "started_at": "2026-11-28T08:00:00Z",
            "duration_s": 0.007, "detail": "", **changes}


def test_an_answer_holds_at_most_the_setup_and_the_trials_asked_for() -> None:
    assert _answer_ok({"trials": [trial()], "setup_failed": None}, 1)
    assert _answer_ok({"trials": [trial(status="failed", value=None)],
                       "setup_failed": "setup failed: exit code 1"}, 0)
    assert not _answer_ok({"trials": [trial(), trial(), trial()]}, 1)  # more than asked
    assert not _answer_ok({"trials": [trial(value="6 ms")]}, 1)
    assert not _answer_ok({"trials": [trial(duration_s=None)]}, 1)
    assert not _answer_ok({"trials": [{**trial(), "extra": 1}]}, 1)
    assert not _answer_ok({"trials": [trial()], "setup_failed": 3}, 1)
    assert not _answer_ok(["not", "an", "object"], 1)


def test_agent_by_name_or_url(tmp_path: Path) -> None:
    sources = tmp_path / "sources.toml"
    sources.write_text('[[agent]]\nname = "lab-1"\nurl = "http://10.0.0.5:8765/"\n'
                       'token_file = "lab.token"\n')
    agent = find_agent("lab-1", sources, None, Path("/src/app"))
    assert (agent.name, agent.url, agent.token_file, agent.repo) == \
        ("lab-1", "http://10.0.0.5:8765", tmp_path / "lab.token", Path("/src/app"))
    assert find_agent("lab-1", sources, Path("/t"), Path("/r")).token_file == Path("/t")
    by_url = find_agent("http://127.0.0.1:9/", sources, Path("/t"), Path("/r"))
    assert (by_url.name, by_url.url) == ("http://127.0.0.1:9", "http://127.0.0.1:9")
    with pytest.raises(UsageError, match="no \\[\\[agent\\]\\] of that name"):
        find_agent("lab-2", sources, None, Path("/r"))
    with pytest.raises(UsageError, match="needs --token-file"):
        find_agent("http://127.0.0.1:9", sources, None, Path("/r"))
