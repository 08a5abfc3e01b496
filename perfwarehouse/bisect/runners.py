"""Where ``perfwarehouse bisect`` measures: here (:class:`LocalRunner`, the default) or on
a collector agent (:class:`AgentRunner`, ``--agent``). The driver (:mod:`.run`) asks
both the same things, one trial at a time in its shuffled rounds, and decides the same
way on the values they return:

* ``prepare(commit, seq)``: check the revision out and run the setup once; why it
  failed (or None) and the trials to count (a failed setup is one ``failed`` trial);
* ``trial(commit, seq)``: one trial of the command;
* ``land(warehouse, records, source)``: bring the trials to the warehouse: here the
  records the driver made land directly; from an agent, which wrote them to its spool,
  ``ingest pull``'s code fetches them (:func:`perfwarehouse.ingest.pull.pull`).

An agent measures only when started with ``agent serve --measure-root DIR`` (docs/agents.md);
it answers each ``POST /measure`` when its trials are done and in its spool. A request is
never retried (a trial run twice would be stored twice): an agent that stops answering,
or refuses, ends the bisection with one line naming the revision (a connection that
could not be made is tried 3 times: then nothing was sent).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfwarehouse.bisect import git, measure, store
from perfwarehouse.bisect.results import Commit
from perfwarehouse.errors import AgentError
from perfwarehouse.warehouse.store import Warehouse

#: Seconds a request may wait beyond its setup and trial time (the agent's own answer).
ANSWER_MARGIN_S = 60.0
#: The agent's longest setup or trial when the bisection gives no --timeout (its default).
AGENT_TIMEOUT_S = 600.0
#: Attempts to connect (a request that was sent is never repeated: its trial would be
#: stored twice); 0.5 s, then 1 s between them.
CONNECT_TRIES = 3


@dataclass(frozen=True)
class Measuring:
    """What every setup and trial of one bisection runs."""

    command: str
    setup: str | None
    metric: str
    timeout_s: float | None
    campaign: str


class LocalRunner:
    """Checkouts in worktrees of this machine and trials in this process's children."""

    lands_records = True

    def __init__(self, repo: Path, what: Measuring, stop: Callable[[], int]) -> None:
        self.what = what
        self.stop = stop
        self.trees = git.Worktrees(repo)

    def ready(self, sha: str) -> bool:
        return sha in self.trees.trees

    def prepare(self, commit: Commit, seq: int) -> tuple[str | None, list[measure.Trial]]:
        directory = self.trees.add(commit.sha)
        if not self.what.setup:
            return None, []
        failed = measure.run_setup(directory, self.what.setup, self.what.timeout_s, self.stop,
                                   _env(commit, self.what))
        if not failed:
            return None, []
        failed = f"setup failed: {failed}"
        return failed, [measure.Trial("failed", None, _now(), 0.0, failed)]

    def trial(self, commit: Commit, seq: int) -> measure.Trial:
        return measure.run_trial(self.trees.trees[commit.sha], self.what.command,
                                 self.what.metric, self.what.timeout_s, self.stop,
                                 _env(commit, self.what))

    def drop(self, sha: str) -> None:
        self.trees.drop(sha)

    def land(self, warehouse: Warehouse, records: list[dict[str, Any]], source: str) -> int:
        return store.land_records(warehouse, records, source)

    def close(self) -> None:
        self.trees.close()


@dataclass(frozen=True)
class Agent:
    """A collector agent: its name (cursors of the pull), URL and token file, and the
    path of the repository on its machine."""

    name: str
    url: str
    token_file: Path
    repo: Path


def find_agent(agent: str, sources: Path, token_file: Path | None, repo: Path) -> Agent:
    """The agent ``--agent`` names: an ``[[agent]]`` of the sources file (as ``ingest
    pull`` reads it), or a URL with ``--token-file``."""
    from perfwarehouse.errors import UsageError
    from perfwarehouse.ingest.pull import load_sources

    if agent.startswith(("http://", "https://")):
        if token_file is None:
            raise UsageError(f"--agent {agent} needs --token-file (the agent's bearer token)")
        return Agent(agent.rstrip("/"), agent.rstrip("/"), token_file, repo)
    found = [s for s in load_sources(sources) if s.name == agent]
    if not found:
        raise UsageError(f"--agent {agent}: no [[agent]] of that name in {sources} (give its "
                         "name there, or its URL with --token-file)")
    return Agent(found[0].name, found[0].url, token_file or found[0].token_file, repo)


