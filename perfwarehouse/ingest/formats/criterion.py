"""Criterion.rs results: a ``target/criterion`` tree, or cargo-criterion's JSON messages.

Criterion.rs (https://bheisler.github.io/criterion.rs/book/, "Criterion.rs Output" and
cargo-criterion's "External Tools") measures a benchmark as *samples*: sample i runs
the routine ``iters[i]`` times and takes ``times[i]`` in all (in the unit of the
measurement: ns for the default wall clock). The tree holds one directory per
benchmark (its name *mangled*: ``sum/vec`` -> ``sum_vec``, ``"a/b" <x>?`` -> ``_a_b_
_x__``) with one directory per saved run: ``new/`` (the latest), ``base/`` (the one
before, or a copy of ``new/`` once compared), a named ``--save-baseline`` directory,
and ``change/`` (only the estimated change). A run's directory holds ``sample.json``
(``{"sampling_mode", "iters", "times"}`` from 0.3.3 on, incl. 0.4 and 0.5;
``[[iters], [times]]`` before), ``benchmark.json`` (the benchmark's id: ``group_id``,
``function_id``, ``value_str``, ``full_id``, ``throughput``), ``estimates.json`` and,
in 0.3 (and 0.4+ with ``csv_output``), ``raw.csv`` whose ``unit`` column names the
unit. Mapping:

* each run directory name (``new``, ``base``, a baseline) is one ``fixed``-order run
  of every benchmark that has it; a ``base``/baseline sample identical to ``new``'s is
  Criterion's copy, not a run: it is left out (its name goes to the ``new`` trial's
  ``attributes.also_saved_as``); ``run_index``: ``base``, then other baselines by
  name, then ``new``; ``run_id`` = ``criterion-NAME-`` + a hash of the run's samples
  (the same tree ingested again is the same runs);
* one trial per benchmark and run, positions by benchmark id; benchmark =
  ``benchmark.json``'s ``full_id`` (``sum/vec/iter/64``; the directory name when there
  is no ``benchmark.json``, as in 0.2); settings ``{}``;
* values = ``times[i] / iters[i]``: the time per iteration of each sample, in the unit
  of the file (``raw.csv``'s, else ``ns``, the wall clock's); metric ``time`` (lower
  is better) for a time unit, else ``value`` (a custom measurement, direction unknown);
  duration_s = the sum of ``times`` for a time unit;
* ``throughput``, ``sampling_mode``, the iteration counts and ``change/``'s mean and
  median relative change go to ``attributes``; the estimates are recomputed;
* the tree names no machine, time or revision: ``--node``, ``--started-at`` (e.g.
  ``mtime``) and ``--revision`` give them.

cargo-criterion's ``--message-format=json`` (one JSON object a line) is read the same
way: each ``benchmark-complete`` message is a trial (``id``; values =
``measured_values[i] / iteration_count[i]`` in ``unit``); the file is one run; other
messages (``group-complete``, cargo's) are passed over.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from pathlib import PurePosixPath
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "criterion"
DESCRIPTION = ("Criterion.rs target/criterion tree or cargo-criterion JSON messages "
               "(values per iteration)")

#: the files of a run directory this reads (the others, tukey.json and reports, are taken
#: by the tree so that a walk does not list them, but not read)
READ = ("sample.json", "benchmark.json", "estimates.json", "raw.csv")
_MESSAGE = re.compile(rb'"reason"\s*:\s*"(benchmark|group)-complete"')
#: the start of a tree's own files (read with their directory, not alone)
_TREE_FILE = re.compile(rb'^\s*(\{\s*"(sampling_mode|iters|group_id|mean|Mean)"|\[\s*\[)')
_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0}


def sniff(head: bytes, filename: str) -> bool:
    """cargo-criterion's JSON messages: a JSON object per line, one of them a
    ``benchmark-complete`` or ``group-complete`` message. (A tree is found by its
    directories, :func:`find_trees`, not by sniffing one file.)"""
    return head.lstrip()[:1] == b"{" and bool(_MESSAGE.search(head))


# ------------------------------------------------------------------ the tree
def find_trees(paths: list[str]) -> dict[str, list[str]]:
    """The Criterion trees among relative posix ``paths`` (all files below a directory):
    tree (relative path, ``""`` for the directory itself) -> its files.

    A run directory holds ``sample.json`` with ``estimates.json`` or ``benchmark.json``
    beside it; its tree is its nearest ancestor named ``criterion`` (``target/criterion``),
    else the directory walked. A tree's files are those of its run directories, of its
    benchmarks' ``change/`` directories and of its ``report/`` directories."""
    by_dir: dict[PurePosixPath, set[str]] = {}
    for path in paths:
        pure = PurePosixPath(path)
        by_dir.setdefault(pure.parent, set()).add(pure.name)
    runs = [d for d, names in by_dir.items() if "sample.json" in names
            and ({"estimates.json", "benchmark.json"} & names)]
    trees: dict[str, set[PurePosixPath]] = {}
    for run in runs:
        top = next((a for a in run.parents if a.name == "criterion"), PurePosixPath("."))
        trees.setdefault(str(top), set()).update({run, run.parent / "change"})
    out: dict[str, list[str]] = {}
    for root, dirs in trees.items():
        base = PurePosixPath(root)
        members = []
        for path in paths:
            pure = PurePosixPath(path)
            in_report = "report" in pure.relative_to(base).parts[:-1] \
                if pure.is_relative_to(base) else False
            if pure.parent in dirs or in_report:
                members.append(path)
        out["" if root == "." else root] = sorted(members)
    return out


