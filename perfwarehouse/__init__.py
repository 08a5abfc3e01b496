"""perfwarehouse: a DuckDB/Parquet warehouse and batch analytics for systems
performance measurements.

Python users start with :func:`connect`::

    import perfwarehouse
    with perfwarehouse.connect() as wh:            # ./warehouse or $PERFWAREHOUSE_HOME
        df = wh.sql("SELECT hardware_type, count(*) AS n FROM measurements GROUP BY 1")

Statistics live in :mod:`perfwarehouse.stats` and :mod:`perfwarehouse.triscale`.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["Connection", "__version__", "connect"]


def __getattr__(name: str) -> object:
    # imported on first use, so the CLI starts without loading polars
    if name in ("Connection", "connect"):
        from perfwarehouse import api

        return getattr(api, name)
    raise AttributeError(f"module 'perfwarehouse' has no attribute {name!r}")
