"""asv (airspeed velocity) results: a results directory, or one result file of it.

An asv results directory holds ``benchmarks.json`` (the suite: parameter names,
units, benchmark types) and one directory per machine with ``machine.json`` and one
result file ``<commit>-<env>.json`` per (commit, environment) that was measured.
Result files come in two versions: 2 (``result_columns`` + one row per benchmark,
asv >= 0.5) and 1 (one object per benchmark, or a bare number in the oldest files).
Each result file is one ``fixed``-order run. Mapping:

* one trial per (benchmark, parameter combination, result file); combinations in
  asv's order (``itertools.product`` of the parameter lists, last varying fastest);
* values = the combination's ``samples`` where asv recorded them
  (``--record-samples``), else the stored ``result`` (one value); a ``null`` result
  is a failed trial (status ``failed``, no values); ``NaN`` (skipped by the suite) is
  not a trial;
* benchmark = the benchmark's dotted name; settings = its parameters (names from
  ``benchmarks.json``, else ``param1``, ``param2``, ...; values as asv stores them,
  ``repr()`` text, with the quotes of string literals removed) plus ``asv_env`` = the
  environment name (asv keeps environments apart, so do the configurations);
* metric from the benchmark type: ``time`` (unit ``s``), ``mem`` and ``peakmem`` (``B``),
  all lower-is-better, ``track`` (unit from ``benchmarks.json``, direction unknown);
* revision = ``commit_hash``; revision_time = ``date`` (the commit's date, ms since
  1970 -> RFC 3339); started_at = the benchmark's ``started_at`` (when asv ran it;
  missing in the oldest files: left empty: ``--started-at`` or the path, else none);
  duration_s = the benchmark's ``duration`` when it has one
  combination (else in ``attributes``);
* node = the machine (``machine.json``'s ``machine``, else the result file's
  ``params.machine``); env from ``machine.json``/``params``: ``cpu`` -> ``cpu_model``,
  ``ram`` -> ``memory``, ``os`` -> ``kernel``, ``arch``, ``num_cpu``;
* the benchmark ``version``, ``python``, asv's ``number``/``repeat`` and the result
  file's ``params.cpu`` (two runners of one machine name differ in it) go to
  ``attributes``; profiles and summary statistics are not ingested.

:func:`parse` reads one result file (bytes of ``<commit>-<env>.json``);
:func:`parse_directory` a whole results directory (relative path -> bytes), which is
what ``perfwarehouse ingest asv DIR`` should call; :func:`is_results_directory` tells
whether a list of relative paths is one (for ``ingest auto``).
"""

from __future__ import annotations

import ast
import itertools
import json
import math
import re
from pathlib import PurePosixPath
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "asv"
DESCRIPTION = "asv (airspeed velocity) results directory or result file"

V2_COLUMNS = ("result", "params", "version", "started_at", "duration", "stats_ci_99_a",
              "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number", "stats_repeat",
              "samples", "profile")
METRICS = {"time": ("time", "s", False), "timeraw": ("time", "s", False),
           "mem": ("mem", "B", False), "memory": ("mem", "B", False),
           "peakmem": ("peakmem", "B", False), "peakmemory": ("peakmem", "B", False),
           "track": ("track", None, None)}
UNITS = {"seconds": "s", "bytes": "B"}
MACHINE_ENV = {"cpu": "cpu_model", "ram": "memory", "os": "kernel", "arch": "arch",
               "num_cpu": "num_cpu"}
_HEAD = re.compile(rb'^\s*\{')


def sniff(head: bytes, filename: str) -> bool:
    """One asv result file: a JSON object with ``commit_hash`` and either
    ``result_columns`` (version 2) or ``requirements`` and ``results`` (version 1)."""
    return bool(_HEAD.match(head)) and b'"commit_hash"' in head and (
        b'"result_columns"' in head or (b'"requirements"' in head and b'"results"' in head))


def is_results_directory(paths: list[str]) -> bool:
    """Whether relative paths (of all files below a directory) are an asv results
    directory: a ``machine.json`` with result files next to it."""
    dirs = {str(PurePosixPath(x).parent) for x in paths if PurePosixPath(x).name == "machine.json"}
    return any(str(PurePosixPath(x).parent) in dirs and _is_result_name(x) for x in paths)


