"""Names a user types, checked against what the warehouse holds: one configuration picked
by benchmark, metric, settings and hardware type; unknown or ambiguous names are one line
with the known ones and the closest match."""

from __future__ import annotations

import duckdb
import pytest

from perfwarehouse.errors import UsageError
from perfwarehouse.warehouse.lookup import (
    ConfigurationQuery,
    parse_settings,
    require_known,
    resolve_configuration,
    unknown_name_message,
)

CONFIGS = [  # config_id, benchmark, settings, metric
    (1, "npb-mg", '{"freq":"base","threads":1}', "runtime"),
    (2, "npb-mg", '{"freq":"base","threads":10}', "runtime"),
    (3, "npb-mg", '{"freq":"max","threads":10}', "runtime"),
    (4, "stream", '{"kernel":"copy"}', "bandwidth"),
    (5, "stream", '{"kernel":"copy"}', "latency"),
    (6, "other-campaign-only", "{}", "runtime"),
]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute("CREATE TABLE campaigns (campaign VARCHAR)")
    c.execute("INSERT INTO campaigns VALUES ('longterm'), ('other')")
    c.execute("CREATE TABLE configurations (config_id UBIGINT, benchmark VARCHAR, settings JSON, "
              "metric VARCHAR, unit VARCHAR, higher_is_better BOOLEAN)")
    for cid, bench, settings, metric in CONFIGS:
        c.execute("INSERT INTO configurations VALUES (?, ?, ?, ?, 's', false)",
                  [cid, bench, settings, metric])
    c.execute("CREATE TABLE measurements (campaign VARCHAR, hardware_type VARCHAR, "
              "config_id UBIGINT)")
    for cid in (1, 2, 3, 4, 5):
        for hw in ("c220g5", "c240g5"):
            c.execute("INSERT INTO measurements VALUES ('longterm', ?, ?)", [hw, cid])
    c.execute("INSERT INTO measurements VALUES ('other', 'm510', 6)")
    return c


def pick(con: duckdb.DuckDBPyConnection, benchmark: str, metric: str | None = None,
         settings: tuple[str, ...] = (), hardware_type: str | None = None,
         campaign: str = "longterm") -> int:
    return resolve_configuration(con, ConfigurationQuery(
        campaign, benchmark, metric, parse_settings(settings), hardware_type)).config_id


def test_settings_as_json_or_key_value_words() -> None:
    assert parse_settings(['{"threads": 10, "freq": "base"}']) == (("threads", "10"),
                                                                    ("freq", "base"))
    assert parse_settings(["threads=10 freq=base", "x="]) == (("threads", "10"),
                                                             ("freq", "base"), ("x", ""))
    for bad in (["threads"], ["{not json"], ["[1, 2]"], ["=3"]):
        with pytest.raises(UsageError, match="--settings"):
            parse_settings(bad)


def test_one_configuration_by_its_distinguishing_settings(con) -> None:  # type: ignore[no-untyped-def]
    assert pick(con, "npb-mg", settings=("freq=max",)) == 3
    assert pick(con, "npb-mg", settings=('{"freq": "base", "threads": 10}',)) == 2
    assert pick(con, "npb-mg", "runtime", ("threads=1",)) == 1
    assert pick(con, "stream", "latency") == 5
    found = resolve_configuration(con, ConfigurationQuery("longterm", "stream", "bandwidth",
                                                          (), "c240g5"))
    assert (found.config_id, found.hardware_type, found.hardware_types) == (
        4, "c240g5", ("c220g5", "c240g5"))
    assert found.settings == '{"kernel":"copy"}' and found.unit == "s"


def test_unknown_benchmark_names_the_known_and_the_closest(con) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as err:
        pick(con, "npb-mgg")
    assert str(err.value) == ("--benchmark: unknown benchmark 'npb-mgg' (did you mean "
                              "'npb-mg'?); known: npb-mg, stream")
    # a benchmark of another campaign is not one of this campaign's
    with pytest.raises(UsageError, match="unknown benchmark 'other-campaign-only'"):
        pick(con, "other-campaign-only")


def test_ambiguous_selection_lists_the_candidates(con) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as err:
        pick(con, "npb-mg", settings=("threads=10",))
    text = str(err.value)
    assert text.startswith("2 configurations of npb-mg in campaign longterm match")
    assert "--settings 'freq=base threads=10'" in text and "--settings 'freq=max threads=10'" in text
    assert "--metric" not in text.split("pick one: ", 1)[1]  # one metric: not what tells them apart
    assert "\n" not in text
    with pytest.raises(UsageError, match="--metric bandwidth --settings 'kernel=copy'"):
        pick(con, "stream")


def test_unknown_settings_metric_and_hardware_type_say_did_you_mean(con) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as err:
        pick(con, "npb-mg", settings=("freq=bse", "threads=10"))
    assert "did you mean 'freq=base threads=10'?" in str(err.value)  # by the keys typed
    assert "known: freq=base threads=1, freq=base threads=10, freq=max threads=10" in str(err.value)
    with pytest.raises(UsageError, match=r"--metric: unknown metric of stream 'latncy' \(did you "
                                         r"mean 'latency'\?\); known: bandwidth, latency"):
        pick(con, "stream", "latncy")
    with pytest.raises(UsageError) as err:
        pick(con, "npb-mg", settings=("freq=max",), hardware_type="c220g")
    assert str(err.value) == ("--hardware-type: unknown hardware type of this configuration "
                              "'c220g' (did you mean 'c220g5'?); known: c220g5, c240g5")
    with pytest.raises(UsageError, match="unknown campaign 'longtrm' \\(did you mean 'longterm'"):
        pick(con, "npb-mg", campaign="longtrm")


def test_messages_without_a_close_match_or_known_names() -> None:
    assert unknown_name_message("hardware type", "zzz", ["c220g5"], "--hardware-type") == (
        "--hardware-type: unknown hardware type 'zzz'; known: c220g5")
    assert unknown_name_message("campaign", "x", [], "--campaign") == (
        "--campaign: unknown campaign 'x'; the warehouse has no campaign yet")
    require_known("hardware type", None, [])  # nothing asked: nothing to check
    require_known("hardware type", "c220g5", ["c220g5"])
    with pytest.raises(UsageError, match="and 5 more"):
        require_known("benchmark", "b", [f"bench{i:02d}" for i in range(25)])
