"""A progress bar of unknown length shows the count so far, never "0/?"."""

from __future__ import annotations

import io

from rich.console import Console

from perfwarehouse.progress import TerminalReporter


def _render(total: float | None) -> str:
    out = io.StringIO()
    reporter = TerminalReporter(Console(file=out, force_terminal=True, width=120))
    with reporter.task("ingest", total=total) as task:
        task.advance(1234)
        task._progress.refresh()  # type: ignore[attr-defined]
    return out.getvalue()


def test_unknown_total_shows_a_count_not_a_question_mark() -> None:
    text = _render(None)
    assert "1,234 rows" in text and "/?" not in text


def test_known_total_shows_done_of_total() -> None:
    assert "1234/5000" in _render(5000)