def parse_directory(files: dict[str, bytes], source: str,
                    options: ImportOptions) -> list[dict[str, Any]]:
    """Records of a ``target/criterion`` tree: ``files`` maps paths relative to the tree
    (``/``-separated) to bytes (see the module docstring)."""
    runs: dict[str, list[tuple[str, str]]] = {}  # run name -> (benchmark dir, run dir)
    for rel in sorted(files):
        pure = PurePosixPath(rel)
        if pure.name == "sample.json" and len(pure.parts) >= 2:
            runs.setdefault(pure.parent.name, []).append(
                (str(pure.parent.parent), str(pure.parent)))
    if not runs:
        raise TrialParseError(source, 0, "no-results",
                              "no Criterion sample (<benchmark>/new/sample.json)")
    samples: dict[str, _Sample] = {}
    for name in runs:
        for _bench, run_dir in runs[name]:
            samples[run_dir] = _sample(files, run_dir, source)
    copies: dict[str, list[str]] = {}  # benchmark dir -> run names that copy its new/
    kept: dict[str, list[tuple[str, str]]] = {}
    for name, members in runs.items():
        for bench, run_dir in members:
            new = str(PurePosixPath(bench) / "new")
            if name != "new" and new in samples and \
                    files[f"{run_dir}/sample.json"] == files[f"{new}/sample.json"]:
                copies.setdefault(bench, []).append(name)
                continue
            kept.setdefault(name, []).append((bench, run_dir))
    order = sorted(kept, key=lambda n: (n != "base", n == "new", n))
    records: list[dict[str, Any]] = []
    for run_index, name in enumerate(order):
        members = sorted(kept[name], key=lambda m: samples[m[1]].benchmark)
        digest = hashlib.sha256()
        for _bench, run_dir in members:
            digest.update(run_dir.encode() + b"\0" + files[f"{run_dir}/sample.json"])
        run_id = f"criterion-{name}-{digest.hexdigest()[:16]}"
        for position, (bench, run_dir) in enumerate(members):
            sample = samples[run_dir]
            attributes = dict(sample.attributes)
            attributes["saved_as"] = name
            if name == "new":
                if copies.get(bench):
                    attributes["also_saved_as"] = sorted(copies[bench])
                attributes.update(_change(files, str(PurePosixPath(bench, "change",
                                                                    "estimates.json")), source))
            records.append(_record(sample, run_id, run_index, position, attributes))
    return p.finish(records, source)


