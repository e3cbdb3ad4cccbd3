"""Bad input gets a located, rustc-style error with a hint - never a traceback."""

import pytest

from rs2triton import TranspileError, transpile_source

HEADER = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, D: Float, const B: i32>(x_ptr: T::Pointer<D>, n: i32) {
    let offs = T::arange(0, B);
"""
FOOTER = "}\n"
BODY_LINE = 6  # the first line after HEADER


def diagnose(body: str, header: str = HEADER):
    src = header + body + FOOTER
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "kernels/bad.rs")
    return info.value.diagnostics[0], src


CASES = [
    # (body, code, message part, hint part, the text the caret must start at)
    ("    let v = match n { 0 => 1, _ => 2 };\n", "E0002", "unsupported construct: match", "if", "match"),
    ("    loop { }\n", "E0002", "loop", "while", "loop"),
    ("    let f = |a: i32| a + 1;\n", "E0002", "closure", "plain `fn`", "|a"),
    ("    while n > 0 { break; }\n", "E0002", "break", "mask", "break"),
    ("    while n > 0 { return; }\n", "E0002", "inside a loop", "before the loop", "return"),
    ("    return n;\n", "E0002", "return no value", "T::store", "return n"),
    ("    println!(\"{}\", n);\n", "E0002", "macro", "device_print", "println"),
    ("    let y = offs[0];\n", "E0002", "index", "pointer offsets", "offs[0]"),
    ("    let y = T::lod(x_ptr, None, None, &[], None, None, None, false);\n", "E0003",
     "`T::lod` is not a method of the Triton trait", "`load`", "lod"),
    ("    let y = T::load(x_ptr.add_offsets(offs), None);\n", "E0004", "takes 8 arguments but 2 were supplied",
     "load(ptr, mask, other", "T::load"),
    ("    let y = offs + m;\n", "E0006", "cannot find value `m`", "parameters", "m;"),
    ("    let y = foo(n);\n", "E0003", "cannot call `foo`", "DSL methods", "foo"),
    ("    let y = x_ptr.frobnicate(n);\n", "E0003", "unknown method `.frobnicate()`", "add_offsets", "frobnicate"),
    ("    let y = Axis::W;\n", "E0006", "not a variant of `Axis`", "Axis::X", "Axis::W"),
    ("    let x = T::load(x_ptr.add_offsets(offs), None, None, &[0], None, None, None, false);\n", "E0002",
     "boundary_check", "mask", "&[0]"),
    ("    let q = T::make_block_ptr(x_ptr, &[n], &[1], &[0], &[B], &[0]).add_offsets(offs);\n",
     "E0008", "block pointers have no arithmetic", "T::advance", "T::make_block_ptr"),
    ("    let q = T::exp(T::make_block_ptr(x_ptr, &[n], &[1], &[0], &[B], &[0]));\n",
     "E0008", "only be passed to", "make_block_ptr", "T::make_block_ptr(x_ptr"),
    ("    let p = T::make_block_ptr(x_ptr, &[n], &[1, 1], &[0], &[B], &[0]);\n", "E0008",
     "same length", "one entry per dimension", "T::make_block_ptr"),
    ("    let s = T::inline_asm_elementwise(\"mov.u32 $0, %laneid;\", \"=r\", true, 1);\n", "E0005",
     "needs its result type", "::<i32>", "T::inline_asm"),
    ("    let s = unsafe { n };\n", "E0002", "unsafe", "remove", "unsafe"),
    ("    let z;\n", "E0002", "without an initializer", "initialize", "let z;"),
    ("    for i in (0..n).step_by(2).rev() { }\n", "E0002", "step_by(..).rev()", "rev().step_by", "(0..n)"),
    # teenygrad's tile branch: indexed shared memory, and DotFormat variants tl.dot_scaled has no format for
    ("    let buf = T::shared_alloc::<D>(&[B, B]);\n", "E0002", "`T::shared_alloc` has no Triton equivalent",
     "scratch", "T::shared_alloc"),
    ("    let row = T::shared_load_index::<D>(T::shared_trans::<D>(buf), 0);\n", "E0002",
     "`T::shared_load_index` has no Triton", "scratch", "T::shared_load_index"),
    ("    T::shared_store_index::<D>(buf, 0, offs);\n", "E0002", "`T::shared_store_index` has no", "scratch",
     "T::shared_store"),
    ("    let s = T::shared_trans::<D>(buf);\n", "E0002", "`T::shared_trans` has no", "scratch", "T::shared_trans"),
    *((f"    let f = DotFormat::{v};\n", "E0008", f"`DotFormat::{v}` has no Triton equivalent",
       "DotFormat::E4M3, DotFormat::E5M2, DotFormat::E2M1x2, DotFormat::BF16x2", "DotFormat::")
      for v in ("E2M1x4", "Int8", "UInt8")),
]


@pytest.mark.parametrize("body,code,message,hint,at", CASES, ids=[c[1] + "-" + c[4][:12] for c in CASES])
def test_located_error_with_hint(body, code, message, hint, at):
    d, src = diagnose(body)
    assert d.code == code
    assert message in d.message
    assert d.hint and hint in d.hint
    assert d.path == "kernels/bad.rs"
    assert d.line == BODY_LINE
    line = src.splitlines()[d.line - 1]
    assert line[d.col - 1:].startswith(at), (line, d.col)
    rendered = d.render()
    assert f"kernels/bad.rs:{d.line}:{d.col}" in rendered
    assert line in rendered
    assert "^" in rendered.splitlines()[4]
    assert rendered.splitlines()[4].index("^") == rendered.splitlines()[3].index(line) + d.col - 1
    assert "= help: " in rendered


def test_syntax_error_points_at_the_gap():
    d, _ = diagnose("    let y = offs + 1\n    let z = y;\n")
    assert d.code == "E0001"
    assert d.line == BODY_LINE and "expected `;`" in d.message
    assert d.col == len("    let y = offs + 1") + 1


def test_a_broken_signature_is_not_blamed_on_a_missing_semicolon():
    src = "#[kernel]\npub fn k<T: Triton>(\n    x: T::Pointer<f32> y: i32,\n) {}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "sig.rs")
    d = info.value.diagnostics[0]
    assert d.code == "E0001" and d.line == 3 and "expected `;`" not in d.message


def test_unresolved_dtype():
    header = HEADER.replace("x_ptr: T::Pointer<D>", "x_ptr: T::Pointer<f32>")
    d, _ = diagnose("    let z = T::zeros::<D>(&[B]);\n", header)
    assert d.code == "E0005" and "`D`" in d.message and "Pointer<D>" in d.hint


def test_bad_parameter_type():
    header = HEADER.replace("n: i32", "n: Vec<i32>")
    d, _ = diagnose("", header)
    assert d.code == "E0007" and "Vec<i32>" in d.message and d.line == 4


def test_every_kernel_reports_its_first_error():
    src = HEADER + "    loop {}\n}\n" + HEADER.replace("fn k<", "fn k2<").split("use teeny_triton::triton::*;")[1] \
        + "    let v = match n { _ => 1 };\n}\n"
    with pytest.raises(TranspileError) as info:
        transpile_source(src, "two.rs")
    assert [d.code for d in info.value.diagnostics] == ["E0002", "E0002"]
    assert info.value.diagnostics[1].line > info.value.diagnostics[0].line


def test_file_without_kernels_is_fine_and_produces_nothing():
    assert transpile_source("pub struct S; impl S { fn f(&self) {} }\n", "plain.rs").text is None
