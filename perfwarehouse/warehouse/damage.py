"""One line for an error about a data file that could not be read (truncated, missing,
overwritten): commands that meet a damaged file say which and what to do, instead of
DuckDB's multi-line message or a traceback. ``perfwarehouse check``
(:mod:`perfwarehouse.warehouse.verify`) then lists every damaged file.
"""

from __future__ import annotations

import errno
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfwarehouse.warehouse.layout import DataFile

DATA_DIR = "/measurements/"

# DuckDB's and Arrow's words for a Parquet file they could not read -> what to say
_DAMAGE = (
    (re.compile(r"magic bytes|too small to be a parquet file|parquet magic", re.I),
     "damaged (no Parquet footer: truncated or overwritten)"),
    (re.compile(r"no files found that match|cannot open file|no such file", re.I), "missing"),
    (re.compile(r"corrupt|invalid .{0,80}parquet|parquet .{0,80}invalid|failed to read|"
                r"unexpected end|thrift", re.I), "damaged (unreadable)"),
)
_OWN_LINE = re.compile(r"data file \S+ is (?:missing|damaged \(.*?\)); `perfwarehouse check` "
                       r"lists every damaged file[^\n]*")
_QUOTED_PATH = re.compile(r"""["']([^"'\n]*?/measurements/[^"'\n]*?\.parquet)["']""")
_PATH = re.compile(r"""(\S*?/measurements/\S+?\.parquet)""")


def damage_message(exc: BaseException, root: Path | None = None) -> str | None:
    """One line naming the data file ``exc`` (a DuckDB or Arrow error) could not read and
    what to do, or None when ``exc`` is not about a data file of a warehouse."""
    text = str(exc)
    own = _OWN_LINE.search(text)  # a reader's own line, raised through DuckDB's error()
    if own is not None:
        return own.group(0)
    what = next((said for words, said in _DAMAGE if words.search(text)), None)
    found = _QUOTED_PATH.search(text) or _PATH.search(text)
    if found is None or what is None:
        return None
    path = found.group(1)
    if root is not None and path.startswith(str(root) + os.sep):
        path = os.path.relpath(path, root)
    elif DATA_DIR in path:
        path = path[path.index(DATA_DIR) + 1:]
    return (f"data file {path} is {what}; `perfwarehouse check` lists every damaged file "
            "and how to recover")


#: DuckDB's errors about the query itself, never about a file it read
_QUERY_MISTAKES = frozenset({
    "ParserException", "BinderException", "CatalogException", "ConversionException",
    "OutOfRangeException", "PermissionException", "InterruptException",
    "OutOfMemoryException", "ConstraintException", "NotImplementedException",
    "TypeMismatchException", "SyntaxException"})


def damaged_file_line(exc: BaseException) -> str | None:
    """:func:`damage_message`; else, when ``exc`` is an error of DuckDB or Arrow (or of
    decoding DuckDB's message: a damaged footer can put invalid UTF-8 into it) that does
    not name a file, the first damaged data file of the warehouses this process read
    (:func:`diagnose`), or None."""
    message = damage_message(exc)
    if message is not None:
        return message
    views = sys.modules.get("perfwarehouse.warehouse.views")
    module = type(exc).__module__ or ""
    if views is None or not (isinstance(exc, UnicodeDecodeError)
                             or module.split(".")[0] in ("duckdb", "_duckdb", "pyarrow")):
        return None
    if type(exc).__name__ in _QUERY_MISTAKES:  # a typo costs no examination of the files
        return None
    for root in sorted(views.OPENED):
        found = diagnose(root)
        if found is not None:
            return found
    return None


def diagnose(root: Path, files: Sequence[DataFile] | None = None) -> str | None:
    """One line naming the first damaged data file of ``files`` (default: every listed
    file) - missing, not a regular file, of another size or row count, an unreadable
    footer, other columns, content other than its checksum - or None when none is."""
    import duckdb

    from perfwarehouse.errors import WarehouseBusy
    from perfwarehouse.warehouse.connection import is_lock_error
    from perfwarehouse.warehouse.layout import CATALOG, listed_files
    from perfwarehouse.warehouse.lock import retry_while_locked
    from perfwarehouse.warehouse.verify import first_damage

    if files is None:  # the catalog's list, read as a reader would (no recovery: a diagnosis)
        catalog = str(root / CATALOG)
        try:
            con = retry_while_locked(lambda: duckdb.connect(catalog, read_only=True),
                                     f"reading {catalog}", 5.0, is_lock_error)
            try:
                files = listed_files(con)
            finally:
                con.close()
        except (duckdb.Error, WarehouseBusy, OSError):
            return None
    return first_damage(root, files)


def disk_full_message(exc: BaseException) -> str | None:
    """One line for a write that failed on a full disk (DuckDB says it in the middle of
    a longer message, e.g. ``Failed to commit: Could not write file "...wal": No space
    left on device``), or None. A failed write leaves the warehouse as it was (the
    transaction did not commit; its staged files are removed by the next writer)."""
    text = str(exc)
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "No space left on device" in text:
        first = text.strip().splitlines()[0] if text.strip() else "No space left on device"
        return f"No space left on device ({first}); free some space and run the command again"
    return None
