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

from perfwarehouse.api import Connection, connect  # noqa: E402

__all__ = ["Connection", "__version__", "connect"]
