"""Text outputs as people save them: detection by structure and runs split by it.

Not a format (no ``NAME``): what the text formats (wrk, hey, sysbench, redis-benchmark)
share (issue 43). A saved output is rarely the tool's bytes alone: up to
:data:`PREAMBLE_LINES` lines of anything come before its first recognised line (a
shell prompt, the command line or its bare arguments, a hand-written label, notes, a
Markdown fence), several runs are concatenated with labels between them, lines end in
CRLF, and a label may hold bytes that are not UTF-8. So a format says two things about
its lines, and this module does the rest:

* ``is_start(lines, i)``: line ``i`` begins one run of its output (wrk's ``Running 2s
  test @ URL`` followed by ``T threads and C connections``); a format's ``sniff`` is
  :func:`starts_within` its first :data:`PREAMBLE_LINES` lines;
* ``is_own(line)``: the line is part of its output (so the lines after a run's last own
  line and before the next start are the next run's preamble, its label).

:func:`split_runs` returns each run's lines and the preamble above it. Bytes that are
not UTF-8 are read as U+FFFD in a preamble (with a note), refused (``broken-utf8``,
naming the line) inside a run's own lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from perfwarehouse.errors import TrialParseError

#: At most this many lines of anything above a text output's first recognised line
#: (and above a JSON document, ``ingest/inputs.py``).
PREAMBLE_LINES = 40

StartTest = Callable[[list[str], int], bool]
OwnTest = Callable[[str], bool]


def lines_of(head: bytes) -> list[str]:
    """The lines of (the head of) a file, as ``sniff`` reads them: UTF-8 with
    replacement, split at LF with a CR before it dropped (CRLF files)."""
    return [ln.rstrip("\r") for ln in head.decode("utf-8", "replace").split("\n")]


def starts_within(lines: list[str], is_start: StartTest,
                  limit: int = PREAMBLE_LINES) -> int | None:
    """The index of the first line that starts a run, when one of the first ``limit`` + 1
    lines does (at most ``limit`` lines of anything above it); else None."""
    for index in range(min(len(lines), limit + 1)):
        if is_start(lines, index):
            return index
    return None


def next_nonblank(lines: list[str], index: int) -> str | None:
    """The first non-blank line after ``lines[index]``, or None."""
    return next((ln for ln in lines[index + 1:] if ln.strip()), None)


@dataclass
class Run:
    """One run of a tool's output in a file: ``lines[start:end]`` (0-based), and the
    non-blank lines above it that are not the tool's (``preamble``: (line number, text))."""

    start: int
    end: int
    preamble: list[tuple[int, str]] = field(default_factory=list)

    def label(self, skip: Callable[[str], bool] = lambda line: False) -> str | None:
        """The preamble as one text (lines joined by ``" / "``), without Markdown fences,
        bare prompts and the lines ``skip`` says (the command line, read on its own)."""
        kept = [text.strip() for _, text in self.preamble
                if not (text.strip().startswith("```") or text.strip() in ("$", "#", ">")
                        or skip(text))]
        return " / ".join(kept) or None


def decode(data: bytes, source: str) -> tuple[list[str], set[int]]:
    """The file's lines (split at LF, a CR before it dropped) and the 1-based numbers of
    the lines that held bytes that are not UTF-8 (read with U+FFFD in their place);
    ``empty`` when there is nothing but white space."""
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        lines = text.split("\n")
        return ([ln.rstrip("\r") for ln in lines] if "\r" in text else lines), set()
    lines, bad = [], set()
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "replace")
            bad.add(number)
        lines.append(text.rstrip("\r"))
    return lines, bad


def split_runs(lines: list[str], bad: set[int], source: str, is_start: StartTest,
               is_own: OwnTest, missing: str, marker: str = "") -> tuple[list[Run], list[str]]:
    """The runs of a tool's output in ``lines`` (see the module's docstring) and the
    notes to give the user. ``missing-field`` (detail ``missing``) when no run starts
    within the first :data:`PREAMBLE_LINES` + 1 lines; ``broken-utf8`` for bytes that are
    not UTF-8 outside a preamble. ``marker``: a text every start line holds (a cheap
    test first: a log of a million lines is scanned at the speed of ``in``)."""
    first = starts_within(lines, is_start)
    if first is None:
        raise TrialParseError(source, 1, "missing-field", missing)
    starts = [first] + [i for i in range(first + 1, len(lines))
                        if marker in lines[i] and is_start(lines, i)]
    runs: list[Run] = []
    above = 0  # where the lines above the next run begin
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        end = start + 1
        for index in range(stop - 1, start, -1):  # the last own line (from the end: cheap)
            if is_own(lines[index]):
                end = index + 1
                break
        if k + 1 == len(starts):
            end = len(lines)  # what follows the last run is its own (a cut file, a tail)
        preamble = [(i + 1, lines[i]) for i in range(above, start) if lines[i].strip()]
        runs.append(Run(start, end, preamble))
        above = end
    in_preamble = {n for run in runs for n, _ in run.preamble}
    outside = sorted(bad - in_preamble)
    if outside:
        raise TrialParseError(source, outside[0], "broken-utf8", "invalid UTF-8 in this line")
    notes = [f"line {n}: bytes that are not UTF-8 replaced by U+FFFD (in a label)"
             for n in sorted(bad)]
    return runs, notes
