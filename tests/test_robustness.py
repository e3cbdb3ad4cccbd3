"""No input crashes the transpiler: every byte string either transpiles or is rejected with
located diagnostics, and an unexpected exception inside rs2triton is an internal error (E0999)
located at what was being lowered - never a bare traceback.

The mutation fuzzer lives in tests/fuzz.py (``python -m tests.fuzz --help``); fixed crashers
are kept in tests/fuzz_corpus/ and replayed here."""

import ast
import os
import sys
from pathlib import Path

import jinja2
import pytest
from click.testing import CliRunner

from rs2triton import TranspileError, transpile_source
from rs2triton.cli import main
from rs2triton.diagnostics import ICE_CODE
from rs2triton.transpiler.emit import module as render
from rs2triton.transpiler.lowering.registry import EXPRESSIONS, KERNEL
from tests import fuzz
from tests.conftest import ROOT
from tests.numerics import assert_matches

VECTOR_ADD = (ROOT / "kernels_rs" / "vector_add.rs").read_bytes()

# ------------------------------------------------------------------ fuzzing
SEED = int(os.environ.get("RS2TRITON_FUZZ_SEED", "20261201"))
COUNT = int(os.environ.get("RS2TRITON_FUZZ_COUNT", "2400"))
CHUNKS = 4  # spread over the xdist workers
CRASH_DIR = Path(os.environ.get("RS2TRITON_FUZZ_CRASH_DIR", ROOT / "build" / "fuzz-crashes"))


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzzed_kernels_never_crash_the_transpiler(chunk):
    size = -(-COUNT // CHUNKS)
    report = fuzz.fuzz(SEED, min(size, COUNT - chunk * size), CRASH_DIR, format_sample=5, start=chunk * size)
    assert report.outcomes["ok"] > 0 and report.outcomes["rejected"] > 0, report.summary()
    assert report.formatted > 0, "no transpiled mutant was formatted"
    crashes = "\n\n".join(f"input {i} ({'+'.join(applied)}), saved as {saved}:\n{problem}"
                          for i, applied, problem, saved in report.crashes[:5])
    assert not report.crashes, (f"{report.summary()}\nreplay with: python -m tests.fuzz --replay "
                                f"{CRASH_DIR}/crash-*.rs\n\n{crashes}")


def test_mutants_are_reproducible_from_the_seed():
    sources = fuzz.seed_sources()
    assert [fuzz.mutant(7, i, sources) for i in range(50)] == [fuzz.mutant(7, i, sources) for i in range(50)]
    assert fuzz.mutant(7, 1, sources) != fuzz.mutant(8, 1, sources)


def test_every_mutation_kind_is_used():
    sources = fuzz.seed_sources()
    used = {name for i in range(400) for name in fuzz.mutant(SEED, i, sources)[1]}
    assert used == {m.__name__[2:] for m in fuzz.BYTE_MUTATORS + fuzz.TOKEN_MUTATORS}


def test_the_fuzzer_catches_and_saves_a_crash(tmp_path, monkeypatch):
    def boom(lw, node):
        raise ZeroDivisionError("planted")
    monkeypatch.setitem(EXPRESSIONS[KERNEL], "binary_expression", boom)
    report = fuzz.fuzz(3, 30, tmp_path)
    assert report.crashes
    saved = report.crashes[0][3]
    assert saved.read_bytes() == fuzz.mutant(3, report.crashes[0][0], fuzz.seed_sources())[0]
    assert "internal error" in report.crashes[0][2]
    assert fuzz.main(["--replay", str(saved)]) == 1


CORPUS = sorted(fuzz.CORPUS.glob("*.rs"))


def test_the_corpus_holds_the_known_crashers():
    assert len(CORPUS) >= 14


@pytest.mark.parametrize("path", CORPUS, ids=[p.name for p in CORPUS])
def test_saved_crashers_stay_fixed(path):
    outcome, problem, _ = fuzz.check(path.read_bytes())
    assert outcome != "crash", problem


# ------------------------------------------------------------------ the known crashes, as rustc reports them
def rejected(source, path="bad.rs"):
    with pytest.raises(TranspileError) as info:
        transpile_source(source, path)
    return info.value.diagnostics


@pytest.mark.parametrize("source, line, col, byte", [
    (b"\xff" + VECTOR_ADD, 1, 1, "0xff"),
    (VECTOR_ADD.replace(b"let offsets", b"let o\xc3ffsets"), 34, 10, "0xc3"),
    (VECTOR_ADD.replace(b"//! Element", b"//! \xc3\xa9l\xc3\xa9ment \xe2\x82"), 1, 13, "0xe2"),
])
def test_invalid_utf8_is_located_at_the_first_bad_byte(source, line, col, byte):
    [d] = rejected(source)
    assert (d.code, d.line, d.col) == ("E0010", line, col)
    assert d.message.startswith("stream did not contain valid UTF-8") and byte in d.message
    assert f"bad.rs:{line}:{col}" in d.render() and "UTF-8" in d.hint


def test_a_str_with_a_lone_surrogate_is_invalid_utf8():
    [d] = rejected("// \ud800\n" + VECTOR_ADD.decode())
    assert (d.code, d.line, d.col) == ("E0010", 1, 4)


@pytest.mark.parametrize("signature, message, caret", [
    ("fn k<T: Triton>(x: i32, x: i32)", "identifier `x` is bound more than once", 25),
    ("fn k<T: Triton>(x: i32, mut x: f32)", "identifier `x` is bound more than once", 29),
    ("fn k<T: Triton, const B: i32, const B: i32>(x: i32)", "`B` is already used for a generic", 37),
    ("fn k<T: Triton, D: Float, D: Float>(x: T::Pointer<D>)", "`D` is already used for a generic", 27),
    ("fn k<T: Triton, const B: i32>(B: i32)", "has the name of a generic parameter", 31),
    ("fn k<T: Triton>((a, b): (i32, i32))", "unsupported parameter pattern `(a, b)`", 17),
])
def test_bad_parameter_lists_are_diagnosed(signature, message, caret):
    [d] = rejected(f"#[kernel]\n{signature} {{}}\n")
    assert d.code == "E0007" and message in d.message and (d.line, d.col) == (2, caret), d.render()


def test_underscore_parameters_each_get_a_python_name():
    res = transpile_source("#[kernel]\nfn k<T: Triton>(_: i32, _: T::Pointer<f32>, _1: i32) {}\n")
    assert "def k(_0, _1_1, _1):" in res.text
    assert [p.name for p in res.kernels[0].params] == ["_0", "_1_1", "_1"]


@pytest.mark.parametrize("expr", ["(" * 1000 + "a" + ")" * 1000, " + ".join(["a"] * 1000),
                                  "-(" * 500 + "a" + ")" * 500, "T::abs(" * 300 + "a" + ")" * 300])
def test_nesting_too_deep_for_the_stack_is_refused_not_a_recursion_error(expr):
    [d] = rejected(VECTOR_ADD.decode().replace("a + b", expr))
    assert d.code == "E0002" and "syntax-tree levels deep" in d.message and d.line in (40, 64), d.render()
    assert d.source_line is not None and "a" in d.source_line[d.col - 1:]


def test_deep_nesting_with_little_stack_left_is_refused_too():
    expr = "T::abs(" * 60 + "a" + ")" * 60
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(__import__("inspect").stack()) + 150)
    try:
        [d] = rejected(VECTOR_ADD.decode().replace("a + b", expr))
    finally:
        sys.setrecursionlimit(limit)
    assert d.code == "E0002" and d.line in (40, 64)


