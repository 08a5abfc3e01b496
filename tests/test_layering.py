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
PURE = ("kernels", "stats", "policies", *METHODS)
EDGE_ONLY = ("duckdb", "click", "altair", "vl_convert", "starlette", "uvicorn", "httpx")

# module prefix -> the perfwarehouse packages it may import (besides itself)
ALLOWED: dict[str, tuple[str, ...]] = {
    "kernels": (),
    "stats": ("kernels", "errors"),
    **{m: ("kernels", "stats", "errors") for m in METHODS},
    "jobs": ("kernels", "stats", *METHODS, "errors", "warehouse", "progress", "config",
             "registry", "__version__"),
    "warehouse": ("errors", "faults", "config", "output", "filelock"),
    "reports.charts": ("errors",),
    "policies": (),  # the rules both sides read records by: stdlib and orjson only
    "filelock": (),
}
# the chart modules of the pages: pure Altair specs over the shared helpers
CHART_MODULES = ("reports.charts", "reports.order_effects_charts", "reports.variability_charts",
                 "reports.triscale_charts", "reports.fleet_charts", "reports.load_charts",
                 "reports.compare_charts")
ALLOWED |= {m: ("errors", "reports.charts") for m in CHART_MODULES[1:]}
QUERY_STEP = "build"  # the one function of a report module that may call a method package
# where DuckDB may be imported: the warehouse, the ingest edge, the job runner, the
# report query step (never the command line: tests/test_layering_cli.py)
DUCKDB_MODULES = ("warehouse.", "ingest.stage", "ingest.latency", "ingest.service", "ingest.pull",
                  "ingest.readers", "ingest.formats.jsonl", "ingest.formats.table",
                  "jobs.framework", "reports.base", "api",
                  "generate.trials")
# command-line modules: only light imports at module level (the whole cli package)
CLI_MODULES = ("cli", "cli.main", "cli.context", "cli.ingest", "cli.sql", "cli.analyze",
               "cli.report", "cli.agent", "cli.compare", "cli.compact", "cli.workbench",
               "cli.cluster", "cli.check", "cli.refresh", "cli.bisect", "protocol", "registry",
               "config", "errors", "__init__", "__main__")


# the two sides (issue 37): the worker side (agent) meets the warehouse side only at
# protocol.py and the pure policies; the importers serve the warehouse and nothing above it.
# module prefix -> (what it may import of ours, what of that it still may not), prefixes
SIDES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "agent": (("agent", "errors", "protocol", "policies", "filelock", "stats", "kernels",
               "workbench", "__version__", "ingest.hardware", "ingest.formats"),
              # the importers' pure parsers, not their DuckDB readers
              ("ingest.formats.jsonl", "ingest.formats.table")),
    "ingest": (("",), ("cli", "reports", "jobs", "agent", "demo", "refresh", "api")),
}
# packages that may not import another package's private names (``from x import _name``)
NO_PRIVATE_IMPORTS = ("agent", "ingest", "cli")


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


def covers(prefixes: tuple[str, ...], name: str) -> bool:
    """Whether ``name`` is one of ``prefixes`` or inside one (``""`` covers every name)."""
    return any(p == "" or name == p or name.startswith(p + ".") for p in prefixes)


