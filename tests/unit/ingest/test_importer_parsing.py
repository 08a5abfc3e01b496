"""The JSON loading and value checks the tool importers share."""

from __future__ import annotations

import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats.jsondoc import load as load_json


@pytest.mark.parametrize("data,rule,line", [
    (b"", "empty", 0),
    (b"  \n", "empty", 0),
    (b'{"a": [1, 2', "truncated", 1),
    (b'{"a": "unterminated', "truncated", 1),
    (b'{"a": 1,\n "b": }', "invalid-json", 2),
    (b'{"a": "\xff"}', "broken-utf8", 0),
    (b'{"benchmarks": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", "too-deep", 0),
])
def test_load_json_names_the_problem(data: bytes, rule: str, line: int) -> None:
    with pytest.raises(TrialParseError) as info:
        load_json(data, "f.json")
    assert (info.value.rule, info.value.line) == (rule, line)


@pytest.mark.parametrize("data,path", [
    (b'{"a": 1, "b": 2, "a": 3}', "$"),
    (b'{"runs": [{"v": 1}, {"v": 2, "w": {"k": 1, "k": 1}}]}', "$.runs[1].w"),
    (b'[{"x": 1}, {"x": 2, "x": 2}]', "$[1]"),
])
def test_a_key_given_twice_is_refused_with_its_object_path(data: bytes, path: str) -> None:
    """Which of two values a tool meant is unknowable (Python's json and orjson keep the
    last): the document is refused, as a native trial log is."""
    with pytest.raises(TrialParseError) as info:
        load_json(data, "f.json")
    assert info.value.rule == "duplicate-key"
    assert info.value.detail.startswith(f"{path}: the key ")


def test_the_same_key_in_different_objects_is_fine() -> None:
    doc = load_json(b'{"a": {"k": 1}, "b": [{"k": 2}, {"k": 3, "a": 4}], "k": 5}', "f.json")
    assert doc == {"a": {"k": 1}, "b": [{"k": 2}, {"k": 3, "a": 4}], "k": 5}


def test_nan_is_read_and_refused_where_a_value_belongs() -> None:
    doc = load_json(b'{"v": [1, NaN]}', "f.json")
    with pytest.raises(TrialParseError) as info:
        p.numbers(doc["v"], "f.json", "$.v")
    assert info.value.rule == "non-finite" and "$.v[1]" in info.value.detail


@pytest.mark.parametrize("value", [True, "1.5", None, [1]])
def test_numbers_refuse_what_is_not_a_number(value: object) -> None:
    with pytest.raises(TrialParseError) as info:
        p.numbers([1, value], "f.json", "$.x")
    assert info.value.rule == "wrong-type" and "$.x[1]" in info.value.detail


def test_expect_and_key() -> None:
    assert p.expect(3, int, "f", "$.n", "an integer") == 3
    with pytest.raises(TrialParseError, match=r"\$\.n must be an integer, got a boolean"):
        p.expect(True, int, "f", "$.n", "an integer")
    with pytest.raises(TrialParseError, match=r"missing-key.*\$\.a\.b is missing"):
        p.key({}, "b", "f", "$.a")


def test_run_sizes_and_time() -> None:
    records = [p.record(run_id=r, run_index=0, position=i, benchmark="b", settings={},
                        metric="m", unit=None, higher_is_better=None, values=[1.0])
               for i, r in enumerate("aab")]
    assert [r["run_size"] for r in p.finish(records, "f")] == [2, 2, 1]
    with pytest.raises(TrialParseError, match="no-trials"):
        p.finish([], "f")
    assert p.rfc3339_from_ms(1700000000000) == "2023-11-14T22:13:20Z"
    assert p.rfc3339_from_ms(1700000000123) == "2023-11-14T22:13:20.123000Z"
