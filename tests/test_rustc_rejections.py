"""Kernels rustc rejects are rejected by rs2triton too, at the place rustc points and naming
rustc's code (E0014: its type and name rules, E0015: its borrow checker; docs/diagnostics.md),
and what rustc accepts still transpiles.

Every case is a kernel whose plain-Rust analogue is the same text with a small mock of the DSL
(the `dsl` module below) in place of teenygrad's: where `rustc` is installed, each analogue is
compiled and rustc must report the same code at the same line and column (or nothing, for the
accepted cases), so the table below is held to rustc itself.
"""

import re
import shutil
import subprocess

import pytest

from rs2triton import TranspileError, transpile_source

HEAD = """use teeny_triton::triton::*;

fn id<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> Tile<TT, DD> {
    t
}

fn stop<DD: Dtype>() -> DD {
    loop {}
}

#[kernel]
pub fn k<T: Triton, D: Float, const B: i32>(PARAMS) {
    let offs = T::arange(0, B);
    let x = T::zeros::<D>(&[B]);
"""
PARAMS = "x_ptr: T::Pointer<D>, n: i32, mut m: i32"
FIRST = 15  # the line of a case's first statement

# The DSL as rustc needs it to check these kernels: teenygrad's signatures, cut to what they use.
MOCK = """
mod dsl {
    #[derive(Clone, Copy)]
    pub enum Axis { X, Y, Z }
    pub trait Dtype: Copy {}
    pub trait Num: Dtype {}
    pub trait Float: Num {}
    impl Dtype for f32 {}
    impl Num for f32 {}
    impl Float for f32 {}
    impl Dtype for i32 {}
    impl Num for i32 {}
    pub trait Lt<R> {
        type Out;
        fn lt(self, r: R) -> Self::Out;
    }
    pub trait AddOffsets<O> {
        type Out;
        fn add_offsets(self, o: O) -> Self::Out;
    }
    pub trait Triton {
        type BoolTensor: Copy;
        type I32Tensor: Copy + core::ops::Add<i32, Output = Self::I32Tensor> + Lt<i32, Out = Self::BoolTensor>;
        type Tensor<D: Dtype>: Copy + core::ops::Add<Self::Tensor<D>, Output = Self::Tensor<D>>;
        type Pointer<D: Dtype>: Copy + AddOffsets<Self::I32Tensor, Out = Self::Tensor<Self::Pointer<D>>> + Dtype;
        fn program_id(axis: Axis) -> i32;
        fn arange(start: impl Into<i32>, end: impl Into<i32>) -> Self::I32Tensor;
        fn zeros<D: Dtype>(shape: &[i32]) -> Self::Tensor<D>;
        fn cast<Src: Dtype, Dst: Dtype>(x: Self::Tensor<Src>, rounding: Option<()>, bitcast: bool) -> Self::Tensor<Dst>;
    }
    pub struct Tile<T: Triton, D: Dtype> {
        pub tensor: T::Tensor<D>,
        pub mask: Option<T::BoolTensor>,
    }
}
"""

TILE = "    let t = Tile::<T, D> { tensor: x, mask: Some(offs.lt(n)) };\n"

