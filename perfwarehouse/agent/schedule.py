"""The OrderSage schedule (Duplyakin et al. (OrderSage, USENIX ATC 2023), Algorithm 1 and section 6.2), as pure functions.

For ``n = 1 … N``: a reset, the tests in the fixed baseline order (the order of
the tests file), a reset, the tests in a freshly shuffled random order. Runs are
numbered by their *slot* ``run_index = 0 … 2N-1``: even slots are fixed, odd
slots random, so fixed and random runs interleave (Duplyakin et al. (OrderSage, USENIX ATC 2023), §3, step 3).

Every run gets its own seed, derived from the experiment's ``--seed``, its slot
and its attempt (an interrupted run is repeated as attempt 2, 3, …), so the
whole schedule is reproducible from the one recorded number. A random run's
order is ``random.Random(seed).shuffle`` of ``0 … n-1``; the order is also
recorded trial by trial (``position``), so it never has to be recomputed.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from perfwarehouse.errors import UsageError

OrderKind = Literal["fixed", "random"]

# a decimal number, optionally signed, with fraction and exponent ("12", "-3.5", "1e-3", ".5")
_NUMBER = re.compile(rb"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class PlannedRun:
    """One run of the schedule: which slot, which order, from which seed."""

    run_index: int
    order_kind: OrderKind
    attempt: int
    seed: int
    order: tuple[int, ...]  # order[position] = index of the test in the tests file


def order_kind_of(run_index: int) -> OrderKind:
    """Even slots run the fixed baseline order, odd slots a random one (interleaved)."""
    return "fixed" if run_index % 2 == 0 else "random"


def run_seed(master_seed: int, run_index: int, attempt: int = 1) -> int:
    """The seed of one run: a 63-bit hash of the experiment seed, the slot and the attempt."""
    text = f"perfwarehouse-agent:{master_seed}:{run_index}:{attempt}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def run_order(n_tests: int, order_kind: OrderKind, seed: int) -> tuple[int, ...]:
    """The baseline order for a fixed run; a shuffle seeded by ``seed`` for a random run."""
    order = list(range(n_tests))
    if order_kind == "random":
        random.Random(seed).shuffle(order)
    return tuple(order)


def plan_run(n_tests: int, master_seed: int, run_index: int, attempt: int = 1) -> PlannedRun:
    kind = order_kind_of(run_index)
    seed = run_seed(master_seed, run_index, attempt)
    return PlannedRun(run_index, kind, attempt, seed, run_order(n_tests, kind, seed))


def plan(n_tests: int, runs: int, master_seed: int) -> list[PlannedRun]:
    """The whole schedule: ``runs`` fixed and ``runs`` random runs, interleaved."""
    return [plan_run(n_tests, master_seed, k) for k in range(2 * runs)]


def load_tests(path: Path) -> list[str]:
    """Test commands, one per line, in baseline order.

    Blank lines and lines starting with ``#`` are ignored; a command is kept
    verbatim otherwise (it is the benchmark's name in the warehouse). Commands
    must be unique (as in OrderSage): a repeated one would be the same test.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read the tests file {path}: {exc}") from None
    tests = [line.rstrip("\r") for line in text.split("\n")
             if line.strip() and not line.lstrip().startswith("#")]
    if not tests:
        raise UsageError(f"the tests file {path} lists no test commands (one per line)")
    seen: set[str] = set()
    for test in tests:
        if test in seen:
            raise UsageError(f"the tests file {path} lists {test!r} twice; every test command "
                             "must be unique")
        seen.add(test)
    return tests


def last_number(output: bytes) -> float | None:
    """The last decimal number in a test's output, or None if there is none (or it overflows)."""
    last = None
    for match in _NUMBER.finditer(output):
        last = match
    if last is None:
        return None
    value = float(last.group())
    return value if math.isfinite(value) else None