def private_imports(tree: ast.Module) -> list[str]:
    """``module:name`` of every private name (``_x``) imported from one of our modules."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.startswith("perfwarehouse."):
            found += [f"{node.module.removeprefix('perfwarehouse.')}:{a.name}"
                      for a in node.names if a.name.startswith("_") and a.name != "__version__"]
    return found


def side_violations(module: str, tree: ast.Module) -> list[str]:
    """What breaks :data:`SIDES` and :data:`NO_PRIVATE_IMPORTS` in one module."""
    found = []
    side = module.split(".")[0]
    if side in SIDES:
        allowed, denied = SIDES[side]
        for name in imports(tree):
            target = ours(name)
            if target is not None and (not covers(allowed, target) or covers(denied, target)):
                found.append(f"{module} imports perfwarehouse.{target} ({side} may not: "
                             "the worker side meets the warehouse side only at protocol.py)"
                             if side == "agent" else
                             f"{module} imports perfwarehouse.{target} ({side} may not import "
                             f"{', '.join(denied)})")
    if side in NO_PRIVATE_IMPORTS:
        for where in private_imports(tree):
            if where.split(".")[0] != side:
                found.append(f"{module} imports the private {where} of another package")
    return found


def violations() -> list[str]:
    found = []
    for module, tree in modules():
        found += side_violations(module, tree)
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
             ("cli", ast.parse("import numpy\n")),
             ("agent.bad", ast.parse("from perfwarehouse.warehouse.lock import exclusive_lock\n"
                                     "def f():\n"
                                     "    from perfwarehouse.ingest.formats.jsonl import _x\n")),
             ("ingest.bad", ast.parse("from perfwarehouse.reports import base\n")),
             ("cli.bad", ast.parse("def f():\n    from perfwarehouse.ingest.x import _y\n"))]
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
    assert any(v.startswith("agent.bad imports perfwarehouse.warehouse.lock (agent may not")
               for v in found)
    assert any(v.startswith("agent.bad imports perfwarehouse.ingest.formats.jsonl (agent")
               for v in found)
    assert "agent.bad imports the private ingest.formats.jsonl:_x of another package" in found
    assert any(v.startswith("ingest.bad imports perfwarehouse.reports (ingest may not")
               for v in found)
    assert "cli.bad imports the private ingest.x:_y of another package" in found


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
    resolves to the function or class (not to a submodule of the same name, even once the
submodules are imported), and importing the package alone loads neither scipy.stats nor
the lazy modules."""
    import subprocess
    import sys

    code = ("import sys, types, perfwarehouse.stats as s; "
            "assert 'scipy.stats' not in sys.modules, 'scipy.stats imported'; "
            "lazy = ('order_statistics', 'rank_tests'); "
            "assert not [m for m in lazy if 'perfwarehouse.stats.' + m in sys.modules]; "
            "import perfwarehouse.stats.order_statistics, perfwarehouse.stats.theil_sen; "
            "import perfwarehouse.stats.acf, perfwarehouse.stats.rank_tests; "
            "from perfwarehouse.stats import theil_sen, acf, mannwhitneyu; "
            "assert not [n for n in s.__all__ if isinstance(getattr(s, n), types.ModuleType)]; "
            "print(len(s.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "12"


# ------------------------------------------------------------------ thin jobs named alike
#: job modules' shared helpers live in these (non-job) modules of perfwarehouse.jobs
JOB_HELPERS = ("jobs", "jobs.framework", "jobs.configurations", "jobs.series", "jobs.row_order",
               "jobs.laaber_rows", "jobs.parallel", "jobs.dask_runner", "jobs.plan",
               "jobs.incremental", "jobs.change_point_mixing", "jobs.change_point_pairing",
               "jobs.model", "jobs.spill")


def job_attribute(name: str, jobs_in_module: int) -> str:
    """The rule for a job's constant: ``JOB`` in a module of one job; in a module of
    several, ``JOB_`` and the job's name in capitals (``kpi`` -> ``JOB_KPI``)."""
    return "JOB" if jobs_in_module == 1 else "JOB_" + name.upper().replace("-", "_")


def job_problems(found: list[tuple[str, ast.Module]],
                 catalog: list[tuple[str, str]]) -> list[str]:
    """What breaks the jobs' rules, given the modules and the catalog's (name, target)
    pairs: every constant named by :func:`job_attribute` and listed in the catalog under
    its job's name; no job module imports another job module; every job's parameters
    extend ``JobParams`` and none declares ``campaign`` again."""
    problems = []
    trees = dict(found)
    targets: dict[str, list[tuple[str, str]]] = {}
    for name, target in catalog:
        module, attribute = target.split(":")
        targets.setdefault(module.removeprefix("perfwarehouse."), []).append((name, attribute))
    job_modules = set(targets)
    params_bases = {"JobParams"}  # and the helper modules' classes that extend it
    for module, tree in found:
        if module in JOB_HELPERS:
            params_bases |= {c.name for c in tree.body if isinstance(c, ast.ClassDef)
                             and {ast.unparse(b) for b in c.bases} & {"JobParams"}}
    for module, entries in targets.items():
        for name, attribute in entries:
            if attribute != job_attribute(name, len(entries)):
                problems.append(f"{module}:{attribute} (job {name}) should be called "
                                f"{job_attribute(name, len(entries))}")
    for module, tree in found:
        if not module.startswith("jobs."):
            continue
        if module not in job_modules and module not in JOB_HELPERS:
            problems.append(f"{module} is neither a job module (in the CATALOG) nor a "
                            "helper module (JOB_HELPERS)")
        declared = {e[1]: e[0] for e in targets.get(module, [])}
        for node in tree.body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and ast.unparse(node.value.func) == "Job"):
                attribute = ast.unparse(node.targets[0])
                kw = {k.arg: k.value for k in node.value.keywords}
                job_name = ast.literal_eval(kw["name"]) if "name" in kw else None
                if declared.get(attribute) != job_name:
                    problems.append(f"{module}:{attribute} (job {job_name}) is not in the "
                                    "CATALOG under its name")
                params = ast.unparse(kw.get("params", ast.Constant(None)))
                classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
                if params not in classes or not {
                        ast.unparse(b) for b in classes[params].bases} & params_bases:
                    problems.append(f"{module}:{attribute}'s parameters {params} do not "
                                    "extend JobParams in its module")
            if isinstance(node, ast.ClassDef) and module != "jobs.model":  # JobParams
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and ast.unparse(item.target) == "campaign":
                        problems.append(f"{module}.{node.name} declares campaign again "
                                        "(JobParams declares it)")
        if module in job_modules:
            for name in imports(tree):
                target = ours(name)
                while target is not None and target not in trees and "." in target:
                    target = target.rsplit(".", 1)[0]  # from module import name
                if target in job_modules and target != module:
                    problems.append(f"job module {module} imports the job module {target}")
    return problems


