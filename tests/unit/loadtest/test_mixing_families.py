"""perfwarehouse/loadtest/mixing.py: a family whose repetitions mix servers is named, with
the key that separates them when the trials carry one."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa

from perfwarehouse.loadtest.mixing import MIXED, family_notes


def _family(attribute: bool, seed: int = 6) -> tuple[pa.Table, np.ndarray, np.ndarray]:
    """Three servers x 3 repetitions x 4 levels; groups are the levels."""
    rng = np.random.default_rng(seed)
    rows, ugid, x = [], [], []
    for level in range(4):
        for server, peak in (("a", 3950.0), ("b", 5930.0), ("c", 7900.0)):
            for _rep in range(3):
                rows.append({"node": "db", "attributes": json.dumps(
                    {"threads": 2 ** level, **({"host": server} if attribute else {})})})
                ugid.append(level)
                x.append(peak * (0.4 + 0.2 * level) * (1 + 0.008 * rng.normal()))
    return pa.Table.from_pylist(rows), np.array(ugid), np.array(x)


def test_a_family_of_three_servers_is_mixed_and_the_host_attribute_named() -> None:
    trials, ugid, x = _family(attribute=True)
    key = ("c", "hw", "sysbench oltp", "{}", "closed")
    notes = family_notes(trials, ugid, [key] * 4, np.array([1.0, 2, 4, 8]), x)
    assert list(notes) == [key]
    assert notes[key].startswith(f"{MIXED}: the repetitions of 4 of 4 levels (load 1, 2, 4, 8) "
                                 "fall into 3 groups")
    assert "split by attribute host" in notes[key]  # threads is one trial's own: not named


def test_without_a_key_it_says_so_and_a_clean_family_has_no_note() -> None:
    trials, ugid, x = _family(attribute=False)
    key = ("c", "hw", "b", "{}", "closed")
    notes = family_notes(trials, ugid, [key] * 4, np.array([1.0, 2, 4, 8]), x)
    assert "no attribute separates them" in notes[key]
    rng = np.random.default_rng(7)
    clean = 1000 * (1 + 0.05 * rng.normal(size=x.size))
    assert family_notes(trials, ugid, [key] * 4, np.array([1.0, 2, 4, 8]), clean) == {}