@pytest.mark.parametrize("expr", ["(" * 150 + "a" + ")" * 150, "T::abs(" * 30 + "a" + ")" * 30])
def test_nesting_that_fits_the_stack_transpiles_and_computes(expr):
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(__import__("inspect").stack()) + 600)
    try:
        res = transpile_source(VECTOR_ADD.decode().replace("a + b", expr))
    finally:
        sys.setrecursionlimit(limit)
    ast.parse(res.text)
    stores = [s for s in res.text.split("tl.store(")[1:]]
    assert len(stores) == 2 and all(s.count("tl.abs(") == (30 if "abs" in expr else 0) for s in stores)


def test_a_module_too_deep_for_pythons_compiler_is_refused(monkeypatch):
    from rs2triton.transpiler.driver import pipeline

    def too_deep_to_compile(*_a, **_k):
        raise RecursionError("maximum recursion depth exceeded during compilation")

    monkeypatch.setattr(pipeline, "compile", too_deep_to_compile, raising=False)
    [d] = rejected(VECTOR_ADD)
    assert d.code == "E0002" and "syntax-tree levels deep" in d.message


def _items(src: bytes):
    from rs2triton.transpiler.frontend.items import collect
    from rs2triton.transpiler.frontend.parse import parse
    from rs2triton.transpiler.frontend.source import SourceMap
    from rs2triton.transpiler.frontend.tiled import expand

    smap = SourceMap("x.rs", src)
    try:
        tree = parse(src, smap)
        expanded = expand(src, tree, smap)  # a `#[tiled_kernel]` is a `#[kernel]` from here on
        if expanded is not None:
            smap = SourceMap("x.rs", expanded)
            tree = parse(expanded, smap)
        return collect(tree.root_node, smap)
    except TranspileError:
        return None


