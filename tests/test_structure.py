"""The shape of the package, checked from its source (ast, nothing imported):

- imports run one way between the stages (physics < inputs < graph < solve < measure <
  prediction < planner < report < diagnose, importers < api < cli), the base modules (errors, paths,
  frozen, gc_pause and the package itself) import no stage;
- no import cycle among pinchpoint modules, counting imports inside functions too (a cycle
  hidden in a function still means neither module can be read without the other);
- no module over 500 lines; no function over 60 lines or 15 branches unless a reason is written
  beside it (``# long: why`` on its ``def`` line, or the line above);
- an import inside a function outside cli/ says why it is there (a comment on its line or the
  line above: a measured start-up cost, an optional dependency).

Other branches are splitting today's large modules; their offenders are listed below, each
list commented, to be pruned as those branches land.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path


MODEL = Path(__file__).resolve().parents[1] / "model"

#: Stage of each top-level module or subpackage; a module may import its own stage and lower.
STAGES = {
    "errors": 0, "paths": 0, "frozen": 0, "gc_pause": 0, "": 0,  # "": the package's __init__
    "physics": 1, "inputs": 2, "graph": 3, "solve": 4, "measure": 5, "prediction": 6, "planner": 7,
    "report": 8, "diagnose": 9, "importers": 9, "api": 10, "cli": 11,
}

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
MAX_BRANCHES = 15


@dataclass(frozen=True)
class Import:
    source: str  # importing module, dotted
    target: str  # imported pinchpoint module, dotted
    line: int
    lazy: bool  # inside a function


def module_name(path: Path) -> str:
    parts = list(path.relative_to(MODEL).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["pinchpoint", *parts])


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(MODEL.rglob("*.py"))}


@lru_cache(maxsize=None)
def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _target(module: str, names: list[str]) -> list[str]:
    """``from module import a, b``: the submodules a, b where they are modules, else module."""
    known = modules()
    subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in known]
    return subs + ([module] if len(subs) < len(names) else [])


def imports() -> list[Import]:
    out = []
    for name, path in modules().items():
        def visit(node, lazy):
            for child in ast.iter_child_nodes(node):
                if _type_checking_only(child):  # not imported at run time: no dependency
                    continue
                inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
                if isinstance(child, ast.Import):
                    targets = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                    targets = _target(child.module, [a.name for a in child.names])
                else:
                    targets = []
                for t in targets:
                    if t == "pinchpoint" or t.startswith("pinchpoint."):
                        out.append(Import(name, t, child.lineno, lazy))
                visit(child, inner)
        visit(tree(path), False)
    return out


def _type_checking_only(node) -> bool:
    """``if TYPE_CHECKING:`` (a block only type checkers read)."""
    return (isinstance(node, ast.If) and not node.orelse
            and ((isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
                 or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")))


def stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


# --- one direction between stages ----------------------------------------------------------------

def test_every_module_has_a_stage():
    assert {stage(m) for m in modules()} <= set(STAGES), "a new folder needs a place in STAGES"


#: Imports against the stages in modules other branches own (the lead prunes this at merge):
KNOWN_BACKWARD = {
    ("pinchpoint.measure.detect", "pinchpoint.prediction.rates"),  # imports / model
    ("pinchpoint.solve.ceilings", "pinchpoint.measure.hostinfo"),  # route: threads per CPU
    ("pinchpoint.solve.measured_ceilings", "pinchpoint.prediction.rates"),  # route / model
}


def test_imports_run_one_way():
    wrong = sorted(f"{i.source} (line {i.line}) imports {i.target}" for i in imports()
                   if STAGES[stage(i.target)] > STAGES[stage(i.source)]
                   and (i.source, i.target) not in KNOWN_BACKWARD)
    assert not wrong, "\n".join(wrong)


# --- no import cycles -----------------------------------------------------------------------------

def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def import_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for i in imports():
        # a package's __init__ importing its own submodules is how packages re-export
        if i.target != i.source and not i.target.startswith(i.source + "."):
            edges.setdefault(i.source, set()).add(i.target)
    return edges


#: Cycles in modules other branches own and are untangling now (the lead prunes this at merge):
KNOWN_CYCLES: list[list[str]] = []


def test_cycle_finder_finds_a_cycle_through_a_function_level_import():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = [c for c in cycles(import_edges()) if c not in KNOWN_CYCLES]
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_known_cycles_are_still_there():
    """An entry of KNOWN_CYCLES that no longer exists must go (so the list only shrinks)."""
    present = cycles(import_edges())
    assert [c for c in KNOWN_CYCLES if c not in present] == []


# --- sizes ---------------------------------------------------------------------------------------

#: Modules over 500 lines that other branches are splitting now (lines today; the lead prunes):
LONG_MODULES: set[str] = set()


def relative(path: Path) -> str:
    return path.relative_to(MODEL).as_posix()


def test_no_module_over_500_lines():
    long = sorted(f"{relative(p)}: {n} lines" for p in modules().values()
                  if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
                  and relative(p) not in LONG_MODULES)
    assert not long, "\n".join(long)


_BRANCH_NODES = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.IfExp,
                 ast.ExceptHandler, ast.BoolOp, ast.comprehension, ast.match_case)


def branches(func: ast.AST) -> int:
    """Decision points in a function's own body (nested functions counted on their own)."""
    count = 0
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, _BRANCH_NODES):
            count += len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1
        todo.extend(ast.iter_child_nodes(node))
    return count


