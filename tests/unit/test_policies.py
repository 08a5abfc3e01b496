"""The pure policies both sides import (perfwarehouse/policies/) and the generic file lock:
the agent's --revision-time check is the importer's timestamp rule, and the ingest
modules' name for the JSON policy is the same objects, not a copy."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from perfwarehouse.filelock import exclusive_lock
from perfwarehouse.ingest import json_policy
from perfwarehouse.policies import PolicyError, json_text, timestamps


@pytest.mark.parametrize("text, expected", [
    ("2024-05-01T10:00:00Z", datetime(2024, 5, 1, 10, tzinfo=timezone.utc)),
    ("2024-05-01 12:00:00+14:00", datetime(2024, 4, 30, 22, tzinfo=timezone.utc)),
    ("1970-01-01T00:00:00", datetime(1970, 1, 1, tzinfo=timezone.utc)),
    ("2024-05-01T10:00:00.123456789Z", datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=timezone.utc)),
    ("2024-05-01", None),  # a bare date
    ("2024-05-01T10:00:00+14:01", None),  # offset beyond 14:00
    ("1969-12-31T23:59:59Z", None),  # before 1970
    ("9999-12-31T23:30:00-01:00", None),  # after 9999 in UTC
    ("2024-02-30T10:00:00Z", None),  # no such day
    (1714557600, None),  # a number is not a timestamp here
])
def test_timestamp_or_none_is_the_readers_rule(text: object, expected: datetime | None) -> None:
    assert timestamps.timestamp_or_none(text) == expected
    if expected is None:
        with pytest.raises(PolicyError) as caught:
            timestamps.parse_timestamp(text, "revision_time")
        assert caught.value.rule == "bad-timestamp"
        assert "revision_time" in caught.value.detail
    else:
        assert timestamps.parse_timestamp(text) == expected


def test_the_ingest_name_is_the_policies_objects() -> None:
    for name in json_policy.__all__:
        source = timestamps if hasattr(timestamps, name) and name != "PolicyError" \
            else json_text
        assert getattr(json_policy, name) is getattr(source, name), name
    assert json_policy.PolicyError is PolicyError is json_text.PolicyError


def test_the_file_lock_names_its_holder_and_refuses_a_second(tmp_path: Path) -> None:
    class Busy(Exception):
        pass

    path = tmp_path / ".lock"
    with exclusive_lock(path, "first holder", 0, Busy):
        with pytest.raises(Busy, match=rf"pid {os.getpid()} \(first holder, since "):
            with exclusive_lock(path, "second", 0, Busy):
                pass  # pragma: no cover
    with exclusive_lock(path, "second", 0, Busy):  # released: free again
        assert "second" in path.read_text()
    assert path.read_text() == ""