def test_files_skipped_unparsed_are_exactly_those_without_kernel_attributes():
    """`may_define_kernels` is False only where collect would find a kernel in no spelling."""
    from rs2triton.transpiler.frontend.items import may_define_kernels

    sources = fuzz.seed_sources()
    sources += [fuzz.mutant(7, i, sources)[0] for i in range(300)]
    sources += [VECTOR_ADD.replace(b"#[kernel]", attr) for attr in (
        b"# [ kernel ]", b"#[/* k */ kernel]", b"#[::kernel]", b"#[teeny_macros::kernel]",
        b"#[m\xc3\xb3dulo :: kernel]", b"#[tiled_kernel]", b"#[kernels]", b"#[cfg(kernel)]", b"// #[kernel]")]
    skipped = 0
    for src in sources:
        items = _items(src)
        if not may_define_kernels(src):
            skipped += 1
            assert items is None or not items.kernels, src[:200]
    assert skipped >= 3  # the attribute spellings that are not kernels, at least


def test_a_file_without_kernel_attributes_is_not_parsed(tmp_path):
    (tmp_path / "host.rs").write_bytes(b"// talks about kernels, but defines none\nfn broken( {\n")
    res = transpile_source((tmp_path / "host.rs").read_bytes(), "host.rs")
    assert res.text is None and res.kernels == [] and res.warnings == []


def test_float_boundary_check_is_a_diagnostic():
    [d] = rejected((fuzz.CORPUS / "float_boundary_check.rs").read_bytes())
    assert (d.code, d.line) == ("E0008", 4) and "boundary_check" in d.message


# ------------------------------------------------------------------ the safety net
@pytest.fixture
def broken_binop(monkeypatch):
    def boom(lw, node):
        raise KeyError("planted")
    monkeypatch.setitem(EXPRESSIONS[KERNEL], "binary_expression", boom)


def test_an_exception_while_lowering_is_an_internal_error_at_that_node(broken_binop, monkeypatch):
    monkeypatch.delenv("RS2TRITON_DEBUG", raising=False)
    [d] = rejected(VECTOR_ADD, "kernels_rs/vector_add.rs")
    assert (d.code, d.line, d.col, d.length) == (ICE_CODE, 33, 23, 16)
    assert d.message == "internal error in rs2triton while lowering binary expression `pid * BLOCK_SIZE`"
    text = d.render()
    assert "kernels_rs/vector_add.rs:33:23" in text and "^" * 16 in text
    assert "please report" in text and "KeyError: 'planted'" in text and "RS2TRITON_DEBUG=1" in text
    assert "Traceback" not in text


def test_debug_switch_adds_the_python_traceback(broken_binop, monkeypatch):
    monkeypatch.setenv("RS2TRITON_DEBUG", "1")
    [d] = rejected(VECTOR_ADD)
    assert "Traceback (most recent call last)" in d.render() and "in boom" in d.render()


def test_cli_reports_an_internal_error_exit_1_and_writes_nothing(broken_binop, tmp_path, monkeypatch):
    monkeypatch.setenv("RS2TRITON_NO_CACHE", "1")  # another test may have transpiled (and cached) these files
    res = CliRunner().invoke(main, ["transpile", str(ROOT / "kernels_rs"), "-o", str(tmp_path / "out")])
    assert res.exit_code == 1
    assert f"error[{ICE_CODE}]" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "out").exists()


def test_load_reports_an_internal_error_as_a_transpile_error(broken_binop, monkeypatch):
    import rs2triton
    monkeypatch.setenv("RS2TRITON_NO_CACHE", "1")  # another test may have loaded (and cached) this file
    with pytest.raises(TranspileError) as info:
        rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")
    assert info.value.diagnostics[0].code == ICE_CODE


