"""OrderSage results directories, both generations (Duplyakin et al. (OrderSage, USENIX ATC 2023), §6).

A directory holds each trial twice: in the per-host file
(``<host>_test_results.csv``, 2021: ``<host>_experiment_results.csv``) and in the
controller's ``<stamp>_all_test_results.csv`` (2021: ``_all_exp_results.csv``),
re-saved with float rounding noise. The per-host copies are read first; a row of
the ``all_`` file is used only for a trial no per-host file has. Identity of a
row: (``run_uuid``, ``order_number``, test command).

* benchmark = the test command, verbatim; settings = ``{}``;
* a single result -> metric ``result``; ``"a,b,c,d"`` -> one record per value,
  named ``copy, scale, add, triad`` for STREAM, else ``value_0, value_1, ...``;
* run time = the timestamp inside ``run_uuid`` (a uuid1); ``time_start`` and
  ``time_stop`` are controller CPU times, used only for the trial's duration;
* the 2021 layout restarts ``run_num`` at 0 for the random block, which ran
  after all fixed runs: random runs get ``run_index = run_num + total_runs``;
* node = ``nodeid`` from ``*_env_out.csv`` (else the hostname's first label);
  its hardware type from :mod:`perfwarehouse.ingest.hardware`;
* ``completion_status`` ``Success`` -> status ``ok``, ``Failure`` -> ``failed``
  (a failed trial keeps no values).

Every run must hold each test of the test list (the commands, by test number)
exactly once.
"""

from __future__ import annotations

import csv
import io
import json
import uuid
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa

from perfwarehouse.errors import TrialParseError
from perfwarehouse.ingest.hardware import HardwareTypeRules

STREAM_METRICS = ("copy", "scale", "add", "triad")
UUID_EPOCH = datetime(1582, 10, 15, tzinfo=timezone.utc)
RESULT_COLUMNS = ("run_uuid", "hostname", "run_num", "total_runs", "order_number",
                  "order_type", "time_start", "time_stop", "completion_status", "result")


@dataclass(frozen=True)
class DirectoryFiles:
    """The files of a results directory that matter, by role."""

    host_results: tuple[str, ...]
    all_results: tuple[str, ...]
    host_runs: tuple[str, ...]
    all_runs: tuple[str, ...]
    host_env: tuple[str, ...]
    all_env: tuple[str, ...]

    def all(self) -> tuple[str, ...]:
        return (self.host_results + self.all_results + self.host_runs + self.all_runs
                + self.host_env + self.all_env)


def classify(names: list[str]) -> DirectoryFiles:
    """Sort a directory listing into roles; lock files, OrderSage's own statistics and
    side files are ignored."""
    roles: dict[str, list[str]] = defaultdict(list)
    for name in sorted(names):
        if name.startswith(".~lock.") or "node_stats" in name or "stats_summary" in name:
            continue
        for suffix, role in (
            ("_all_test_results.csv", "all_results"), ("_all_exp_results.csv", "all_results"),
            ("_test_results.csv", "host_results"), ("_experiment_results.csv", "host_results"),
            ("_all_run_results.csv", "all_runs"), ("_run_results.csv", "host_runs"),
            ("_all_env_out.csv", "all_env"), ("_env_out.csv", "host_env"),
        ):
            if name.endswith(suffix):
                roles[role].append(name)
                break
    return DirectoryFiles(**{k: tuple(roles[k]) for k in DirectoryFiles.__dataclass_fields__})


def is_results_directory(path: Path) -> bool:
    files = classify([p.name for p in path.iterdir()]) if path.is_dir() else None
    return bool(files and (files.host_results or files.all_results))


