"""Settings resolved once at the edge and passed down explicitly."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

DEFAULT_WAREHOUSE = "warehouse"
ENV_WAREHOUSE = "PERFWAREHOUSE_HOME"
ENV_SCHEDULER = "PERFWAREHOUSE_SCHEDULER"


def resolve_warehouse_path(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The warehouse directory: ``explicit``, else ``$PERFWAREHOUSE_HOME``, else ``./warehouse``."""
    chosen = explicit or os.environ.get(ENV_WAREHOUSE) or DEFAULT_WAREHOUSE
    return Path(chosen).expanduser().absolute()


# name -> (directory inside a wheel, directory in a source checkout)
_DATA_DIRS = {
    "sql": ("_sql", "sql"),
    "ingest": ("_ingest_defaults", "ingest"),
    "examples": ("_examples", "tests/fixtures"),
}


def data_dir(name: str) -> Path:
    """A data directory shipped with the package: ``sql``, ``ingest`` or ``examples``.

    A wheel carries them inside the package (see ``force-include`` in
    ``pyproject.toml``); a source checkout (editable install) reads them from the
    repository.
    """
    packaged, checkout = _DATA_DIRS[name]
    inside = Path(str(resources.files("perfwarehouse"))) / packaged
    if inside.is_dir():
        return inside
    return Path(__file__).resolve().parent.parent / checkout


@dataclass(frozen=True)
class Settings:
    """Global options of one CLI invocation."""

    warehouse: Path
    quiet: bool = False
    lock_timeout_s: float = 30.0
    scheduler: str | None = None  # a Dask scheduler address: analyses run on its workers