class _Template:
    """A stand-in for the module template: renders through ``edit``."""

    REAL = render.template()

    def __init__(self, edit):
        self.real, self.edit = self.REAL, edit

    def render(self, **values):
        return self.edit(self.real.render(**values))


def test_a_rendering_failure_is_an_internal_error(monkeypatch):
    def fail(text):
        raise jinja2.TemplateError("planted")
    monkeypatch.setattr(render, "template", lambda: _Template(fail))
    [d] = rejected(VECTOR_ADD)
    assert d.code == ICE_CODE and d.message == "internal error in rs2triton while rendering the module for this file"


def test_invalid_generated_python_is_an_internal_error_at_its_kernel(monkeypatch):
    real = render.module_text

    def broken(*args):
        text, line_map, exact = real(*args)
        return text.replace("tl.store(", "tl.store((", 1), line_map, exact
    monkeypatch.setattr(render, "module_text", broken)
    [d] = rejected(VECTOR_ADD)
    assert d.code == ICE_CODE and "while generating Python for function item" in d.message and d.line == 22


def test_an_unexpected_cli_failure_is_not_a_traceback(monkeypatch):
    def fail(*args, **kwargs):
        raise ValueError("planted")
    monkeypatch.setattr("rs2triton.transpiler.dsl.docs.ops_table", fail)
    res = CliRunner().invoke(main, ["ops"])
    assert res.exit_code == 1 and "internal error in rs2triton: ValueError: planted" in res.output


def test_an_unwritable_output_is_a_diagnostic_and_nothing_is_written(tmp_path):
    (tmp_path / "taken").write_text("a file, not a folder\n")
    res = CliRunner().invoke(main, ["transpile", str(ROOT / "kernels_rs"), "-o", str(tmp_path / "taken" / "out")])
    assert res.exit_code == 1 and "error[E0010]: cannot write" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_integer_literals_with_leading_zeros_are_decimal():
    res = transpile_source((fuzz.CORPUS / "leading_zero_literal.rs").read_bytes())
    assert "tl.store(out_ptr, 59)" in res.text  # 007 + 0x1F + 0o17 + 0b101 + 0_1


def test_python_keywords_as_kernel_helper_const_and_parameter_names(tmp_path):
    import torch

    import rs2triton
    from tests.conftest import DEVICE

    src = tmp_path / "kw.rs"
    src.write_bytes((fuzz.CORPUS / "python_keyword_names.rs").read_bytes())
    mod = rs2triton.load(src)
    x = torch.arange(8, dtype=torch.float32, device=DEVICE)
    out = torch.zeros(8, device=DEVICE)
    mod.assert_[(1,)](x, out, 3, def_=8)  # `fn assert`, `r#in`, `class`, `True`, `const def`
    assert_matches("class", out, [v + 28.0 for v in range(8)])  # x + the `pass` reduction (sum)


def test_a_combine_function_with_a_repeated_parameter_is_diagnosed():
    src = (fuzz.CORPUS / "python_keyword_names.rs").read_text().replace("b: T::Tensor<D>) -> T", "a: T::Tensor<D>) -> T")
    [d] = rejected(src)
    assert d.code == "E0007" and "identifier `a` is bound more than once" in d.message


@pytest.mark.parametrize("literal, value", [
    (r'"a\tb\\c\"d"', 'a\tb\\c"d'), (r'"\x41\u{e9}\u{1F600}\0"', "A\u00e9\U0001F600\0"),
    ('"two\\\n        lines"', "twolines"), ('"two\\\r\n  lines"', "twolines"), ('"raw\nbreak"', "raw\nbreak"),
    ('"nul \x00"', "nul \x00"), (r'"\N{DASH}\a\b\f\v"', None), (r'"\xff"', None), (r'"\u{d800}"', None),
])
def test_string_literals_follow_rusts_escapes(literal, value):
    src = f"#[kernel]\npub fn k<T: Triton>(n: i32) {{\n    T::static_print({literal});\n}}\n"
    if value is None:  # Python would take `\N{...}`, `\a`...; Rust rejects them
        [d] = rejected(src)
        assert d.code == "E0001" and d.message.startswith("invalid string literal") and d.line == 3
        return
    calls = [n for n in ast.walk(ast.parse(transpile_source(src).text))
             if isinstance(n, ast.Call) and ast.unparse(n.func) == "tl.static_print"]
    assert [c.args[0].value for c in calls] == [value]


