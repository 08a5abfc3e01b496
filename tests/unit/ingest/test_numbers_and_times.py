"""Issue 31 items 5 and 7: one home for numbers (perfwarehouse/ingest/numbers.py) and for
times (perfwarehouse/ingest/times.py), with their limits.

Item 5, before: a number of more than 4,300 digits made asv, gbench, go test, hyperfine,
JMH, k6, pyperf and wrk raise `ValueError: Exceeds the limit (4300 digits) for integer
string conversion` (a traceback). Here every good fixture of every importer, with numbers
of it replaced in turn by a 5,000-digit integer, a 5,000-digit decimal and 101 digits
(just past the limit), parses or is refused with one TrialParseError; never another error.

Item 7, before: asv `date` 1e16 ms raised `year 316889355 is out of range` (a traceback),
1e20 a bare `[Errno 75] Value too large for defined data type`; a JMeter sample at 1e20 ms
was accepted and made a trial of 1e17 seconds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perfwarehouse.errors import PerfwarehouseError, TrialParseError
from perfwarehouse.ingest import numbers, times
from perfwarehouse.ingest.formats import load
from perfwarehouse.ingest.formats.records import ImportOptions
from perfwarehouse.ingest.limits import NUMBER_MAX_DIGITS
from tests.unit.ingest.importer_support import FIXTURES

NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
OPTIONS = ImportOptions(campaign="c", node="n", hardware_type="h")
FILES = sorted(f for f in FIXTURES.glob("*/good/*") if f.is_file() and f.suffix != ".gz")
HUGE = {"int": "9" * 5000, "decimal": "1." + "0" * 4999, "101-digits": "1" * 101}


def variants(text: str, at_most: int = 12) -> list[str]:
    """``text`` with one of its digit runs (spread over the file) replaced by NUL."""
    spans = [m.span() for m in NUMBER.finditer(text)][:60]
    return [text[:a] + "\0" + text[b:] for a, b in spans[::max(1, len(spans) // at_most)]]


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_a_huge_number_anywhere_is_a_one_line_refusal(path: Path) -> None:
    text = path.read_text(errors="replace")
    parser = load(path.parent.parent.name)
    refused = 0
    for template in variants(text):
        for digits in HUGE.values():
            data = template.replace("\0", digits, 1).encode()
            try:
                parser.parse(data, path.name, OPTIONS)
            except TrialParseError as exc:
                assert "\n" not in str(exc)
                refused += exc.rule == numbers.RULE
            except PerfwarehouseError as exc:
                assert "\n" not in str(exc)
    if path.suffix == ".json":  # the numbers of a JSON document are read by numbers.loads
        assert refused > 0


def test_the_number_limit_and_its_rule() -> None:
    assert numbers.json_int("9" * NUMBER_MAX_DIGITS) == int("9" * NUMBER_MAX_DIGITS)
    assert numbers.json_float("-1." + "5" * (NUMBER_MAX_DIGITS - 1) + "e-7") < 0
    with pytest.raises(numbers.HugeNumber, match="101 digits"):
        numbers.json_int("9" * (NUMBER_MAX_DIGITS + 1))
    assert numbers.loads('{"a": [1, 2.5, -3e2]}') == {"a": [1, 2.5, -300.0]}
    with pytest.raises(numbers.HugeNumber):
        numbers.loads('{"a": ' + "1" * 5000 + "}")
    with pytest.raises(TrialParseError, match=r"f.txt:7: \[huge-number\] threads: a number of "
                                              r"5,000 digits"):
        numbers.parse_int("7" * 5000, "f.txt", 7, "threads")
    assert numbers.parse_int(" 42 ", "f", 1, "x") == 42


ASV = FIXTURES / "asv" / "good" / "bench-host-1" / "1c2d3e4f-py2.7-numpy.json"


@pytest.mark.parametrize("date", ["1e16", "1e20", "-1", "1e400"])
def test_an_asv_date_out_of_range_is_one_line_with_file_and_rule(date: str) -> None:
    data = ASV.read_text().replace('"date": 1514764800000', f'"date": {date}', 1)
    assert f'"date": {date}' in data
    with pytest.raises(TrialParseError) as caught:
        load("asv").parse(data.encode(), "r.json", OPTIONS)
    assert caught.value.rule in (times.RULE, "non-finite") and caught.value.source == "r.json"
    assert "\n" not in str(caught.value)


JMETER = FIXTURES / "jmeter" / "good" / "jmeter_t8_noheader.csv"


@pytest.mark.parametrize("field", ["timestamp", "elapsed"])
def test_a_jmeter_sample_far_in_the_future_is_refused(field: str) -> None:
    lines = JMETER.read_text().splitlines()
    first = lines[0].split(",")
    if field == "timestamp":
        first[0] = "100000000000000000000"  # 1e20 ms
    else:
        first[1] = "100000000000000000000"
    lines.append(",".join(first))
    with pytest.raises(TrialParseError, match=rf"j.csv:{len(lines)}: \[bad-timestamp\]"):
        load("jmeter").parse(("\n".join(lines) + "\n").encode(), "j.csv", OPTIONS)


def test_times_at_the_limits() -> None:
    assert times.rfc3339_from_epoch_s(0) == "1970-01-01T00:00:00Z"
    assert times.rfc3339_from_epoch_s(times.EPOCH_MAX_S).startswith("9999-12-31T23:59:59")
    assert times.rfc3339_from_epoch_ms(1_700_000_000_000) == "2023-11-14T22:13:20Z"
    for bad in (-0.001, times.EPOCH_MAX_S + 1, float("nan"), float("inf")):
        with pytest.raises(TrialParseError, match=r"\[bad-timestamp\]"):
            times.check_epoch_s(bad, "f", 3, "date")


def test_loads_without_its_hooks_where_no_number_can_be_too_long() -> None:
    """numbers.loads skips the per-number hooks when no run of digits and points is
    longer than the limit: on random documents (numbers of 1 to 2 x the limit digits,
    points, exponents, signs, digit runs inside strings) it returns what the hooks
    return, or refuses as they do."""
    import json
    import random

    from perfwarehouse.ingest import numbers
    from perfwarehouse.ingest.limits import NUMBER_MAX_DIGITS as MAX

    rng = random.Random(5)

    def number() -> str:
        digits = rng.choice([1, 5, 17, MAX - 1, MAX, MAX + 1, 2 * MAX])
        body = "".join(rng.choice("0123456789") for _ in range(digits)).lstrip("0") or "0"
        if rng.random() < 0.5 and len(body) > 1:
            cut = rng.randrange(1, len(body))
            body = body[:cut] + "." + body[cut:]
        if rng.random() < 0.3:
            body += rng.choice(["e", "E"]) + rng.choice(["", "-", "+"]) + str(rng.randrange(300))
        return rng.choice(["", "-"]) + body

    for _ in range(400):
        items = [number() for _ in range(rng.randrange(1, 6))]
        text = "[" + ", ".join(items) + ', "' + "9" * rng.choice([3, MAX + 5]) + '"]'
        try:
            expected = json.loads(text, parse_int=numbers.json_int,
                                  parse_float=numbers.json_float)
        except numbers.HugeNumber:
            expected = numbers.HugeNumber
        try:
            got = numbers.loads(text)
        except numbers.HugeNumber:
            got = numbers.HugeNumber
        assert repr(got) == repr(expected), text
        assert numbers.may_hold_huge_number(text) or expected is not numbers.HugeNumber
        assert numbers.may_hold_huge_number(text.encode()) == numbers.may_hold_huge_number(text)
