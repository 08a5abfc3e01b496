"""pyperf JSON results (format version 1.0): a suite, or a file of one benchmark.

pyperf (Stinner, https://pyperf.readthedocs.io, "JSON format") runs each benchmark in
several worker processes; each worker's *run* has warmup values (``warmups``, as
``[loops, value]`` pairs) and measured ``values`` (already divided by the loop
count). Metadata is stored at three levels (the suite's common metadata, the
benchmark's, the run's); a run sees all three, the most specific winning.

Mapping (one record per worker run that has values):

* each worker run of a benchmark is one run holding one trial (``position`` 0,
  ``run_size`` 1, ``order_kind`` fixed); its ``run_index`` is its rank among the
  benchmark's runs with values; ``run_id`` = ``NAME@DATE`` (the run's ``date``), so
  the same run found in two files is the same trial;
* values = the run's ``values``; warmups are not values (their count goes to
  ``attributes.warmups``); runs with only warmups (the calibration of the loop count)
  are not trials;
* benchmark = the ``name`` metadata; metric ``time`` in seconds for ``unit`` second
  (the default), else ``memory`` in bytes (``byte``) or ``value`` (``integer``);
  lower is better for time and memory;
* node = ``hostname``, hardware type = ``cpu_model_name`` (``--force-node`` and
  ``--hardware-type`` win); started_at = the run's ``date`` (pyperf writes local time
  without an offset; read as UTC); duration_s = the run's ``duration``;
* revision = ``commit_id`` (pyperformance writes it), else ``python_version``;
  revision_time = ``commit_date`` when it is a time; ``--revision`` wins;
* env = the suite's and benchmark's system metadata (``cpu_model`` from
  ``cpu_model_name``); the run's own metadata (loops, load average, ...) goes to
  ``attributes``.
"""

from __future__ import annotations

import re
from typing import Any

from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "pyperf"
DESCRIPTION = "pyperf JSON results (a suite or one benchmark; format 1.0)."

# pyperf unit -> (metric, unit, higher_is_better)
_UNITS = {"second": ("time", "s", False), "byte": ("memory", "B", False),
          "integer": ("value", None, None)}
# per-run facts (not the machine's): to attributes, not env
_RUN_KEYS = {"date", "duration", "loops", "inner_loops", "calibrate_loops", "calibrate_warmups",
             "recalibrate_loops", "recalibrate_warmups", "load_avg_1min", "mem_max_rss",
             "runnable_threads", "uptime", "command_max_rss", "tracemalloc_peak",
             "name", "unit", "description", "tags"}


_RUN_SHAPE = re.compile(rb'"runs"\s*:\s*\[\s*\{\s*"(metadata|values|warmups)"')


def sniff(head: bytes, filename: str) -> bool:
    """A JSON object with ``"benchmarks"`` whose runs are pyperf runs (objects of
    ``metadata``, ``warmups``, ``values``), told by structure: pyperf sorts its keys, so
    ``"version"`` comes last, beyond the head of a full pyperformance suite."""
    text = head.lstrip()
    return (text[:1] == b"{" and b'"benchmarks"' in head
            and (b'"version": "1.0"' in head or b'"version":"1.0"' in head
                 or bool(_RUN_SHAPE.search(head)))
            and b'"runs"' in head)


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native trial-log records of a pyperf JSON file (see the module docstring)."""
    doc = jsondoc.Doc(source)
    top = doc.check(jsondoc.load(data, source), "$", dict)
    version = doc.get(top, "version", "$", str)
    if version != "1.0":
        raise doc.fail("unsupported-version", "$.version",
                       f"pyperf format {version!r}; this reads version 1.0")
    common = doc.get(top, "metadata", "$", dict, required=False, default={})
    benchmarks = doc.get(top, "benchmarks", "$", list)
    records: list[dict[str, Any]] = []
    env_given = False
    for b, bench in enumerate(benchmarks):
        path = f"$.benchmarks[{b}]"
        doc.check(bench, path, dict)
        meta = {**common, **doc.get(bench, "metadata", path, dict, required=False, default={})}
        name = doc.check(meta.get("name"), f"{path}.metadata.name", str) \
            if meta.get("name") is not None else None
        if not name:
            raise doc.fail("missing-key", f"{path}.metadata.name",
                           "the benchmark has no name")
        unit_name = doc.check(meta.get("unit", "second"), f"{path}.metadata.unit", str)
        if unit_name not in _UNITS:
            raise doc.fail("unknown-unit", f"{path}.metadata.unit",
                           f"unit {unit_name!r}; pyperf knows second, byte, integer")
        metric, unit, higher = _UNITS[unit_name]
        runs = doc.get(bench, "runs", path, list)
        index = 0
        for r, run in enumerate(runs):
            rpath = f"{path}.runs[{r}]"
            doc.check(run, rpath, dict)
            values = doc.numbers(run["values"], f"{rpath}.values") \
                if run.get("values") is not None else []
            warmups = doc.get(run, "warmups", rpath, list, required=False, default=[])
            run_meta = doc.get(run, "metadata", rpath, dict, required=False, default={})
            if not values:  # calibration (only warmups): not a trial
                continue
            full = {**meta, **run_meta}
            date = full.get("date")
            started = jsondoc.rfc3339(date) if isinstance(date, str) else None
            if started is None:
                raise doc.fail("missing-key" if date is None else "bad-timestamp",
                               f"{rpath}.metadata.date",
                               "the run has no date" if date is None
                               else f"date {date!r} is not a time")
            duration = full.get("duration")
            if duration is not None:
                duration = doc.check(duration, f"{rpath}.metadata.duration", float)
            record: dict[str, Any] = {
                "campaign": None, "run_id": f"{name}@{started}", "node": _text(full, "hostname"),
                "hardware_type": _text(full, "cpu_model_name"), "run_index": index,
                "order_kind": "fixed", "position": 0, "run_size": 1, "benchmark": name,
                "settings": {}, "metric": metric, "unit": unit,
                "higher_is_better": higher, "values": values,
                "started_at": started, "duration_s": duration, "status": "ok",
                "revision": _text(full, "commit_id") or _text(full, "python_version"),
                "revision_time": _time(full.get("commit_date")),
                "attributes": {"warmups": len(warmups), **{
                    k: full[k] for k in ("loops", "inner_loops") if k in full}, **{
                    k: v for k, v in run_meta.items() if k not in ("date", "duration")}},
            }
            if not env_given:
                record["env"] = _env(meta)
                env_given = True
            records.append(record)
            index += 1
    return records


def _text(meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return str(value) if value not in (None, "") else None


def _time(value: Any) -> str | None:
    return jsondoc.rfc3339(value) if isinstance(value, str) else None


def _env(meta: dict[str, Any]) -> dict[str, Any]:
    env = {k: v for k, v in meta.items() if k not in _RUN_KEYS}
    if "cpu_model_name" in env:
        env["cpu_model"] = env["cpu_model_name"]
    if "platform" in env:
        env.setdefault("kernel", env["platform"])
    return env
