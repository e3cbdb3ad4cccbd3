"""The host target of the one front end: names as Rust sees them, module constants host code
reads, Rust's panics at the Rust line, and what rustc rejects in host code (tests/kernels/host_names.rs
and small sources here). The expression-by-expression comparison with rustc's answers is
tests/test_host_rustc.py."""

from __future__ import annotations

import pytest

import rs2triton
from rs2triton.diagnostics import TranspileError
from rs2triton.runtime.host import Panic
from rs2triton.transpiler.driver.pipeline import transpile_source
from tests.conftest import ROOT

SOURCE = ROOT / "tests" / "kernels" / "host_names.rs"
names = rs2triton.load(SOURCE)


def test_raw_identifiers_are_the_names_they_spell_and_nfkc_folds_nothing_together():
    op = names.Names.new(3)
    assert op.raw_and_folded(4) == (4, 40, 11)  # `r#N` is `N`; `Ｎ` is not `N`; `ﬁ` is not `fi`
    assert op.type == 3  # the field `r#type`


def test_python_keywords_and_builtins_are_plain_rust_names():
    assert names.Names.new(1).keywords(2, 3) == 15


def test_names_a_generated_class_has_are_kept_apart():
    op = names.Names.new(3)
    assert op.apply_() == 3 + 4 + 2 and op.calls_apply() == 18  # the Rust `apply`, not the runtime's
    assert op.type_args == {} and op.type_args_field == 4  # the field, apart from the runtime's `type_args`
    assert callable(op.apply) and op.forward_kernel() is op.kernel  # the runtime's own still work
    assert op.kernel_fields() == (7, 9, 64)  # const generics LAUNCHER and WRAP read by host code
    kernel = names.CopyForward(LAUNCHER=7, WRAP=9, BLOCK_SIZE=64)
    assert kernel.grid((1000,)) == (16, 7, 9) and kernel.launcher.name == "CopyForward"


def test_module_constants_host_code_reads_are_the_module_s_with_what_they_need():
    assert names.Names.new(0).constants() == (144, 36)
    text = rs2triton.transpile_file(SOURCE).text
    assert "CELLS = as_usize(ROWS * COLS)" in text and "LANES = CELLS // 4" in text
    assert "as_usize" in text.split("from rs2triton.runtime.host import", 1)[1].split("\n")[0]


HOST = """
use teeny_macros::kernel;
#[kernel]
pub fn k<T: Triton, const B: i32>(x: T::Pointer<f32>) {{ }}
pub struct P {{ n: usize }}
impl P {{
    pub fn f(a: i32, b: i32, v: &[usize], i: usize) -> i32 {{
{body}
    }}
}}
impl teeny_core::model::RuntimeOp for P {{
    fn n_activation_inputs(&self) -> usize {{ 1 }}
    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {{ vec![] }}
    fn pack_args(&self, inputs: &[(teeny_core::model::RawPtr, &[usize])], params: &[teeny_core::model::RawPtr],
                 output: teeny_core::model::RawPtr, output_shape: &[usize], output_row_stride: i32,
                 visitor: &mut dyn teeny_core::device::program::ArgVisitor) {{ }}
    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {{ [1, 1, 1] }}
}}
"""


def _probe(body: str, tmp_path):
    path = tmp_path / "probe.rs"
    path.write_text(HOST.format(body=body))
    return rs2triton.load(path)


@pytest.mark.parametrize(("body", "args", "message", "line"), [
    ("        a / b", (1, 0, [], 0), "attempt to divide by zero", 8),
    ("        a % b", (-2147483648, -1, [], 0), "attempt to calculate the remainder with overflow", 8),
    ("        let x = v[i];\n        x as i32", (1, 1, [1, 2], 5), "index out of bounds", 8),
    ("        let o: Option<i32> = None;\n        o.unwrap()", (0, 0, [], 0), "called `Option::unwrap()` on a `None` value", 9),
    ("        a.clamp(b, 0)", (1, 5, [], 0), "min > max. min = 5, max = 0", 8),
    ("        panic!(\"bad {a} and {}\", b)", (1, 2, [], 0), "bad 1 and 2", 8),
])
def test_rust_panics_are_panic_exceptions_at_the_rust_line(tmp_path, body, args, message, line):
    module = _probe(body, tmp_path)
    with pytest.raises(Panic) as info:
        module.P.f(*args)
    assert message in str(info.value) and info.value.location == f"{tmp_path / 'probe.rs'}:{line}"
    assert str(info.value).startswith("panicked at ")


