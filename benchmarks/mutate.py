"""Mutation testing of the Rust-semantics module and the op-table rules (run on demand).

    python benchmarks/mutate.py                      # rs2triton/rust/semantics.py and rs2triton/transpiler/lowering/kernel/rules.py
    python benchmarks/mutate.py rs2triton/rust/semantics.py --list
    python benchmarks/mutate.py rs2triton/transpiler/lowering/kernel/rules.py --jobs 2 --json mutants.json

Each mutant is one small change to the module's syntax tree (an operator swapped, a
comparison loosened, a condition negated, a constant changed, a result dropped). The
parent process imports the test-suite's heavy dependencies once; each mutant runs in a
forked child that executes the mutated module in place of the real one (and rebinds
every reference other modules hold to the old functions and tables), then runs the
test files that exercise it with ``pytest -x``. A mutant is *killed* when a test
fails, *survives* when all pass. Surviving mutants must be killed by a new test or
explained in ``EXPLAINED_MUTANTS`` of tests/test_semantics_rules.py (equivalent
mutants: changes no input can observe); this script reports any that are neither.

Not covered by the children: the GPU compilation tests (they transpile again in a
subprocess, which imports the unmutated package), so they are deselected.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Test files run against each module, most discriminating (and fastest) first.
TESTS = {
    "rs2triton/rust/semantics.py": ["tests/test_semantics_rules.py", "tests/test_semantics.py", "tests/test_golden.py",
                               "tests/test_kernels.py", "tests/test_diagnostics.py", "tests/test_block_ptr.py"],
    # Rust's meaning in host code: the scalar std methods (integers, floats) and the host target's
    # builder, held to rustc's answers (tests/test_host_rustc.py) and to the host tests.
    "rs2triton/rust/std.py": ["tests/test_host_rustc.py", "tests/test_host_target.py", "tests/test_host.py"],
    "rs2triton/rust/floats.py": ["tests/test_host_rustc.py", "tests/test_host_target.py", "tests/test_host.py"],
    "rs2triton/transpiler/lowering/host/builder.py": ["tests/test_host_rustc.py", "tests/test_host_target.py",
                                                      "tests/test_host.py", "tests/test_golden.py"],
    # rustc's lints on both targets (what its constant propagation knows: `Known`, `known_to_rustc`)
    "rs2triton/transpiler/lowering/operators.py": ["tests/test_host_rustc.py", "tests/test_semantics_rules.py",
                                                   "tests/test_host_target.py", "tests/test_host.py",
                                                   "tests/test_golden.py", "tests/test_rules_codegen.py",
                                                   "tests/test_codegen.py", "tests/test_semantics.py"],
    "rs2triton/transpiler/lowering/rustc.py": ["tests/test_host_rustc.py", "tests/test_semantics_rules.py",
                                               "tests/test_host.py", "tests/test_scope.py", "tests/test_diagnostics.py",
                                               "tests/test_golden.py"],
    "rs2triton/transpiler/lowering/kernel/rules.py": ["tests/test_golden.py", "tests/test_rules_codegen.py", "tests/test_codegen.py",
                           "tests/test_filecheck.py", "tests/test_kernels.py", "tests/test_semantics.py",
                           "tests/test_block_ptr.py", "tests/test_scope.py", "tests/test_diagnostics.py"],
}
# String constants are mutated in semantics.py (type names, operators) but not in rules.py,
# where they are Triton's own names and the sources of generated helpers, pinned by the
# golden files and the kernels' numerics (and too many to run in reasonable time).
MUTATE_STRINGS = {"rs2triton/rust/semantics.py": True, "rs2triton/transpiler/lowering/kernel/rules.py": False,
                  "rs2triton/rust/std.py": False, "rs2triton/rust/floats.py": False,
                  "rs2triton/transpiler/lowering/host/builder.py": False,
                  "rs2triton/transpiler/lowering/operators.py": False, "rs2triton/transpiler/lowering/rustc.py": False}

_BINOP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
          ast.Mod: ast.FloorDiv, ast.LShift: ast.RShift, ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr,
          ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr, ast.Pow: ast.Mult}
_CMP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
        ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


def _messages(tree: ast.AST) -> set[int]:
    """ids of nodes not mutated: docstrings, error messages, annotations."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            skip.add(id(body[0].value))
        for ann in (getattr(node, "annotation", None), getattr(node, "returns", None)):
            if ann is not None:  # annotations are never evaluated (from __future__ import annotations)
                skip.update(id(n) for n in ast.walk(ann))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node))
        if isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(id(n) for n in ast.walk(node.exc) if isinstance(n, ast.Constant))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "err":
            skip.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return skip


