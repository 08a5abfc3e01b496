"""A campaign's drill-down data file written piece by piece (issue 44: ``report all`` on a
campaign of many one-trial configurations held every configuration's record at once,
8.7 GB at 10^5 configurations).

:func:`~perfwarehouse.reports.drilldown.read` reads the rows of the configurations the
viewer holds (at most :data:`~perfwarehouse.reports.drilldown.VIEWER_LIMIT`) as columns;
:func:`write_data` turns them into records a piece at a time (at most
:data:`PIECE_CONFIGURATIONS` configurations and about :data:`PIECE_ROWS` rows) and writes
each piece before building the next, so the Python objects alive are one piece's. The file
is the one :func:`~perfwarehouse.reports.drilldown.data_script` writes, byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from perfwarehouse.reports.drilldown import CampaignDrill, records
from perfwarehouse.reports.render import atomic_writer
from perfwarehouse.warehouse.lookup import Configuration

PIECE_CONFIGURATIONS = 1_000
"""Configurations turned into records at once, at most."""
PIECE_ROWS = 100_000
"""ECDF and trial rows turned into records at once, about (a configuration is never split;
one with more rows is a piece of its own)."""


@dataclass(frozen=True)
class Held:
    """What the viewer page needs of its data file: each configuration's title, verdict
    level and hardware types, by key; the campaign's configurations (``total``) and how
    many of those held the site's pages link (``linked``)."""

    listed: dict[str, dict[str, Any]]
    total: int
    linked: int


def pieces(drill: CampaignDrill, most: int | None = None,
           rows: int | None = None) -> Iterator[list[Configuration]]:
    """The drill's configurations, in order, in pieces of at most ``most`` configurations
    and about ``rows`` ECDF and trial rows (default :data:`PIECE_CONFIGURATIONS` and
    :data:`PIECE_ROWS`)."""
    most = PIECE_CONFIGURATIONS if most is None else most
    rows = PIECE_ROWS if rows is None else rows
    counts: dict[int, int] = {}
    for frame in (drill.values, drill.trials):
        if frame.height:
            for i, n in frame.group_by("config_id").len().iter_rows():
                counts[int(i)] = counts.get(int(i), 0) + int(n)
    piece: list[Configuration] = []
    size = 0
    for c in drill.configurations:
        n = counts.get(c.config_id, 0)
        if piece and (len(piece) >= most or size + n > rows):
            yield piece
            piece, size = [], 0
        piece.append(c)
        size += n
    if piece:
        yield piece


def write_data(path: Path, drill: CampaignDrill) -> Held:
    """Write the campaign's data file (atomically) a piece at a time; returns what the
    viewer page lists."""
    listed: dict[str, dict[str, Any]] = {}
    dump = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
    with atomic_writer(path) as out:
        out.write('window.PW_CONFIGURATIONS = {"campaign":' + dump(drill.campaign)
                  + ',"configurations":{')
        first = True
        for piece in pieces(drill):
            for key, rec in records(drill.piece(piece)).items():
                out.write(("" if first else ",") + dump(key) + ":" + dump(rec))
                first = False
                listed[key] = {"title": rec["title"], "level": rec["level"], "hw": rec["hw"]}
        out.write("}};\n")
    return Held(listed, drill.total if drill.total >= 0 else len(listed), drill.linked)


def linked_ids(tables: list[Any], campaign: str) -> set[int]:
    """The configurations of ``campaign`` the rows of ``tables`` (Arrow tables of a site's
    pages) name by ``config_id``."""
    ids: set[int] = set()
    for table in tables:
        names = table.column_names
        if not {"campaign", "config_id"} <= set(names) or table.num_rows == 0:
            continue
        df = pl.from_arrow(table.select(["campaign", "config_id"]))
        assert isinstance(df, pl.DataFrame)
        ids.update(int(i) for i in df.filter(pl.col("campaign") == campaign)["config_id"]
                   .drop_nulls().to_list())
    return ids
