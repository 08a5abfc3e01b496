"""Side by side with Apache Otava: the time-series CSVs of the shipped Otava mapping
(``tests/fixtures/tables/otava/*.csv``) read by Otava's own CSV importer and by
``ingest table --mapping ingest/mappings/otava-csv.toml``; prints, per file (and branch),
whether both read the same times, commits and values.

    python benchmarks/otava_csv_side_by_side.py --otava-python /tmp/otava-venv/bin/python

Otava is never a dependency: install it in its own venv (``pip install apache-otava``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYOUTS = REPO / "tests" / "fixtures" / "tables" / "otava"
MAPPING = REPO / "ingest" / "mappings" / "otava-csv.toml"

# run inside Otava's venv: its CsvImporter on one file (and branch); JSON on stdout
OTAVA_READ = """
import json, sys
from datetime import datetime, timezone
from otava.csv_options import CsvOptions
try:
    from otava.data_selector import DataSelector
except ImportError:  # older releases
    from otava.graphite import DataSelector
from otava.importer import CsvImporter
from otava.test_config import CsvMetric, CsvTestConfig
path, sep, branch, attrs = sys.argv[1], sys.argv[2], sys.argv[3] or None, sys.argv[4].split(",")
options = CsvOptions()
options.delimiter = sep
metrics = [CsvMetric(m, 1, 1.0, m) for m in ("throughput", "p99")]
test = CsvTestConfig(name="t", file=path, csv_options=options, time_column="time",
                     metrics=metrics, attributes=[a for a in attrs if a])
selector = DataSelector()
selector.since_time = datetime(1970, 1, 2, tzinfo=timezone.utc)
selector.branch = branch
series = CsvImporter().fetch_data(test, selector)
print(json.dumps({"time": series.time, "data": series.data,
                  "commit": series.attributes.get("commit")}))
"""


def otava_points(python: str, path: Path, branch: str | None) -> set[tuple]:
    header = path.read_text().splitlines()[0]
    sep = ";" if ";" in header else ","
    attrs = ",".join(c for c in ("commit", "branch") if c in header.split(sep))
    out = subprocess.run([python, "-c", OTAVA_READ, str(path), sep, branch or "", attrs],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    commits = doc["commit"] or [None] * len(doc["time"])
    return {(metric, float(t), c, float(v)) for metric, values in doc["data"].items()
            for t, c, v in zip(doc["time"], commits, values)}


def our_points(path: Path, branch: str | None) -> set[tuple]:
    from perfwarehouse.ingest.formats.records import ImportOptions
    from perfwarehouse.ingest.formats.table_ingest import ingest_tables
    from perfwarehouse.warehouse.store import Warehouse

    with tempfile.TemporaryDirectory() as tmp:
        warehouse = Warehouse(Path(tmp) / "wh")
        ingest_tables(warehouse, [path], MAPPING, ImportOptions(node="n"))
        with warehouse.catalog() as con:
            rows = con.execute("""SELECT metric, epoch(started_at), revision, value,
                                         json_extract_string(settings, '$.branch')
                                  FROM measurements""").fetchall()
    return {(m, float(t), r, v) for m, t, r, v, b in rows if branch is None or b == branch}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--otava-python", required=True, help="python of a venv with Otava")
    args = parser.parse_args()
    agree = True
    for path in sorted(LAYOUTS.glob("*.csv")):
        lines = path.read_text().splitlines()
        branches: list[str | None] = [None]
        if "branch" in lines[0]:
            column = lines[0].split(",").index("branch")
            branches = sorted({line.split(",")[column] for line in lines[1:]})
        for branch in branches:
            theirs = otava_points(args.otava_python, path, branch)
            ours = our_points(path, branch)
            same = theirs == ours
            agree &= same
            print(f"{path.name}{' branch ' + branch if branch else ''}: Otava {len(theirs)} "
                  f"points, perfwarehouse {len(ours)}: {'same' if same else 'DIFFERENT'}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
