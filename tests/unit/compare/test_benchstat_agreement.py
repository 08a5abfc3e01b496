"""compare at its defaults against benchstat's golden tables (golang.org/x/perf,
cmd/benchstat/testdata; tests/fixtures/benchstat/ names the source and licence).

A row agrees when benchstat shows a change (a percentage) and compare says slower or
faster in that direction, or benchstat shows ~ (or no comparison) and compare says
neither. The p-values are benchstat's exact Mann-Whitney ones to its three decimals."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from perfwarehouse.compare import compare_table

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "benchstat"


def _rows(name: str) -> list[list[str]]:
    lines = (FIXTURES / name).read_text().splitlines()
    return [line.split("|") for line in lines if line and not line.startswith("#")]


def _compared() -> dict[tuple[str, str], dict[str, object]]:
    out: dict[tuple[str, str], dict[str, object]] = {}
    samples = _rows("samples.txt")
    for table in dict.fromkeys(r[0] for r in samples):  # one benchstat table = one family
        records = [{"benchmark": bench, "higher_is_better": False,
                    "side": "baseline" if side == "before" else "contender", "value": float(v)}
                   for t, bench, side, values in samples if t == table
                   for v in values.split()]
        result = compare_table(pa.Table.from_pylist(records), ["benchmark"])
        for row in result.to_pylist():
            out[(table, str(row["benchmark"]))] = row
    return out


def test_defaults_agree_with_benchstat_on_at_least_95_percent_of_rows() -> None:
    got = _compared()
    golden = _rows("golden.txt")
    agree = []
    for table, bench, delta, _ in golden:
        row = got[(table, bench)]
        if delta.endswith("%"):
            want = "faster" if float(delta[:-1]) < 0 else "slower"  # sec/op: lower is better
            agree.append(row["verdict"] == want)
        else:
            agree.append(row["verdict"] not in ("slower", "faster"))
    assert len(agree) == 7
    assert sum(agree) / len(agree) >= 0.95, [g[:2] for g, a in zip(golden, agree) if not a]


@pytest.mark.parametrize("table,bench,p", [(r[0], r[1], r[3]) for r in _rows("golden.txt")
                                           if r[3]])
def test_p_values_are_benchstats(table: str, bench: str, p: str) -> None:
    row = _compared()[(table, bench)]
    assert row["p_value"] is not None
    assert abs(float(row["p_value"]) - float(p)) <= 0.0005 + 1e-12
