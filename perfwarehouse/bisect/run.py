"""``perfwarehouse bisect``'s driver: checkouts and trials at the edges (:mod:`.git`,
:mod:`.measure`, :mod:`.store`), every decision in :mod:`.analysis`.

1. Resolve good and bad in the user's repository and list bad's first-parent line from
   good (merges are single steps of it, as ``git bisect --first-parent``).
2. Measure good and bad interleaved until compare says they differ (else stop: nothing
   to bisect, with the interval measured).
3. While the open range (last good, first bad) holds a commit not yet placed: check out
   the one nearest its middle in a worktree of its own, run the setup once, then trials
   in shuffled rounds of (good, middle, bad), looking after each batch of rounds, until
   :func:`.analysis.judge_middle` places it or the budget is spent (undecided). A
   setup or command that fails marks the commit skipped. When only skipped and
   undecided commits are left between the last good and the first bad, each undecided
   one gets one more step with a fresh budget (a busy spell of the machine passes).
4. Measure the first bad commit against the last good one, interleaved, for the change
   the culprit made (its interval).

Trials land in the warehouse at the end, on Ctrl-C or an error, and after any step that
ends more than :data:`LAND_EVERY_S` after the last landing (a landing costs about 1 s:
once per quick bisection, regularly in a long one).
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any

from perfwarehouse.bisect import analysis, git, measure, parameters, runners, store
from perfwarehouse.bisect.results import Commit, Comparison, Measured, Outcome
from perfwarehouse.bisect.summary import change_text as _change_text
from perfwarehouse.errors import PerfwarehouseError, UsageError
from perfwarehouse.warehouse.store import Warehouse

LAND_EVERY_S = 60.0
#: A trial longer than this gets a progress line of its own (shorter ones: one per look).
SLOW_TRIAL_S = 2.0
#: Interquartile range / median of the good end's wall times above which the answer
#: suggests --metric cpu_time (an idle machine: 2-5 %; this one at load 7: 40-60 %).
NOISY_SPREAD = 0.15


class NothingToBisect(PerfwarehouseError):
    """Good and bad are the same commit, or measure alike: the answer, in one line."""

    def __init__(self, message: str, ends: Comparison | None = None) -> None:
        super().__init__(message)
        self.ends = ends


@dataclass(frozen=True)
class BisectConfig:
    """What ``perfwarehouse bisect`` was asked to do (the CLI's options)."""

    repo: Path
    good: str
    bad: str
    command: str
    setup: str | None = None
    campaign: str = "bisect"
    benchmark: str | None = None  # default: the command
    metric: str = parameters.WALL_TIME
    unit: str | None = None
    higher_is_better: bool | None = None
    repeat: int | None = None  # fixed trials per revision and step; None: adaptive
    max_trials: int = parameters.DEFAULT_MAX_TRIALS
    max_revisions: int | None = None
    confidence: float = parameters.DEFAULT_CONFIDENCE
    min_change: float = parameters.DEFAULT_MIN_CHANGE
    timeout_s: float | None = None
    seed: int | None = None
    node: str | None = None
    hardware_type: str | None = None
    agent: runners.Agent | None = None  # measure there (None: here)


@dataclass
class _Revision:
    commit: Commit
    index: int
    failed: str | None = None  # why its setup failed
    values: list[float] = field(default_factory=list)  # this step's trial values
    trials: int = 0


def bisect(config: BisectConfig, warehouse: Warehouse,
           progress: Callable[[str], None] = lambda line: None) -> Outcome:
    """Run the bisection (module docstring); :class:`NothingToBisect` when the ends are
    the same commit or do not differ."""
    parameters.check(config.repeat, config.max_trials, config.confidence, config.min_change,
                     config.max_revisions)
    if not config.command.strip():
        raise UsageError("--command must not be empty")
    repo = git.check_repository(config.repo)
    good = git.resolve(repo, config.good, "--good")
    bad = git.resolve(repo, config.bad, "--bad")
    if good == bad:
        raise NothingToBisect(f"nothing to bisect: --good {config.good} and --bad {config.bad} "
                              f"are the same commit {good[:10]}")
    line = git.first_parent_line(repo, good, bad)
    with _Bisection(config, repo, warehouse, line, progress) as run:
        return run.go()


class _Bisection:
    def __init__(self, config: BisectConfig, repo: Path, warehouse: Warehouse,
                 line: list[Commit], progress: Callable[[str], None]) -> None:
        from perfwarehouse.agent.trials import (
            default_hardware_type,
            default_node,
            node_environment,
        )

        self.config = config
        self.repo = repo
        self.warehouse = warehouse
        self.line = line
        self.progress = progress
        self.revisions = {i: _Revision(c, i) for i, c in enumerate(line)}
        self.rng = random.Random(config.seed)
        node = config.node or default_node()
        started = time.time()
        self.series = store.Series(
            campaign=config.campaign, benchmark=config.benchmark or config.command,
            metric=config.metric,
            unit="s" if config.metric in parameters.TIMES else config.unit,
            higher_is_better=False if config.metric in parameters.TIMES
            else config.higher_is_better,
            node=node, hardware_type=default_hardware_type(node, config.hardware_type),
            session=store.session_id(str(repo), line[0].sha, line[-1].sha, config.command,
                                     repr(started)),
            command=config.command, setup=config.setup)
        self.env: dict[str, Any] | None = node_environment()
        self.records: list[dict[str, Any]] = []
        self.seq = 0
        self.landed = 0
        self.landed_at = time.monotonic()
        self.stop = 0
        self.measured: list[Measured] = []
        self.notes: list[str] = []
        self.before = git.checkout_state(repo)
        what = runners.Measuring(config.command, config.setup, config.metric, config.timeout_s,
                                 config.campaign)
        self.runner: runners.LocalRunner | runners.AgentRunner = \
            runners.LocalRunner(repo, what, lambda: self.stop) if config.agent is None \
            else runners.AgentRunner(config.agent, what, self.series)

    # ------------------------------------------------------------ lifetime
    def __enter__(self) -> _Bisection:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        try:
            self.flush()
        except PerfwarehouseError as error:
            if kind is None:
                raise
            self.progress(f"the trials measured were not brought back ({error}); "
                          "`perfwarehouse ingest pull` fetches them later")
        finally:
            self.runner.close()

    def flush(self, unless_recent: bool = False) -> None:
        """Land the trials measured since the last flush (``unless_recent``: only if that
        was :data:`LAND_EVERY_S` ago)."""
        if unless_recent and time.monotonic() - self.landed_at < LAND_EVERY_S:
            return
        self.landed_at = time.monotonic()
        records, self.records = self.records, []
        if self.seq > self.landed:
            source = f"bisect {self.series.session} trials {self.landed + 1}-{self.seq}"
            self.runner.land(self.warehouse, records, source)
            self.landed = self.seq

    # ------------------------------------------------------------ the search
    def go(self) -> Outcome:
        store.check_series(self.warehouse, self.series)
        n = len(self.line) - 1
        g, b = self.revisions[0], self.revisions[n]
        self.progress(f"bisecting {n - 1} commit(s) between good {g.commit.short} and bad "
                      f"{b.commit.short} (first-parent line), {self.config.metric} of "
                      f"`{self.config.command}`")
        if self.config.agent is not None:
            self.progress(f"measuring on agent {self.config.agent.name} (its repository "
                          f"{self.config.agent.repo}); the trials come back by pull")
        with _catching_signals(self._on_signal):
            ends = self._ends(g, b)
            lo, hi = 0, n
            excluded: set[int] = set()
            undecided: set[int] = set()
            retried: set[int] = set()
            stopped = None
            while True:
                i, retry = analysis.next_step(lo, hi, excluded, undecided, retried)
                if i is None:
                    break
                if retry:  # closed but for skips: an undecided commit gets one more step
                    retried.add(i)
                measured = {m.index for m in self.measured}
                if self.config.max_revisions is not None and i not in measured and \
                        len(measured) >= self.config.max_revisions:
                    stopped = f"--max-revisions {self.config.max_revisions} reached"
                    break
                verdict = self._middle(g, self.revisions[i], b, ends)
                excluded.discard(i)
                if verdict == "good":
                    lo = i
                elif verdict == "bad":
                    hi = i
                else:
                    excluded.add(i)
                    if verdict == "undecided":
                        undecided.add(i)
                for sha in [r.commit.sha for r in self.revisions.values()]:
                    if sha not in {self.line[k].sha for k in (0, n, lo, hi)}:
                        self.runner.drop(sha)
                self.flush(unless_recent=True)
            change = None
            between = (self.line[lo], self.line[hi])
            if stopped is None:
                change = self._change(self.revisions[lo], self.revisions[hi])
        # every row counts the revision's trials of all steps (the ends': of every step)
        self.measured = [replace(m, trials=self.revisions[m.index].trials)
                         for m in self.measured]
        candidates = tuple(self.line[k] for k in analysis.open_range(lo, hi))
        after = git.checkout_state(self.repo)
        notes = tuple(self.notes) + (() if after == self.before else (
            "the repository's checkout changed while bisecting (another process?)",))
        return Outcome(
            good=g.commit, bad=b.commit, commits_between=n - 1,
            culprit=candidates[0] if len(candidates) == 1 else None, candidates=candidates,
            ends=ends, change=change, change_between=between, measured=tuple(self.measured),
            trials=self.seq, metric=self.series.metric, unit=self.series.unit,
            campaign=self.series.campaign, benchmark=self.series.benchmark, stopped=stopped,
            notes=notes)

    def _ends(self, g: _Revision, b: _Revision) -> Comparison:
        """Confirm that bad differs from good; their comparison."""
        for r, name in ((g, "good"), (b, "bad")):
            failure = self._prepare(r)
            if failure:
                raise UsageError(f"the setup fails at the {name} end {r.commit.short}: {failure}")
        self.progress(f"measuring good {g.commit.short} and bad {b.commit.short} interleaved")
        k = self.config.repeat or parameters.DEFAULT_REPEAT
        while True:
            failure = self._rounds([g, b], k, ends=True)
            assert failure is None  # the ends raise instead
            look, c = analysis.judge_ends(g.values, b.values,
                                          higher_is_better=self.series.higher_is_better,
                                          confidence=self.config.confidence,
                                          min_change=self.config.min_change)
            k = 0 if self.config.repeat or look != "not yet" else analysis.more_rounds(
                c.more_trials, len(g.values), self.config.max_trials)
            if k == 0:
                break
            self.progress(f"  good and bad: {_change_text(c)} after {len(g.values)} trials "
                          f"each; {k} more")
        for r, verdict in ((g, "good end"), (b, "bad end")):
            self.measured.append(Measured(r.commit, r.index, verdict, r.trials))  # type: ignore[arg-type]
        spread = _log_spread(g.values)
        noisy = self.config.metric == parameters.WALL_TIME and spread > NOISY_SPREAD
        if look != "differ":
            why = ("they measure alike" if look == "same" else
                   f"no difference shown in {len(g.values)} trials each")
            if noisy and look != "same":
                why += (f"; the wall time varied by {100 * spread:.0f} % between trials at "
                        f"load average {_load()}: try --metric cpu_time or more --max-trials")
            self.flush()
            raise NothingToBisect(
                f"nothing to bisect: bad {b.commit.short} against good {g.commit.short}: "
                f"{_change_text(c)} ({why}; --min-change {self.config.min_change:g} %)", c)
        self.progress(f"bad is {c.verdict} than good: {_change_text(c)}")
        if noisy:
            self.notes.append(
                f"the wall time of good varied by {100 * spread:.0f} % between trials "
                f"(interquartile range / median; load average {_load()}): a busy machine "
                "needs many trials; --metric cpu_time (the command's CPU seconds) varies less")
            self.progress("note: " + self.notes[-1])
        return c

    def _middle(self, g: _Revision, m: _Revision, b: _Revision, ends: Comparison) -> str:
        """Place ``m`` between the ends: good, bad, skip or undecided."""
        step = len(self.measured) - 1
        head = f"step {step}: {m.commit.short} ({m.index} of {len(self.line) - 1})"
        failure = self._prepare(m)
        if failure is None:
            for r in (g, m, b):
                r.values = []
            k = self.config.repeat or parameters.DEFAULT_REPEAT
            while True:
                failure = self._rounds([g, m, b], k)
                if failure:
                    break
                s = analysis.judge_middle(
                    g.values, m.values, b.values,
                    ends_change_pct=ends.change_pct, higher_is_better=self.series.higher_is_better,
                    confidence=self.config.confidence, max_trials=self.config.max_trials)
                k = 0 if self.config.repeat else s.more
                if s.look != "not yet" or k == 0:
                    break
                self.progress(f"  {m.commit.short}: not yet ({s.reason}; "
                              f"{_change_text(s.against_good)} from good); {k} more")
        if failure:
            self._record(m, "skip", failure)
            self.progress(f"{head}: skipped ({failure})")
            return "skip"
        verdict = s.look if s.look != "not yet" else "undecided"
        c = s.against_good
        self._record(m, verdict, s.reason, c)
        self.progress(f"{head}: {'like ' + verdict if verdict != 'undecided' else verdict} "
                      f"({s.reason}; {_change_text(c)} from good, {len(m.values)} trials)")
        return verdict

    def _change(self, lo: _Revision, hi: _Revision) -> Comparison:
        """The change from the last good to the first bad, measured interleaved."""
        for r in (lo, hi):
            r.values = []
            failure = self._prepare(r)
            assert failure is None
        self.progress(f"measuring the change from {lo.commit.short} to {hi.commit.short}")
        k = self.config.repeat or parameters.DEFAULT_REPEAT
        while True:
            failure = self._rounds([lo, hi], k)
            look, c = analysis.judge_ends(lo.values, hi.values,
                                          higher_is_better=self.series.higher_is_better,
                                          confidence=self.config.confidence,
                                          min_change=self.config.min_change)
            k = 0 if failure or self.config.repeat or look != "not yet" else \
                analysis.more_rounds(c.more_trials, len(lo.values), self.config.max_trials)
            if k == 0:
                return c

    # ------------------------------------------------------------ the edges
    def _prepare(self, r: _Revision) -> str | None:
        """Check out and build ``r`` once; why it failed, or None."""
        if not self.runner.ready(r.commit.sha):
            if self.config.setup:
                self.progress(f"  setup at {r.commit.short}: {self.config.setup}")
            r.failed, trials = self.runner.prepare(r.commit, self.seq)
            for trial in trials:
                self._store(r, trial)
            self._check_stop()
        return r.failed

    def _rounds(self, revisions: list[_Revision], k: int, ends: bool = False) -> str | None:
        """``k`` rounds of one trial of each revision in a shuffled order; why a middle
        revision's command failed (then the rounds stop), or None. The ends' commands
        must not fail (UsageError)."""
        for _ in range(k):
            order = list(revisions)
            self.rng.shuffle(order)
            for r in order:
                trial = self.runner.trial(r.commit, self.seq)
                self._store(r, trial)
                self._check_stop()
                if trial.status != "ok" or trial.value is None:
                    end = {0: "good", len(self.line) - 1: "bad"}.get(r.index)
                    why = f"command {trial.status}: {trial.detail}".rstrip(": ")
                    if end:
                        raise UsageError(f"the command fails at the {end} end "
                                         f"{r.commit.short} ({why}); fix --command or --setup")
                    return why
                r.values.append(trial.value)
                if trial.duration_s > SLOW_TRIAL_S:  # long trials: a line each
                    self.progress(f"  {r.commit.short}: trial {len(r.values)} "
                                  f"{trial.value:.6g} ({trial.duration_s:.1f} s)")
        return None

    def _store(self, r: _Revision, trial: measure.Trial) -> None:
        if self.runner.lands_records:  # an agent wrote its own, to its spool
            self.records.append(store.trial_record(self.series, self.seq, r.commit, trial,
                                                   self.env))
        self.env = None  # the machine's description once per session
        self.seq += 1
        r.trials += 1

    def _record(self, r: _Revision, verdict: str, reason: str,
                c: Comparison | None = None) -> None:
        self.measured.append(Measured(
            r.commit, r.index, verdict, r.trials,  # type: ignore[arg-type]
            c.change_pct if c else None, c.ci_low_pct if c else None,
            c.ci_high_pct if c else None, reason))

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop += 1

    def _check_stop(self) -> None:
        if self.stop:
            raise KeyboardInterrupt


def _log_spread(values: list[float]) -> float:
    """Interquartile range / median of ``values`` (0 for fewer than 4)."""
    import numpy as np

    if len(values) < 4:
        return 0.0
    q1, med, q3 = np.percentile(values, [25, 50, 75])
    return float((q3 - q1) / med) if med > 0 else 0.0


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


@contextmanager
def _catching_signals(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """SIGINT and SIGTERM set a flag (the running command is stopped, the trials so far
    land) instead of raising in the middle of a write."""
    saved = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, previous in saved.items():
            signal.signal(sig, previous)
