"""The inputs of ``ingest FORMAT|auto PATH...``: which files, in which format, read how.

The edge between the paths a user names and the pure parsers. Bounded by design
(issue 44 H5): a file's format is told from a prefix of at most
:data:`~perfwarehouse.ingest.formats.records.SNIFF_BYTES` (decompressed) bytes; only a
file that a format claims is read whole, when it is parsed (one at a time), and a
file over :data:`~perfwarehouse.ingest.limits.INPUT_MAX` bytes is refused in one line
naming it. A directory walk lists every entry it does not read, with the reason:
hidden directories, FIFOs, sockets, devices, dangling links (issue 44 H14); a FIFO or
device is never opened.

How a format registers: a module in :mod:`perfwarehouse.ingest.formats` with ``NAME``,
``DESCRIPTION``, ``sniff(head, filename)`` and ``parse(data, source, options)``, named in
:data:`perfwarehouse.ingest.formats.IMPORTERS`. Nothing here needs to change.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perfwarehouse.errors import TrialParseError, UsageError
from perfwarehouse.ingest.formats import _text
from perfwarehouse.ingest.limits import INPUT_MAX
from perfwarehouse.output import file_kind

GZIP_MAGIC = b"\x1f\x8b"

#: at most this many lines (a shell prompt, the command line, a label) above a JSON
#: document, as above a text format's output
PREAMBLE_LINES = _text.PREAMBLE_LINES


@dataclass(frozen=True)
class ImportFile:
    """One input of ``ingest <format>``: its path, format and (decompressed) content.

    ``data`` is None for a file that is read only when it is parsed (:meth:`content`),
    so that a walk over many files holds one file's bytes at a time."""

    path: Path
    data: bytes | None
    format: str
    #: a results directory read whole (asv): relative posix path -> decompressed bytes
    files: dict[str, bytes] | None = None
    #: the format was told from the content (``ingest auto``), not named by the user
    detected: bool = False
    #: found below a directory argument: a file its format refuses is skipped, not fatal
    walked: bool = False
    #: the format claimed the file once the lines above its JSON were blanked
    preamble: bool = False

    def content(self) -> bytes:
        """The bytes to parse (read now when not held; see :func:`read_input`)."""
        data = self.data if self.data is not None else read_input(self.path)
        if self.preamble:
            data = without_preamble(data) or data
        return data


@dataclass(frozen=True)
class Skipped:
    """A file below a directory argument that is not ingested, and why (one line)."""

    path: Path
    reason: str


