"""The command line's own import rules (issue 37), on every import statement of the
package (module level and inside functions): click only in ``perfwarehouse/cli/`` (the
verbs' work declares its options as data, :mod:`perfwarehouse.options`), and DuckDB never
in ``perfwarehouse/cli/`` (the work a verb does lives outside it: ``comparison``,
``status``, ``warehouse.export``, ...)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "perfwarehouse"


def _imports(path: Path) -> list[str]:
    """The top-level names of every module ``path`` imports (relative imports are ours)."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module.split(".")[0])
    return names


def violations(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        in_cli = relative.parts[0] == "cli"
        for name in _imports(path):
            if name == "click" and not in_cli:
                found.append(f"{relative} imports click (only perfwarehouse/cli/ may)")
            if name == "duckdb" and in_cli:
                found.append(f"{relative} imports duckdb (the command line only parses and "
                             "prints; the work goes outside cli/)")
    return found


def test_click_only_in_cli_and_no_duckdb_there() -> None:
    assert violations() == []


def test_the_rule_catches_both(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "verb.py").write_text("def f():\n    import duckdb\n")
    (tmp_path / "reports.py").write_text("from click import Option\n")
    assert violations(tmp_path) == [
        "cli/verb.py imports duckdb (the command line only parses and prints; the work goes "
        "outside cli/)",
        "reports.py imports click (only perfwarehouse/cli/ may)"]
