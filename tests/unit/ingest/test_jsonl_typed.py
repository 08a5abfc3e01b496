"""The typed read of the native trial log (:func:`perfwarehouse.ingest.formats.jsonl.read_fast`
on a file the byte kernel scans) gives exactly the rows of the checked read (every field
read as JSON, the policy's checks in SQL), on random records whose values are plain:
texts with escapes and non-ASCII, numbers of up to 30 digits and extreme exponents, nulls,
empty arrays; and a file with one value that is not plain is read again the checked way."""

from __future__ import annotations

import json
import random
from pathlib import Path
from unittest import mock

import pytest

from perfwarehouse.ingest import stage
from perfwarehouse.ingest.formats import jsonl
from tests.trial_logs import records

TEXTS = ["plain", "café", "tab\there", 'quote"q', "back\\slash", "😀", "\u2028", "", "a/b"]


def _number(rng: random.Random) -> str:
    digits = str(rng.randrange(10 ** rng.randrange(1, 30)))
    text = rng.choice(["", "-"]) + digits
    if rng.random() < 0.5:
        text += "." + str(rng.randrange(10 ** rng.randrange(1, 20)))
    if rng.random() < 0.3:
        text += rng.choice("eE") + rng.choice(["", "-", "+"]) + str(rng.randrange(300))
    return text


def _random_line(rng: random.Random, record: dict) -> str:
    """One record with random plain values, written as text (numbers as random tokens)."""
    numbers: dict[str, str] = {}
    for key in ("run_index", "position", "duration_s"):
        if key in record:
            numbers[key] = _number(rng) if rng.random() < 0.8 else "null"
            record[key] = f"@{key}@"
    record["values"] = [f"@values{i}@" for i in range(rng.randrange(4))]
    for i in range(len(record["values"])):
        numbers[f"values{i}"] = _number(rng)
    for key in ("benchmark", "metric", "unit", "revision"):
        record[key] = rng.choice(TEXTS) + str(rng.randrange(3))
    if rng.random() < 0.3:
        record["higher_is_better"] = rng.choice([True, False, None])
    line = json.dumps(record, ensure_ascii=rng.random() < 0.5)
    for key, token in numbers.items():
        line = line.replace(f'"@{key}@"', token)
    return line


def _read(path: Path, kernel_from: int) -> tuple[int | None, list[tuple], list[bool]]:
    """(records, raw_trials rows, how each insert read the file: typed or not) of
    ``read_fast`` with the kernel's scan from ``kernel_from`` bytes."""
    inserts: list[bool] = []
    real_insert_sql = jsonl._insert_sql

    def spy(path: Path, source: str, *, typed: bool) -> str:
        inserts.append(typed)
        return real_insert_sql(path, source, typed=typed)

    batch = stage.Batch(str(path), "jsonl")
    try:
        with mock.patch.object(jsonl, "KERNEL_SCAN_BYTES", kernel_from), \
                mock.patch.object(jsonl, "_insert_sql", spy):
            n = jsonl.read_fast(batch.con, path, "src")
        rows = batch.con.execute("SELECT * EXCLUDE (source) FROM raw_trials ORDER BY line")
        return n, rows.fetchall(), inserts
    finally:
        batch.close()


@pytest.mark.parametrize("seed", range(6))
def test_the_typed_read_equals_the_checked_read(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "log.jsonl"
    path.write_text("".join(_random_line(rng, r) + "\n" for r in records(runs=4, tests=5)),
                    encoding="utf-8")
    n, typed, inserts = _read(path, 0)
    assert inserts == [True]  # read once, typed: every value was plain
    n_checked, checked, inserts = _read(path, 1 << 62)
    assert inserts == [False]
    assert n == n_checked == 20
    assert typed == checked


@pytest.mark.parametrize("odd", [{"campaign": 7}, {"run_index": "3"}, {"values": [1, "2.5"]}])
def test_a_value_that_is_not_plain_is_read_again_the_checked_way(
        tmp_path: Path, odd: dict) -> None:
    lines = records(runs=2, tests=3)
    lines[3].update(odd)
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    n, typed, inserts = _read(path, 0)
    assert inserts == [True, False]
    assert (n, typed) == _read(path, 1 << 62)[:2]
    assert n == 6
