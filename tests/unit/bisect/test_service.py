"""The bounds of ``POST /measure`` (:mod:`perfwarehouse.bisect.service`): what a measuring
request must be before the agent runs anything."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from perfwarehouse.bisect.service import MAX_TRIALS, Measurer, Refused, parse_request


def body(root: Path, **changes: Any) -> dict[str, Any]:
    good: dict[str, Any] = {
        "repo": str(root / "repo"), "revision": "a" * 40, "command": "sh prog.sh",
        "metric": "cpu_time", "campaign": "bisect", "benchmark": "sh prog.sh",
        "session": "0123abcd", "seq": 0, "trials": 1}
    return {k: v for k, v in {**good, **changes}.items() if v is not ...}


def refusal(root: Path, **changes: Any) -> tuple[int, str]:
    with pytest.raises(Refused) as caught:
        parse_request(body(root, **changes), root, 600.0)
    return caught.value.status, str(caught.value)


def test_a_good_request_is_parsed_with_the_agents_timeout(tmp_path: Path) -> None:
    request = parse_request(body(tmp_path, timeout_s=5), tmp_path, 600.0)
    assert request.repo == Path(os.path.realpath(tmp_path / "repo"))
    assert request.timeout_s == 5.0 and request.setup is None
    assert parse_request(body(tmp_path), tmp_path, 600.0).timeout_s == 600.0
    assert parse_request(body(tmp_path, timeout_s=9999), tmp_path, 600.0).timeout_s == 600.0


@pytest.mark.parametrize("changes, status, words", [
    ({"trials": MAX_TRIALS + 1}, 400, f"trials must be 0 (setup only) to {MAX_TRIALS}"),
    ({"trials": -1}, 400, "trials must be 0"),
    ({"trials": True}, 400, "trials must be an integer"),
    ({"revision": "HEAD"}, 400, "full sha"),
    ({"session": "../x"}, 400, "session must be 8"),
    ({"command": " "}, 400, "command must not be empty"),
    ({"command": ...}, 400, "command must be a string (required)"),
    ({"timeout_s": 0}, 400, "timeout_s must be > 0"),
    ({"shell": "bash"}, 400, "unknown field(s) shell"),
    ({"repo": "repo"}, 400, "absolute path"),
])
def test_malformed_requests_are_refused(tmp_path: Path, changes: dict[str, Any], status: int,
                                        words: str) -> None:
    got = refusal(tmp_path, **changes)
    assert got[0] == status and words in got[1], got


def test_repositories_outside_the_root_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (root / "link").symlink_to(tmp_path / "outside")
    for repo in (tmp_path / "outside", root / ".." / "outside", root / "link", Path("/")):
        status, message = refusal(root, repo=str(repo))
        assert status == 403 and "outside this agent's measure root" in message
    assert parse_request(body(root, repo=str(root)), root, 1.0).repo == root.resolve()


def test_one_request_at_a_time(tmp_path: Path) -> None:
    measurer = Measurer(tmp_path, tmp_path)
    request = parse_request(body(tmp_path), tmp_path, 1.0)
    with measurer.busy:
        with pytest.raises(Refused) as caught:
            measurer.measure(request)
    assert caught.value.status == 409


def test_a_directory_that_is_no_repository_is_refused(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    measurer = Measurer(tmp_path, tmp_path)
    with pytest.raises(Refused) as caught:
        measurer.measure(parse_request(body(tmp_path), tmp_path, 1.0))
    assert caught.value.status == 400 and "not a git repository" in str(caught.value)