class _Sample:
    """One run directory: benchmark id, unit, per-iteration values, attributes."""

    def __init__(self, benchmark: str, unit: str, iters: list[float], times: list[float],
                 attributes: dict[str, Any]) -> None:
        self.benchmark, self.unit, self.iters, self.times = benchmark, unit, iters, times
        self.attributes = attributes


def _sample(files: dict[str, bytes], run_dir: str, source: str) -> _Sample:
    where = f"{source}/{run_dir}/sample.json"
    doc = jsondoc.Doc(where)
    raw = jsondoc.load(files[f"{run_dir}/sample.json"], where)
    attributes: dict[str, Any] = {}
    if isinstance(raw, dict):  # 0.3.3 and later
        iters = doc.numbers(doc.get(raw, "iters", "$", list), "$.iters")
        times = doc.numbers(doc.get(raw, "times", "$", list), "$.times")
        mode = doc.get(raw, "sampling_mode", "$", str, required=False)
        if mode:
            attributes["sampling_mode"] = mode
    elif isinstance(raw, list) and len(raw) == 2:  # before 0.3.3: [iters, times]
        iters, times = doc.numbers(raw[0], "$[0]"), doc.numbers(raw[1], "$[1]")
    else:
        raise doc.fail("wrong-type", "$", "expected {\"iters\", \"times\"} or [iters, times]")
    if len(iters) != len(times):
        raise doc.fail("wrong-shape", "$", f"{len(iters)} iteration counts for "
                                           f"{len(times)} times")
    if not times:
        raise doc.fail("no-values", "$.times", "the sample is empty")
    if any(n <= 0 for n in iters):
        raise doc.fail("not-positive", "$.iters", "an iteration count is not positive")
    attributes["iterations"] = [int(n) if n == int(n) else n for n in iters]
    # the (mangled) directory, as 0.2 has no id file; the tree's own name when the tree
    # given is one benchmark's directory
    folder = PurePosixPath(run_dir).parent
    benchmark = str(folder) if str(folder) != "." else PurePosixPath(source).name
    for candidate in (run_dir, str(folder / "new")):
        if f"{candidate}/benchmark.json" in files:
            benchmark, throughput = _identity(files, f"{candidate}/benchmark.json", source)
            if throughput is not None:
                attributes["throughput"] = throughput
            break
    return _Sample(benchmark, _unit(files, run_dir, source), iters, times, attributes)


def _identity(files: dict[str, bytes], rel: str, source: str) -> tuple[str, Any]:
    where = f"{source}/{rel}"
    doc = jsondoc.Doc(where)
    top = doc.check(jsondoc.load(files[rel], where), "$", dict)
    full = doc.get(top, "full_id", "$", str, required=False) \
        or doc.get(top, "title", "$", str, required=False)
    if not full:
        parts = [top.get(k) for k in ("group_id", "function_id", "value_str")]
        full = "/".join(str(x) for x in parts if x not in (None, ""))
    if not full:
        raise doc.fail("missing-key", "$.full_id", "the benchmark has no id")
    return full, top.get("throughput")


def _unit(files: dict[str, bytes], run_dir: str, source: str) -> str:
    """The unit of ``raw.csv``'s ``unit`` column (``sample_time_nanos`` before 0.3: ns),
    else ``ns`` (the wall clock's, Criterion's default measurement)."""
    data = files.get(f"{run_dir}/raw.csv")
    if data is None:
        return "ns"
    rows = csv.DictReader(io.StringIO(data.decode("utf-8", "replace")))
    for row in rows:
        unit = (row.get("unit") or "").strip()
        if unit:
            return unit
        break
    return "ns"


