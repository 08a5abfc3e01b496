"""Options a verb declares as data (a report page's ``--out``, ``--campaign`` ...): what it
needs, not how a command line reads it. :mod:`perfwarehouse.cli` turns each into a click
option (:func:`perfwarehouse.cli.context.click_option`), so click stays in ``cli/``. Light:
the standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M")
"""How a time is written on the command line (read as UTC)."""


@dataclass(frozen=True)
class Option:
    """One option: ``decls`` as the command line spells it (``("--out",)``; a last
    element without dashes names the parameter, as ``("--comparison-id",
    "comparison_id")``), its ``help``, ``default`` and what its value is (``kind``):
    text, an integer, a file path (``file``: a ``Path``, not a directory), a directory
    path (``dir``) or a time in UTC (``utc``: a timezone-aware ``datetime`` from one of
    :data:`DATE_FORMATS`). ``multiple``: repeatable (a tuple); ``required``; ``metavar``:
    how ``--help`` names the value."""

    decls: tuple[str, ...]
    help: str
    default: Any = None
    kind: Literal["text", "int", "file", "dir", "utc"] = "text"
    multiple: bool = False
    required: bool = False
    metavar: str | None = None
