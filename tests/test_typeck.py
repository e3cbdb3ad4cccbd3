"""Rust's operand type rules are one check for both targets (rs2triton/transpiler/lowering/typeck.py):
the same statement gets the same verdict in a `#[kernel]` and in host code (an `impl`), at rustc's
place and with rustc's code. Where `rustc` is installed, each statement's plain-Rust analogue (the
kernel's with tests/test_rustc_rejections.MOCK for the DSL) is compiled and rustc must report the
same code at the same line and column, or nothing for the accepted ones."""

import json
import re
import shutil
import subprocess

import pytest

from rs2triton import TranspileError, transpile_source
from tests.conftest import ROOT
from tests.test_rustc_rejections import FIRST, HEAD, MOCK

LINE = FIRST - 1  # the statement's line in the kernel (HEAD less its `let x`)

PARAMS = "x_ptr: T::Pointer<D>, n: i32, m: i64, x: f32, b: bool"
HOST_HEAD = json.loads((ROOT / "tests/data/host_oracle.json").read_text(encoding="utf-8"))["rejected_head"]
HOST_PARAMS = "n: i32, m: i64, x: f32, b: bool"

# statement -> (rustc's code, the column rustc names, counted from the statement's first character (1))
REJECTED = {
    "let r = n + m;": ("E0308", 13),  # i32 + i64: at the right operand
    "let r = x + 1;": ("E0277", 11),  # f32 + {integer}: at the operator
    "let s: i64 = n;": ("E0308", 14),
    "let r = n > 1.5;": ("E0308", 13),
    "let r = n << 2.0;": ("E0277", 11),
    "let r = n && true;": ("E0308", 9),  # at the operand that is no bool
    "let r = x % n;": ("E0277", 11),
    "let r = true + 1;": ("E0369", 14),  # bool has no `+`
    "let r = -1 as u32;": ("E0600", 9),  # the cast types the literal, then negated
    "let r = x & 1;": ("E0369", 11),
    "let r = m * n;": ("E0308", 13),
    "let r = x + 1.5f64;": ("E0308", 13),
    "let r = 1 - 1.5;": ("E0277", 11),
    "let r = x == 1;": ("E0308", 14),
    "let e = 0.5; let r = n + e;": ("E0277", 24),  # `e` is a `{float}` still
    "let mut a = n; a += m;": ("E0308", 21),
    "let mut a: i64 = -1; a = 0.1;": ("E0308", 26),  # an assignment takes the binding's type
    "let mut a = 7u8; a += -1;": ("E0277", 23),  # the literal is a u8 through `AddAssign<u8>`: `u8: Neg`
    "let mut b: u8 = -1;": ("E0600", 17),  # the literal is a u8 by the annotation
    "let s: i64 = (n);": ("E0308", 14),  # at the parentheses
    "let r = !x;": ("E0600", 9),
    "let r = b as f32;": ("E0606", 9),
    "let r = n as bool;": ("E0054", 9),
    "let r = 1 as bool;": ("E0054", 9),
    "let mut a = 7u8; a = -1;": ("E0600", 22),  # the literal is `a`'s type
    "let mut a: u32 = 0; let r = n & a;": ("E0308", 33),
    "let mut a = 0.1; a = n;": ("E0308", 22),  # a float `let` takes no integer
    "let a = 3; let mut c = a as i32; c = x;": ("E0308", 38),
    "let y = 2u8; let a = 3; let r = y & a | n;": ("E0308", 41),  # `y & a` is a u8
    "let None = 5;": ("E0308", 5),  # `None` is a pattern of `Option`, not a name
    "let (a, None) = (1, 2);": ("E0308", 9),
    "let mut None = 0.5;": ("E0530", 9),  # a binding that would shadow the variant
    "let x = 65536; let y: u8 = -x;": ("E0277", 28),  # `x: u8` is known after the `-`: `u8: Neg`
    "let mut a = 0; a = 3; let b: u32 = a; let c = -a;": ("E0600", 47),  # known before it
    "let a = 2; let y: u8 = -(a + 1);": ("E0277", 24),
    # a `let` given by branches (fuzz_lets.py --kernels found these: the kernel or host code differed)
    "let y = if b { 0.5 } else { i32::MIN };": ("E0308", 29),
    "let y: u32 = if b { i32::MIN } else { 0 };": ("E0308", 21),
    "let z = if b { 2 } else { 40 }; let r = x + z;": ("E0277", 43),
    "let z = if b { 2 } else { 40 }; let r = m + z; let q: i32 = z;": ("E0308", 61),
}
ACCEPTED = [
    "let r = n + 1;", "let r = x * 2.0;", "let r = n << 2;", "let r = n > 1;", "let r = m << n;",
    "let e = 1e-5; let r = x + e;", "let a = 0; let r = a + m;", "let r = (n as i64) + m;", "let r = -1 as i32;",
    "let r = n >= 0 && x > 0.0;", "let mut a = 0; a += m;", "let mut a = 0; a = m;", "let mut a = 7u8; a <<= 1;", "let r = b as bool;",
    "let r = b as i32 + n;", "let s: i64 = 7;", "let r = 1 + 2 * n;",
    # a float `let` typed f32 by a later use, wherever the use is (lowering/typing.py, before lowering)
    "let z = if b { 0.1 } else { 0.2 }; let r = x * z;", "let mut z = 0.1; for i in 0..3 { z = z * 2.0; } let r = x + z;",
    "let z = 0.1; let r = x.max(z * 2.0);",
    "let a = 1 << 40; let s: i64 = a;",  # (the shift is an i64 one: `a`'s type, from its use)
    "let y = if b { 1 } else { 2u8 }; let r = y;", "let y = if b { 1e-3 } else { 0.5 }; let r = 1.5f64 + y;",
]
# The DSL's tensors (kernels only): the trait's operators (`I32Tensor: Add<i32>`, `AddOffsets<..,
# I32Tensor>`, `Comparison<i32>`)
KERNEL_REJECTED = {
    "let r = offs + 1.5;": ("E0308", 16),
    "let r = x_ptr.add_offsets(1.5);": ("E0308", 27),
    "let r = offs.lt(1.5);": ("E0308", 17),
}
KERNEL_ACCEPTED = ["let r = offs + 1;", "let r = offs.lt(n);", "let r = x_ptr.add_offsets(offs);",
                   "let r = offs + n * 2;"]