@pytest.mark.parametrize(("body", "code", "line", "col", "words"), [
    ("        255u8 + 1u8;\n        0", "E0012", 8, 9, "will overflow"),
    ("        let x: u8 = 256;\n        0", "E0012", 8, 21, "literal out of range for `u8`"),
    ("        let s = \"a\\qb\";\n        0", "E0001", 8, 20, "unknown character escape"),
    ("        let x = 1;\n        x = 2;\n        x", "E0015", 9, 9, "E0384"),
    ("        if a {\n            1\n        } else {\n            0\n        }", "E0014", 8, 12, "E0308"),
    ("        -(i as u32) as i32", "E0014", 8, 9, "E0600"),
    ("        a + 1 << 40", "E0012", 8, 9, "overflow"),
])
def test_host_code_rustc_rejects_is_a_located_error(body, code, line, col, words):
    with pytest.raises(TranspileError) as info:
        transpile_source(HOST.format(body=body), "probe.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == (code, line, col), d.render()
    assert words in d.message + (d.hint or ""), d.render()


def test_an_f16_literal_is_its_f16_value_and_f16_arithmetic_is_not_translated(tmp_path):
    module = _probe("        let h = 1.1f16;\n        let g = h * h;\n        0", tmp_path)
    with pytest.raises(NotImplementedError, match="`f16` arithmetic in host code"):
        module.P.f(0, 0, [], 0)
    (tmp_path / "probe.rs").write_text(HOST.format(body="        let h = 1.1f16;\n        0"))
    assert "h = 1.099609375" in rs2triton.transpile_file(tmp_path / "probe.rs").text  # (f16's nearest to 1.1)


def _text(tmp_path, body: str) -> str:
    (tmp_path / "probe.rs").write_text(HOST.format(body=body))
    return rs2triton.transpile_file(tmp_path / "probe.rs").text.split("def f(cls, a, b, v, i):", 1)[1]


def test_a_cast_that_cannot_change_the_value_is_left_out(tmp_path):
    text = _text(tmp_path, "        let w = (a as u32) as u64;\n        let s = (a as u8) as i16;\n        let u = i as u8;\n"
                           "        (w + s as u64 + u as u64) as i32")
    assert "w = as_u64(as_u32(a))" not in text and "w = as_u32(a)" in text  # u32 -> u64 changes nothing
    assert "s = as_u8(a)" in text and "u = as_u8(i)" in text and "as_u64(s)" in text  # i16 -> u64 wraps


def test_float_division_by_a_literal_is_python_s_and_by_a_value_ieee_s(tmp_path):
    text = _text(tmp_path, "        let x = a as f64;\n        let h = x / 2.0;\n        let q = x / (b as f64);\n"
                           "        (h + q) as i32")
    assert "h = x / 2.0" in text and "q = f64.div(x, float(b))" in text
    module = _probe("        let x = a as f64;\n        (x / (b as f64)) as i32", tmp_path)
    assert module.P.f(1, 0, [], 0) == 2147483647  # 1 / 0 is inf, saturated by `as i32`


def test_paths_to_none_self_constants_and_a_kernel_s_constant(tmp_path):
    source = HOST.replace("pub struct P {{ n: usize }}", "const KC: i32 = 3;\nconst H: usize = 5;\npub struct P {{ n: usize }}")
    source = source.replace("pub fn k<T: Triton, const B: i32>(x: T::Pointer<f32>) {{ }}",
                            "pub fn k<T: Triton, const B: i32>(x: T::Pointer<f32>) {{ let y = KC; }}")
    path = tmp_path / "probe.rs"
    path.write_text(source.format(body="        let o: Option<i32> = Option::None;\n"
                                       "        o.unwrap_or(KC + Self::H as i32 + a)"))
    module = rs2triton.load(path)
    assert module.P.f(1, 0, [], 0) == 9
    text = rs2triton.transpile_file(path).text
    assert "KC = tl.constexpr(3)" in text and "KC.value" in text and "\nH = 5\n" in text


def test_a_pair_s_pointer_and_shape_and_a_compile_time_comparison(tmp_path):
    module = _probe("        let t: (i32, bool) = (a, a < b);\n        if t.1 { t.0 } else { -t.0 }", tmp_path)
    assert module.P.f(3, 5, [], 0) == 3 and module.P.f(5, 3, [], 0) == -5


def test_an_integer_literal_s_ord_methods_fall_back_to_i32_as_rustc_does(tmp_path):
    """`5.max(3)` compiles (`Ord::max` on `{integer}`, which falls back to i32); `2.5.max(1.0)` is
    E0689 (`f64::max` is inherent), and so is `5.pow(2)`."""
    module = _probe("        let x = 5.max(3);\n        x + 7.min(a).clamp(0, 4)", tmp_path)
    assert module.P.f(2, 0, [], 0) == 7 and module.P.f(9, 0, [], 0) == 9
    for body, method in (("        2.5.max(1.0) as i32", "max"), ("        5.pow(2)", "pow")):
        with pytest.raises(TranspileError, match=f"can't call method `{method}` on ambiguous numeric type"):
            transpile_source(HOST.format(body=body), "probe.rs")


def test_a_shift_of_an_unsuffixed_literal_has_the_type_rust_infers(tmp_path):
    """`1 << b` takes its type from the annotation (`let x: u64`), from the return it reaches, or
    else falls back to i32: the amount is masked to that width (rustc -O: 1 << 40 is 2**40 in a u64,
    256 in an i32)."""
    module = _probe("        let x: u64 = 1 << b;\n        (x >> 32) as i32", tmp_path)
    assert module.P.f(0, 40, [], 0) == 256 and module.P.f(0, 64, [], 0) == 0
    module = _probe("        let x = 1 << b;\n        x", tmp_path)
    assert module.P.f(0, 40, [], 0) == 256 and module.P.f(0, 31, [], 0) == -2**31


def test_a_vec_moved_to_another_name_is_rustc_s_e0382_where_it_is_used_again(tmp_path):
    """`let w = v;` moves a `Vec` (not `Copy`): a later use of `v` is E0382; a clone, a borrow, a
    slice (which is `Copy`) or a `v` assigned anew are fine."""
    with pytest.raises(TranspileError) as info:
        transpile_source(HOST.format(body="        let v = vec![1usize];\n        let w = v;\n"
                                          "        (v.len() + w.len()) as i32"), "probe.rs")
    d = info.value.diagnostics[0]
    assert (d.line, d.col) == (10, 10) and "E0382" in d.message and "moved at line 9" in (d.hint or ""), d.render()
    fine = ("        let mut v = vec![1usize, 2];\n        let w = v.clone();\n        let u = w;\n"
            "        v = vec![3];\n        let s = &v;\n        let t = s;\n        (v.len() + u.len() + t.len() + s.len()) as i32")
    assert _probe(fine, tmp_path).P.f(0, 0, [], 0) == 5


def test_a_float_cast_to_an_integer_is_never_left_out_and_a_comparison_is_a_bool(tmp_path):
    """`f as i32` of a float truncates (a cast left out as "changing nothing" must be an integer
    widening); `let x: i32 = a < b;` is rustc's E0308 (a comparison is a `bool`)."""
    module = _probe("        let f = a as f32 / 2.0;\n        (f as i32) + ((f * 3.0) as u8 as i32)", tmp_path)
    assert module.P.f(5, 0, [], 0) == 2 + 7
    with pytest.raises(TranspileError, match="expected `i32`, found `bool`"):
        transpile_source(HOST.format(body="        let x: i32 = a < b;\n        x"), "probe.rs")


def test_labelled_break_and_continue_jump_to_their_loop(tmp_path):
    """`break 'outer` / `continue 'outer` from two loops deep: a flag per label, set before the
    inner `break`, read after each inner loop (Python has no labelled jumps). Expected values from
    rustc (the same function, compiled)."""
    body = ("        let mut c = 0;\n        'outer: for x in 0..a {\n            let mut y = 0;\n"
            "            while y < a {\n                for z in 0..3 {\n                    if z > x {\n"
            "                        continue 'outer;\n                    }\n                    if x * y > b {\n"
            "                        break 'outer;\n                    }\n                    c += 1;\n"
            "                }\n                y += 1;\n            }\n            c += 100;\n        }\n        c")
    module = _probe(body, tmp_path)
    assert [module.P.f(a, b, [], 0) for a, b in ((0, 0), (1, 5), (3, 5), (4, 2), (5, 100))] == [0, 1, 112, 9, 348]
    with pytest.raises(TranspileError, match="use of undeclared label `'nowhere`"):
        transpile_source(HOST.format(body="        for x in 0..a {\n            break 'nowhere;\n        }\n        0"),
                         "probe.rs")


def test_a_closure_that_assigns_what_it_captures_is_a_nested_def_with_nonlocal(tmp_path):
    """`|d| c = c.wrapping_add(d)` and `|x| { total += x; total }`: Rust's `FnMut`, a nested `def`
    whose `nonlocal`s are what it assigns of the method (values from rustc, the same code compiled)."""
    body = ("        let mut c = 0i32;\n        let mut bump = |d: i32| c = c.wrapping_add(d);\n"
            "        for k in 0..a {\n            bump(k);\n        }\n        let mut total = 0usize;\n"
            "        let mut add = |x: usize| { total += x; total };\n        add(3);\n        c + add(4) as i32")
    module = _probe(body, tmp_path)
    assert [module.P.f(a, 0, [], 0) for a in (0, 5, 70000)] == [7, 17, -1845002289]
    text = _text(tmp_path, body)
    assert "def closure(d):\n            nonlocal c\n" in text and "nonlocal total" in text
