"""Lazy registries: a verb by name, where it is defined and its one-line summary.

The CLI lists jobs and reports from these catalogs without importing them, so
``perfwarehouse --help`` and shell completion start without numba, scipy or DuckDB;
a job or report module is imported when its command runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class Entry:
    """``name``: the verb; ``target``: ``module:attribute`` of its object; ``summary``:
    one line for listings (the object's own help is the full text)."""

    name: str
    target: str
    summary: str

    def load(self) -> Any:
        module, attribute = self.target.split(":")
        return getattr(import_module(module), attribute)


def find(catalog: Sequence[Entry], name: str) -> Entry:
    """The entry called ``name``; KeyError naming the known ones otherwise."""
    for e in catalog:
        if e.name == name:
            return e
    raise KeyError(name)