class AgentRunner:
    """Checkouts and trials on a collector agent (``POST /measure``), trials back by pull."""

    lands_records = False

    def __init__(self, agent: Agent, what: Measuring, series: store.Series) -> None:
        import httpx

        from perfwarehouse.protocol import read_token

        self.agent = agent
        self.what = what
        self.series = series
        self.prepared: set[str] = set()
        token = read_token(agent.token_file)
        longest = (what.timeout_s or AGENT_TIMEOUT_S) * 2 + ANSWER_MARGIN_S  # setup + trial
        # a new connection per request: a kept-alive one the agent closes after 5 s idle
        # (while this side decides or pulls) could fail a request that is never retried
        self.http = httpx.Client(base_url=agent.url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(longest, connect=10.0),
                                 limits=httpx.Limits(max_keepalive_connections=0))

    def ready(self, sha: str) -> bool:
        return sha in self.prepared

    def prepare(self, commit: Commit, seq: int) -> tuple[str | None, list[measure.Trial]]:
        answer = self._post(commit, seq, 0, "the checkout and setup")
        self.prepared.add(commit.sha)
        return answer["setup_failed"], [measure.Trial(**t) for t in answer["trials"]]

    def trial(self, commit: Commit, seq: int) -> measure.Trial:
        answer = self._post(commit, seq, 1, "a trial")
        trials = [measure.Trial(**t) for t in answer["trials"]]
        if trials:
            return trials[0]
        return measure.Trial("failed", None, _now(), 0.0, answer["setup_failed"] or
                             "the agent ran nothing")

    def _post(self, commit: Commit, seq: int, trials: int, what: str) -> dict[str, Any]:
        import httpx

        body = {"repo": str(self.agent.repo), "revision": commit.sha,
                "setup": self.what.setup, "command": self.what.command,
                "metric": self.what.metric, "unit": self.series.unit,
                "higher_is_better": self.series.higher_is_better,
                "campaign": self.series.campaign, "benchmark": self.series.benchmark,
                "session": self.series.session, "seq": seq, "trials": trials,
                "timeout_s": self.what.timeout_s}
        where = f"agent {self.agent.name}"
        if self.agent.name != self.agent.url:
            where += f" ({self.agent.url})"
        head = f"{where} failed {what} of {commit.short}"
        try:
            for attempt in range(CONNECT_TRIES):  # retried only when nothing was sent
                try:
                    response = self.http.post("/measure", json=body)
                    break
                except (httpx.ConnectError, httpx.ConnectTimeout):
                    if attempt == CONNECT_TRIES - 1:
                        raise
                    time.sleep(0.5 * 2**attempt)
        except httpx.HTTPError as exc:
            problem = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            raise AgentError(f"{head}: no answer ({type(exc).__name__}"
                             + (f": {problem}" if problem else "") + ")") from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code != 200 or not _answer_ok(answer, trials):
            error = answer.get("error") if isinstance(answer, dict) else None
            why = {401: "it refused the token in " + str(self.agent.token_file)}.get(
                response.status_code, str(error or "not a measuring answer"))
            raise AgentError(f"{head}: HTTP {response.status_code}, {why}")
        return dict(answer)

    def drop(self, sha: str) -> None:
        self.prepared.discard(sha)  # the agent keeps its few recent checkouts itself

    def land(self, warehouse: Warehouse, records: list[dict[str, Any]], source: str) -> int:
        """Pull the agent (every new segment, this bisection's among them)."""
        from perfwarehouse.ingest.pull import AgentSource, PullOptions, pull

        source_ = AgentSource(self.agent.name, self.agent.url, self.agent.token_file)
        report = pull(warehouse, [source_], PullOptions(retries=2, agent_deadline_s=600.0))[0]
        if not report.ok:
            problems = [line for line, bad in report.lines() if bad]
            raise AgentError(f"the pull failed: {report.error or problems[0]}")
        return report.trials_added

    def close(self) -> None:
        self.http.close()


def _answer_ok(answer: object, trials: int) -> bool:
    """``answer`` has the shape of a measuring answer (at most setup + ``trials`` trials)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("trials"), list):
        return False
    rows = answer["trials"]
    fields = set(measure.Trial.__dataclass_fields__)
    return len(rows) <= trials + 1 and all(
        isinstance(t, dict) and set(t) == fields and isinstance(t["status"], str) and
        isinstance(t["started_at"], str) and isinstance(t["detail"], str) and
        isinstance(t["duration_s"], (int, float)) and
        (t["value"] is None or isinstance(t["value"], (int, float))) for t in rows) and \
        (answer.get("setup_failed") is None or isinstance(answer["setup_failed"], str))


def _env(commit: Commit, what: Measuring) -> Mapping[str, str]:
    return {"PERFWAREHOUSE_REVISION": commit.sha, "PERFWAREHOUSE_CAMPAIGN": what.campaign}


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")