# (rustc's code, rs2triton's code, the case's body, line and column of the error, in the body's
# lines counted from its first statement (1) / the kernel's signature (0); params)
REJECTED = {
    # E0384: assigning an immutable binding
    "immutable let": ("E0384", "E0015", "    let a = 1;\n    a = 2;\n", 2, 5),
    "immutable let, compound": ("E0384", "E0015", "    let a = 1;\n    a += 2;\n", 2, 5),
    "immutable argument": ("E0384", "E0015", "    n = 3;\n", 1, 5),
    "loop variable": ("E0384", "E0015", "    for i in 0..n {\n        i = 3;\n    }\n", 2, 9),
    "tuple pattern, the other name": ("E0384", "E0015", "    let (a, mut b) = (1, 2);\n    b = 4;\n    a = 3;\n", 3, 5),
    "shadowed `let mut` by a `let`": ("E0384", "E0015", "    let mut a = 1;\n    let a = a + 1;\n    a += 1;\n", 3, 5),
    "after a call that never returns": ("E0384", "E0015", "    let s = stop::<i32>();\n    let a = 1;\n    a = 2;\n", 3, 5),
    # E0382: using a moved Tile
    "moved by a `let`": ("E0382", "E0015", TILE + "    let u = t;\n    let v = t.tensor;\n", 3, 13),
    "moved into a helper": ("E0382", "E0015", TILE + "    let u = id::<T, D>(t);\n    let w = id(t);\n", 3, 16),
    "moved twice in one call": ("E0382", "E0015", TILE.replace("mask: Some(offs.lt(n))", "mask: None")
                                + "    let u = Tile::<T, D> { tensor: id(t).tensor, mask: id(t).mask };\n", 2, 59),
    "moved in a branch": ("E0382", "E0015", TILE + "    if n > 0 {\n        let u = id(t);\n    }\n    let w = t.mask;\n",
                          5, 13),
    "moved in a loop": ("E0382", "E0015", TILE + "    for i in 0..n {\n        let u = id(t);\n    }\n", 3, 20),
    # E0107: generic arguments
    "helper, too many": ("E0107", "E0014", TILE + "    let u = id::<T, D, f32>(t);\n", 2, 13),
    "helper, too few": ("E0107", "E0014", TILE + "    let u = id::<T>(t);\n", 2, 13),
    "DSL method, too many": ("E0107", "E0014", "    let z = T::zeros::<f32, i32>(&[B]);\n", 1, 16),
    "DSL method, too few": ("E0107", "E0014", "    let z = T::cast::<D>(x, None, false);\n", 1, 16),
    "DSL method, none declared": ("E0107", "E0014", "    let a = T::arange::<i32>(0, B);\n", 1, 16),
    "an associated type": ("E0107", "E0014", "    let z: T::Tensor<D, i32> = x;\n", 1, 15),
    "an associated type of none": ("E0107", "E0014", "    let z: T::BoolTensor<i32> = offs.lt(n);\n", 1, 15),
    "the Tile struct": ("E0107", "E0014", "    let t: Tile<T> = Tile { tensor: x, mask: None };\n", 1, 12),
    "a kernel parameter": ("E0107", "E0014", "", 0, 55, "x_ptr: T::Pointer<D, D>, n: i32, mut m: i32"),
    # E0070 and E0158: a const generic is neither assignable nor a name to bind
    "assigning a const generic": ("E0070", "E0014", "    B = 3;\n", 1, 7),
    "`let` of a const generic's name": ("E0158", "E0014", "    let B = 3;\n", 1, 9),
    "tuple pattern of a const generic's name": ("E0158", "E0014", "    let (a, B) = (3, 4);\n", 1, 13),
    "loop variable named as a const generic": ("E0158", "E0014", "    for B in 0..n {\n    }\n", 1, 9),
    # E0308: a condition that is not a `bool`
    "`if` on a comparison method": ("E0308", "E0014", "    if offs.lt(n) {\n    }\n", 1, 8),
    "`if` on a tensor": ("E0308", "E0014", "    if x {\n    }\n", 1, 8),
    "`if` on a mask bound by `let`": ("E0308", "E0014", "    let mask = (offs + 1).lt(n);\n    if mask {\n    }\n", 2, 8),
    "`while` on a pointer": ("E0308", "E0014", "    while x_ptr {\n    }\n", 1, 11),
    "`if` as a value": ("E0308", "E0014", "    let v = if offs.lt(n) { 1 } else { 2 };\n", 1, 16),
    "`if` on a Tile's mask": ("E0308", "E0014", TILE + "    if t.mask {\n    }\n", 2, 8),
}

ACCEPTED = {
    "`let mut` reassigned in a loop": "    let mut a = 0;\n    for i in 0..n {\n        a += i;\n        a = a * 2;\n    }\n",
    "shadowing by a new `let`": "    let a = 1;\n    let a = a + 1;\n    let mut a = a;\n    a = 5;\n",
    "a `mut` parameter": "    m = m + 1;\n    m += n;\n",
    "`while` on a `mut` parameter": "    while m > 0 {\n        m -= 1;\n    }\n",
    "a moved Tile's name bound again": TILE + "    let t = id::<T, D>(t);\n    let u = id(t);\n",
    "a Tile's fields read, then it is moved": TILE + "    let a = t.tensor;\n    let b = t.tensor + a;\n"
                                               "    let u = Tile::<T, D> { tensor: t.tensor, mask: t.mask };\n    let w = id(t);\n",
    "moves in different branches": TILE + "    if n > 0 {\n        let u = id(t);\n    } else if n < -4 {\n"
                                   "        let v = t;\n    } else {\n        let w = id::<T, D>(t);\n    }\n",
    "a Tile made anew in each iteration": TILE + "    for i in 0..n {\n        let t = Tile::<T, D> { tensor: t.tensor, mask: None };\n"
                                         "        let u = id(t);\n    }\n",
    "full and no turbofish": "    let z = T::cast::<D, f32>(x, None, false);\n    let w = T::zeros::<f32>(&[B]) + z;\n",
    "annotations with their generic arguments": "    let v: T::Tensor<D> = x;\n    let b: T::BoolTensor = offs.lt(n);\n"
                                                "    let t: Tile<T, D> = Tile { tensor: v, mask: Some(b) };\n",
    "a `bool` condition": "    let big = n > 4;\n    if big && m < 3 {\n    }\n    if T::program_id(Axis::X) * B < n {\n    }\n",
}


