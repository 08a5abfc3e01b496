"""The OrderSage schedule: seeds, orders, interleaving, test lists, result parsing."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest
from scipy import stats

from perfwarehouse.agent.schedule import (
    last_number,
    load_tests,
    order_kind_of,
    plan,
    plan_run,
    run_order,
    run_seed,
)
from perfwarehouse.errors import UsageError


def test_run_seeds_are_deterministic_distinct_and_63_bit() -> None:
    seeds = {run_seed(s, k, a) for s in (0, 1, 2**40) for k in range(50) for a in (1, 2)}
    assert len(seeds) == 3 * 50 * 2
    assert all(0 <= s < 2**63 for s in seeds)
    assert run_seed(7, 3, 1) == run_seed(7, 3) == run_seed(7, 3, 1)


def test_fixed_runs_keep_the_baseline_order_and_random_runs_are_permutations() -> None:
    assert run_order(6, "fixed", 12345) == tuple(range(6))
    for seed in range(200):
        order = run_order(6, "random", seed)
        assert sorted(order) == list(range(6))
        assert order == run_order(6, "random", seed)


def test_random_orders_are_uniform_over_permutations() -> None:
    """Every order of 3 tests is equally likely (chi-square goodness of fit)."""
    counts = Counter(run_order(3, "random", run_seed(11, k)) for k in range(6000))
    assert set(counts) == set(itertools.permutations(range(3)))
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4


def test_the_plan_interleaves_fixed_and_random_runs() -> None:
    runs = plan(5, 4, master_seed=3)
    assert [r.run_index for r in runs] == list(range(8))
    assert [r.order_kind for r in runs] == ["fixed", "random"] * 4
    assert all(r.order == tuple(range(5)) for r in runs if r.order_kind == "fixed")
    assert all(sorted(r.order) == list(range(5)) for r in runs)
    assert len({r.seed for r in runs}) == 8
    assert runs[3] == plan_run(5, 3, 3)
    assert plan_run(5, 3, 3, attempt=2).seed != runs[3].seed
    assert order_kind_of(0) == "fixed" and order_kind_of(7) == "random"


def test_tests_file_keeps_commands_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "tests.txt"
    path.write_text("# comment\n\n./bench --size 1  \r\n  # indented comment\n  echo 'a  b'\nlast")
    assert load_tests(path) == ["./bench --size 1  ", "  echo 'a  b'", "last"]


@pytest.mark.parametrize("text, message", [
    ("", "lists no test"), ("# only a comment\n\n", "lists no test"),
    ("echo 1\necho 2\necho 1\n", "twice"),
])
def test_bad_tests_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "tests.txt"
    path.write_text(text)
    with pytest.raises(UsageError, match=message):
        load_tests(path)


def test_a_missing_tests_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read"):
        load_tests(tmp_path / "nope.txt")


@pytest.mark.parametrize("output, value", [
    (b"12\n", 12.0), (b"time 1.5 s\nthroughput: 3e3 ops/s\n", 3000.0), (b"-4.5", -4.5),
    (b"x = .5\n", 0.5), (b"42\n\n  \n", 42.0), (b"result: 7.25 ms (run 3 of 10)", 10.0),
    (b"1E-3", 0.001), (b"+8", 8.0), (b"no number\n", None), (b"", None), (b"1e999", None),
    (b"done.\n", None),
])
def test_the_result_is_the_last_number_printed(output: bytes, value: float | None) -> None:
    assert last_number(output) == value
