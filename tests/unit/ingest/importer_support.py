"""Shared by the importer unit tests: fixture paths and the rule a broken fixture breaks."""

from __future__ import annotations

from pathlib import Path

from perfwarehouse.ingest.service import read_input

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "importers"

# a broken fixture's name starts with what is wrong with it
RULES = {"truncated": "truncated", "wrong_type": "wrong-type", "missing": "missing-key",
         "duplicate_key": "duplicate-key", "empty": "empty"}


def expected_rule(path: Path) -> str:
    return next(rule for prefix, rule in RULES.items() if path.name.startswith(prefix))


def broken(fmt: str) -> list[Path]:
    return sorted((FIXTURES / fmt / "broken").iterdir())


def data(path: Path) -> bytes:
    return read_input(path)
