"""The byte scan of JSON Lines (:mod:`perfwarehouse.kernels.json_lines`) against a slow
obvious twin: Python's json module for the top-level keys and the types of their values, a
character walk for trailing commas, on random records with nesting, escapes, non-ASCII
text and lookalike keys."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from perfwarehouse.kernels.json_lines import (
    ARRAY,
    BOOLEAN,
    NULL,
    NUMBER,
    OBJECT,
    ODD_TYPE,
    STRING,
    TRAILING_COMMA,
    UNKNOWN_KEY,
    key_table,
    scan_lines,
)

KNOWN = ("v", "campaign", "values", "settings", "env", "revision_time", "x~y", "é")
TABLE = key_table(KNOWN)


def scan(text: str) -> int:
    return int(scan_lines(np.frombuffer(text.encode(), np.uint8), *TABLE))


def twin_unknown(record: dict, ensure_ascii: bool) -> bool:
    """Is a top-level key outside KNOWN, or written with an escape?"""
    return any(k not in KNOWN or "\\" in json.dumps(k, ensure_ascii=ensure_ascii)
               for k in record)


def random_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1.5, 1e300, 12345678901234567890])
    if kind in (2, 3):
        return rng.choice(["", "a,}", 'q"uote', "back\\slash", "ünï", "campaign", "{[", "\t"])
    if kind == 4:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {random_key(rng): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def random_key(rng: random.Random) -> str:
    return rng.choice([*KNOWN, "campaig", "campaignx", "Campaign", "note", "", "x/y", "é", "e"])


def random_record(rng: random.Random) -> dict:
    keys = rng.sample(list(KNOWN), rng.randrange(len(KNOWN)))
    if rng.random() < 0.3:
        keys.append(random_key(rng))
    return {k: random_value(rng) for k in keys}


@pytest.mark.parametrize("seed", range(40))
def test_unknown_keys_agree_with_the_json_module(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        record = random_record(rng)
        ascii_only = rng.random() < 0.5
        line = json.dumps(record, ensure_ascii=ascii_only,
                          separators=rng.choice([(",", ":"), (", ", ": ")]))
        assert json.loads(line) == record
        expected = UNKNOWN_KEY if twin_unknown(record, ascii_only) else 0
        assert scan(line) == expected, line
        assert scan(line + "\n") == expected, line


def test_keys_are_compared_whole_and_escapes_flag() -> None:
    assert scan('{"campaign": 1, "values": [1, 2], "env": {"note": "campaignx"}}') == 0
    assert scan('{"campaignx": 1}') == UNKNOWN_KEY
    assert scan('{"campaig": 1}') == UNKNOWN_KEY
    assert scan('{"c\\u0061mpaign": 1}') == UNKNOWN_KEY  # decodes to a known key: asked of DuckDB
    assert scan('{"env": {"anything": 1}, "v": "note"}') == 0  # nested keys, string values
    assert scan('["campaign", "note"]') == UNKNOWN_KEY  # a top-level array is not a record
    assert scan('{"é": 1, "x~y": 2}') == 0


def test_trailing_commas_outside_strings_flag() -> None:
    assert scan('{"v": 1,}') == TRAILING_COMMA
    assert scan('{"values": [1, 2 , ]}') == TRAILING_COMMA
    assert scan('{"env": {"a": 1,\t}}') == TRAILING_COMMA
    assert scan('{"v": ", }", "env": "[1,]"}') == 0  # inside strings: not a trailing comma
    assert scan('{"v": "a\\", }"}') == 0  # an escaped quote does not end the string


def test_each_line_starts_afresh() -> None:
    # a broken line (an unclosed string) does not hide the next line's unknown key
    assert scan('{"v": "unclosed\n{"note": 1}\n') == UNKNOWN_KEY
    assert scan('{"v": 1}\n\n{"campaign": 2}\n') == 0
    lines = "".join(json.dumps({"v": i, "env": {"note": i}}) + "\n" for i in range(1000))
    assert scan(lines) == 0 and scan(lines + '{"note": 1}') == UNKNOWN_KEY


def test_the_key_table_finds_every_key_and_only_those() -> None:
    table = key_table([f"key{i}" for i in range(300)])
    for i in range(300):
        assert scan_lines(np.frombuffer(f'{{"key{i}": 1}}'.encode(), np.uint8), *table) == 0
    for other in ("key300", "key", "key01", "kez1"):
        assert scan_lines(np.frombuffer(f'{{"{other}": 1}}'.encode(), np.uint8),
                          *table) == UNKNOWN_KEY


# plain types of some keys (the rest: any type, not looked at)
PLAIN = {"v": NUMBER | NULL, "campaign": STRING | NULL, "values": ARRAY | NULL,
         "revision_time": STRING | NULL, "é": BOOLEAN | NULL}
TYPED = key_table(KNOWN, PLAIN)


def typed_scan(text: str) -> int:
    return int(scan_lines(np.frombuffer(text.encode(), np.uint8), *TYPED))


def twin_kind(value: object) -> int:
    """The JSON type bit of a decoded value (a non-finite number is written NaN or
    Infinity: not a plain number; an array is plain when its elements are numbers)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOLEAN
    if isinstance(value, (int, float)):
        return NUMBER if math.isfinite(value) else 0
    if isinstance(value, str):
        return STRING
    if isinstance(value, dict):
        return OBJECT
    assert isinstance(value, list)
    return ARRAY if all(twin_kind(e) == NUMBER for e in value) else 0