def parse_directory(
    files: dict[str, bytes], *, directory: str, campaign: str, rules: HardwareTypeRules
) -> tuple[pa.Table, list[TrialParseError]]:
    """Parse one results directory (file name -> content) into ``raw_trials`` rows."""
    roles = classify(list(files))
    problems: list[TrialParseError] = []
    if not (roles.host_results or roles.all_results):
        problems.append(TrialParseError(directory, 0, "no-results",
                                        "no *_test_results.csv or *_experiment_results.csv here"))
        return _empty(), problems

    def rows_of(name: str, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
        return _read_csv(files[name], f"{directory}/{name}", required, problems)

    result_rows: list[tuple[str, int, dict[str, str]]] = []
    seen: dict[tuple[str, str, str], dict[str, str]] = {}
    for name in roles.host_results + roles.all_results:
        legacy = name.endswith(("_experiment_results.csv", "_all_exp_results.csv"))
        command_column = "exp_command" if legacy else "test_command"
        source = f"{directory}/{name}"
        for line, row in rows_of(name, RESULT_COLUMNS + (command_column,)):
            row["command"] = row[command_column]
            row["layout"] = "2021" if command_column == "exp_command" else "2022"
            identity = (row["run_uuid"], row["order_number"], row["command"])
            if identity in seen:  # the other copy of a trial: checked, not ingested again
                _check_copy(source, line, row, seen[identity], problems)
                continue
            seen[identity] = row
            result_rows.append((source, line, row))

    runs: dict[str, dict[str, str]] = {}
    for name in roles.host_runs + roles.all_runs:
        for _line, row in rows_of(name, ("run_uuid", "random_seed")):
            runs.setdefault(row["run_uuid"], row)
    envs = _environments(roles, rows_of)
    return _records(result_rows, runs, envs, campaign, rules, problems), problems


def _check_copy(source: str, line: int, copy: dict[str, str], first: dict[str, str],
                problems: list[TrialParseError]) -> None:
    """The second copy of a trial must be readable and say the same (up to the rounding
    noise of a re-saved CSV, 1e-9 relative)."""
    if copy["completion_status"] != first["completion_status"]:
        problems.append(TrialParseError(source, line, "copies-disagree",
                                        f"completion_status {copy['completion_status']!r} here, "
                                        f"{first['completion_status']!r} in the other copy"))
        return
    if copy["completion_status"] != "Success":
        return
    try:
        a = [float(v) for v in copy["result"].split(",")]
    except ValueError:
        problems.append(TrialParseError(source, line, "non-numeric",
                                        f"result {copy['result']!r} is not a number "
                                        "(or comma-separated numbers)"))
        return
    try:
        b = [float(v) for v in first["result"].split(",")]
    except ValueError:
        return  # reported on the first copy
    if len(a) != len(b) or any(abs(x - y) > 1e-9 * max(abs(x), abs(y)) for x, y in zip(a, b)):
        problems.append(TrialParseError(source, line, "copies-disagree",
                                        f"result {copy['result']!r} here, {first['result']!r} "
                                        "in the other copy of this trial"))


def _environments(roles: DirectoryFiles, rows_of: Any) -> dict[str, dict[str, str]]:
    """hostname -> env row; per-host files name their host, all_ rows are matched by prefix."""
    by_host: dict[str, dict[str, str]] = {}
    for name in roles.host_env:
        rows = rows_of(name, ("nodeid",))
        if rows:
            by_host[name[: -len("_env_out.csv")]] = rows[0][1]
    unmatched = [row for name in roles.all_env for _line, row in rows_of(name, ("nodeid",))]
    by_host["*"] = unmatched[0] if len(unmatched) == 1 else {}
    for row in unmatched:
        by_host.setdefault("prefix:" + row["nodeid"], row)
    return by_host


def _env_for(hostname: str, envs: dict[str, dict[str, str]], single_host: bool) -> dict[str, str]:
    if hostname in envs:
        return envs[hostname]
    first_label = hostname.split(".")[0]
    if "prefix:" + first_label in envs:
        return envs["prefix:" + first_label]
    return envs.get("*", {}) if single_host else {}


def _records(
    result_rows: list[tuple[str, int, dict[str, str]]], runs: dict[str, dict[str, str]],
    envs: dict[str, dict[str, str]], campaign: str, rules: HardwareTypeRules,
    problems: list[TrialParseError],
) -> pa.Table:
    test_numbers: dict[str, float] = {}
    for _source, _line, row in result_rows:
        try:
            number = float(row.get("exp_number") or row.get("test_number") or "nan")
        except ValueError:
            number = float("nan")
        test_numbers.setdefault(row["command"], number)
    test_list = sorted(test_numbers, key=lambda c: (test_numbers[c], c))
    single_host = len({r["hostname"] for _s, _l, r in result_rows}) == 1

    parsed = []
    width: dict[str, int] = {}  # values per successful trial of each command
    for source, line, row in result_rows:
        record = _record(source, line, row, runs, envs, single_host, rules, problems)
        if record is not None:
            parsed.append((source, line, row["command"], record))
            if record["status"] == "ok":
                width.setdefault(row["command"], len(record["values"]))

    # the test-list check counts every row, parsed or not (a bad row has its own problem)
    run_tests: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    for source, line, row in result_rows:
        run_tests[row["run_uuid"]].append((source, line, row["command"]))
    out: dict[str, list[Any]] = defaultdict(list)
    for source, line, command, record in parsed:
        status, values = record.pop("status"), record.pop("values")
        # a failed trial gets one value-less record per metric its test reports
        names = _metric_names(command, len(values) if status == "ok" else width.get(command, 1))
        for i, name in enumerate(names):
            out["source"].append(source)
            out["line"].append(line)
            for key, value in record.items():
                out[key].append(value)
            out["campaign"].append(campaign)
            out["metric"].append(name)
            out["status"].append(status)
            out["values"].append([values[i]] if status == "ok" else [])
    _check_runs(run_tests, test_list, problems)
    sizes: defaultdict[Any, int] = defaultdict(int)  # run_id -> records
    for run_id in out["run_id"]:
        sizes[run_id] += 1
    out["run_size"] = [float(sizes[r]) for r in out["run_id"]]
    if not out["line"]:
        return _empty()
    return pa.table({k: pa.array(v, _TYPES.get(k, pa.string())) for k, v in out.items()})


def _record(
    source: str, line: int, row: dict[str, str], runs: dict[str, dict[str, str]],
    envs: dict[str, dict[str, str]], single_host: bool, rules: HardwareTypeRules,
    problems: list[TrialParseError],
) -> dict[str, Any] | None:
    def fail(rule: str, detail: str) -> None:
        problems.append(TrialParseError(source, line, rule, detail))

    status = "ok" if row["completion_status"] == "Success" else (
        "failed" if row["completion_status"] == "Failure" else row["completion_status"].lower())
    values: list[float] = []
    if status == "ok":
        try:
            values = [float(part) for part in row["result"].split(",")]
        except ValueError:
            fail("non-numeric", f"result {row['result']!r} is not a number (or comma-separated numbers)")
            return None
    numbers = {}
    for key in ("run_num", "total_runs", "order_number", "time_start", "time_stop"):
        try:
            numbers[key] = float(row[key])
        except ValueError:
            fail("non-numeric", f"{key} {row[key]!r} is not a number")
            return None
    try:
        run_uuid = uuid.UUID(row["run_uuid"])
    except ValueError:
        fail("bad-run-uuid", f"run_uuid {row['run_uuid']!r} is not a UUID")
        return None
    if run_uuid.version != 1:
        fail("bad-run-uuid", f"run_uuid {row['run_uuid']} is not a time-based uuid1, "
                             "so the run's time is unknown")
        return None
    started = UUID_EPOCH + timedelta(microseconds=run_uuid.time // 10)
    env = _env_for(row["hostname"], envs, single_host)
    node = env.get("nodeid") or row["hostname"].split(".")[0]
    hardware_type, rule = rules.resolve(node)
    run_index = numbers["run_num"]
    if row["layout"] == "2021" and row["order_type"] == "random":
        run_index += numbers["total_runs"]
    return {
        "v": 1.0, "run_id": row["run_uuid"], "node": node, "hostname": row["hostname"],
        "hardware_type": hardware_type, "hardware_type_rule": rule, "run_index": run_index,
        "order_kind": row["order_type"], "seed": runs.get(row["run_uuid"], {}).get("random_seed"),
        "position": numbers["order_number"], "benchmark": row["command"], "settings": "{}",
        "unit": None, "higher_is_better": None, "started_at": started,
        "duration_s": numbers["time_stop"] - numbers["time_start"],
        "env": _env_json(env),
        "status": status, "values": values,
    }


def _env_json(env: dict[str, str]) -> str | None:
    """The env_out row as JSON, with perfwarehouse's well-known keys added."""
    if not env:
        return None
    known = {"memory": env.get("total_mem"), "kernel": env.get("kernel_release")}
    return json.dumps({**env, **{k: v for k, v in known.items() if v}}, sort_keys=True)


def _metric_names(command: str, n: int) -> list[str]:
    if n == 1:
        return ["result"]
    if n == len(STREAM_METRICS) and "stream" in command.lower():
        return list(STREAM_METRICS)
    return [f"value_{i}" for i in range(n)]


def _check_runs(
    run_tests: dict[str, list[tuple[str, int, str]]], test_list: list[str],
    problems: list[TrialParseError],
) -> None:
    """Each run holds every test of the test list once (Duplyakin et al. (OrderSage, USENIX ATC 2023), Algorithm 1)."""
    expected = set(test_list)
    for run_id, tests in run_tests.items():
        commands = [t[2] for t in tests]
        if len(commands) != len(test_list) or set(commands) != expected:
            source, line, _ = min(tests, key=lambda t: (t[0], t[1]))
            missing = sorted(expected - set(commands))
            detail = (f"run {run_id} has {len(commands)} trials but its test list has "
                      f"{len(test_list)}" + (f" (missing {missing[0]!r})" if missing else ""))
            problems.append(TrialParseError(source, line, "run-size", detail))


def _read_csv(
    data: bytes, source: str, required: tuple[str, ...], problems: list[TrialParseError]
) -> list[tuple[int, dict[str, str]]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(TrialParseError(source, line, "broken-utf8", "invalid UTF-8 in this line"))
        return []
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        problems.append(TrialParseError(source, 1, "missing-column",
                                        f"the header lacks column(s) {', '.join(missing)}"))
        return []
    rows = []
    for row in reader:
        if None in row or any(row.get(c) is None for c in required):
            problems.append(TrialParseError(source, reader.line_num, "truncated-line",
                                            "this row has a different number of fields than the header"))
            continue
        rows.append((reader.line_num, row))
    return rows


_TYPES = {
    "line": pa.int64(), "v": pa.float64(), "run_index": pa.float64(), "position": pa.float64(),
    "run_size": pa.float64(), "duration_s": pa.float64(), "higher_is_better": pa.bool_(),
    "values": pa.list_(pa.float64()), "started_at": pa.timestamp("us", tz="UTC"),
}


def _empty() -> pa.Table:
    return pa.table({"source": pa.array([], pa.string()), "line": pa.array([], pa.int64())})