def _open_regular(path: Path) -> int:
    """A descriptor of ``path`` opened for reading, refused (``not-a-file``) unless it is a
    regular file: opened non-blocking, so that a FIFO put in its place never hangs."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise TrialParseError(str(path), 0, "unreadable", exc.strerror or str(exc)) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise TrialParseError(str(path), 0, "not-a-file",
                              "not a regular file (a FIFO, socket or device): not read")
    return fd


def read_input(path: Path) -> bytes:
    """The bytes of ``path``, gunzipped when they start with the gzip magic (not by name);
    ``too-large`` past :data:`~perfwarehouse.ingest.limits.INPUT_MAX` bytes (before or
    after decompression), without reading it."""
    from perfwarehouse.ingest.bounded import gunzip

    with os.fdopen(_open_regular(path), "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > INPUT_MAX:
            raise TrialParseError(str(path), 0, "too-large", _too_large(size))
        raw = f.read(INPUT_MAX + 1)
    if len(raw) > INPUT_MAX:  # it grew while read
        raise TrialParseError(str(path), 0, "too-large", _too_large(len(raw)))
    if raw[:2] != GZIP_MAGIC:
        return raw
    return gunzip(raw, str(path))  # at most limits.DECOMPRESSED_MAX bytes


def _too_large(size: int) -> str:
    return (f"{size:,} bytes, more than the {INPUT_MAX:,} an importer reads "
            "(limits.INPUT_MAX): split the file, or keep only the results in it")


def read_head(path: Path, size: int | None = None) -> bytes:
    """At most ``size`` (default :data:`SNIFF_BYTES`) bytes of the start of ``path``'s
    content, decompressed when it is gzip: what ``sniff`` sees, never the whole file."""
    from perfwarehouse.ingest.formats.records import SNIFF_BYTES

    size = SNIFF_BYTES if size is None else size
    with os.fdopen(_open_regular(path), "rb") as f:
        raw = f.read(size)
        if raw[:2] != GZIP_MAGIC:
            return raw
        f.seek(0)
        try:
            with gzip.GzipFile(fileobj=f) as unzipped:
                return unzipped.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise TrialParseError(str(path), 0, "truncated",
                                  f"gzip data is broken or cut short ({exc})") from None


def detect_format(data: bytes, filename: str) -> list[str]:
    """Names of the registered formats whose ``sniff`` claims this content."""
    from perfwarehouse.ingest.formats import load_all
    from perfwarehouse.ingest.formats.records import SNIFF_BYTES

    head = data[:SNIFF_BYTES]
    name = filename[:-3] if filename.endswith(".gz") else filename
    return [fmt for fmt, module in load_all().items() if module.sniff(head, name)]


def without_preamble(data: bytes) -> bytes | None:
    """``data`` with the text lines above its JSON document blanked (a shell prompt, the
    command line, a label saved with the output: ``$ ./bench --benchmark_format=json``),
    newlines kept so that problems name the file's own lines; None when ``data`` does
    not have that shape (it starts with JSON, or no line of the first
    :data:`PREAMBLE_LINES` + 1 starts a JSON object or list)."""
    if data.lstrip()[:1] in (b"{", b"["):
        return None
    offset = 0
    for _ in range(PREAMBLE_LINES):
        end = data.find(b"\n", offset)
        if end < 0:
            return None
        offset = end + 1
        if data[offset:offset + 1] in (b"{", b"["):
            return b"\n" * data.count(b"\n", 0, offset) + data[offset:]
    return None


def claims(head: bytes, filename: str) -> tuple[bool, list[str]]:
    """(whether the lines above a JSON document are to be blanked, the formats claiming
    the file) from its first bytes: the file as it is, else without a command line above
    its JSON when a format claims that."""
    found = detect_format(head, filename)
    if found:
        return False, found
    stripped = without_preamble(head)
    if stripped is not None:
        found = detect_format(stripped, filename)
        if found:
            return True, found
    return False, found


def collect_inputs(fmt: str, paths: Sequence[Path],
                   skipped: list[Skipped] | None = None) -> list[ImportFile]:
    """The inputs of ``ingest FMT`` (``auto``: each file's format by its first bytes).

    A file named on the command line that no format (or several, or another format than
    FMT) claims is refused with one line. A directory stands for every file below it (in
    name order): each asv results tree inside it is one asv input (only the files of the
    tree: its ``benchmarks.json``, the machine directories' files), every other file is
    an input of the format that claims it, and a file no format claims (or several, or
    one that cannot be read, or that is not a regular file) is appended to ``skipped``
    with the reason. Files in hidden directories (``.git``) are skipped too, one entry
    per hidden directory. Contents are read when parsed (:meth:`ImportFile.content`).
    """
    from perfwarehouse.ingest.formats import load

    if fmt != "auto":
        load(fmt)
    skipped = skipped if skipped is not None else []
    out: list[ImportFile] = []
    for path in (Path(p) for p in paths):
        if path.is_dir():
            before = len(skipped)
            walked = _walk(path, fmt, skipped)
            if not walked:
                what = "any format" if fmt == "auto" else fmt
                reasons = "; ".join(f"{s.path.name}: {s.reason}" for s in skipped[before:][:3])
                raise UsageError(f"{path}: no file in this directory looks like {what} results"
                                 + (f" ({reasons})" if reasons else ""))
            out.extend(walked)
            continue
        if not path.is_file():
            raise UsageError(f"{path} is not a file")
        strip, found = claims(read_head(path), path.name)
        if fmt != "auto":
            if found and fmt not in found:
                raise UsageError(f"{path} looks like {' or '.join(found)} results, not {fmt}; "
                                 f"use perfwarehouse ingest {found[0]} (or ingest auto)")
            out.append(ImportFile(path, None, fmt, preamble=strip))
            continue
        if not found:
            raise UsageError(f"{path}: cannot tell its format (none of {', '.join(_names())} "
                             "recognises it); name it: perfwarehouse ingest FORMAT PATH")
        if len(found) > 1:
            raise UsageError(f"{path}: looks like {' and '.join(found)}; name the format: "
                             f"perfwarehouse ingest {found[0]} PATH")
        out.append(ImportFile(path, None, found[0], detected=True, preamble=strip))
    return out


def _special(path: Path) -> str | None:
    """Why ``path`` (found in a walk) is not a file to read, or None for a regular file
    (or a link to one). Uses ``lstat``/``stat`` only: nothing is opened."""
    try:
        mode = path.lstat().st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    link = stat.S_ISLNK(mode)
    if link:
        try:
            mode = path.stat().st_mode
        except OSError:
            return "a dangling link (its target does not exist): not read"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):  # a directory (rglob lists it on its own)
        return ""
    kind = file_kind(mode)
    return f"{'a link to ' + kind if link else kind}: not read"


#: hidden directories that hold a tool's results, walked like any other
#: (pytest-benchmark's saves); other hidden directories (.git, .asv's environments) are not
TOOL_DIRS = frozenset({".benchmarks"})


def _walk(root: Path, fmt: str, skipped: list[Skipped]) -> list[ImportFile]:
    """The inputs below directory ``root`` (see :func:`collect_inputs`)."""
    files: list[Path] = []
    hidden: dict[Path, int] = {}  # hidden top entry -> files below it
    for child in sorted(root.rglob("*")):
        rel = child.relative_to(root).parts
        dot = next((i for i, part in enumerate(rel)
                    if part.startswith(".") and part not in TOOL_DIRS), None)
        if dot is not None:
            if child.is_file():
                top = root.joinpath(*rel[:dot + 1])
                hidden[top] = hidden.get(top, 0) + 1
            continue
        why = _special(child)
        if why is None:
            files.append(child)
        elif why:
            skipped.append(Skipped(child, why))
    for top, count in sorted(hidden.items()):
        skipped.append(Skipped(top, f"hidden ({count:,} file{'s' * (count > 1)} not read)"))
    out: list[ImportFile] = []
    taken: set[Path] = set()
    if fmt in ("asv", "auto"):
        for tree, members in asv_trees(root, files).items():
            contents = {m.relative_to(tree).as_posix(): read_input(m) for m in members}
            out.append(ImportFile(tree, b"", "asv", contents, detected=fmt == "auto",
                                  walked=True))
            taken.update(members)
    if fmt in ("criterion", "auto"):
        out.extend(criterion_trees(root, files, fmt, taken))
    for child in files:
        if child in taken:
            continue
        try:
            strip, found = claims(read_head(child), child.name)
        except TrialParseError as exc:
            skipped.append(Skipped(child, f"[{exc.rule}] {exc.detail}"))
            continue
        if fmt == "auto" and len(found) == 1:
            out.append(ImportFile(child, None, found[0], detected=True, walked=True,
                                  preamble=strip))
        elif fmt != "auto" and fmt in found:
            out.append(ImportFile(child, None, fmt, walked=True, preamble=strip))
        elif not found:
            skipped.append(Skipped(child, "no format recognises it" if fmt == "auto"
                                   else f"not {fmt} results"))
        elif fmt == "auto":
            skipped.append(Skipped(child, f"looks like {' and '.join(found)}; name the "
                                          "format: perfwarehouse ingest FORMAT PATH"))
        else:
            skipped.append(Skipped(child, f"looks like {' or '.join(found)} results, "
                                          f"not {fmt}"))
    return sorted(out, key=lambda item: str(item.path))


def asv_trees(root: Path, files: Sequence[Path]) -> dict[Path, list[Path]]:
    """The asv results trees among ``files`` (below ``root``), each with its files.

    An asv machine directory holds ``machine.json`` and result files
    (``<commit>-<env>.json``); its tree is the directory above it when that holds asv's
    ``benchmarks.json`` (the ``results/`` folder, with every machine's directory), else
    the machine directory itself. A tree's files are its ``benchmarks.json`` and the
    JSON files directly in its machine directories: no other file is asv's."""
    from perfwarehouse.ingest.formats import asv

    by_dir: dict[Path, list[Path]] = {}
    for f in files:
        by_dir.setdefault(f.parent, []).append(f)
    trees: dict[Path, list[Path]] = {}
    for directory, members in sorted(by_dir.items()):
        if not asv.is_results_directory([m.name for m in members]):
            continue
        parent = directory.parent
        inside = directory != root and parent.is_relative_to(root)
        top = parent if inside and (parent / "benchmarks.json") in files else directory
        tree = trees.setdefault(top, [])
        if top != directory and (top / "benchmarks.json") not in tree:
            tree.append(top / "benchmarks.json")
        tree.extend(m for m in members if m.suffix == ".json")
    return {top: sorted(members) for top, members in trees.items()}


def criterion_trees(root: Path, files: Sequence[Path], fmt: str,
                    taken: set[Path]) -> list[ImportFile]:
    """One input per Criterion.rs tree among ``files`` (below ``root``; see
    ``criterion.find_trees``), its files added to ``taken``."""
    from perfwarehouse.ingest.formats import criterion

    rel = {f.relative_to(root).as_posix(): f for f in files if f not in taken}
    out = []
    for tree, members in criterion.find_trees(sorted(rel)).items():
        top = root / tree if tree else root
        contents = {PurePosixPath(m).relative_to(tree or ".").as_posix(): read_input(rel[m])
                    for m in members if PurePosixPath(m).name in criterion.READ}
        # the directory named is the tree: its refusal is an error, not a skip
        out.append(ImportFile(top, b"", "criterion", contents, detected=fmt == "auto",
                              walked=bool(tree)))
        taken.update(rel[m] for m in members)
    return out


def _names() -> list[str]:
    from perfwarehouse.ingest.formats import IMPORTERS

    return sorted(IMPORTERS)
