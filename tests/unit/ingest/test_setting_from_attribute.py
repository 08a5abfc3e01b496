"""``ingest --setting-from-attribute KEY``: an attribute that alternates within a series
(benchseries' ``toolchain:`` line) becomes a setting, so its values are separate series."""

from __future__ import annotations

from perfwarehouse.ingest.formats import gotest
from perfwarehouse.ingest.formats.records import ImportOptions, apply_options

NIGHT = b"""runstamp: 2024-03-01T02:00:00Z
toolchain: baseline
pkg: example.com/p
BenchmarkX-8 \t 1000\t 1200.0 ns/op
toolchain: experiment
pkg: example.com/p
BenchmarkX-8 \t 1000\t 1100.0 ns/op
"""


def _records(options: ImportOptions) -> list[dict]:
    return apply_options(gotest.parse(NIGHT, "night.txt", options), options, "night.txt",
                         "gotest")


def test_the_attribute_moves_to_the_settings() -> None:
    plain = _records(ImportOptions(node="builder"))
    assert [r["attributes"]["toolchain"] for r in plain] == ["baseline", "experiment"]
    assert "toolchain" not in plain[0]["settings"]
    assert len({r["run_id"] for r in plain}) == 2  # two runs ...
    assert len({r["started_at"] for r in plain}) == 1  # ... at one start time

    promoted = _records(ImportOptions(node="builder", settings_from_attributes=("toolchain",)))
    assert [r["settings"]["toolchain"] for r in promoted] == ["baseline", "experiment"]
    assert all("toolchain" not in r["attributes"] for r in promoted)
    assert promoted[0]["settings"]["pkg"] == "example.com/p"  # the others stay


def test_a_missing_attribute_changes_nothing_and_setting_wins() -> None:
    options = ImportOptions(node="builder", settings=(("toolchain", "forced"),),
                            settings_from_attributes=("toolchain", "absent"))
    records = _records(options)
    assert [r["settings"]["toolchain"] for r in records] == ["forced", "forced"]
    assert all("absent" not in r["settings"] for r in records)