def _kernel(stmt: str) -> str:
    return HEAD.replace("PARAMS", PARAMS).replace("    let x = T::zeros::<D>(&[B]);\n", "") + f"    {stmt}\n}}\n"


def _host(stmt: str) -> str:
    return HOST_HEAD + f"impl Probe {{\n    pub fn r({HOST_PARAMS}) {{\n        {stmt}\n    }}\n}}\n"


def _verdict(src: str, path: str) -> tuple[str, int, int] | None:
    """(rustc's code, line, col) of rs2triton's first error, or None when it transpiles."""
    try:
        transpile_source(src, path)
    except TranspileError as e:
        d = e.diagnostics[0]
        m = re.search(r"\(rustc's (E\d{4})\)", d.message)
        assert m and d.code == "E0014" and d.hint, d.render()
        return m.group(1), d.line, d.col
    return None


def _rustc(src: str, tmp_path) -> list[tuple[str, int, int]]:
    path = tmp_path / "analogue.rs"
    path.write_text(src)
    proc = subprocess.run(["rustc", "--crate-type", "lib", "--edition", "2021", "--emit=metadata", "-A", "warnings",
                           "-o", str(tmp_path / "analogue.rmeta"), str(path)], capture_output=True, text=True,
                          timeout=120)
    return [(m.group(1), int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^error\[(E\d{4})\][^\n]*\n\s*--> [^\n]*?:(\d+):(\d+)", proc.stderr, re.M)] \
        + ([("?", 0, 0)] if proc.returncode and "error[" not in proc.stderr else [])


def _kernel_analogue(stmt: str) -> str:
    return _kernel(stmt).replace("use teeny_triton::triton::*;", "use dsl::*;").replace("#[kernel]", "") + MOCK


def _host_analogue(stmt: str) -> str:
    return f"pub fn r({HOST_PARAMS}) {{\n    {stmt}\n}}\n"


@pytest.mark.parametrize("stmt", list(REJECTED))
def test_the_same_verdict_in_a_kernel_and_in_host_code(stmt, tmp_path):
    code, col = REJECTED[stmt]
    in_kernel = _verdict(_kernel(stmt), "kernels/k.rs")
    in_host = _verdict(_host(stmt), "kernels/h.rs")
    host_line = HOST_HEAD.count("\n") + 3
    assert in_kernel == (code, LINE, 4 + col), in_kernel
    assert in_host == (code, host_line, 8 + col), in_host
    if shutil.which("rustc"):
        assert _rustc(_kernel_analogue(stmt), tmp_path)[:1] == [(code, LINE, 4 + col)]
        assert _rustc(_host_analogue(stmt), tmp_path)[:1] == [(code, 2, 4 + col)]


@pytest.mark.parametrize("stmt", ACCEPTED)
def test_accepted_in_both_as_rustc_accepts_it(stmt, tmp_path):
    assert _verdict(_kernel(stmt), "kernels/k.rs") is None
    assert _verdict(_host(stmt), "kernels/h.rs") is None
    if shutil.which("rustc"):
        assert _rustc(_kernel_analogue(stmt), tmp_path) == []
        assert _rustc(_host_analogue(stmt), tmp_path) == []


@pytest.mark.parametrize("stmt", list(KERNEL_REJECTED) + KERNEL_ACCEPTED)
def test_tensor_operands_as_the_trait_states_them(stmt, tmp_path):
    want = (KERNEL_REJECTED[stmt][0], LINE, 4 + KERNEL_REJECTED[stmt][1]) if stmt in KERNEL_REJECTED else None
    assert _verdict(_kernel(stmt), "kernels/k.rs") == want
    if shutil.which("rustc"):
        assert _rustc(_kernel_analogue(stmt), tmp_path) == ([want] if want else [])


def test_a_tensor_s_element_type_is_no_scalar_operand_s():
    """`r0 ^ r1` of two tensors is the trait's operator (bounds a `where` clause may add), not two
    scalars of Rust's types: lowering types randint4x's first tensor u32 and the others i32, and
    that is no E0308 (tests/kernels/semantics.rs has it; it was rejected once)."""
    stmt = "let (r0, r1, r2, r3) = T::randint4x(7u32, offs, 10); let r = r0 ^ r1 ^ r2;"
    assert _verdict(_kernel(stmt), "kernels/k.rs") is None


@pytest.mark.parametrize("src, line", [("#[kernel]\n", 1), ("use teeny_triton::triton::*;\n\n#[kernel]\n// end\n", 3),
                                       ("pub fn f() {}\n#[kernel]\n#[inline]\n", 3)])
def test_an_attribute_with_no_item_after_it(src, line, tmp_path):
    """A file that ends in `#[kernel]` (nothing after it) is rustc's syntax error at the attribute."""
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col, d.message) == ("E0001", line, 1, "expected item after attributes"), d.render()
    if shutil.which("rustc"):
        path = tmp_path / "a.rs"
        path.write_text(src.replace("use teeny_triton::triton::*;", ""))
        proc = subprocess.run(["rustc", "--crate-type", "lib", "--emit=metadata", "-o", str(tmp_path / "a.rmeta"),
                               str(path)], capture_output=True, text=True, timeout=120)
        assert f"error: expected item after attributes\n --> {path}:{line}:1" in proc.stderr, proc.stderr


@pytest.mark.parametrize("annotation, head, args, scalar", [
    ("i64", "i64", [], "i64"),
    ("T::Tensor<f32>", "T::Tensor", ["f32"], None),
    ("InPtr< T::Pointer<D> >", "InPtr", ["T::Pointer<D>"], None),
    ("&'a [usize]", "&", ["[usize]"], None),
    ("[u8; 4]", "[]", ["u8"], None),
    ("(RawPtr, &[usize])", "()", ["RawPtr", "&[usize]"], None),
    ("Tile<T, D>", "Tile", ["T", "D"], None),
])
def test_a_type_is_read_once_for_every_reader(annotation, head, args, scalar):
    """frontend/types.read_type: the one reading of a type as written, which a kernel parameter, a
    kernel `let`'s annotation, a helper's parameter, a condition's DSL type and host code's values
    all interpret (issue 34: they were read four ways)."""
    from rs2triton.transpiler.frontend.parse import parser
    from rs2triton.transpiler.frontend.types import read_type

    tree = parser().parse(f"fn f(x: {annotation}) {{}}".encode())
    ty = tree.root_node.named_children[0].child_by_field_name("parameters").named_children[0] \
        .child_by_field_name("type")
    t = read_type(ty)
    assert (t.head, [a.source for a in t.args], t.scalar) == (head, args, scalar)
    assert t.source == annotation.replace(" ", "")


@pytest.mark.parametrize("body, want", [
    ("let z = 0.1; let w = z * 3.0; b + w", {"z": "f32", "w": "f32"}),
    ("let z = 0.1; let a: f64 = z; let w = 0.5; w", {"z": "f64", "w": "f32"}),  # (the first type met is kept)
    ("let n = 0; let m = n + 1; m as f32", {"n": None, "m": None}),  # (Rust's fallback: i32, said by no use)
    ("let n = 0; let k: usize = n * 2; b", {"n": "usize"}),
    ("let mut s = 0.0; for v in xs { s += *v; } s", {"s": "f32"}),
])
def test_the_typing_pass_gives_each_let_the_type_of_all_its_uses(body, want):
    """lowering/typing.py, before lowering: a `let` of an unsuffixed literal takes the type its uses
    give it, wherever they are (a later statement, a loop, the function's value)."""
    from rs2triton.transpiler.frontend.parse import parser
    from rs2triton.transpiler.lowering.typing import Env, Seq, infer

    fn = parser().parse(f"fn f(b: f32, xs: &[f32]) -> f32 {{ {body} }}".encode()).root_node.named_children[0]
    typing = infer(fn.child_by_field_name("body"), Env(name={"b": "f32", "xs": Seq("f32")}.get, returns="f32"))
    lets = {n.child_by_field_name("pattern").text.decode().removeprefix("mut "): typing.let_type(n.id)
            for n in fn.child_by_field_name("body").named_children if n.type == "let_declaration"}
    assert {k: lets[k] for k in want} == want



def test_a_parameter_named_none_is_rustc_s_e0308_in_both(tmp_path):
    """`fn f(None: i32)`: `None` is `Option`'s variant, so the parameter's pattern is an `Option<_>`
    where an `i32` is expected (rustc's E0308 at it), in a kernel and in host code alike."""
    kernel = _kernel("let r = n + 1;").replace("b: bool", "None: bool")
    host = HOST_HEAD + "impl Probe {\n    pub fn r(n: i32, None: bool) -> i32 {\n        n\n    }\n}\n"
    kernel_line = next(i for i, line in enumerate(kernel.splitlines(), 1) if "None: bool" in line)
    kernel_col = kernel.splitlines()[kernel_line - 1].index("None") + 1
    assert _verdict(kernel, "kernels/k.rs") == ("E0308", kernel_line, kernel_col)
    assert _verdict(host, "kernels/h.rs") == ("E0308", HOST_HEAD.count("\n") + 2, 22)
    if shutil.which("rustc"):
        assert _rustc(_kernel_analogue("let r = n + 1;").replace("b: bool", "None: bool"), tmp_path)[:1] == \
            [("E0308", kernel_line, kernel_col)]
        assert _rustc("pub fn r(n: i32, None: bool) -> i32 {\n    n\n}\n", tmp_path)[:1] == [("E0308", 1, 18)]


@pytest.mark.parametrize("fn, want", [
    ("pub fn n() -> usize { (0..3).fold(0, |a, b| a + b) }", 3),
    ("pub fn n() -> usize { let s = (0..4).fold(0, |a, b| a + b); s }", 6),
    ("pub fn n() -> u8 { (0..10).fold(250, |a, b| a + b) }", (250 + 45) % 256),  # (a u8 sum: it wraps)
])
def test_a_fold_s_start_takes_the_type_of_its_uses(fn, want, tmp_path):
    """`(0..3).fold(0, |a, b| a + b)` returned as a `usize`: the start, the range and the closure are
    the return type by Rust's inference (lowering/typing.py), not i32 (it was rustc-less E0308).
    Host code only: a kernel has no closures."""
    assert _verdict(HOST_HEAD + "impl Probe {\n    " + fn + "\n}\n", "kernels/h.rs") is None
    path = tmp_path / "fold.rs"
    path.write_text(HOST_HEAD + "impl Probe {\n    " + fn + "\n}\n")
    import rs2triton

    assert rs2triton.load(path).Probe.n() == want
    if shutil.which("rustc"):
        assert _rustc(fn + "\n", tmp_path) == []


# statement -> the column (from its first character) of the literal rustc's `overflowing_literals`
# names: the literal's type is the one Rust's inference gives it from a later use (lowering/typing.py)
LINTED = {
    "let mut a = 0; a = 300; let s: u8 = a;": 20,  # (`a` is a u8 by its last use, so 300 is one)
    "let e = 0.5; let r = x * e; let w = 1e40; let q = x * w;": 37,
}


@pytest.mark.parametrize("stmt", list(LINTED))
def test_a_literal_typed_by_a_later_use_is_linted_at_that_type_in_both(stmt, tmp_path):
    col = LINTED[stmt]
    for src, path, line, indent in ((_kernel(stmt), "kernels/k.rs", LINE, 4),
                                    (_host(stmt), "kernels/h.rs", HOST_HEAD.count("\n") + 3, 8)):
        with pytest.raises(TranspileError) as info:
            transpile_source(src, path)
        d = info.value.diagnostics[0]
        assert (d.code, d.line, d.col) == ("E0012", line, indent + col), d.render()
        assert "literal out of range" in d.message
    if shutil.which("rustc"):
        path = tmp_path / "lint.rs"
        path.write_text(_host_analogue(stmt))
        err = subprocess.run(["rustc", "--crate-type", "lib", "--edition", "2021", "--emit=metadata", "-o",
                              str(tmp_path / "lint.rmeta"), str(path)], capture_output=True, text=True,
                             timeout=120).stderr
        m = re.search(r"^error: literal out of range for `\w+`\n\s*--> [^\n]*?:(\d+):(\d+)", err, re.M)
        assert m and (int(m.group(1)), int(m.group(2))) == (2, 4 + col), err


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_programs_get_one_verdict_in_a_kernel_and_in_host_code(seed):
    """tests/oracle/fuzz_lets.py's programs (random `let`s, typed or not, given by branches, assigned
    in loops, and an expression over them), each as host code and as a `#[kernel]`'s body: the same
    verdict, accepted or rejected at the same place (rustc not needed: fuzz_lets.py --kernels holds
    both to it too)."""
    import random

    from tests.oracle import fuzz_lets as F

    r = random.Random(seed)
    for _ in range(60):
        items = F.program(r)
        kernel = F.in_kernel(items)
        if kernel is not None:
            assert F.kernel_verdict(kernel) == F.host_place(F.ours(items)), kernel
