"""The generated Python text of every DSL method, FileCheck-style.

Each tests/filecheck/*.rs file holds kernels whose `// CHECK:` lines (see tests/filecheck.py)
say what the Rust statements just above them become; the module rs2triton generates for the
file must match them in order. Every method of the op table is covered by at least one check.
"""

import re

import pytest

from rs2triton import transpile_file
from rs2triton.transpiler.dsl.ops import OPS
from tests.conftest import ROOT
from tests.filecheck import FileCheckError, compile_pattern, filecheck, parse_checks

FILES = sorted((ROOT / "tests" / "filecheck").glob("*.rs"))
_CALL = re.compile(r"T::(\w+)")


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_generated_code_matches_the_checks(path):
    result = transpile_file(path, f"tests/filecheck/{path.name}")
    filecheck(parse_checks(path.read_text()), result.text, f"tests/filecheck/{path.name}")


def checked_ops(source: str) -> set[str]:
    """DSL methods called in code that a positive CHECK directly below checks.

    The calls since the previous directive are pending; the next CHECK, CHECK-NEXT,
    CHECK-SAME or CHECK-LABEL covers them (a CHECK-NOT alone does not).
    """
    covered: set[str] = set()
    pending: set[str] = set()
    for line in source.splitlines():
        code, _, comment = line.partition("//")
        m = re.match(r"\s*(CHECK(?:-NEXT|-SAME|-NOT|-LABEL)?):", comment)
        if m is None:
            pending |= set(_CALL.findall(code))
        elif m.group(1) != "CHECK-NOT":
            covered |= pending
            pending = set()
    return covered & set(OPS)


def test_every_dsl_method_has_a_codegen_check():
    covered = set().union(*(checked_ops(p.read_text()) for p in FILES))
    # the methods Triton cannot express are located errors (tests/test_errors.py), with no code to check
    untranslatable = {name for name, op in OPS.items() if op.rule == "untranslatable"}
    assert len(untranslatable) == 4 and len(OPS) == 111
    missing = sorted(set(OPS) - covered - untranslatable)
    assert not missing, f"DSL methods with no CHECK on their generated code: {missing}"


# ------------------------------------------------------------------ the matcher itself
TEXT = """def k(x_ptr, n):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    # CHECK: this comment echoes a directive and is ignored
    tl.store(x_ptr + offs, x * 2, mask=offs < n)


def j(y_ptr):
    tl.store(y_ptr, 1.0)
"""


def run(checks: str, text: str = TEXT) -> None:
    filecheck(parse_checks(checks), text, "t.rs")


@pytest.mark.parametrize("checks", [
    "// CHECK: tl.arange(0, BLOCK)\n// CHECK: tl.store(x_ptr",
    "// CHECK: offs = tl.arange\n// CHECK-NEXT: x = tl.load(x_ptr + offs, mask=offs < n)",
    "// CHECK: x = tl.load(\n// CHECK-SAME: mask=offs < n)",
    "// CHECK: tl.load\n// CHECK-NOT: tl.load\n// CHECK: tl.store",
    "// CHECK: def k(\n// CHECK: x =   tl.load({{x_ptr|y_ptr}} + offs",
    "// CHECK-LABEL: def k(\n// CHECK-NOT: y_ptr\n// CHECK-LABEL: def j(\n// CHECK: tl.store(y_ptr, 1.0)",
    "// CHECK: tl.store(x_ptr\n// CHECK-NOT: this comment",
])
def test_filecheck_accepts(checks):
    run(checks)


@pytest.mark.parametrize("checks, message", [
    ("// CHECK: tl.store(x_ptr\n// CHECK: tl.arange", "t.rs:2: error: CHECK: expected string not found"),
    ("// CHECK: offs = tl.arange\n// CHECK-NEXT: tl.store", "t.rs:2: error: CHECK-NEXT: expected string not found on the next"),
    ("// CHECK: x = tl.load(\n// CHECK-SAME: tl.store", "CHECK-SAME: expected string not found on the same line"),
    ("// CHECK: tl.arange\n// CHECK-NOT: mask=\n// CHECK: tl.store", "t.rs:2: error: CHECK-NOT: excluded string found"),
    ("// CHECK: def k\n// CHECK-NOT: tl.store(y_ptr", "excluded string found"),
    ("// CHECK-LABEL: def k(\n// CHECK: tl.store(y_ptr\n// CHECK-LABEL: def j(", "t.rs:2: error: CHECK: expected"),
    ("// CHECK-LABEL: def nope(", "CHECK-LABEL: expected label not found"),
    ("// CHECK: echoes a directive", "expected string not found"),
    ("// CHECK-NEXT: def k", "needs a match before it"),
    ("no directives here", "no CHECK lines"),
])
def test_filecheck_rejects(checks, message):
    with pytest.raises(FileCheckError, match=re.escape(message)):
        run(checks)


def test_failure_shows_the_generated_text_where_scanning_stopped():
    with pytest.raises(FileCheckError) as info:
        run("// CHECK: tl.store(\n// CHECK: tl.load(")
    assert "  CHECK: tl.load(" in str(info.value) and "   4 |     tl.store(x_ptr + offs" in str(info.value)


def test_pattern_spaces_and_regex():
    assert compile_pattern("a  b").fullmatch("a \t b")
    assert not compile_pattern("a b").fullmatch("ab")
    assert compile_pattern("x{{[0-9]+}}.y").fullmatch("x42.y")
    assert not compile_pattern("x{{[0-9]+}}.y").fullmatch("x42zy")


def test_coverage_needs_a_positive_check_below_the_call():
    src = "T::exp(x);\n// CHECK-NOT: tl.log\nT::log(x);\n// CHECK: tl.log\nT::sin(x);\n"
    assert checked_ops(src) == {"exp", "log"}
    assert checked_ops("T::exp(x); // not a directive\n") == set()