def _is_result_name(path: str) -> bool:
    name = PurePosixPath(path).name
    return name.endswith(".json") and name not in ("machine.json", "benchmarks.json")


def machine_info(data: bytes, source: str = "machine.json") -> dict[str, Any]:
    """``machine.json`` as ``{"machine": name, "env": {...}}`` (env keys as in the module
    docstring)."""
    doc = jsondoc.load(data, source)
    p.expect(doc, dict, source, "$", "an object")
    machine = p.expect(p.key(doc, "machine", source, "$"), str, source, "$.machine",
                       "a string")
    return {"machine": machine, "env": _machine_env(doc)}


def _machine_env(params: dict[str, Any]) -> dict[str, Any]:
    return {name: str(params[key]) for key, name in MACHINE_ENV.items()
            if params.get(key) not in (None, "")}


def benchmark_info(data: bytes, source: str = "benchmarks.json") -> dict[str, dict[str, Any]]:
    """``benchmarks.json``: benchmark name -> its description (param_names, type, unit)."""
    doc = jsondoc.load(data, source)
    p.expect(doc, dict, source, "$", "an object")
    return {k: v for k, v in doc.items() if isinstance(v, dict)}


def parse_directory(files: dict[str, bytes], source: str,
                    options: ImportOptions) -> list[dict[str, Any]]:
    """Records of a whole results directory.

    ``files`` maps each file's path relative to the directory (``/``-separated) to its
    bytes: the optional ``benchmarks.json`` at the top, ``<machine>/machine.json`` and
    the result files beside it (the directory may also be one machine's directory).
    Result files are runs ranked by commit date (then started time, commit, env) as
    their ``run_index``; problems name ``source/<relative path>``.
    """
    benchmarks: dict[str, dict[str, Any]] = {}
    for rel, data in files.items():
        if PurePosixPath(rel).name == "benchmarks.json" and len(PurePosixPath(rel).parts) <= 2:
            benchmarks.update(benchmark_info(data, f"{source}/{rel}"))
    machines = {str(PurePosixPath(rel).parent): machine_info(data, f"{source}/{rel}")
                for rel, data in files.items() if PurePosixPath(rel).name == "machine.json"}
    results = sorted(rel for rel in files
                     if _is_result_name(rel) and str(PurePosixPath(rel).parent) in machines)
    if not results:
        raise TrialParseError(source, 0, "no-results",
                              "no asv result file (<commit>-<env>.json next to a machine.json)")
    docs = [(rel, _load_result(files[rel], f"{source}/{rel}")) for rel in results]
    docs.sort(key=lambda item: (_sort_date(item[1]), str(item[1].get("commit_hash")),
                                str(item[1].get("env_name")), item[0]))
    records: list[dict[str, Any]] = []
    for run_index, (rel, doc) in enumerate(docs):
        machine = machines[str(PurePosixPath(rel).parent)]
        records.extend(_records(doc, files[rel], f"{source}/{rel}", machine, benchmarks,
                                run_index))
    return p.finish(records, source)


def parse(data: bytes, source: str, options: ImportOptions, *,
          machine: dict[str, Any] | None = None,
          benchmarks: dict[str, dict[str, Any]] | None = None,
          run_index: int = 0) -> list[dict[str, Any]]:
    """Records of one result file; ``machine`` (from :func:`machine_info`) and
    ``benchmarks`` (from :func:`benchmark_info`) refine node, env, parameter names and
    units when the caller has them."""
    doc = _load_result(data, source)
    return p.finish(_records(doc, data, source, machine, benchmarks or {}, run_index), source)


def _sort_date(doc: dict[str, Any]) -> float:
    date = doc.get("date")
    return float(date) if isinstance(date, (int, float)) and not isinstance(date, bool) else 0.0


