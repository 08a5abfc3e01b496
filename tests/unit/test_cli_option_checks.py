"""The fraction options ``analyze`` checks before it imports a job (issue 40) are those the
jobs read by the one fraction rule, and every job option of that kind is checked."""

from __future__ import annotations

import dataclasses

import click
import pytest

from perfwarehouse.cli.analyze import FRACTION_OPTIONS, check_fraction_options
from perfwarehouse.jobs import JOBS


def _options() -> dict[str, set[str]]:
    """Each job's option names (as the command line spells them) -> the jobs."""
    found: dict[str, set[str]] = {}
    for job in JOBS:
        for f in dataclasses.fields(job.params):
            if not f.metadata.get("internal"):
                name = f.metadata.get("cli", "--" + f.name.replace("_", "-"))
                found.setdefault(name, set()).add(job.name)
    return found


def test_every_fraction_option_of_a_job_is_checked_and_exists() -> None:
    options = _options()
    kinds = ("confidence", "percentile", "tolerance", "width")
    assert {n for n in options if any(k in n for k in kinds)} == set(FRACTION_OPTIONS)


def test_the_defaults_pass_and_the_job_refuses_what_the_check_refuses() -> None:
    for job in JOBS:
        for f in dataclasses.fields(job.params):
            name = "--" + f.name.replace("_", "-")
            if name in FRACTION_OPTIONS and f.default not in (None, ""):
                check_fraction_options([name, str(f.default)])  # no refusal


@pytest.mark.parametrize(("args", "said"), [
    (["--confidence", "1.5"], "1.5 is ambiguous"),
    (["--percentile=150"], "got '150'"),
    (["--width", "-0.1"], "got '-0.1'"),
    (["--kpi-confidence", "nan"], "got 'nan'"),
])
def test_a_bad_value_is_a_usage_error(args: list[str], said: str) -> None:
    with pytest.raises(click.BadParameter, match=said):
        check_fraction_options(["--format", "json", *args])


def test_zero_where_allowed_and_arguments_after_the_separator_are_left_alone() -> None:
    check_fraction_options(["--tolerance", "0", "--ci-confidence", "", "--", "--confidence",
                            "7"])
    with pytest.raises(click.BadParameter):
        check_fraction_options(["--law-tolerance", "0"])
