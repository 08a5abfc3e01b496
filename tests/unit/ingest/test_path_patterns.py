"""`--path-pattern` matching without backtracking (issue 44, H9): the same keys as the
backtracking regular expression the patterns used to compile to (kept here as the slow
twin), on random patterns and paths, and no stall on the patterns that made it take
exponential time."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.ingest.pathkeys import (
    _PLACEHOLDER,
    FIELDS,
    MAX_PLACEHOLDERS,
    _time_regex,
    compile_pattern,
)


def _twin(text: str) -> re.Pattern[str]:
    """The regex a pattern compiled to before (d99f738): lazy pieces, searched, ``$``."""
    parts, pos = [r"(?:^|/)"], 0
    for match in _PLACEHOLDER.finditer(text):
        parts.append(re.escape(text[pos:match.start()]))
        pos = match.end()
        name, fmt = match.group(1).strip(), match.group(2)
        if name == "*":
            parts.append(r"[^/]*?")
        elif name == "**":
            parts.append(r".*?")
        elif fmt is not None:
            parts.append(f"(?P<{name}>{_time_regex(fmt)})")
        else:
            parts.append(f"(?P<{name}>[^/]+?)")
    parts.append(re.escape(text[pos:]) + "$")
    return re.compile("".join(parts), re.ASCII)


def _random_pattern(rng: random.Random) -> str:
    fields = list(FIELDS[:3])
    rng.shuffle(fields)
    pieces = []
    for _ in range(rng.randint(1, 5)):
        kind = rng.random()
        if kind < 0.35 and fields:
            pieces.append(f"{{{fields.pop()}}}")
        elif kind < 0.45:
            pieces.append("{started_at:%Y%m}")
        elif kind < 0.6:
            pieces.append("{*}")
        elif kind < 0.75:
            pieces.append("{**}")
        else:
            pieces.append("".join(rng.choice("a_/.") for _ in range(rng.randint(1, 2))))
    if not any(p.startswith("{") and p[1] not in "*" for p in pieces):
        pieces.append("{node}" if "{node}" not in pieces else "{revision}")
    text = "".join(pieces)
    while text.count("{started_at") > 1:
        text = text.replace("{started_at:%Y%m}", "{*}", 1)
    return text


def test_the_keys_are_those_of_the_backtracking_regex() -> None:
    rng = random.Random(44)
    matched = 0
    for _ in range(4000):
        text = _random_pattern(rng)
        path = "".join(rng.choice("ab_/.12") for _ in range(rng.randint(0, 14)))
        if rng.random() < 0.3:
            path += rng.choice(["202401", "1999_12"])
        expected = _twin(text).search(path)
        got = compile_pattern(text).match(path)
        assert got == (None if expected is None else expected.groupdict()), (text, path)
        matched += got is not None
    assert matched > 400  # the comparison saw matches, not only misses


def test_times_in_paths_still_parse() -> None:
    pattern = compile_pattern("{node}/{started_at:%Y%m%d%H%M%S}_{revision}.json")
    assert pattern.keys("/x/results/m1/20240102030405_abc_def.json") == {
        "node": "m1", "started_at": "2024-01-02T03:04:05Z", "revision": "abc_def"}
    with pytest.raises(ValueError, match="started_at '20241302030405' is not a time of the form"):
        pattern.keys("m1/20241302030405_abc.json")
    slashed = compile_pattern("{started_at:%Y/%m/%d}/{node}.txt")
    assert slashed.keys("runs/2024/01/31/box.txt") == {"started_at": "2024-01-31T00:00:00Z",
                                                         "node": "box"}


HOSTILE = [  # (pattern, path): exponential or degree-5 polynomial for the old regex
    ("{**}" * 8 + "{node}.json", "/tmp/pytest-of-someone/pytest-1/test_0/results/run.jsox"),
    ("{node}_{revision}_{campaign}_{hardware_type}_{started_at}.json", "a_" * 120 + "x.jsox"),
    ("{**}/{node}/{**}/{revision}/{**}/{campaign}/{**}.json", "/".join(["ab"] * 200) + ".jsox"),
    ("{*}{*}{*}{*}{*}{*}{*}{*}{node}{*}{*}.json", "b" * 240 + ".jsox"),
]


def test_hostile_patterns_do_not_stall() -> None:
    """Run where a stall cannot hold up the suite: the old regex ran for hours on these."""
    code = ("from perfwarehouse.ingest.pathkeys import compile_pattern\n"
            f"for text, path in {HOSTILE!r}:\n"
            "    assert compile_pattern(text).keys(path) is None, (text, path)\n"
            "    assert compile_pattern(text).match(path[:-1] + 'n') is not None, text\n"
            "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout == "ok\n", done.stderr


def test_too_many_placeholders_are_refused() -> None:
    compile_pattern("{**}" * (MAX_PLACEHOLDERS - 1) + "{node}")
    with pytest.raises(UsageError, match=f"has {MAX_PLACEHOLDERS + 1} placeholders; at most "
                                         f"{MAX_PLACEHOLDERS}"):
        compile_pattern("{**}" * MAX_PLACEHOLDERS + "{node}")
