"""Pure planning of compaction: which files of a partition to rewrite, how to cut the
result into files, when retired files may go, when ingest compacts on its own.

No I/O here: :mod:`perfwarehouse.warehouse.compact` reads the catalog, calls these
functions and does the writing. A partition is the files of one (campaign,
hardware type); a *compacted* file is one this module planned (its name starts
with ``c``): its rows are sorted by configuration, start time, run and iteration
(the order the time-series jobs read: they then sort nothing), in row groups of about
``row_group_rows`` rows whose min/max statistics on ``config_id`` let a reader of one
configuration range skip the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import PurePosixPath
from typing import Protocol, TypeVar

#: the order of the rows in a compacted file: configurations contiguous, each in time
#: order, as the TriScale and trends jobs read them (``jobs.series.TRIAL_VALUES_ORDER``,
#: whose ``t`` is ``epoch(started_at)``); a job checks the order and sorts only if needed
SORT_KEY = ("config_id", "started_at", "run_index", "run_id", "iteration")


class FileLike(Protocol):
    # read-only members: a frozen dataclass (store.DataFile) matches them
    @property
    def path(self) -> str: ...
    @property
    def row_count(self) -> int: ...


F = TypeVar("F", bound=FileLike)


@dataclass(frozen=True)
class Policy:
    """Sizes and delays of compaction (rows are measurement rows, one value each).

    ``max_file_rows``: a compacted file holds at most about this many rows (whole
    configurations; one configuration larger than that gets a file of its own).
    ``row_group_rows``: Parquet row group size (DuckDB's own default: a row group is
    what one thread reads, and a 1M-row partition in one 1M-row group was read by one
    thread, 0.145 s instead of 0.056 s on two). ``keep_rows``: a compacted file with
    at least this many rows is left as it is (new small files are compacted among
    themselves), so compaction costs about the new data, not the whole history.
    ``grace_s``: retired files are deleted only this long after their compaction,
    so that a reader that took its snapshot before finishes on them.
    ``auto_min_files`` / ``auto_max_rows``: ingest compacts a partition on its own
    when it has at least that many files to merge holding at most that many rows
    (cheap: about a second of rewriting).
    """

    max_file_rows: int = 16_000_000
    row_group_rows: int = 122_880
    keep_rows: int = 8_000_000
    grace_s: float = 3600.0
    auto_min_files: int = 32
    auto_max_rows: int = 2_000_000


def is_compacted(path: str) -> bool:
    """Whether a data file was written by compaction (``c...parquet``), not by a batch."""
    return PurePosixPath(path).name.startswith("c")


def files_to_rewrite(files: Sequence[F], policy: Policy) -> list[F]:
    """The files of one partition that a compaction rewrites into one clustered set.

    Large compacted files (>= ``keep_rows``) stay. The others are rewritten when
    there are at least two of them, or when the one left is not compacted (a
    single batch file is not clustered). Empty: nothing to do (idempotence: a
    compacted partition plans nothing).
    """
    small = [f for f in files if not (is_compacted(f.path) and f.row_count >= policy.keep_rows)]
    if len(small) >= 2 or (len(small) == 1 and not is_compacted(small[0].path)):
        return sorted(small, key=lambda f: f.path)
    return []


def config_ranges(config_rows: Sequence[tuple[int, int]], max_rows: int) -> list[tuple[int, int]]:
    """Cut configurations (``(config_id, rows)`` sorted by id) into inclusive id ranges
    of at most about ``max_rows`` rows each, never splitting a configuration; about
    equal sizes (the total divided into ceil(total / max_rows) parts)."""
    if not config_rows:
        return []
    total = sum(n for _, n in config_rows)
    parts = max(1, -(-total // max(1, max_rows)))
    target = total / parts
    ranges: list[tuple[int, int]] = []
    start = config_rows[0][0]
    acc = 0
    for i, (cid, n) in enumerate(config_rows):
        acc += n
        last = i == len(config_rows) - 1
        if last or (acc >= target * (len(ranges) + 1) and len(ranges) < parts - 1):
            ranges.append((start, cid))
            if not last:
                start = config_rows[i + 1][0]
    return ranges


def expired(retired: Sequence[tuple[str, datetime]], now: datetime, grace_s: float) -> list[str]:
    """Paths of retired files whose grace period is over (deletable)."""
    limit = now - timedelta(seconds=grace_s)
    return sorted(path for path, at in retired if at <= limit)


def auto_compact_wanted(files: Sequence[FileLike], policy: Policy) -> bool:
    """Whether ingest should compact this partition right after landing a batch:
    many files to merge, few rows in them (so it stays cheap)."""
    todo = files_to_rewrite(files, policy)
    return (len(todo) >= policy.auto_min_files
            and sum(f.row_count for f in todo) <= policy.auto_max_rows)
