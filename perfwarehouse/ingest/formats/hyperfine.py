"""hyperfine ``--export-json`` results: one trial per benchmarked command.

The file (``{"results": [{"command", "times", "exit_codes", "parameters", "mean",
...}, ...]}``) is one run of hyperfine; its commands ran one after the other in file
order, so the run is one ``fixed``-order run and each result is the trial at its
position. Mapping:

* benchmark = the command; for a parameter scan (``-P``/``-L``), the command with each
  parameter's value replaced by ``{name}`` where that template reproduces the command
  for every parameter value (``sleep 0.00{n}``), so that the scan is one benchmark
  with one configuration per value; the resolved command stays in ``attributes``;
* settings = ``parameters`` (values as hyperfine writes them: strings);
* metric ``time`` in ``s`` (lower is better), values = ``times`` (one per timed
  run, warmup runs are not in the file); ``memory_usage_byte`` (newer hyperfine) as
  metric ``memory`` in ``B``;
* status ``failed`` when an exit code is non-zero (or null: killed by a signal, only
  with ``--ignore-failure``); the failed trial keeps its times, the exit codes go to
  ``attributes``;
* duration_s = the sum of the timed runs (warmups and setup are not in the file);
  mean user and system CPU times go to ``attributes``; the summary statistics
  (mean, median, stddev, min, max) are not ingested: they are recomputed;
* the file names no machine and no time: node, hardware type and revision come from
  the command line, ``started_at`` is left empty (``--started-at``, or the path with
  ``--path-pattern``, else none: never invented).
"""

from __future__ import annotations

import json
import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "hyperfine"
DESCRIPTION = "hyperfine --export-json results (one trial per command; times in s)"

_HEAD = re.compile(rb'^\s*\{\s*"results"\s*:\s*\[')


def sniff(head: bytes, filename: str) -> bool:
    """A JSON object whose ``results`` list holds objects with ``command`` and ``times``."""
    return bool(_HEAD.match(head)) and b'"command"' in head and (
        b'"times"' in head or b'"exit_codes"' in head or b'"mean"' in head)


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one hyperfine JSON export (see the module docstring)."""
    doc = jsondoc.load(data, source)
    p.expect(doc, dict, source, "$", "an object with a results list")
    results = p.expect(p.key(doc, "results", source, "$"), list, source, "$.results",
                       "a list")
    commands: list[str] = []
    parameters: list[dict[str, Any]] = []
    for i, result in enumerate(results):
        path = f"$.results[{i}]"
        p.expect(result, dict, source, path, "an object")
        commands.append(p.expect(p.key(result, "command", source, path), str, source,
                                 f"{path}.command", "a string"))
        params = p.expect(result.get("parameters") or {}, dict, source,
                          f"{path}.parameters", "an object")
        for name, value in params.items():
            p.expect(value, (str, int, float), source,
                     f"{path}.parameters[{json.dumps(name)}]", "a string or number")
        parameters.append(params)
    names = benchmark_names(commands, parameters)
    run_id = f"hyperfine-{p.content_id(data)}"
    records: list[dict[str, Any]] = []
    for i, result in enumerate(results):
        path = f"$.results[{i}]"
        times = p.numbers(p.key(result, "times", source, path), source, f"{path}.times")
        if not times:
            raise TrialParseError(source, 0, "no-values", f"{path}.times is empty")
        exit_codes = p.expect(result.get("exit_codes", []), list, source,
                              f"{path}.exit_codes", "a list")
        for j, code in enumerate(exit_codes):
            p.expect(code, (int, type(None)), source, f"{path}.exit_codes[{j}]",
                     "an integer or null")
        if exit_codes and len(exit_codes) != len(times):
            raise TrialParseError(source, 0, "wrong-shape",
                                  f"{path}.exit_codes has {len(exit_codes)} entries but "
                                  f"{path}.times has {len(times)}")
        failed = any(code != 0 for code in exit_codes)
        attributes: dict[str, Any] = {}
        if names[i] != commands[i]:
            attributes["command"] = commands[i]
        for name in ("user", "system"):
            if isinstance(result.get(name), (int, float)):
                attributes[f"{name}_s_mean"] = result[name]
        if failed:
            attributes["exit_codes"] = exit_codes
        common: dict[str, Any] = dict(run_id=run_id, run_index=0, position=i, benchmark=names[i],
                      settings=dict(parameters[i]), status="failed" if failed else "ok",
                      duration_s=sum(times), attributes=attributes)
        records.append(p.record(metric="time", unit="s", higher_is_better=False,
                                values=times, **common))
        if result.get("memory_usage_byte") is not None:
            memory = p.numbers(result["memory_usage_byte"], source,
                               f"{path}.memory_usage_byte")
            records.append(p.record(metric="memory", unit="B", higher_is_better=False,
                                    values=memory, **common))
    return p.finish(records, source)


def benchmark_names(commands: list[str], parameters: list[dict[str, Any]]) -> list[str]:
    """The benchmark of each result: its command, or for a parameter scan the command
    template (``{name}`` where each parameter's value was) when one template reproduces
    the command of every parameter value.

    hyperfine runs a scan value by value, each value running every command in the
    order given: a *round* is a maximal stretch of results with equal parameters, and
    the j-th result of each round comes from the j-th command template.
    """
    names = list(commands)
    rounds: list[list[int]] = []
    for i, params in enumerate(parameters):
        if rounds and parameters[rounds[-1][0]] == params:
            rounds[-1].append(i)
        else:
            rounds.append([i])
    if len(rounds) < 2 or not any(parameters):
        return names
    width = max(len(r) for r in rounds)
    for j in range(width):
        members = [r[j] for r in rounds if j < len(r)]
        if len({commands[i] for i in members}) == 1:
            continue  # the same command in every round: it takes no parameter
        for candidate in members:
            template = _template(commands[candidate], parameters[candidate])
            if all(_fill(template, parameters[i]) == commands[i] for i in members):
                for i in members:
                    names[i] = template
                break
    return names


def _template(command: str, params: dict[str, Any]) -> str:
    """``command`` with every occurrence of each parameter's value replaced by
    ``{name}`` (longest values first, so ``10`` is not read as ``1`` then ``0``)."""
    by_value: dict[str, str] = {}
    for name, value in params.items():
        text = str(value)
        if text:
            by_value.setdefault(text, name)
    if not by_value:
        return command
    pattern = re.compile("|".join(re.escape(v) for v in sorted(by_value, key=len, reverse=True)))
    return pattern.sub(lambda m: "{" + by_value[m.group(0)] + "}", command)


def _fill(template: str, params: dict[str, Any]) -> str:
    return re.sub(r"\{([^{}]+)\}",
                  lambda m: str(params.get(m.group(1), m.group(0))), template)