def _load_result(data: bytes, source: str) -> dict[str, Any]:
    doc = jsondoc.load(data, source)
    p.expect(doc, dict, source, "$", "an object (an asv result file)")
    version = doc.get("version", 1)
    if version not in (1, 2):
        raise TrialParseError(source, 0, "unsupported-version",
                              f"$.version is {version!r}; asv result files of version 1 "
                              "and 2 are read")
    for name in ("commit_hash", "results"):
        p.key(doc, name, source, "$")
    p.expect(doc["commit_hash"], str, source, "$.commit_hash", "a string")
    p.expect(doc["results"], dict, source, "$.results", "an object")
    if version == 2:
        columns = p.expect(p.key(doc, "result_columns", source, "$"), list, source,
                           "$.result_columns", "a list of column names")
        if "result" not in columns:
            raise TrialParseError(source, 0, "missing-key",
                                  "$.result_columns does not name the 'result' column")
    return doc


def _rows(doc: dict[str, Any], source: str) -> list[tuple[str, dict[str, Any]]]:
    """(benchmark, {column: value}) for either version (version 1 as asv upgrades it)."""
    out = []
    if doc.get("version", 1) == 2:
        columns = doc["result_columns"]
        for name, row in doc["results"].items():
            p.expect(row, list, source, f"$.results[{json.dumps(name)}]",
                     "a list (one value per column)")
            if len(row) > len(columns):
                raise TrialParseError(source, 0, "wrong-shape",
                                      f"$.results[{json.dumps(name)}] has {len(row)} values for "
                                      f"{len(columns)} result_columns")
            out.append((name, dict(zip(columns, row))))
        return out
    started = doc.get("started_at") or {}
    duration = doc.get("duration") or {}
    versions = doc.get("benchmark_version") or {}
    for name, value in doc["results"].items():
        if not isinstance(value, dict):  # the oldest files: a bare number
            value = {"result": [value], "params": []}
        result = value.get("result")
        if result is not None and not isinstance(result, list):
            result = [result]
        stats = value.get("stats")
        if isinstance(stats, dict):
            stats = [stats]
        row = {"result": result, "params": value.get("params", []),
               "samples": value.get("samples"), "started_at": started.get(name),
               "duration": duration.get(name), "version": versions.get(name)}
        if isinstance(stats, list):
            for key in ("number", "repeat"):
                row[f"stats_{key}"] = [s.get(key) if isinstance(s, dict) else None
                                       for s in stats]
        out.append((name, row))
    return out


def _records(doc: dict[str, Any], data: bytes, source: str, machine: dict[str, Any] | None,
             benchmarks: dict[str, dict[str, Any]], run_index: int) -> list[dict[str, Any]]:
    params = doc["params"] if isinstance(doc.get("params"), dict) else {}
    node = (machine or {}).get("machine") or params.get("machine")
    env = {**_machine_env(params), **((machine or {}).get("env") or {})} or None
    commit = doc["commit_hash"]
    env_name = str(doc.get("env_name") or "")
    revision_time = None
    if doc.get("date") is not None:
        revision_time = p.rfc3339_from_ms(p.number(doc["date"], source, "$.date"), source,
                                          "$.date")
    run_id = "asv-" + "-".join(x for x in (str(node or ""), commit[:8], env_name,
                                          p.content_id(data)[:8]) if x)
    records: list[dict[str, Any]] = []
    position = 0
    for name, row in _rows(doc, source):
        path = f"$.results[{json.dumps(name)}]"
        combos, names = _combinations(row, name, benchmarks.get(name), source, path)
        result = row.get("result")
        if result is not None:
            p.expect(result, list, source, f"{path}.result", "a list or null")
            if len(result) != len(combos):
                raise TrialParseError(source, 0, "wrong-shape",
                                      f"{path} has {len(result)} results for {len(combos)} "
                                      "parameter combinations")
        samples = _per_combo(row.get("samples"), combos, source, f"{path}.samples")
        metric, unit, higher = _metric(name, benchmarks.get(name))
        started_at = None
        if row.get("started_at") is not None:
            started_at = p.rfc3339_from_ms(p.number(row["started_at"], source,
                                                    f"{path}.started_at"), source,
                                           f"{path}.started_at")
        duration = row.get("duration")
        if duration is not None:
            duration = p.number(duration, source, f"{path}.duration")
        attributes: dict[str, Any] = {}
        for key, attr in (("version", "benchmark_version"),):
            if row.get(key) is not None:
                attributes[attr] = row[key]
        if doc.get("python") is not None:
            attributes["python"] = doc["python"]
        if params.get("cpu") is not None:  # two runners of one machine name tell apart
            attributes["cpu"] = str(params["cpu"])
        if duration is not None and len(combos) > 1:
            attributes["benchmark_duration_s"] = duration
        number = _per_combo(row.get("stats_number"), combos, source, f"{path}.stats_number")
        repeat = _per_combo(row.get("stats_repeat"), combos, source, f"{path}.stats_repeat")
        for j, combo in enumerate(combos):
            value = None if result is None else result[j]
            if value is not None:
                value = _value(value, source, f"{path}.result[{j}]")
                if math.isnan(value):
                    continue  # skipped by the benchmark suite: not measured
            if value is None:
                values, status = [], "failed"
            elif samples[j] is not None:
                values, status = p.numbers(samples[j], source, f"{path}.samples[{j}]"), "ok"
            else:
                values, status = [value], "ok"
            settings: dict[str, Any] = dict(zip(names, combo))
            if env_name:
                settings["asv_env"] = env_name
            extra = dict(attributes)
            if number[j] is not None:
                extra["number"] = number[j]
            if repeat[j] is not None:
                extra["repeat"] = repeat[j]
            records.append(p.record(
                run_id=run_id, run_index=run_index, position=position, benchmark=name,
                settings=settings, metric=metric, unit=unit, higher_is_better=higher,
                values=values, status=status, started_at=started_at,
                duration_s=duration if len(combos) == 1 else None, node=node, env=env,
                revision=commit, revision_time=revision_time, attributes=extra))
            position += 1
    return records


