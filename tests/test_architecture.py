"""The package's shape, checked: its layering (import-linter's contracts in pyproject.toml), no
import cycles, the few modules generated code loads, the type checker, and modules of a size a
reader can take in."""

import subprocess
import sys
from pathlib import Path

import grimp
import tomllib

from tests.conftest import ROOT

PACKAGE = ROOT / "rs2triton"


def _bin(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def test_the_layers_hold():
    proc = subprocess.run([_bin("lint-imports")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 4 kept, 0 broken." in proc.stdout
    assert "the shared lowering layer imports no target KEPT" in proc.stdout


def test_the_shared_lowering_contract_names_every_shared_module():
    """Every module at the top of lowering/ (but its __init__, which registers the targets' rules) is
    a source of the contract that keeps the targets out of the shared layer: a new one cannot escape it."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    [shared] = [c for c in contracts if c["name"] == "the shared lowering layer imports no target"]
    top = ROOT / "rs2triton" / "transpiler" / "lowering"
    assert sorted(shared["source_modules"]) == sorted(f"rs2triton.transpiler.lowering.{p.stem}"
                                                      for p in top.glob("*.py") if p.stem != "__init__")


def _cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(set(graph.find_modules_directly_imported_by(m)) & set(modules)) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in modules:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.append(top)
                        if top == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(edges[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph("rs2triton")  # every import, those inside functions and for type checkers too
    assert len(graph.modules) > 40
    assert _cycles(graph) == []


def test_a_cycle_is_found():
    graph = grimp.ImportGraph()
    for m in ("p.a", "p.b", "p.c"):
        graph.add_module(m)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    assert _cycles(graph) == []
    graph.add_import(importer="p.c", imported="p.a")
    assert _cycles(graph) == [["p.a", "p.b", "p.c"]]


def test_a_generated_module_loads_a_handful_of_rs2triton_modules_and_no_transpiler():
    code = f"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("relu", {str(ROOT / "tests" / "golden" / "relu.py")!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
ours = sorted(m for m in sys.modules if m.split(".")[0] == "rs2triton")
print(ours)
assert module.ReluForward.name == "ReluForward"
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("tree_sitter", "tree_sitter_rust", "jinja2", "click"))
assert not heavy, heavy
"""
    env = {"PYTHONPATH": str(ROOT), "TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    loaded = eval(proc.stdout.strip().splitlines()[-1])
    assert not [m for m in loaded if m.startswith(("rs2triton.transpiler", "rs2triton.loading", "rs2triton.tools"))]
    # rs2triton, version, runtime (launcher, locations, ops, values, host) and rust (types,
    # semantics, std, floats): the launcher, the kernels' Rust locations, the trait, checked values,
    # Rust's scalar semantics and the type model
    assert len(loaded) <= 13, loaded


def test_the_type_checker_passes():
    proc = subprocess.run([_bin("mypy")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# What `strict = true` turns on that a per-module override can turn off again.
_STRICT_FLAGS = ("disallow_untyped_defs", "disallow_incomplete_defs", "disallow_any_generics", "disallow_untyped_calls",
                 "disallow_untyped_decorators", "disallow_subclassing_any", "warn_return_any", "check_untyped_defs",
                 "strict_equality", "warn_unused_ignores", "warn_redundant_casts", "extra_checks")
def test_the_type_checker_is_strict_for_the_whole_package():
    """mypy checks the whole package as ``mypy --strict`` does (issue 34): no override relaxes a
    module of it again (third-party modules without types are only found or skipped)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config.get("strict") is True
    relaxed: set[str] = set()
    for o in config.get("overrides", []):
        if any(o.get(f) is False for f in _STRICT_FLAGS) or o.get("implicit_reexport") or o.get("ignore_errors"):
            relaxed |= {o["module"]} if isinstance(o["module"], str) else set(o["module"])
    assert not relaxed, relaxed


def test_modules_stay_readable_in_size():
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in PACKAGE.rglob("*.py")}
    assert not {p: n for p, n in sizes.items() if n > 720}


def test_nothing_at_run_time_reads_facts_from_generated_python():
    """The runtime and the backend read what they must know of a kernel's code from its launcher's
    facts (recorded by the transpiler: rs2triton/transpiler/emit/facts.py), never by reading the
    generated Python back: no source (``inspect.getsource``, a JITFunction's ``.src``), no code
    object's names, no parse of it. Two modules parse text for error messages alone: errors.py
    the generated file's line comments (the Rust line of a Triton error), host.py the subscript
    of a failing host line (an index-out-of-bounds panic's message)."""
    import re

    reads = re.compile(r"getsource|co_names|\.src\b|ast\.parse|\bgenerated_function\b|\bstores_through\b|\bmask_bounds\b\(")
    parse_for_messages = {"runtime/errors.py": 1, "runtime/host.py": 1}
    found = {}
    for folder in ("runtime", "backend"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            hits = [line.strip() for line in path.read_text().splitlines() if reads.search(line)]
            if hits:
                found[str(path.relative_to(PACKAGE))] = hits
    allowed = {k: v for k, v in found.items()
               if parse_for_messages.get(k) == len(v) and all("ast.parse(" in h for h in v)}
    assert found.keys() - allowed.keys() == set(), {k: found[k] for k in found.keys() - allowed.keys()}
