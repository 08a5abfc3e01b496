"""The result types of ``perfwarehouse bisect`` (:mod:`.analysis`, :mod:`.run`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from perfwarehouse.compare.results import Comparison

#: What a step says of the revision it measured: like the good end, like the bad end, not
#: placeable (its build or command failed: ``skip``, as ``git bisect skip``; or its trials
#: did not settle within the budget: ``undecided``, stepped over the same way), or one of
#: the two ends.
Verdict = Literal["good", "bad", "skip", "undecided"]
#: The answer of one look at a step's trials.
Look = Literal["good", "bad", "not yet"]


@dataclass(frozen=True)
class Commit:
    """One revision of the first-parent line: full sha, subject, author and commit times
    (RFC 3339, as git prints them with ``%aI``/``%cI``)."""

    sha: str
    subject: str
    author_date: str
    commit_time: str

    @property
    def short(self) -> str:
        return self.sha[:10]


@dataclass(frozen=True)
class Step:
    """One look at a middle revision's trials against both ends (:func:`.analysis.judge_middle`).

    ``against_good`` compares the middle (contender) with the good end (baseline),
    ``against_bad`` the bad end (contender) with the middle (baseline), both at the
    threshold ``threshold_pct`` (half the change from good to bad, on the log scale).
    ``more`` is how many more trials of each revision the next round adds (0 when decided).
    """

    look: Look
    against_good: Comparison
    against_bad: Comparison
    threshold_pct: float
    more: int
    reason: str


@dataclass(frozen=True)
class Measured:
    """A revision measured, in the order they were measured, with its verdict."""

    commit: Commit
    index: int  # 0 = good, len(line) - 1 = bad, on the first-parent line
    verdict: Verdict | Literal["good end", "bad end"]
    trials: int  # of this revision (all steps)
    change_pct: float | None = None  # against the good end, in its step
    ci_low_pct: float | None = None
    ci_high_pct: float | None = None
    reason: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a bisection found.

    ``culprit`` is the first bad commit when the range closed on one commit; otherwise
    ``candidates`` lists the commits it may be (skipped or undecided commits between the
    last good and the first bad, or a range left open by ``--max-revisions``), oldest
    first. ``change`` compares the culprit with its parent (or the last good with the
    first bad revision) in a last interleaved step; ``ends`` is good against bad.
    """

    good: Commit
    bad: Commit
    commits_between: int
    culprit: Commit | None
    candidates: tuple[Commit, ...]
    ends: Comparison
    change: Comparison | None
    change_between: tuple[Commit, Commit] | None
    measured: tuple[Measured, ...]
    trials: int
    metric: str
    unit: str | None
    campaign: str
    benchmark: str
    stopped: str | None = None  # why the range is still open, when it is
    notes: tuple[str, ...] = field(default=())