def _value(value: Any, source: str, path: str) -> float:
    if isinstance(value, float) and math.isnan(value):
        return value
    return p.number(value, source, path)


def _combinations(row: dict[str, Any], name: str, info: dict[str, Any] | None, source: str,
                  path: str) -> tuple[list[tuple[str, ...]], list[str]]:
    """The parameter combinations (in asv's order) and the parameter names."""
    params = p.expect(row.get("params") or [], list, source, f"{path}.params",
                      "a list of parameter value lists")
    for i, values in enumerate(params):
        p.expect(values, list, source, f"{path}.params[{i}]", "a list of values")
        for k, v in enumerate(values):
            p.expect(v, str, source, f"{path}.params[{i}][{k}]", "a string (a repr)")
    names = list((info or {}).get("param_names") or [])
    if len(names) != len(params):
        names = [f"param{i + 1}" for i in range(len(params))]
    combos = [tuple(_unquote(v) for v in combo) for combo in itertools.product(*params)]
    return combos, names


def _unquote(text: str) -> str:
    """asv stores parameter values as ``repr()``: ``'float'`` -> ``float``."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
        if isinstance(value, str):
            return value
    return text


def _per_combo(value: Any, combos: list[tuple[str, ...]], source: str,
               path: str) -> list[Any]:
    """A (param-list) column as one entry per combination (None when absent)."""
    if value is None:
        return [None] * len(combos)
    p.expect(value, list, source, path, "a list (one entry per parameter combination)")
    if len(value) != len(combos):
        raise TrialParseError(source, 0, "wrong-shape",
                              f"{path} has {len(value)} entries for {len(combos)} "
                              "parameter combinations")
    return value


def _metric(name: str, info: dict[str, Any] | None) -> tuple[str, str | None, bool | None]:
    """(metric, unit, higher_is_better) from ``benchmarks.json``'s type and unit, else
    from the name's prefix (``time_``, ``mem_``, ``peakmem_``, ``track_``)."""
    kind = (info or {}).get("type")
    if kind not in METRICS:
        last = name.rsplit(".", 1)[-1]
        kind = next((k for k in ("timeraw", "time", "peakmem", "mem", "track")
                     if last.startswith(k + "_")), None)
    metric, unit, higher = METRICS.get(kind, ("result", None, None))  # type: ignore[arg-type]
    given = (info or {}).get("unit")
    if isinstance(given, str) and given:
        unit = UNITS.get(given, given)
    return metric, unit, higher
