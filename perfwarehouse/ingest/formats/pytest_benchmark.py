"""pytest-benchmark JSON results: ``--benchmark-json`` files and ``.benchmarks/`` saves, 2.5-5.x.

pytest-benchmark (https://pytest-benchmark.readthedocs.io, "Usage" and "Comparing past
runs") writes one JSON object per session: ``machine_info`` (``platform`` facts and,
from 3.0, py-cpuinfo's ``cpu``), ``commit_info`` (``id``, ``dirty``, from 3.1 ``time``,
``author_time``, ``branch``, ``project``), ``benchmarks`` (one entry per benchmarked
test: ``name``, ``fullname``, ``group``, from 3.0 ``params`` and ``param``, ``options``,
``stats``, ``extra_info``), ``datetime`` and ``version``. ``--benchmark-json`` files hold
each round's time in ``stats.data``; saves (``--benchmark-autosave``,
``--benchmark-save=NAME``: ``.benchmarks/<machine-id>/NNNN_<commit>_<date>.json``) hold
only the summary unless ``--benchmark-save-data`` was given. Mapping:

* the file is one ``fixed``-order run (``run_id`` = ``pytest-benchmark-`` + a hash of
  the content); each benchmark entry is the trial at its position; ``run_index`` = the
  save's number ``NNNN`` - 1 when the file's name starts with it (a save folder is a
  history in order), else 0;
* benchmark = ``fullname`` without the trailing ``[param id]`` of a parametrized test
  (``test_suite.py::test_fib``), settings = ``params`` (each value as written, with the
  memory address of a ``<function ... at 0x7f...>`` repr removed: it differs in every
  run and would split the series); without ``params`` (2.x, indirect parameters) the
  id is the setting ``param``; two entries of one file that would still share a
  configuration both get ``param`` too;
* values: ``stats.data`` where present, metric ``time`` in ``s`` (per iteration: each
  round's time divided by its iterations, as pytest-benchmark stores it), lower is
  better; else the summary: metric ``time_mean`` (one value, ``stats.mean``) with the
  other statistics in ``attributes.summary``, so summaries and measured rounds never
  mix in one series;
* started_at = ``datetime`` (when the session wrote the file); before 5.0 it has no
  offset (pytest-benchmark wrote ``utcnow()``): read as UTC, and
  ``attributes.started_at_note`` says so; duration_s = ``stats.total`` x
  ``iterations`` (the timed rounds);
* revision = ``commit_info.id`` (not ``unversioned``), revision_time =
  ``commit_info.time`` (the commit time; else ``author_time``; one that is not a time
  is left empty, with ``attributes.revision_time_note``); ``dirty``, ``branch``,
  ``project`` go to ``attributes``;
* node = ``machine_info.node``; hardware type = the CPU's brand (``cpu.brand_raw``,
  older py-cpuinfo ``cpu.brand``; not ``unknown``, which 3.2 writes with a newer
  py-cpuinfo) with ``machine``, else none (the type another file of the batch gives
  the node, else its name);
  env = the Python and system facts, ``kernel`` (``system release``), ``cpu_model``,
  ``num_cpu`` (not the CPU flags);
* ``group``, ``extra_info``, ``options`` (timer, rounds, GC...), ``iterations`` and
  ``rounds`` go to ``attributes``.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import Any

from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "pytest-benchmark"
DESCRIPTION = ("pytest-benchmark JSON (--benchmark-json or a .benchmarks/ save; "
               "rounds in s)")

_HEAD = re.compile(rb"^\s*\{")
#: the address in a repr (``<function f at 0x7f3a...>``, ``<object object at 0x...>``)
_ADDRESS = re.compile(r"\s+at\s+0x[0-9a-fA-F]+")
_SAVE_NUMBER = re.compile(r"^(\d{4})_")
_PARAM_ID = re.compile(r"^(.*)\[([^\[\]]*)\]$")
_SUMMARY_KEYS = ("min", "max", "median", "stddev", "q1", "q3", "iqr", "rounds", "ops",
                 "outliers")
_ENV_KEYS = ("python_implementation", "python_version", "python_compiler", "system",
             "release", "machine", "processor")


def sniff(head: bytes, filename: str) -> bool:
    """A JSON object with ``benchmarks`` and pytest-benchmark's ``machine_info`` or
    ``commit_info`` (files written by a ``pytest_benchmark_generate_json`` hook may
    drop those: then its entries' ``fullname`` with ``stats`` and ``options``)."""
    if not _HEAD.match(head) or b'"benchmarks"' not in head:
        return False
    if b'"machine_info"' in head or b'"commit_info"' in head:
        return True
    return b'"fullname"' in head and b'"stats"' in head and b'"options"' in head


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one pytest-benchmark JSON file (see the module docstring)."""
    doc = jsondoc.Doc(source)
    top = doc.check(jsondoc.load(data, source), "$", dict)
    benchmarks = doc.get(top, "benchmarks", "$", list)
    machine = doc.get(top, "machine_info", "$", dict, required=False, default={})
    commit = doc.get(top, "commit_info", "$", dict, required=False, default={})
    stamp = doc.get(top, "datetime", "$", str, required=False)
    started, naive = _start(stamp, doc)
    revision, revision_time, time_note = _revision(commit)
    node = machine.get("node") if isinstance(machine.get("node"), str) else None
    env = _env(machine)
    run_id = f"pytest-benchmark-{p.content_id(data)}"
    match = _SAVE_NUMBER.match(PurePath(source).name)
    run_index = int(match.group(1)) - 1 if match else 0
    run_attributes: dict[str, Any] = {
        k: commit[k] for k in ("dirty", "branch", "project") if commit.get(k) is not None}
    if isinstance(top.get("version"), str):
        run_attributes["pytest_benchmark_version"] = top["version"]
    if time_note:
        run_attributes["revision_time_note"] = time_note
    if naive:
        run_attributes["started_at_note"] = (
            f"datetime {stamp!r} has no offset: read as UTC (pytest-benchmark before 5.0 "
            "wrote UTC without saying so)")

    entries = []
    for i, entry in enumerate(benchmarks):
        path = f"$.benchmarks[{i}]"
        doc.check(entry, path, dict)
        entries.append((path, entry, *_identity(entry, doc, path)))
    seen: dict[str, int] = {}
    for _path, _entry, name, settings, _pid in entries:
        key = name + json.dumps(settings, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1

    records: list[dict[str, Any]] = []
    for position, (path, entry, name, settings, pid) in enumerate(entries):
        if seen[name + json.dumps(settings, sort_keys=True)] > 1 and pid is not None:
            settings = {**settings, "param": pid}
        stats = doc.get(entry, "stats", path, dict)
        spath = f"{path}.stats"
        iterations = doc.get(stats, "iterations", spath, int, required=False, default=1)
        attributes = dict(run_attributes)
        attributes["iterations"] = iterations
        for key in ("group", "extra_info", "options"):
            if entry.get(key) not in (None, {}, ""):
                attributes[key] = entry[key]
        total = doc.get(stats, "total", spath, float, required=False)
        if stats.get("data") is not None:
            values = doc.numbers(stats["data"], f"{spath}.data")
            if not values:
                raise doc.fail("no-values", f"{spath}.data", "the benchmark has no rounds")
            metric = "time"
            if total is None:
                total = sum(values)
        else:
            values = [doc.get(stats, "mean", spath, float)]
            metric = "time_mean"
            attributes["summary"] = {k: stats[k] for k in _SUMMARY_KEYS if k in stats}
            attributes["values"] = ("stats.mean only: the file has no stats.data (save with "
                                    "--benchmark-save-data, or use --benchmark-json)")
        records.append(p.record(
            run_id=run_id, run_index=run_index, position=position, benchmark=name,
            settings=settings, metric=metric, unit="s", higher_is_better=False,
            values=values, started_at=started,
            duration_s=None if total is None else total * iterations, node=node,
            env=env if position == 0 else None, revision=revision,
            revision_time=revision_time, attributes=attributes))
        if records[-1]["hardware_type"] is None:
            records[-1]["hardware_type"] = _hardware_type(machine)
    return p.finish(records, source)


def _identity(entry: dict[str, Any], doc: jsondoc.Doc,
              path: str) -> tuple[str, dict[str, Any], str | None]:
    """(benchmark, settings, param id) of one entry (see the module docstring)."""
    fullname = doc.get(entry, "fullname", path, str, required=False) \
        or doc.get(entry, "name", path, str)
    pid = entry.get("param")
    pid = None if pid is None else str(pid)
    if pid is not None and fullname.endswith(f"[{pid}]"):  # ids may hold brackets
        fullname = fullname[:-len(pid) - 2]
    elif pid is None and (match := _PARAM_ID.match(fullname)):  # 2.x: only in the name
        fullname, pid = match.group(1), match.group(2)
    params = doc.get(entry, "params", path, dict, required=False)
    if params:
        settings = {str(k): normalise(v) for k, v in params.items()}
    elif pid is not None:
        settings = {"param": pid}
    else:
        settings = {}
    return fullname, settings, pid


def normalise(value: Any) -> Any:
    """A parameter's value with what differs between runs removed: the memory address
    of a repr (``UNSERIALIZABLE[<function <lambda> at 0x7f1e55449d00>]`` ->
    ``UNSERIALIZABLE[<function <lambda>>]``), in nested lists and objects too."""
    if isinstance(value, str):
        return _ADDRESS.sub("", value)
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalise(v) for k, v in value.items()}
    return value


def _start(stamp: str | None, doc: jsondoc.Doc) -> tuple[str | None, bool]:
    """(started_at, whether the file's time had no offset)."""
    if stamp is None:
        return None, False
    started = jsondoc.rfc3339(stamp)
    if started is None:
        raise doc.fail("bad-timestamp", "$.datetime", f"{stamp!r} is not a time")
    naive = re.search(r"(Z|[+-]\d\d:?\d\d)\s*$", stamp.strip()) is None
    return started, naive


def _revision(commit: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(revision, revision time, a note when the file's commit time is not a time: the
    run is kept, the revision time left empty)."""
    sha = commit.get("id")
    revision = sha if isinstance(sha, str) and sha and sha != "unversioned" else None
    for key in ("time", "author_time"):
        value = commit.get(key)
        if isinstance(value, str) and value:
            revision_time = jsondoc.rfc3339(value)
            if revision_time is None:
                return revision, None, f"commit_info.{key} {value!r} is not a time: left empty"
            return revision, revision_time, None
    return revision, None, None


def _cpu(machine: dict[str, Any]) -> dict[str, Any]:
    cpu = machine.get("cpu")
    return cpu if isinstance(cpu, dict) else {}


def _brand(machine: dict[str, Any]) -> str | None:
    """The CPU's brand; None where py-cpuinfo did not know it (pytest-benchmark 3.2 with a
    py-cpuinfo that renamed ``brand`` writes ``"unknown"``)."""
    cpu = _cpu(machine)
    brand = cpu.get("brand_raw") or cpu.get("brand")
    if not isinstance(brand, str) or brand.strip().lower() in ("", "unknown"):
        return None
    return brand.strip()


def _hardware_type(machine: dict[str, Any]) -> str | None:
    brand = _brand(machine)
    if brand is None:
        return None
    arch = machine.get("machine")
    return f"{brand} ({arch})" if isinstance(arch, str) and arch else brand


def _env(machine: dict[str, Any]) -> dict[str, Any]:
    env: dict[str, Any] = {k: machine[k] for k in _ENV_KEYS if machine.get(k) not in (None, "")}
    cpu = _cpu(machine)
    brand = _brand(machine)
    if brand:
        env["cpu_model"] = brand
    if isinstance(cpu.get("count"), int):
        env["num_cpu"] = cpu["count"]
    for key in ("hz_advertised_friendly", "l2_cache_size", "l3_cache_size"):
        if cpu.get(key) is not None:
            env[key] = cpu[key]
    if machine.get("system") and machine.get("release"):
        env["kernel"] = f"{machine['system']} {machine['release']}"
    if machine.get("node"):
        env["hostname"] = machine["node"]
    return env

