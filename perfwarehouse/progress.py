"""Progress bars on a terminal, silence in pipes.

Long work reports through a :class:`Reporter`; the CLI gives a rich-backed one
when stderr is a terminal and a silent one otherwise, so library code never
decides how output looks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class Task(Protocol):
    def advance(self, amount: float = 1) -> None: ...
    def update(self, completed: float | None = None, total: float | None = None) -> None: ...


class Reporter(Protocol):
    """What long-running code may ask of the user interface."""

    def task(self, description: str, total: float | None = None,
             unit: str = "rows") -> AbstractContextManager[Task]: ...
    def note(self, message: str) -> None: ...


class _NullTask:
    def advance(self, amount: float = 1) -> None:
        pass

    def update(self, completed: float | None = None, total: float | None = None) -> None:
        pass


class SilentReporter:
    """Reports nothing (pipes, tests, ``--quiet``)."""

    @contextmanager
    def task(self, description: str, total: float | None = None,
             unit: str = "rows") -> Iterator[Task]:
        yield _NullTask()

    def note(self, message: str) -> None:
        pass


class _RichTask:
    def __init__(self, progress: Progress, task_id: TaskID) -> None:
        self._progress = progress
        self._id = task_id

    def advance(self, amount: float = 1) -> None:
        self._progress.advance(self._id, amount)

    def update(self, completed: float | None = None, total: float | None = None) -> None:
        self._progress.update(self._id, completed=completed, total=total)


class TerminalReporter:
    """Rich progress bars (count, rate, ETA) and notes on stderr."""

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)

    @contextmanager
    def task(self, description: str, total: float | None = None,
             unit: str = "rows") -> Iterator[Task]:
        columns = progress_columns(total, unit)
        with Progress(*columns, console=self.console, transient=True) as progress:
            task_id = progress.add_task(description, total=total)
            yield _RichTask(progress, task_id)

    def note(self, message: str) -> None:
        self.console.print(message, highlight=False, markup=False)


def progress_columns(total: float | None, unit: str) -> list[Any]:
    """The columns of a bar: with a known total, bar, %, done/total, rate and ETA; without
    one (a stream of unknown length), the count so far and the rate, never "0/?"."""
    if total is None:
        return [SpinnerColumn(), TextColumn("{task.description}"),
                TextColumn("{task.completed:,.0f} " + unit.replace("{", "{{")),
                _RateColumn(unit), TimeElapsedColumn()]
    return [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
            TaskProgressColumn(), MofNCompleteColumn(),
            TextColumn(f"{unit}"), _RateColumn(unit), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn()]


class _RateColumn(TextColumn):
    def __init__(self, unit: str) -> None:
        super().__init__("")
        self.unit = unit

    def render(self, task):
        from rich.text import Text

        speed = task.finished_speed or task.speed
        if not speed:
            return Text("")
        return Text(f"{_si(speed)} {self.unit}/s")


def _si(x: float) -> str:
    for factor, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.1f}{suffix}"
    return f"{x:.0f}"


def default_reporter(quiet: bool = False) -> Reporter:
    """A terminal reporter when stderr is a TTY and not quiet, else a silent one."""
    if quiet or not sys.stderr.isatty():
        return SilentReporter()
    return TerminalReporter()