def _sites(tree: ast.Module, strings: bool = True) -> list[tuple[int, str, int, int]]:
    """(index of the node in ast.walk order, description, line, col) of every mutation."""
    skip = _messages(tree)
    sites = []
    for i, node in enumerate(ast.walk(tree)):
        if id(node) in skip and not isinstance(node, ast.Constant):
            continue
        line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP:
            sites.append((i, f"{type(node.op).__name__}->{_BINOP[type(node.op)].__name__}", line, col))
        elif isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _CMP:
                    sites.append((i, f"cmp{k} {type(op).__name__}->{_CMP[type(op)].__name__}", line, col))
        elif isinstance(node, ast.BoolOp):
            sites.append((i, f"{type(node.op).__name__}->{'Or' if isinstance(node.op, ast.And) else 'And'}", line, col))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            sites.append((i, f"drop {type(node.op).__name__}", line, col))
        elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
            sites.append((i, "negate condition", line, col))
        elif isinstance(node, ast.Return) and node.value is not None \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            sites.append((i, "return None", line, col))
        elif isinstance(node, ast.Constant) and id(node) not in skip:
            v = node.value
            if isinstance(v, bool):
                sites.append((i, f"{v}->{not v}", line, col))
            elif isinstance(v, int):
                sites.append((i, f"{v}->{v + 1}", line, col))
            elif isinstance(v, float):
                sites.append((i, f"{v}->{v * 2 + 1}", line, col))
            elif isinstance(v, str) and v and strings:
                sites.append((i, f"{v[:20]!r}->'X'+...", line, col))
    return sites


def _apply(tree: ast.Module, index: int, desc: str) -> ast.Module:
    tree = copy.deepcopy(tree)
    node = next(n for i, n in enumerate(ast.walk(tree)) if i == index)
    if isinstance(node, ast.BinOp):
        node.op = _BINOP[type(node.op)]()
    elif isinstance(node, ast.Compare):
        k = int(desc[3:desc.index(" ")])
        node.ops[k] = _CMP[type(node.ops[k])]()
    elif isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif isinstance(node, ast.UnaryOp):
        _replace(tree, node, node.operand)
    elif isinstance(node, (ast.If, ast.IfExp, ast.While)):
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif isinstance(node, ast.Return):
        node.value = ast.Constant(None)
    elif isinstance(node, ast.Constant):
        v = node.value
        node.value = (not v) if isinstance(v, bool) else v + 1 if isinstance(v, int) else \
            v * 2 + 1 if isinstance(v, float) else "X" + v
    return ast.fix_missing_locations(tree)


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
            elif isinstance(value, list):
                for j, item in enumerate(value):
                    if item is old:
                        value[j] = new


def _install(module_name: str, tree: ast.Module, path: Path) -> None:
    """Execute the mutated module in place of the real one; rebind references to the old objects."""
    module = sys.modules[module_name]
    old = dict(vars(module))
    from rs2triton.transpiler.lowering import registry

    tables = [*registry.EXPRESSIONS.values(), *registry.STATEMENTS.values(), registry.OP_RULES]
    for table in tables:  # its rules (and its builder) register again
        for kind in [k for k, rule in table.items() if rule.__module__ == module_name]:
            del table[kind]
    for target in [t for t, b in registry.BUILDERS.items() if type(b).__module__ == module_name]:
        del registry.BUILDERS[target]
    exec(compile(tree, str(path), "exec"), vars(module))  # noqa: S102 - the point of the tool
    new = vars(module)
    swap = {id(v): new[k] for k, v in old.items() if k in new and new[k] is not v and not k.startswith("__")}
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name.startswith("rs2triton") or name.startswith("tests")):
            continue
        for attr, value in list(vars(mod).items()):
            if id(value) in swap and mod is not module:
                setattr(mod, attr, swap[id(value)])