def has_reason(lines: list[str], func) -> bool:
    """``# long: ...`` on the def line (any line of a wrapped signature) or just above it."""
    first = func.decorator_list[0].lineno if func.decorator_list else func.lineno
    head = lines[first - 2:func.body[0].lineno - 1] if first >= 2 else lines[:func.body[0].lineno - 1]
    return any("# long:" in line for line in head)


def long_functions() -> list[str]:
    out = []
    for path in modules().values():
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(tree(path)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            length = node.end_lineno - node.lineno + 1
            n = branches(node)
            if (length > MAX_FUNCTION_LINES or n > MAX_BRANCHES) and not has_reason(lines, node):
                out.append(f"{relative(path)}:{node.lineno} {node.name} ({length} lines, {n} branches)")
    return sorted(out)


#: Files with long functions that other branches are rewriting now, by owner (the lead prunes
#: this at merge; test_allowlists_only_shrink makes a clean file leave it).
LONG_FUNCTION_FILES = {
    # route: graph
    "graph/maxflow.py",
    # model: workload, kernels and their runner
    "inputs/workload.py", "measure/runner.py", "measure/session.py",
    # trace
    "prediction/trace/traffic.py",
    # imports: detection and importers
    "measure/detect.py", "measure/hwloc.py", "measure/nvidia.py", "measure/sysfs.py",
    "importers/kerncraft.py", "cli/detect_cmds.py",
    # tcp: diagnose
    "diagnose/advice.py", "diagnose/inputs.py", "importers/iperf3.py", "cli/diagnose_cmds.py",
    # report: the page, plots
    "report/page.py", "report/plots_report.py",
    # hostile: inputs read from outside, queueing, paths
    "inputs/concurrency_io.py", "physics/queueing.py", "paths.py",
}


def test_no_long_functions_without_a_reason():
    long = [f for f in long_functions() if f.split(":")[0] not in LONG_FUNCTION_FILES]
    assert not long, "\n".join(long)


def test_branch_counter_counts_decisions():
    func = ast.parse("def f(x):\n    if x and x > 1 or x < -1:\n        return [y for y in x if y]\n"
                     "    try:\n        pass\n    except ValueError:\n        pass\n").body[0]
    # if, and/or (two BoolOps: 1 + 1), one comprehension, its filter lives in the comprehension, try, except
    assert branches(func) == 6


# --- lazy imports say why ------------------------------------------------------------------------

#: Files with function-level imports that carry no comment yet, owned by other branches (the
#: lead prunes this at merge; test_allowlists_only_shrink makes a clean file leave it).
LAZY_IMPORT_FILES = {
    "solve/ceilings.py", "solve/measured_ceilings.py",
    "graph/maxflow.py", "diagnose/limits_host.py",  # route
    "prediction/convolve.py", "measure/kernels.py", "measure/noise.py", "measure/session.py",  # model
    "diagnose/resolve.py", "diagnose/results.py",  # tcp
    "report/page.py", "report/plots_planning.py", "report/plots_report.py", "report/plots_signature.py",
    "solve/sweep.py", "solve/symbolic.py",  # report
    "inputs/document.py", "physics/usl.py", "paths.py",  # hostile
}


def lazy_without_reason(allow=None) -> list[str]:
    allow = LAZY_IMPORT_FILES if allow is None else set(allow)
    out = []
    for i in imports():
        if not i.lazy or stage(i.source) == "cli":  # cli/: fast --help needs them (test_lazy_parser)
            continue
        path = modules()[i.source]
        if relative(path) in allow:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        near = lines[max(0, i.line - 3):i.line]
        if not any("#" in line for line in near) and not _function_says_why(path, i.line):
            out.append(f"{relative(path)}:{i.line} imports {i.target} inside a function")
    return sorted(set(out))


def _function_says_why(path: Path, line: int) -> bool:
    """The module docstring may give the reason once for all its functions (api.py does)."""
    doc = ast.get_docstring(tree(path)) or ""
    return "imported inside the functions" in doc


def test_lazy_imports_outside_cli_say_why():
    found = lazy_without_reason()
    assert not found, "\n".join(found)


def test_allowlists_only_shrink():
    """Every allowlisted file is still an offender: one that is clean leaves its list."""
    long_modules = {relative(p) for p in modules().values()
                    if len(p.read_text(encoding="utf-8").splitlines()) > MAX_MODULE_LINES}
    function_files = {f.split(":")[0] for f in long_functions()}
    backward = {(i.source, i.target) for i in imports() if STAGES[stage(i.target)] > STAGES[stage(i.source)]}
    assert LONG_MODULES - long_modules == set()
    assert LONG_FUNCTION_FILES - function_files == set()
    assert KNOWN_BACKWARD - backward == set()
    assert LAZY_IMPORT_FILES - {x.split(":")[0] for x in lazy_without_reason(allow=())} == set()
