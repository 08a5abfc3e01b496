"""The pure parts of refresh: what is new between two points, the three formats, the
new.html page, and the webhook post against a real HTTP server on loopback."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from perfwarehouse.refresh.findings import (
    Finding,
    as_json,
    headline,
    markdown,
    new_findings,
    text_lines,
)
from perfwarehouse.refresh.notify import payload, post
from perfwarehouse.reports.new import build_page


def _f(kind: str, bench: str, change: float, revision: str | None = "r1",
       campaign: str = "c") -> Finding:
    key = f"{kind}|{campaign}|hw|{bench}|{revision}"
    return Finding(kind, campaign, "hw", bench, "{}", "runtime", 1, change, change - 1,
                   change + 1, revision, "r0", f"{campaign}/history.html", key)


def test_new_is_what_the_previous_point_did_not_hold_regressions_first() -> None:
    old = [_f("regression", "a", 5.0), _f("drift", "b", 2.0)]
    now = [*old, _f("drift", "c", 3.0), _f("regression", "d", 4.0),
           _f("regression", "e", -9.0), _f("regression", "a", 5.0, revision="r7")]
    new = new_findings(now, old)
    assert [(f.kind, f.benchmark) for f in new] == [
        ("regression", "e"), ("regression", "a"), ("regression", "d"), ("drift", "c")]
    assert new_findings(old, old) == []
    assert new_findings(old, []) == sorted(old, key=lambda f: f.kind != "regression")


def test_a_change_point_moved_by_one_revision_is_not_new() -> None:
    def step(revision: str, before: str, kind: str = "regression", config: int = 1) -> Finding:
        return Finding(kind, "c", "hw", "a", "{}", "runtime", config, 5.0, 4.0, 6.0,
                       revision, before, "c/history.html", f"{kind}|{config}|{revision}")

    old = [step("r5", "r4")]
    assert new_findings([step("r6", "r5")], old) == []  # one later
    assert new_findings([step("r4", "r3")], old) == []  # one earlier
    for other in (step("r7", "r6"), step("r6", "r5", kind="improvement"),
                  step("r6", "r5", config=2)):  # two later, the other direction, series
        assert new_findings([other], old) == [other]


def test_the_formats_say_the_same_findings() -> None:
    new = [_f("regression", "a", 14.6), _f("order-dependence", "b", 3.5, revision=None)]
    assert headline(new, "X") == "new since X: 1 regression, 1 order dependency"
    assert headline([], "X") == "nothing new since X"
    lines = text_lines(new, "X")
    assert lines[1] == "regressions (1):"
    assert lines[2] == "  a on c / hw: +14.6 % [+13.6, +15.6] at revision r1 (after r0)"
    untimed = text_lines([_f("improvement", "a", -2.3, revision=None)], "X")
    assert untimed[2] == "  a on c / hw: -2.3 % [-3.3, -1.3] (a series ordered by time)"
    md = markdown(new, "X", "https://s/")
    assert md.startswith("**new since X: 1 regression, 1 order dependency**")
    assert "| c | hw | a | +14.6 % [+13.6, +15.6] | r1 | [page](https://s/c/history.html) |" in md
    doc = json.loads(as_json(new, "X"))
    assert [f["kind"] for f in doc["new"]] == ["regression", "order-dependence"]
    assert doc["counts"]["regression"] == 1 and "key" not in doc["new"][0]
    many = text_lines([_f("drift", f"b{i}", i) for i in range(25)], "X", limit=20)
    assert many[-1] == "  ... and 5 more (--format json lists all)"


def test_the_new_page_says_the_latest_refresh_first() -> None:
    when = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)
    found = [_f("regression", "a", 14.6).as_json()]
    page = build_page([{"refresh_id": 2, "finished_at": when, "batches": 1, "job_runs": 2,
                        "campaigns": "c", "since": "the refresh of X",
                        "findings": json.dumps(found)},
                       {"refresh_id": 1, "finished_at": when, "batches": 1, "job_runs": 2,
                        "campaigns": "c", "since": "the start", "findings": "[]"}])
    assert page.verdict is not None and page.verdict.level == "alarm"
    assert page.verdict.text == ("The refresh of 2026-01-02 03:04 UTC (refresh 2) found 1 "
                                 "regression new since the refresh of X.")
    table = page.sections[0].blocks[0]
    assert table.data.column("link").to_pylist() == ["c/history.html"]  # type: ignore[union-attr]
    assert page.sections[1].blocks[0].data.num_rows == 2  # type: ignore[union-attr]
    assert build_page([]).verdict.level == "missing"  # type: ignore[union-attr]


class _Hook(BaseHTTPRequestHandler):
    answers: list[int] = []
    bodies: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        code = type(self).answers.pop(0) if type(self).answers else 200
        if code == 200:
            type(self).bodies.append(body)
        self.send_response(code)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    _Hook.answers, _Hook.bodies = [], []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_post_retries_server_errors_and_gives_up_on_a_refusal(hook: str) -> None:
    waits: list[float] = []
    body = payload([_f("regression", "a", 14.6)], "X", "https://s/")
    _Hook.answers = [503, 500]
    assert post(hook, body, retries=3, sleep=waits.append) is None
    assert waits == [0.5, 1.0]  # exponential backoff
    assert _Hook.bodies == [body]
    assert body["text"].startswith("new since X: 1 regression")
    assert body["new"][0]["link"] == "https://s/c/history.html"
    _Hook.answers = [503, 503]
    assert post(hook, body, retries=1, sleep=waits.append) == "HTTP 503 Service Unavailable"
    _Hook.answers = [404]
    assert post(hook, body, retries=3, sleep=waits.append) == "HTTP 404 Not Found"
    assert post("ftp://x", body) == "ftp://x: not an http:// or https:// address"
