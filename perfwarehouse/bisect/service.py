"""Measuring on request: ``POST /measure`` of ``agent serve --measure-root DIR`` (the
agent's side of ``perfwarehouse bisect --agent``, docs/agents.md; the command line gives a
:class:`Measurer` to :func:`perfwarehouse.agent.serve.serve`).

A request names a git repository on the agent's machine (inside the measure root), a
revision (a full sha), the setup and command, the metric and how many trials; the agent
checks the revision out in a worktree of its own (:class:`perfwarehouse.bisect.git.Worktrees`:
never the repository's checkout), runs the setup once per (repository, revision, setup)
of the bisection (a request of another bisection, its ``session``, removes the checkouts
of the one before: each bisection builds afresh, as a local one does),
runs the trials with the bisection's own runner (:mod:`perfwarehouse.bisect.measure`),
appends each trial to its spool as a native record (:func:`perfwarehouse.bisect.store.trial_record`,
segment ``CAMPAIGN-NODE-SESSION-0001.jsonl``) and answers with the trials. The records
reach the warehouse as any other segment: by ``ingest pull``.

Bounds: one request measures at a time (another is answered 409: a second measurement
at the same time would disturb the first, and ``cpu_time`` counts this process's children);
at most :data:`MAX_TRIALS` trials a request; every setup and trial is stopped after
``timeout_s`` (at most, and by default, the server's ``--measure-timeout``); at most
:data:`MAX_CHECKOUTS` revisions stay checked out (the least recently used is removed),
and none after the agent stops.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfwarehouse.bisect import git, measure, store
from perfwarehouse.errors import UsageError

#: Most trials one request may ask for (a bisector asks for one at a time, interleaving).
MAX_TRIALS = 100
#: Revisions kept checked out (and built) between requests; a bisection needs about 5.
MAX_CHECKOUTS = 8
#: Default and largest seconds of one setup or trial (``agent serve --measure-timeout``).
DEFAULT_TIMEOUT_S = 600.0
_SHA = re.compile(r"[0-9a-f]{40}")
_SESSION = re.compile(r"[0-9a-f]{8}")
_FIELDS = {"repo": str, "revision": str, "command": str, "metric": str, "campaign": str,
           "benchmark": str, "session": str, "seq": int, "trials": int}
_OPTIONAL = {"setup": str, "unit": str, "higher_is_better": bool, "timeout_s": float}
_KINDS = {str: "a string", int: "an integer", bool: "true or false", float: "a number"}


class Refused(UsageError):
    """A request the agent will not run: ``status`` is the HTTP status of the answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Request:
    """One checked measuring request (the JSON body of ``POST /measure``)."""

    repo: Path
    revision: str
    command: str
    metric: str
    campaign: str
    benchmark: str
    session: str
    seq: int
    trials: int
    setup: str | None = None
    unit: str | None = None
    higher_is_better: bool | None = None
    timeout_s: float | None = None