def catalog_targets() -> list[tuple[str, str]]:
    from perfwarehouse.jobs import CATALOG

    return [(e.name, e.target) for e in CATALOG]


def test_jobs_are_thin_and_named_alike() -> None:
    assert job_problems(modules(), catalog_targets()) == []


def test_the_job_checker_catches_a_misnamed_job_and_a_sibling_import() -> None:
    """The shapes the jobs had before issue 26: a constant named after its job in a module
    of one job, a job module importing a sibling's helpers, campaign declared per job."""
    found = [(m, t) for m, t in modules() if m not in ("jobs.trends", "jobs.surface")] + [
        ("jobs.trends", ast.parse("TRENDS = Job(name='trends', params=P)\n"
                                  "class P(JobParams):\n    pass\n")),
        ("jobs.surface", ast.parse("from perfwarehouse.jobs.trends import P\n"
                                   "class S:\n    campaign: str | None = None\n"
                                   "JOB = Job(name='surface', params=S)\n"))]
    catalog = [(n, t.replace("trends:JOB", "trends:TRENDS")) for n, t in catalog_targets()]
    found_problems = job_problems(found, catalog)
    assert any("jobs.trends:TRENDS (job trends) should be called JOB" in p
               for p in found_problems)
    assert "job module jobs.surface imports the job module jobs.trends" in found_problems
    assert any("jobs.surface.S declares campaign again" in p for p in found_problems)
    assert any("parameters S do not extend JobParams" in p for p in found_problems)


# ------------------------------------------------------------ one shape per method package
#: the method packages with the shape (changepoints joins once it is reshaped: issue 26)
SHAPED = METHODS
SHAPE_MODULES = ("parameters", "analysis", "results")
CITATION = r"(19|20)\d\d.*?(section|§|Section|Algorithm|equation)|(section|§|Section)[^.]*(19|20)\d\d"


