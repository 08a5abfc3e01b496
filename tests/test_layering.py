"""The package's layering, checked on every import statement (module level and inside
functions):

    kernels  <-  stats  <-  method packages  <-  jobs  <-  cli / demo
    reports.charts  <-  reports.<page>_charts  <-  reports.<page>

Method packages hold the pure analyses (arrays in, results out); a report presents: only
its query step (the function ``build``) may call a method package; only the edges
(warehouse/, the ingest readers, the job runner, the report query step and the CLI)
may touch DuckDB; and the command line imports nothing heavy before it parses its
arguments, so ``perfwarehouse --help`` starts fast.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "perfwarehouse"

METHODS: tuple[str, ...] = ("ordersage", "laaber", "triscale", "fleet", "loadtest",
                            "changepoints", "compare", "workbench")
HEAVY = ("numpy", "numba", "scipy", "duckdb", "pyarrow", "polars", "altair", "vl_convert",
         "rich", "starlette", "uvicorn", "httpx", "dask", "distributed")
PURE = ("kernels", "stats", *METHODS)
EDGE_ONLY = ("duckdb", "click", "altair", "vl_convert", "starlette", "uvicorn", "httpx")

# module prefix -> the perfwarehouse packages it may import (besides itself)
ALLOWED: dict[str, tuple[str, ...]] = {
    "kernels": (),
    "stats": ("kernels", "errors"),
    **{m: ("kernels", "stats", "errors") for m in METHODS},
    "jobs": ("kernels", "stats", *METHODS, "errors", "warehouse", "progress", "config",
             "registry", "__version__"),
    "warehouse": ("errors", "faults", "config"),
    "reports.charts": ("errors",),
}
# the chart modules of the pages: pure Altair specs over the shared helpers
CHART_MODULES = ("reports.charts", "reports.order_effects_charts", "reports.variability_charts",
                 "reports.triscale_charts", "reports.fleet_charts", "reports.load_charts",
                 "reports.compare_charts")
ALLOWED |= {m: ("errors", "reports.charts") for m in CHART_MODULES[1:]}
QUERY_STEP = "build"  # the one function of a report module that may call a method package
# where DuckDB may be imported: the warehouse, the ingest edge, the job runner, the
# report query step and the command-line edge
DUCKDB_MODULES = ("warehouse.", "ingest.stage", "ingest.latency", "ingest.service", "ingest.pull",
                  "ingest.readers", "ingest.formats.jsonl", "ingest.formats.table",
                  "jobs.framework", "reports.base", "cli.query", "cli.compare", "api",
                  "generate.trials")
# command-line modules: only light imports at module level (the whole cli package but the
# query runner, which a command imports when it runs)
CLI_MODULES = ("cli", "cli.main", "cli.context", "cli.ingest", "cli.sql", "cli.analyze",
               "cli.report", "cli.agent", "cli.compare", "cli.compact", "cli.workbench",
               "cli.cluster", "cli.check", "protocol", "registry", "config", "errors", "__init__", "__main__")


def modules() -> list[tuple[str, ast.Module]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        name = name.removesuffix(".__init__") if name != "__init__" else name
        out.append((name, ast.parse(path.read_text(), str(path))))
    return out


def imports(tree: ast.Module, module_level_only: bool = False) -> list[str]:
    """Absolute names of every import (``perfwarehouse.x.y`` without the prefix for ours)."""
    nodes = tree.body if module_level_only else list(ast.walk(tree))
    names = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "perfwarehouse":
                names += [f"perfwarehouse.{a.name}" for a in node.names]
            else:
                names.append(node.module)
        elif module_level_only and isinstance(node, ast.If):
            continue  # `if TYPE_CHECKING:` blocks are not run
    return names


def method_imports_outside_the_query_step(tree: ast.Module) -> list[str]:
    """Method packages a report module imports anywhere but in its query step (or under
    ``if TYPE_CHECKING``, for annotations)."""
    allowed: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == QUERY_STEP or (
                isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)):
            allowed |= {id(n) for n in ast.walk(node)}
    found = []
    for node in ast.walk(tree):
        if id(node) in allowed or not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        wrapper = ast.Module(body=[node], type_ignores=[])
        found += [n for n in imports(wrapper) if (ours(n) or "").split(".")[0] in METHODS]
    return found


def ours(name: str) -> str | None:
    return name.removeprefix("perfwarehouse.") if name.startswith("perfwarehouse.") else None


def rule_for(module: str) -> tuple[str, tuple[str, ...]] | None:
    best = None
    for prefix, allowed in ALLOWED.items():
        if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > len(best[0])):
            best = (prefix, allowed)
    return best


def violations() -> list[str]:
    found = []
    for module, tree in modules():
        rule = rule_for(module)
        for name in imports(tree):
            target = ours(name)
            top = name.split(".")[0]
            if top == "duckdb" and not module.startswith(DUCKDB_MODULES):
                found.append(f"{module} imports duckdb (only the edges may)")
            if module.split(".")[0] in PURE and top in EDGE_ONLY:
                found.append(f"{module} imports {top} (a pure layer)")
            if rule is None or target is None:
                continue
            prefix, allowed = rule
            head = target.split(".")[0]
            same = head == prefix.split(".")[0] and prefix not in CHART_MODULES
            if not same and head not in allowed and target not in allowed:
                found.append(f"{module} imports perfwarehouse.{target} "
                             f"({prefix} may import only {', '.join(allowed) or 'itself'})")
        if module.startswith("reports.") and module != "reports.charts":
            for name in imports(tree):
                target = ours(name) or ""
                if target.split(".")[0] in ("kernels", "stats"):
                    found.append(f"{module} imports perfwarehouse.{target}: reports present "
                                 "results, statistics belong to a method package or job")
            for name in method_imports_outside_the_query_step(tree):
                found.append(f"{module} imports {name} outside its query step ({QUERY_STEP}): "
                             "the page's build code presents, it computes nothing")
        if module in CLI_MODULES:
            for name in imports(tree, module_level_only=True):
                if name.split(".")[0] in HEAVY:
                    found.append(f"{module} imports {name} at module level (slow CLI start)")
    return found


def test_the_layering_holds() -> None:
    assert violations() == []


def package_of(module: str) -> str:
    """The package a module belongs to: its first component (``ingest.formats.jsonl`` ->
    ``ingest``); a top-level module is its own package (``demo``)."""
    return module.split(".")[0]


def package_graph(found: list[tuple[str, ast.Module]]) -> dict[str, dict[str, str]]:
    """package -> {imported package: one module that imports it}, over every import that
    runs (module level and inside functions; ``if TYPE_CHECKING`` blocks are annotations)."""
    graph: dict[str, dict[str, str]] = {}
    for module, tree in found:
        source = package_of(module)
        checking = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                    and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        for node in ast.walk(tree):
            if id(node) in checking or not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in imports(ast.Module(body=[node], type_ignores=[])):
                target = ours(name)
                if target is not None and package_of(target) != source:
                    graph.setdefault(source, {}).setdefault(package_of(target), module)
    return graph


def import_loops(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan): each is a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for succ in graph.get(node, {}):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                loops.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return loops


def describe(loop: list[str], graph: dict[str, dict[str, str]]) -> str:
    edges = [f"{a} -> {b} ({graph[a][b]})" for a in loop for b in loop if b in graph.get(a, {})]
    return "import loop between " + ", ".join(loop) + ": " + "; ".join(edges)


def test_no_import_loop_between_packages() -> None:
    """No two packages (cli, agent, ingest, demo, workbench, jobs, ...) import each other,
    directly or through others: a loop makes the layers meaningless and imports fragile."""
    graph = package_graph(modules())
    assert [describe(loop, graph) for loop in import_loops(graph)] == []


def test_the_loop_checker_catches_a_loop() -> None:
    """The loops the edges had before the cli package (cli <-> ingest through
    ingest.commands, demo -> ingest -> cli -> demo, agent <-> ingest through ingest.pull)
    are each found, and a chain without a loop is not."""
    found = modules() + [
        ("ingest.commands", ast.parse("def f():\n    from perfwarehouse.cli import context\n")),
        ("ingest.pull", ast.parse("from perfwarehouse.agent.serve import read_token\n")),
        ("demo", ast.parse("from perfwarehouse.ingest.service import ingest_jsonl\n"))]
    loops = import_loops(package_graph(found))
    assert any({"cli", "ingest", "demo"} <= set(loop) for loop in loops)
    assert any("agent" in loop and "ingest" in loop for loop in loops)
    chain = {"a": {"b": "a"}, "b": {"c": "b"}}
    assert import_loops(chain) == []
    assert import_loops({**chain, "c": {"a": "c"}}) == [["a", "b", "c"]]


def test_the_checker_catches_a_forbidden_import(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel importing DuckDB and a method package importing the warehouse are caught."""
    original = modules()
    extra = [("kernels.bad", ast.parse("import duckdb\n")),
             ("ordersage.bad", ast.parse("from perfwarehouse.warehouse import store\n")),
             ("reports.bad", ast.parse("def f():\n    from perfwarehouse.stats import acf\n")),
             ("reports.worse", ast.parse("def section():\n"
                                         "    from perfwarehouse.fleet import analysis\n")),
             ("reports.fleet_charts", ast.parse("from perfwarehouse.reports.base import Report\n")),
             ("cli", ast.parse("import numpy\n"))]
    monkeypatch.setattr(sys.modules[__name__], "modules", lambda: original + extra)
    found = violations()
    assert any(v.startswith("kernels.bad imports duckdb") for v in found)
    assert any(v.startswith("ordersage.bad imports perfwarehouse.warehouse") for v in found)
    assert any(v.startswith("reports.bad imports perfwarehouse.stats") for v in found)
    assert any(v.startswith("reports.worse imports perfwarehouse.fleet outside")
               for v in found)
    assert any(v.startswith("reports.fleet_charts imports perfwarehouse.reports.base")
               for v in found)
    assert any(v.startswith("cli imports numpy at module level") for v in found)


@pytest.mark.parametrize("argv", [["--help"], ["analyze", "--help"], ["report", "--help"],
                                  ["ingest", "--help"], ["cluster", "local", "--help"],
                                  ["--version"]])
def test_the_command_line_starts_without_heavy_modules(argv: list[str]) -> None:
    code = ("import sys\nfrom perfwarehouse.cli import main\n"
            f"code = main({argv!r})\n"
            f"heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)\n"
            "print('HEAVY=' + ','.join(heavy))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=REPO, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "HEAVY=", result.stdout


def test_the_stats_package_names_resolve_lazily() -> None:
    """perfwarehouse.stats imports its modules on first use: every name of its __all__
    resolves, and importing the package alone loads neither scipy.stats nor a module."""
    import subprocess
    import sys

    code = ("import sys, perfwarehouse.stats as s; "
            "assert 'scipy.stats' not in sys.modules, 'scipy.stats imported'; "
            "assert not [m for m in sys.modules if m.startswith('perfwarehouse.stats.')]; "
            "[getattr(s, n) for n in s.__all__]; print(len(s.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "12"