# Hand-written odd inputs, valid and not: each transpiles or is rejected with located diagnostics.
ODD_INPUTS = {
'kernel_struct': '#[kernel]\nstruct X;\n',
'kernel_in_mod': 'mod m {\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n}\n',
'kernel_in_impl': 'impl X {\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n}\n',
'kernel_no_body': 'trait X {\n#[kernel]\nfn k<T: Triton>(n: i32);\n}\n',
'const_default': '#[kernel]\npub fn k<T: Triton, const N: i32 = 4>(n: i32) { let a = N + n; }\n',
'lifetime': "#[kernel]\npub fn k<'a, T: Triton>(n: &'a i32) {}\n",
'ref_param': '#[kernel]\npub fn k<T: Triton>(n: &i32) {}\n',
'unicode_ident': '#[kernel]\npub fn k<T: Triton>(café: i32) { let ﬁ = café + 1; let fi = ﬁ * 2; }\n',
'self_param': '#[kernel]\npub fn k<T: Triton>(self, n: i32) {}\n',
'async_fn': '#[kernel]\npub async fn k<T: Triton>(n: i32) {}\n',
'unsafe_fn': '#[kernel]\npub unsafe fn k<T: Triton>(n: i32) {}\n',
'const_fn': '#[kernel]\npub const fn k<T: Triton>(n: i32) {}\n',
'extern_fn': '#[kernel]\npub extern "C" fn k<T: Triton>(n: i32) {}\n',
'variadic': 'extern "C" { #[kernel] fn k<T: Triton>(n: i32, ...); }\n',
'return_type': '#[kernel]\npub fn k<T: Triton>(n: i32) -> i32 { n }\n',
'where_weird': '#[kernel]\npub fn k<T>(n: i32) where T: Triton {}\n',
'two_triton': '#[kernel]\npub fn k<T: Triton + Clone>(n: i32) {}\n',
'triton_path': '#[kernel]\npub fn k<T: teeny::Triton>(n: i32) {}\n',
'kernel_attr_args': '#[kernel(foo = "bar", 1 + 2)]\npub fn k<T: Triton>(n: i32) {}\n',
'kernel_attr_path': '#[teeny_macros::kernel]\npub fn k<T: Triton>(n: i32) {}\n',
'doc_attr': '#[doc = "hi"]\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n',
'inner_doc_weird': '//! \u2028 hi\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n',
'doc_with_quotes': '/// a """ b \\ c\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n',
'doc_block': '/** a */\n#[kernel]\npub fn k<T: Triton>(n: i32) {}\n',
'comment_nul': '#[kernel]\npub fn k<T: Triton>(n: i32) {\n    // a \x00 b\n    let m = n;\n}\n',
'comment_triple_quote': '#[kernel]\npub fn k<T: Triton>(n: i32) {\n    // a """ b \\\n    let m = n;\n}\n',
'block_comment_nested': '#[kernel]\npub fn k<T: Triton>(n: i32) {\n    /* a /* b */ c */\n    let m = n;\n}\n',
'char_lit': "#[kernel]\npub fn k<T: Triton>(n: i32) { let c = 'a'; }\n",
'byte_lit': "#[kernel]\npub fn k<T: Triton>(n: i32) { let c = b'a'; let s = b\"ab\"; }\n",
'tuple_index': "#[kernel]\npub fn k<T: Triton>(n: i32) { let t = (n, n); let a = t.0; }\n",
'shadow_param': "#[kernel]\npub fn k<T: Triton>(n: i32) { let n = n + 1; let n = n as f32; }\n",
'label_loop': "#[kernel]\npub fn k<T: Triton>(n: i32) { 'a: for i in 0..n { } }\n",
'range_full': "#[kernel]\npub fn k<T: Triton>(n: i32) { for i in .. { } for j in 0.. {} }\n",
'nested_fn': "#[kernel]\npub fn k<T: Triton>(n: i32) { fn inner() {} let a = n; }\n",
'let_else': "#[kernel]\npub fn k<T: Triton>(n: i32) { let Some(x) = n else { return; }; }\n",
'let_tuple_nested': "#[kernel]\npub fn k<T: Triton>(n: i32) { let ((a, b), c) = ((n, n), n); }\n",
'let_typed_tuple': "#[kernel]\npub fn k<T: Triton>(n: i32) { let (a, b): (i32, i32) = (n, n); }\n",
'let_underscore_tuple': "#[kernel]\npub fn k<T: Triton>(n: i32) { let (_, _) = (n, n); let _ = n; }\n",
'let_mut_tuple': "#[kernel]\npub fn k<T: Triton>(n: i32) { let (mut a, b) = (n, n); a += b; }\n",
'if_let': "#[kernel]\npub fn k<T: Triton>(n: i32) { if let Some(x) = n { } }\n",
'while_let': "#[kernel]\npub fn k<T: Triton>(n: i32) { while let Some(x) = n { } }\n",
'struct_expr': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = S { a: n }; }\n",
'method_on_literal': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = 1.max(2); let t = (1.5f32).abs(); }\n",
'deep_path': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = a::b::c::d; let t = <T as Triton>::arange(0, 4); }\n",
'turbofish_weird': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = T::zeros::<>(&[4]); let t = T::zeros::<f32, f32, f32>(&[4]); }\n",
'array_repeat': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = T::zeros::<f32>(&[4; 2]); }\n",
'empty_slice_shape': "#[kernel]\npub fn k<T: Triton>(n: i32) { let s = T::zeros::<f32>(&[]); let t = T::full(&[], 1.0f32); }\n",
'compound_on_param': "#[kernel]\npub fn k<T: Triton>(n: i32) { n += 1; }\n",
'assign_undeclared': "#[kernel]\npub fn k<T: Triton>(n: i32) { m = 1; }\n",
'assign_field': "#[kernel]\npub fn k<T: Triton>(n: i32) { n.x = 1; }\n",
'return_early_nested': "#[kernel]\npub fn k<T: Triton>(n: i32) { if n > 0 { if n > 1 { return; } } }\n",
'return_at_end': "#[kernel]\npub fn k<T: Triton>(n: i32) { return; }\n",
'return_unit': "#[kernel]\npub fn k<T: Triton>(n: i32) { return (); }\n",
'huge_shift': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = n << 100; let b = 1 << 100; let c = 1i64 << 63; }\n",
'div_zero_rt': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = n / 0; let b = n % 0; }\n",
'float_div_zero': "#[kernel]\npub fn k<T: Triton>(n: f32) { let a = 1.0f32 / 0.0f32; let b = n / 0.0; }\n",
'int_min_neg': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = -2147483648i32; let b = -(-2147483648i32); let c = i32::MIN / -1; }\n",
'float_lits': "#[kernel]\npub fn k<T: Triton>(n: f32) { let a = 1e39f32; let b = 1e-50f32; let c = 1.7976931348623157e309; let d = 0x1p3; }\n",
'cast_chain': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = n as u8 as i8 as u64 as f16 as bf16 as bool; let b = true as f32; let c = 1.5 as bool; }\n",
'cast_to_weird': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = n as char; let b = n as usize; let c = n as i128; let d = n as Foo; }\n",
'bool_ops': "#[kernel]\npub fn k<T: Triton>(n: bool) { let a = !n; let b = n ^ true; let c = n & !n; let d = -n; }\n",
'unary_deref': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = *n; let b = &mut n; }\n",
'range_expr_value': "#[kernel]\npub fn k<T: Triton>(n: i32) { let r = 0..n; for i in r {} }\n",
'for_step_by_zero': "#[kernel]\npub fn k<T: Triton>(n: i32) { for i in (0..n).step_by(0) {} for i in (0..n).step_by(n) {} }\n",
'for_pattern': "#[kernel]\npub fn k<T: Triton>(n: i32) { for (a, b) in 0..n {} for _ in 0..n {} }\n",
'while_true': "#[kernel]\npub fn k<T: Triton>(n: i32) { while true {} }\n",
'if_no_else_value': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = if n > 0 { 1 }; }\n",
'if_types_mismatch': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = if n > 0 { 1 } else { 2.0 }; }\n",
'block_value_empty': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = {}; let b = { let c = 1; }; }\n",
'unit_value': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = (); }\n",
'op_no_args': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = T::arange(); let b = T::load(); T::store(); }\n",
'op_as_value': "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = T::arange; let b = a(0, 4); }\n",
'op_method_form': "#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let a = x.load(); let b = x.add_offsets(); let c = x.add_offsets(1, 2); }\n",
'combine_missing': "#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let v = T::load(x, None, None, &[], None, None, None, false); let r = T::reduce(v, 0, nope::<T, f32>, false); }\n",
'combine_recursive': "fn f<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> { T::reduce(a, 0, f::<T, D>, false) }\n#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let v = T::load(x, None, None, &[], None, None, None, false); let r = T::reduce(v, 0, f::<T, f32>, false); }\n",
'combine_no_args': "fn f() -> i32 { 1 }\n#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let v = T::load(x, None, None, &[], None, None, None, false); let r = T::reduce(v, 0, f, false); }\n",
'combine_self_param': "fn f(self, b: i32) -> i32 { b }\n#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let v = T::load(x, None, None, &[], None, None, None, false); let r = T::reduce(v, 0, f, false); }\n",
'module_const_cycle': "const A: i32 = B;\nconst B: i32 = A;\n#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n",
'module_const_self': "const A: i32 = A + 1;\n#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n",
'module_const_dup': "const A: i32 = 1;\nconst A: i32 = 2;\n#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n",
'module_const_no_value': "const A: i32;\n#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n",
'static_item': "static A: i32 = 3;\n#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n",
'local_const': "#[kernel]\npub fn k<T: Triton>(n: i32) { const A: i32 = 3; const A: i32 = 4; let a = A + n; }\n",
'dtype_param_unused_ptr': "#[kernel]\npub fn k<T: Triton, D: Float>(x: T::Pointer<D>, y: T::Pointer<D>) { let z = T::zeros::<D>(&[4]); let w = T::zeros::<D>(&[4]); }\n",
'dtype_param_named_T': "#[kernel]\npub fn k<T: Triton, T: Float>(x: T::Pointer<T>) {}\n",
'many_kernels': "".join(f"#[kernel]\npub fn k{i}<T: Triton>(n: i32) {{ let a = n + {i}; }}\n" for i in range(300)),
'same_name_helper_kernel': "fn k<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> { a + b }\n#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let v = T::load(x, None, None, &[], None, None, None, false); let r = T::reduce(v, 0, k::<T, f32>, false); }\n",
'param_named_tl': "#[kernel]\npub fn k<T: Triton>(tl: i32, triton: i32) { let a = tl + triton; }\n",
'local_named_tl': "#[kernel]\npub fn k<T: Triton>(x: T::Pointer<f32>) { let tl = 1; let triton = 2; let v = T::load(x, None, None, &[], None, None, None, false); }\n",
'param_named_like_dtype_alias': "#[kernel]\npub fn k<T: Triton, D: Float>(D_: i32, x: T::Pointer<D>) { let z = T::zeros::<D>(&[4]); }\n",
}