def shape_problems(package: str, found: list[tuple[str, ast.Module]]) -> list[str]:
    """What keeps ``package`` from the method packages' shape (docs/architecture.md):

    * ``__init__.py``: a docstring naming the paper (a year) and its section, and only
      imports from the package and ``__all__``, every name of which it imports;
    * ``parameters.py``: the defaults (every ``DEFAULT_*`` of the package) and option
      checks; imports no other module of the package;
    * ``results.py``: the result types (every ``*Result`` class of the package); imports
      at most ``parameters``;
    * ``analysis.py``: the pure entry points; a package of several methods may instead
      keep each in a module named after it; any module besides these three is such a
      sub-method, named in the package docstring (``:mod:`.name```).
    """
    import re

    trees = {m.removeprefix(package + "."): t for m, t in found
             if m == package or m.startswith(package + ".")}
    problems = [f"{package} has no {name}.py" for name in ("parameters", "results")
                if name not in trees]
    if "analysis" not in trees and set(trees) <= {package, "parameters", "results"}:
        problems.append(f"{package} has no analysis.py (nor a module per method)")
    init = trees.get(package)
    if init is None:
        return [f"{package} has no __init__.py"]
    doc = ast.get_docstring(init) or ""
    if not re.search(CITATION, doc, re.S):
        problems.append(f"{package}/__init__.py's docstring names no paper (year) and section")
    exported: set[str] = set()
    listed: list[str] | None = None
    for node in init.body[1:] if doc else init.body:
        if isinstance(node, ast.ImportFrom):
            if node.module == "__future__":
                continue
            if not (node.module or "").startswith(f"perfwarehouse.{package}."):
                problems.append(f"{package}/__init__.py imports {node.module} (only its own "
                                "modules)")
            exported |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            listed = list(ast.literal_eval(node.value))
        else:
            problems.append(f"{package}/__init__.py holds code (line {node.lineno}): "
                            "only imports and __all__")
    if not listed:
        problems.append(f"{package}/__init__.py has no __all__")
    else:
        problems += [f"{package}.__all__ names {n}, which it does not import"
                     for n in listed if n not in exported]
    named = set(re.findall(r":mod:`[~.]*(?:perfwarehouse\.)?(?:" + package + r"\.)?(\w+)`", doc))
    for module, tree in trees.items():
        where = package if module == package else f"{package}.{module}"
        if module in (package, *SHAPE_MODULES):
            pass
        elif module not in named:
            problems.append(f"{package}.{module} is neither parameters, analysis, results "
                            f"nor a sub-method named in {package}/__init__.py (:mod:`.{module}`)")
        for node in tree.body:
            defined = ([ast.unparse(t) for t in node.targets] if isinstance(node, ast.Assign)
                       else [ast.unparse(node.target)] if isinstance(node, ast.AnnAssign)
                       else [])
            if module != "parameters" and any(d.startswith("DEFAULT_") for d in defined):
                problems.append(f"{where} defines {defined[0]} (defaults live in "
                                "parameters.py)")
            if (module != "results" and isinstance(node, ast.ClassDef)
                    and node.name.endswith("Result")):
                problems.append(f"{where} defines {node.name} (result types live "
                                "in results.py)")
        if module in ("parameters", "results"):
            allowed = {f"{package}.parameters"} if module == "results" else set()
            for name in imports(tree):
                target = ours(name)
                if (target and target.startswith(package + ".") and not any(
                        target == a or target.startswith(a + ".") for a in allowed)):
                    problems.append(f"{package}.{module} imports {target} (it is a leaf)")
    return problems


@pytest.mark.parametrize("package", SHAPED)
def test_every_method_package_has_the_shape(package: str) -> None:
    assert shape_problems(package, modules()) == []


def test_the_shape_checker_catches_a_package_without_it() -> None:
    """The shapes before issue 26: all the code in ``__init__.py`` (compare), an
    ``__init__`` without ``__all__`` (fleet), a result type and a default outside their
    homes, an unnamed extra module."""
    found = [("compare", ast.parse('"""Compare (Hodges & Lehmann 1963, section 4)."""\n'
                                   "DEFAULT_CONFIDENCE = 0.95\n"
                                   "class Comparison:\n    pass\n")),
             ("fleet", ast.parse('"""The fleet analysis."""\n')),
             ("fleet.analysis", ast.parse("class TrendResult:\n    pass\n")),
             ("fleet.extra", ast.parse("DEFAULT_DAYS = 90\n"))]
    compare = shape_problems("compare", found)
    assert "compare has no parameters.py" in compare
    assert "compare has no analysis.py (nor a module per method)" in compare
    assert any("compare/__init__.py holds code" in p for p in compare)
    assert "compare/__init__.py has no __all__" in compare
    fleet = shape_problems("fleet", found)
    assert any("names no paper" in p for p in fleet)
    assert any("fleet.analysis defines TrendResult" in p for p in fleet)
    assert any("fleet.extra defines DEFAULT_DAYS" in p for p in fleet)
    assert any("fleet.extra is neither" in p for p in fleet)


def _module_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """Our modules a module imports anywhere (in functions and ``if TYPE_CHECKING``
    blocks too): ``from perfwarehouse.a import b`` is ``a.b`` when that is a module."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.removeprefix("perfwarehouse.") for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = node.module.removeprefix("perfwarehouse").lstrip(".")
            for alias in node.names:
                whole = f"{base}.{alias.name}" if base else alias.name
                found.add(whole if whole in known else base)
    return found & known


def test_no_two_modules_import_each_other() -> None:
    """Issue 37: no import circle between any two files, even one that only type
    annotations close (jobs.framework <-> jobs.dask_runner, warehouse.store <->
    warehouse.catalog and four more were found this way)."""
    trees = dict(modules())
    known = set(trees)
    edges = {name: _module_imports(tree, known) - {name} for name, tree in trees.items()}
    assert sorted((a, b) for a in edges for b in edges[a]
                  if a < b and a in edges[b] and a != "__init__") == []
    assert "jobs.framework" in edges["jobs.incremental"]  # the walk sees our imports