def _run_child(module_file: str, tree: ast.Module, tests: list[str]) -> int:
    import pytest

    os.environ["RS2TRITON_NO_CACHE"] = "1"
    os.environ["RS2TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="rs2triton-mutant-")
    module_name = module_file.removesuffix(".py").replace("/", ".")
    try:
        _install(module_name, tree, ROOT / module_file)
    except Exception:  # noqa: BLE001 - a mutant that does not even import is killed
        return 3
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115
    sys.stderr = sys.stdout
    for test_file in tests:  # one file at a time: most mutants die in the first, cheaply
        code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-W", "ignore",
                                "-k", "not compile_for_gpu and not compiles_for_gpu", test_file]))
        if code:
            return code
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", default=list(TESTS))
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--json", help="write every mutant's outcome here")
    ap.add_argument("--only", nargs="*", help="run only the mutants whose key contains one of these strings")
    args = ap.parse_args()

    os.chdir(ROOT)
    import importlib

    # tests.conftest first: it sets the interpreter mode before triton is imported.
    for name in ("tests.conftest", "torch", "triton", "rs2triton.transpiler.lowering", "rs2triton.transpiler.lowering.kernel.rules", "rs2triton.rust.semantics",
                 "pytest", *(t.removesuffix(".py").replace("/", ".") for ts in TESTS.values() for t in ts)):
        importlib.import_module(name)
    explained = importlib.import_module("tests.test_semantics_rules").EXPLAINED_MUTANTS

    mutants = []
    for module_file in args.modules:
        tree = ast.parse((ROOT / module_file).read_text(), module_file)
        for index, desc, line, col in _sites(tree, MUTATE_STRINGS.get(module_file, True)):
            mutants.append((f"{Path(module_file).name}:{line}:{col} {desc}", module_file, tree, index, desc))
    if args.only:
        mutants = [m for m in mutants if any(o in m[0] for o in args.only)]
    if args.list:
        for key, *_ in mutants:
            print(key)
        print(f"{len(mutants)} mutants")
        return 0

    for module_file in dict.fromkeys(m[1] for m in mutants):  # control: the unmutated module, installed
        pid = os.fork()                                          # the same way, must pass its tests
        if pid == 0:
            code = 1
            try:
                code = _run_child(module_file, ast.parse((ROOT / module_file).read_text()), TESTS[module_file])
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            print(f"the unmutated {module_file}, installed as a mutant is, fails its tests "
                  f"(status {status}): no mutant's outcome would mean anything", file=sys.stderr)
            return 2
    outcomes: dict[str, str] = {}
    running: dict[int, tuple[str, float]] = {}
    queue = list(mutants)
    start = time.time()
    while queue or running:
        while queue and len(running) < args.jobs:
            key, module_file, tree, index, desc = queue.pop(0)
            mutated = _apply(tree, index, desc)
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = _run_child(module_file, mutated, TESTS[module_file])
                finally:
                    os._exit(code)
            running[pid] = (key, time.time())
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.05)
            for p, (_key, t0) in list(running.items()):
                if time.time() - t0 > args.timeout:
                    os.kill(p, signal.SIGKILL)
            continue
        key, _ = running.pop(pid)
        if os.WIFSIGNALED(status):
            outcomes[key] = "killed (timeout)" if os.WTERMSIG(status) == signal.SIGKILL else "killed (crash)"
        else:
            outcomes[key] = "survived" if os.WEXITSTATUS(status) == 0 else "killed"
        done = len(outcomes)
        print(f"[{done}/{len(mutants)} {time.time() - start:.0f}s] {outcomes[key]:<16} {key}", flush=True)

    survived = [k for k, v in outcomes.items() if v == "survived"]
    unexplained = [k for k in survived if k not in explained]
    killed = len(outcomes) - len(survived)
    print(f"\n{killed}/{len(outcomes)} mutants killed, {len(survived)} survived "
          f"({len(survived) - len(unexplained)} explained as equivalent in tests/test_semantics_rules.py)")
    for k in unexplained:
        print(f"  UNEXPLAINED survivor: {k}")
    if args.json:
        Path(args.json).write_text(json.dumps(outcomes, indent=1, sort_keys=True))
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
