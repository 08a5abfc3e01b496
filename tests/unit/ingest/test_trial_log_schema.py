"""The manual's JSON Schema of the trial log (docs/ingest.md) agrees with what ingest accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from perfwarehouse.errors import TrialParseError
from perfwarehouse.generate import generate
from perfwarehouse.ingest.service import ingest_jsonl
from perfwarehouse.warehouse.store import Warehouse
from tests.conftest import REPO
from tests.trial_logs import records, write

SCHEMA = json.loads((REPO / "ingest" / "trial-log.schema.json").read_text())


def test_generated_and_example_records_are_valid() -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    g = generate("laaber-cloud", seed=1, scale=0.02)
    sample = g.records.slice(0, 50).to_pylist()
    for r in sample:
        r["settings"] = json.loads(r["settings"])
        r["env"] = json.loads(r["env"]) if r["env"] else None
        r["started_at"] = r["started_at"].isoformat()
        validator.validate(r)
    for r in records():
        validator.validate(r)


def test_the_readme_embeds_this_schema() -> None:
    readme = (REPO / "docs" / "ingest.md").read_text()  # the manual moved from the README
    start = readme.index("```json\n", readme.index("JSON Schema")) + len("```json\n")
    assert json.loads(readme[start:readme.index("```", start)]) == SCHEMA


@pytest.mark.parametrize("change", [
    {"order_kind": "shuffled"}, {"position": -1}, {"position": 1.5}, {"values": ["x"]},
    {"campaign": ""}, {"v": 2}, {"settings": "threads=4"}, {"duration_s": -3},
])
def test_schema_invalid_records_are_refused(warehouse: Warehouse, tmp_path: Path, change: dict) -> None:
    recs = records()
    recs[2].update(change)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(recs[2], SCHEMA)
    with pytest.raises(TrialParseError) as info:
        ingest_jsonl(warehouse, [write(tmp_path / "x.jsonl", recs)])
    assert info.value.line == 3
