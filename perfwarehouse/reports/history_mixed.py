"""The history verdict's line on series that mix what should be apart (column ``mixed``
of ``change_points``, :mod:`perfwarehouse.stats.mixing`)."""

from __future__ import annotations

import polars as pl

from perfwarehouse.reports.page import Notice

VERDICT_MIXED = 3
"""Mixed series the verdict names."""


def mixed_notice(df: pl.DataFrame) -> Notice | None:
    """One line naming the series that mix what should be apart (column ``mixed``) and
    what splits them; None when there is none."""
    if "mixed" not in df.columns:
        return None
    mixed = df.filter(pl.col("mixed").is_not_null()).unique(
        subset=["campaign", "hardware_type", "config_id"], keep="first", maintain_order=True)
    if not mixed.height:
        return None
    named = "; ".join(f"{r['config']} on {r['hardware_type']}: {r['mixed']}"
                      for r in mixed.head(VERDICT_MIXED).iter_rows(named=True))
    more = f" (and {mixed.height - VERDICT_MIXED:,} more)" if mixed.height > VERDICT_MIXED else ""
    return Notice(f"{mixed.height:,} series mix what should be apart, their change points "
                  f"not counted (split them, e.g. ingest with --setting-from-attribute KEY): "
                  f"{named}{more}.")