def _change(files: dict[str, bytes], rel: str, source: str) -> dict[str, float]:
    """``change/estimates.json``'s relative change of the mean and median (point
    estimates; ``Mean``/``Median`` before 0.3.3)."""
    if rel not in files:
        return {}
    where = f"{source}/{rel}"
    top = jsondoc.load(files[rel], where)
    out: dict[str, float] = {}
    if isinstance(top, dict):
        for key, names in (("change_mean", ("mean", "Mean")),
                           ("change_median", ("median", "Median"))):
            for name in names:
                point = (top.get(name) or {}).get("point_estimate") \
                    if isinstance(top.get(name), dict) else None
                if isinstance(point, (int, float)) and not isinstance(point, bool):
                    out[key] = float(point)
                    break
    return out


def _record(sample: _Sample, run_id: str, run_index: int, position: int,
            attributes: dict[str, Any]) -> dict[str, Any]:
    scale = _TIME_UNITS.get(sample.unit)
    values = [t / n for n, t in zip(sample.iters, sample.times, strict=True)]
    return p.record(
        run_id=run_id, run_index=run_index, position=position, benchmark=sample.benchmark,
        settings={}, metric="time" if scale is not None else "value",
        unit="us" if sample.unit == "\u00b5s" else sample.unit,
        higher_is_better=False if scale is not None else None, values=values,
        duration_s=sum(sample.times) * scale if scale is not None else None,
        attributes=attributes)


# ------------------------------------------------------- cargo-criterion messages
def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of cargo-criterion's ``--message-format=json`` output."""
    if not data.strip():
        raise TrialParseError(source, 0, "empty", "the file is empty")
    if _TREE_FILE.match(data):
        raise TrialParseError(source, 0, "tree-file",
                              "one file of a Criterion tree (sample.json, benchmark.json, "
                              "estimates.json): ingest the tree's directory "
                              "(target/criterion), whose files are read together")
    run_id = f"cargo-criterion-{p.content_id(data)}"
    records: list[dict[str, Any]] = []
    for number, line in enumerate(data.splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        try:  # the shared reader: huge numbers, repeated keys, broken UTF-8 refused
            message = jsondoc.load(text, source)
        except TrialParseError as exc:
            rule = "invalid-json" if exc.rule == "truncated" else exc.rule
            raise TrialParseError(source, number, rule, exc.detail) from None
        if not isinstance(message, dict):
            raise TrialParseError(source, number, "wrong-type",
                                  f"$: expected a JSON object, got {p.type_name(message)}")
        if message.get("reason") != "benchmark-complete":
            continue
        doc = jsondoc.Doc(f"{source}:{number}")
        try:
            name = doc.get(message, "id", "$", str)
            iters = doc.numbers(doc.get(message, "iteration_count", "$", list),
                                "$.iteration_count")
            times = doc.numbers(doc.get(message, "measured_values", "$", list),
                                "$.measured_values")
            unit = doc.get(message, "unit", "$", str)
            if len(iters) != len(times) or not times:
                raise doc.fail("wrong-shape", "$.measured_values",
                               f"{len(times)} values for {len(iters)} iteration counts")
            if any(n <= 0 for n in iters):
                raise doc.fail("not-positive", "$.iteration_count",
                               "an iteration count is not positive")
        except TrialParseError as exc:
            raise TrialParseError(source, number, exc.rule, exc.detail) from None
        attributes: dict[str, Any] = {"iterations": [int(n) if n == int(n) else n
                                                     for n in iters]}
        if message.get("throughput"):
            attributes["throughput"] = message["throughput"]
        change = message.get("change")
        if isinstance(change, dict):
            for key in ("mean", "median"):
                part = change.get(key)
                if isinstance(part, dict) and isinstance(part.get("estimate"), (int, float)):
                    attributes[f"change_{key}"] = float(part["estimate"])
            if isinstance(change.get("change"), str):
                attributes["change"] = change["change"]
        sample = _Sample(name, unit, iters, times, attributes)
        records.append(_record(sample, run_id, 0, len(records), attributes))
    return p.finish(records, source)