def twin_odd(record: dict) -> bool:
    return any(twin_kind(v) & PLAIN[k] == 0 for k, v in record.items() if k in PLAIN)


@pytest.mark.parametrize("seed", range(40))
def test_odd_types_agree_with_the_json_module(seed: int) -> None:
    rng = random.Random(1000 + seed)
    for _ in range(50):
        record = random_record(rng)
        for key in rng.sample(list(PLAIN), 2):  # plain-looking values, often
            record[key] = rng.choice([None, True, -0.0, -7, 2.5e-300, "t", [1, -2.5e10],
                                      [], [1, "2"], [[1]], [None], float("nan"), {}])
        line = json.dumps(record, ensure_ascii=rng.random() < 0.5,
                          separators=rng.choice([(",", ":"), (", ", ": ")]))
        escaped = any("\\" in json.dumps(k, ensure_ascii="\\u" in line) for k in record)
        odd = ODD_TYPE if twin_odd(record) or escaped else 0  # an escaped key may be typed
        unknown = UNKNOWN_KEY if twin_unknown(record, "\\u" in line) else 0
        assert typed_scan(line) & (ODD_TYPE | UNKNOWN_KEY) == odd | unknown, line
        assert typed_scan(line + "\n" + line) & ODD_TYPE == odd, line
        assert scan(line) & ODD_TYPE == 0  # without plain types nothing is odd


def test_odd_types_by_their_first_bytes() -> None:
    assert typed_scan('{"v": 1.5e3, "campaign": "c", "values": [1, -2, 3e-5], "é": false}') == 0
    assert typed_scan('{"v": null, "campaign": null, "values": null, "é": null}') == 0
    assert typed_scan('{"values": [ ]}\n{"values":[]}') == 0
    for odd in ('{"v": "1.5"}', '{"v": true}', '{"v": -Infinity}', '{"v": NaN}',
                '{"v": nul}', '{"campaign": 12}', '{"campaign": {"a": 1}}',
                '{"values": [1, "2"]}', '{"values": [1, [2]]}', '{"values": [1, null]}',
                '{"values": 3}', '{"é": "true"}', '{"é": 1}'):
        assert typed_scan(odd) == ODD_TYPE, odd
    # keys of nested objects and other keys' values are not looked at
    assert typed_scan('{"env": {"v": "x", "values": ["a"]}, "settings": [true]}') == 0
    # each line starts afresh: a broken line does not hide the next line's odd value
    assert typed_scan('{"v": "unclosed\n{"v": "1"}\n') == ODD_TYPE
    assert typed_scan('{"\\u0076": 1}') == ODD_TYPE | UNKNOWN_KEY  # "v", escaped