@pytest.mark.parametrize("name", sorted(ODD_INPUTS))
def test_odd_inputs_never_crash(name):
    outcome, problem, _ = fuzz.check(ODD_INPUTS[name].encode())
    assert outcome != "crash", problem


@pytest.mark.parametrize("consts, message", [
    ("const A: i32 = B;\nconst B: i32 = A;\n", "cycle detected when evaluating module constant `A`"),
    ("const A: i32 = A + 1;\n", "cycle detected when evaluating module constant `A`"),
    ("const A: i32;\n", "module constant `A` has no value"),
])
def test_bad_module_constants_are_diagnosed(consts, message):
    [d] = rejected(consts + "#[kernel]\npub fn k<T: Triton>(n: i32) { let a = A; }\n")
    assert d.code == "E0002" and d.message == message


def test_a_float_literal_with_an_invalid_suffix_is_a_syntax_error():
    [d] = rejected((fuzz.CORPUS / "float_literal_bad_suffix.rs").read_bytes())
    assert (d.code, d.message, d.line, d.col) == ("E0001", "invalid suffix `f30` for float literal", 3, 17)


def test_a_let_reading_the_counter_before_its_loop_keeps_the_while():
    text = transpile_source((fuzz.CORPUS / "counter_read_by_a_let_before_its_loop.rs").read_bytes()).text
    assert "offs = tl.arange(0, B) + start\n    while start < n:" in text  # was an internal error


@pytest.mark.parametrize("fn, jit, launcher", [("None", "None_", "NoneKernel"), ("none", "none", "NoneKernel"),
                                                ("r#True", "True_", "TrueKernel"), ("__", "_u5f__", "Kernel"),
                                                ("r#match", "match", "Match")])
def test_kernels_named_like_python_keywords_get_valid_jit_and_launcher_names(fn, jit, launcher):
    text = transpile_source(f"#[kernel]\npub fn {fn}<T: Triton>(x: i32) {{}}\n").text
    assert f"def {jit}(x):" in text and f"{launcher} = Launcher(\n    {jit}," in text