def _kernel(body: str, params: str = PARAMS) -> str:
    return HEAD.replace("PARAMS", params) + body + "}\n"


def _rustc_errors(src: str, tmp_path) -> list[tuple[str, int, int]]:
    """(code, line, col) of each error rustc reports for ``src``'s plain-Rust analogue."""
    path = tmp_path / "analogue.rs"
    path.write_text(src.replace("use teeny_triton::triton::*;", "use dsl::*;").replace("#[kernel]", "") + MOCK)
    proc = subprocess.run(["rustc", "--crate-type", "lib", "--edition", "2021", "--emit=metadata", "-A", "warnings",
                           "-o", str(tmp_path / "analogue.rmeta"), str(path)], capture_output=True, text=True,
                          timeout=120)
    return [(m.group(1), int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^error\[(E\d{4})\][^\n]*\n\s*--> [^\n]*?:(\d+):(\d+)", proc.stderr, re.M)] \
        + ([("?", 0, 0)] if proc.returncode and "error[" not in proc.stderr else [])


@pytest.mark.parametrize("case", list(REJECTED))
def test_rejected_as_rustc_rejects_it(case, tmp_path):
    rustc_code, code, body, line, col, *params = REJECTED[case]
    src = _kernel(body, *params)
    line = FIRST - 1 + line if line else FIRST - 3
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == (code, line, col), d.render()
    assert f"rustc's {rustc_code}" in d.message and d.hint, d.render()
    if shutil.which("rustc"):
        errors = _rustc_errors(src, tmp_path)
        assert (rustc_code, line, col) in errors and {e[0] for e in errors} == {rustc_code}, errors


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_accepted_as_rustc_accepts_it(case, tmp_path):
    src = _kernel(ACCEPTED[case])
    assert transpile_source(src, "kernels/k.rs").text
    if shutil.which("rustc"):
        assert _rustc_errors(src, tmp_path) == []


def test_a_suffixed_tuple_index_is_rustc_s_syntax_error(tmp_path):
    """`1\n.0f32` (a float literal broken at its point, which the fuzzer made) reads as a field
    access with a suffixed tuple index: rustc's "suffixes on a tuple index are invalid", where the
    index is; never an internal error."""
    src = _kernel("    let t = (1, 2);\n    let a = t.0i32;\n    let v = 1\n.0f32;\n")
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == ("E0001", FIRST + 1, 15), d.render()
    assert d.message == "suffixes on a tuple index are invalid" and "`.0`" in d.hint, d.render()
    if shutil.which("rustc"):
        path = tmp_path / "analogue.rs"
        path.write_text(src.replace("use teeny_triton::triton::*;", "use dsl::*;").replace("#[kernel]", "") + MOCK)
        proc = subprocess.run(["rustc", "--crate-type", "lib", "--edition", "2021", "--emit=metadata", "-A", "warnings",
                               "-o", str(tmp_path / "a.rmeta"), str(path)], capture_output=True, text=True, timeout=120)
        assert f"error: suffixes on a tuple index are invalid\n  --> {path}:{FIRST + 1}:15" in proc.stderr, proc.stderr


MISSING_OPERANDS = ["let y = 1 +;", "let y = (1 + );", "let y = ;", "let z = (1, 2 * );", "let w = [1, 2 - ];",
                    "let q = -;", "let mut a = 1; a += ;", "let b = 1 == ;"]


@pytest.mark.parametrize("statement", MISSING_OPERANDS)
def test_an_operator_without_its_operand_is_rustc_s_expected_expression(statement, tmp_path):
    """An operator (or a `let`'s `=`) followed by `;`, `)`, `]`, `}` or `,`: rustc's "expected
    expression, found `;`" at the token found, in a kernel as in plain Rust (it was "expected
    `identifier`", or "syntax error near" the operator, a column or two before)."""
    with pytest.raises(TranspileError) as info:
        transpile_source(f"#[kernel]\npub fn k<T: Triton>(n: i32) {{\n    {statement}\n}}\n", "kernels/k.rs")
    d = info.value.diagnostics[0]
    found = re.search(r"[;)\]]", statement[statement.index("=") + 1:] if "=" in statement else statement)
    assert d.code == "E0001" and d.message == f"expected expression, found `{found.group(0)}`", d.render()
    if shutil.which("rustc"):
        path = tmp_path / "m.rs"
        path.write_text(f"fn main() {{\n    {statement}\n}}\n")
        proc = subprocess.run(["rustc", "--emit=metadata", "-o", str(tmp_path / "m.rmeta"), str(path)],
                              capture_output=True, text=True, timeout=120)
        assert f"error: {d.message}\n --> {path}:2:{d.col}" in proc.stderr, (d.render(), proc.stderr)
