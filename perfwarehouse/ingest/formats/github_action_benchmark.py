"""github-action-benchmark's ``data.js`` (the history it keeps on a gh-pages branch).

github-action-benchmark (https://github.com/benchmark-action/github-action-benchmark)
appends, for every push it benchmarks, one entry to ``window.BENCHMARK_DATA =
{"lastUpdate", "repoUrl", "entries": {SUITE: [entry, ...]}}``; an entry is ``{"commit":
{"id", "timestamp", "url", ...}, "date" (ms since 1970), "tool", "benches": [{"name",
"value", "unit", "range"?, "extra"?}, ...]}``. Each bench holds one number: the tool's
summary (a mean, or a throughput), not the measurements. Mapping:

* each entry of a suite is one run (``run_id`` = ``SUITE@COMMIT@DATE``, ``run_index`` =
  its rank by date within the suite, ``order_kind`` fixed); each bench is the trial at
  its position, with one value (``values`` = ``[value]``);
* benchmark = the bench's ``name``; settings ``{"suite": SUITE}``; metric ``value``,
  unit = ``unit``; higher is better for the tools ``customBiggerIsBetter`` (and units
  ``.../s``, ``ops/...``), lower for ``customSmallerIsBetter`` and time units, else
  unknown;
* started_at = ``date``; revision = ``commit.id``; revision_time = ``commit.timestamp``;
  ``range``, ``extra``, ``tool`` and the commit's ``url`` go to ``attributes``;
* the file names no machine: node (and hardware type) come from ``--node``.

The plain JSON (without ``window.BENCHMARK_DATA =``) is read the same way.
"""

from __future__ import annotations

import re
from typing import Any

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.formats import _parsing as p
from perfwarehouse.ingest.formats import jsondoc
from perfwarehouse.ingest.formats.records import ImportOptions

NAME = "github-action-benchmark"
DESCRIPTION = "github-action-benchmark data.js (window.BENCHMARK_DATA; one value per bench)"

_PREFIX = re.compile(rb"^\s*window\.BENCHMARK_DATA\s*=\s*")
_TIME_UNITS = re.compile(r"^(ns|us|\u00b5s|ms|s|sec|seconds?)(/(op|iter|call))?$")


def sniff(head: bytes, filename: str) -> bool:
    """``window.BENCHMARK_DATA =`` followed by an object (with ``entries``), or the same
    object as plain JSON with ``repoUrl`` and ``entries`` near its start."""
    if _PREFIX.match(head):
        return True
    text = head.lstrip()
    return text[:1] == b"{" and b'"entries"' in head and b'"repoUrl"' in head \
        and b'"benches"' in head


def parse(data: bytes, source: str, options: ImportOptions) -> list[dict[str, Any]]:
    """Native records of one ``data.js`` (see the module docstring)."""
    prefix = _PREFIX.match(data)
    body = data[prefix.end():] if prefix else data
    body = body.rstrip()
    if body.endswith(b";"):
        body = body[:-1]
    if prefix:  # keep line numbers: the prefix's newlines stay
        body = b"\n" * data.count(b"\n", 0, prefix.end()) + body
    doc = jsondoc.Doc(source)
    top = doc.check(jsondoc.load(body, source), "$", dict)
    entries = doc.get(top, "entries", "$", dict)
    records: list[dict[str, Any]] = []
    for suite, runs in entries.items():
        spath = f"$.entries[{suite!r}]"
        doc.check(runs, spath, list)
        ranked = []
        for i, entry in enumerate(runs):
            epath = f"{spath}[{i}]"
            doc.check(entry, epath, dict)
            date = doc.get(entry, "date", epath, float)
            ranked.append((date, i, entry, epath))
        ranked.sort(key=lambda item: (item[0], item[1]))
        for run_index, (date, _i, entry, epath) in enumerate(ranked):
            commit = doc.get(entry, "commit", epath, dict)
            sha = doc.get(commit, "id", f"{epath}.commit", str)
            revision_time = _commit_time(doc, commit, f"{epath}.commit")
            tool = entry.get("tool") if isinstance(entry.get("tool"), str) else None
            started = p.rfc3339_from_ms(date, source, f"{epath}.date")
            run_id = f"{suite}@{sha}@{started}"
            benches = doc.get(entry, "benches", epath, list)
            settings = {"suite": suite}
            for position, bench in enumerate(benches):
                bpath = f"{epath}.benches[{position}]"
                doc.check(bench, bpath, dict)
                name = doc.get(bench, "name", bpath, str)
                value = doc.get(bench, "value", bpath, float)
                unit = doc.get(bench, "unit", bpath, str, required=False)
                attributes = {k: bench[k] for k in ("range", "extra") if bench.get(k) is not None}
                if tool:
                    attributes["tool"] = tool
                if isinstance(commit.get("url"), str):
                    attributes["commit_url"] = commit["url"]
                records.append(p.record(
                    run_id=run_id, run_index=run_index, position=position, benchmark=name,
                    settings=settings, metric="value", unit=unit or None,
                    higher_is_better=direction(tool, unit), values=[value],
                    started_at=started, revision=sha, revision_time=revision_time,
                    attributes=attributes))
    if not records:
        raise TrialParseError(source, 0, "no-trials", "the file holds no bench")
    return p.finish(records, source)


def _commit_time(doc: jsondoc.Doc, commit: dict[str, Any], path: str) -> str | None:
    """The commit's ``timestamp`` as RFC 3339 (None when absent); a text that is no time
    is refused, not dropped."""
    stamp = doc.get(commit, "timestamp", path, str, required=False)
    if stamp is None:
        return None
    parsed = jsondoc.rfc3339(stamp)
    if parsed is None:
        raise doc.fail("bad-timestamp", f"{path}.timestamp",
                       f"{stamp[:60]!r} is not an ISO 8601 / RFC 3339 time")
    return parsed


def direction(tool: str | None, unit: str | None) -> bool | None:
    """Whether higher is better: the custom tools say it, else the unit (a rate: higher,
    a time: lower), else unknown."""
    if tool == "customBiggerIsBetter":
        return True
    if tool == "customSmallerIsBetter":
        return False
    if unit is None:
        return None
    if unit.endswith("/s") or unit.startswith("ops/") or unit.endswith("/sec"):
        return True
    if _TIME_UNITS.match(unit):
        return False
    return None