def parse_request(body: Any, root: Path, max_timeout_s: float) -> Request:
    """The :class:`Request` in ``body``, or :class:`Refused` saying which rule it broke
    (400: malformed; 403: the repository is outside the measure root ``root``)."""
    if not isinstance(body, dict):
        raise Refused(400, "the body must be a JSON object")
    unknown = sorted(set(body) - set(_FIELDS) - set(_OPTIONAL))
    if unknown:
        raise Refused(400, f"unknown field(s) {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, kind in {**_FIELDS, **_OPTIONAL}.items():
        value = body.get(name)
        if value is None and name in _OPTIONAL:
            continue
        if kind is float and type(value) is int:
            value = float(value)
        if type(value) is not kind:
            raise Refused(400, f"{name} must be {_KINDS[kind]}"
                          + (" (required)" if name in _FIELDS else ""))
        values[name] = value
    if not _SHA.fullmatch(values["revision"]):
        raise Refused(400, "revision must be a full sha (40 lowercase hex digits)")
    if not _SESSION.fullmatch(values["session"]):
        raise Refused(400, "session must be 8 lowercase hex digits")
    if not 0 <= values["trials"] <= MAX_TRIALS:
        raise Refused(400, f"trials must be 0 (setup only) to {MAX_TRIALS}")
    if values["seq"] < 0:
        raise Refused(400, "seq must be >= 0")
    if not values["command"].strip():
        raise Refused(400, "command must not be empty")
    for name in ("campaign", "benchmark", "metric"):
        if not values[name].strip():
            raise Refused(400, f"{name} must not be empty")
    timeout = values.get("timeout_s")
    if timeout is not None and not 0 < timeout:
        raise Refused(400, "timeout_s must be > 0")
    values["timeout_s"] = min(timeout or max_timeout_s, max_timeout_s)
    if not os.path.isabs(values["repo"]):
        raise Refused(400, "repo must be an absolute path on the agent's machine")
    repo = Path(os.path.realpath(values["repo"]))
    if not (repo == root or root in repo.parents):
        raise Refused(403, f"the repository {values['repo']} is outside this agent's measure "
                           f"root {root}")
    values["repo"] = repo
    return Request(**values)


class Measurer:
    """The agent's measuring state: its checkouts, the spool, one request at a time."""

    def __init__(self, root: Path, spool: Path, max_timeout_s: float = DEFAULT_TIMEOUT_S,
                 node: str | None = None) -> None:
        from perfwarehouse.agent.trials import default_hardware_type, default_node

        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise UsageError(f"the measure root {root} is not a directory")
        self.spool = spool
        self.max_timeout_s = max_timeout_s
        self.node = node or default_node()
        self.hardware_type = default_hardware_type(self.node)
        self.busy = threading.Lock()
        self.trees: dict[Path, git.Worktrees] = {}
        # (repo, sha, setup) -> None when its setup succeeded, else why it failed; LRU order
        self.prepared: OrderedDict[tuple[Path, str, str | None], str | None] = OrderedDict()
        self.stopping = 0
        self.session: str | None = None  # whose checkouts are kept

    def parse(self, body: Any) -> Request:
        return parse_request(body, self.root, self.max_timeout_s)

    def answer(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """(HTTP status, JSON answer) of one ``POST /measure`` body: the trials, or
        ``{"error": "..."}`` (400 malformed, 403 outside the root, 409 busy, 500 git failed)."""
        try:
            parsed = json.loads(body or b"null")
        except ValueError:
            return 400, {"error": "the body is not JSON"}
        try:
            return 200, self.measure(self.parse(parsed))
        except Refused as exc:
            return exc.status, {"error": str(exc)}
        except UsageError as exc:  # git failed on the agent's repository
            return 500, {"error": str(exc)}
        except OSError as exc:  # the spool or a checkout could not be written
            return 500, {"error": f"the agent could not write: {exc}"}

    def measure(self, request: Request) -> dict[str, Any]:
        """Run ``request`` (blocking; :class:`Refused` 409 while another one runs): its
        answer, ``{"node", "hardware_type", "segment", "setup_failed", "trials": [...]}``."""
        if not self.busy.acquire(blocking=False):
            raise Refused(409, "the agent is measuring another request; one at a time")
        try:
            return self._measure(request)
        finally:
            self.busy.release()

    def _measure(self, request: Request) -> dict[str, Any]:
        if request.session != self.session:  # a new bisection starts from fresh checkouts
            self._release()
            self.session = request.session
        repo = request.repo
        if repo not in self.trees:
            try:
                repo = git.check_repository(repo)
            except UsageError as exc:
                raise Refused(400, str(exc).replace("--repo ", "repo ")) from None
            if repo != request.repo or not (repo == self.root or self.root in repo.parents):
                raise Refused(403, f"the repository {repo} is outside this agent's measure "
                                   f"root {self.root}")
            self.trees[repo] = git.Worktrees(repo)
        try:
            git.resolve(repo, request.revision, "revision")
        except UsageError:
            raise Refused(400, f"revision {request.revision[:10]} is not a commit of {repo} on "
                               "this agent (fetch it there)") from None
        commit = git.commit_info(repo, request.revision)
        series = store.Series(
            campaign=request.campaign, benchmark=request.benchmark, metric=request.metric,
            unit=request.unit, higher_is_better=request.higher_is_better, node=self.node,
            hardware_type=self.hardware_type, session=request.session,
            command=request.command, setup=request.setup)
        env = {"PERFWAREHOUSE_REVISION": commit.sha,
               "PERFWAREHOUSE_CAMPAIGN": request.campaign}
        trees = self.trees[repo]
        key = (repo, commit.sha, request.setup)
        trials: list[measure.Trial] = []
        fresh = key not in self.prepared or commit.sha not in trees.trees
        if fresh:
            for stale in [k for k in self.prepared if k[:2] == key[:2]]:
                del self.prepared[stale]  # another setup of the same checkout: build again
            trees.drop(commit.sha)
            self._evict()
            directory = trees.add(commit.sha)
            failed = None
            if request.setup:
                failed = measure.run_setup(directory, request.setup, request.timeout_s,
                                           lambda: self.stopping, env)
                failed = f"setup failed: {failed}" if failed else None
            self.prepared[key] = failed
            if failed:
                trials.append(measure.Trial("failed", None, _now(), 0.0, failed))
        self.prepared.move_to_end(key)
        failed = self.prepared[key]
        directory = trees.trees[commit.sha]
        if failed is None:
            for _ in range(request.trials):
                trial = measure.run_trial(directory, request.command, request.metric,
                                          request.timeout_s, lambda: self.stopping, env)
                trials.append(trial)
                if trial.status != "ok":
                    break
        from perfwarehouse.agent.spool import SegmentWriter
        from perfwarehouse.agent.trials import node_environment

        records = [store.trial_record(series, request.seq + k, commit, t,
                                      node_environment() if request.seq + k == 0 else None)
                   for k, t in enumerate(trials)]
        writer = SegmentWriter(self.spool, request.campaign, self.node, request.session, 1,
                               1 << 62)
        if records:
            try:
                writer.append_all(records)
            finally:
                writer.close()
        return {"node": self.node, "hardware_type": self.hardware_type,
                "segment": writer.path.name, "setup_failed": failed,
                "trials": [asdict(t) for t in trials]}

    def _evict(self) -> None:
        while len(self.prepared) >= MAX_CHECKOUTS:
            (repo, sha, _setup), _ = self.prepared.popitem(last=False)
            if not any(k[:2] == (repo, sha) for k in self.prepared):
                self.trees[repo].drop(sha)

    def _release(self) -> None:
        for trees in self.trees.values():
            trees.close()
        self.trees.clear()
        self.prepared.clear()

    def close(self) -> None:
        """Remove every checkout (at shutdown)."""
        self.stopping += 1
        with self.busy:  # after the request in progress
            self._release()


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
