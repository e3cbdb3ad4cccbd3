"""Nothing a user gives rs2triton can become code, corrupt files or make a launch go wrong
silently: comments and strings stay text, names stay apart, rustc's verdicts are kept."""

from __future__ import annotations

import ast
import os
import re

import pytest
import torch
import torch.nn.functional as F
import triton

import rs2triton
from rs2triton.transpiler.emit.literals import LINE_BREAKS
from tests.conftest import ROOT

KERNEL = """use teeny_triton::triton::*;

/// {doc}
#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32) {{
    // {comment}
    let offs = T::arange(0, B); /* {comment} */
    let x = T::load(x_ptr.add_offsets(offs), Some(offs.lt(n)), None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offs), x, Some(offs.lt(n)), &[], None, None); // {comment}
}}
"""

# Every character Python or an editor may take for a line break, and other controls (not \n,
# which ends a Rust `//` comment as well: nothing to smuggle).
CONTROLS = sorted((set(LINE_BREAKS) - {"\n"}) | {"\t", "\x00", "\x01", "\x1b", "\x7f", "\u200b", "\ufeff"})


def _statements(tree: ast.Module, name: str) -> list[str]:
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return [ast.dump(s) for s in fn.body]


@pytest.mark.parametrize("char", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_no_character_in_a_comment_or_doc_comment_becomes_code(char):
    payload = f'x{char}__import__("os").system("echo pwned"){char}y'
    src = KERNEL.format(doc=payload.replace("\n", " "), comment=payload)
    if char == "\x00":  # tree-sitter reads no further than a NUL: a located syntax error, nothing written
        with pytest.raises(rs2triton.TranspileError, match="syntax error"):
            rs2triton.transpile_source(src, "k.rs")
        return
    plain = rs2triton.transpile_source(KERNEL.format(doc="d", comment="c"), "k.rs").text
    text = rs2triton.transpile_source(src, "k.rs").text
    assert "pwned" in text  # the text is there, as text
    # ... and the module's code is the same as without it (the docstring aside)
    tree, reference = ast.parse(text), ast.parse(plain)
    assert _statements(tree, "k")[1:] == _statements(reference, "k")[1:]
    assert ast.get_docstring(next(n for n in tree.body if isinstance(n, ast.FunctionDef))).count("pwned") == 1


STRING_KERNEL = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {{
    let x = T::load(x_ptr.add_offsets(T::arange(0, B)), None, None, &[], None, None, None, false);
    T::device_print("{text}", x, false);
    T::static_assert(B > 0, "{text}");
}}
"""


@pytest.mark.parametrize("char", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_no_character_in_a_string_becomes_code(char):
    """In a Rust string, raw or as an escape (`\\u{..}`), a line break or control character stays
    inside the Python string: the module's code is the lowered code, the string's value Rust's."""
    payload = f'x{char}"); __import__("os").system("echo pwned"); ("y'
    rust_payload = payload.replace('"', '\\"')
    escaped = rust_payload.replace(char, f"\\u{{{ord(char):x}}}")
    plain = ast.parse(rs2triton.transpile_source(STRING_KERNEL.format(text="s"), "k.rs").text)
    for spelled in ([escaped] if char in "\r\x00" else [rust_payload, escaped]):  # (rustc refuses a bare CR)
        tree = ast.parse(rs2triton.transpile_source(STRING_KERNEL.format(text=spelled), "k.rs").text)
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert strings.count(payload) == 2, spelled
        for n in ast.walk(tree):  # the module is the plain one with the string's value in its place
            if isinstance(n, ast.Constant) and n.value == payload:
                n.value = "s"
        assert ast.dump(tree) == ast.dump(plain)


@pytest.mark.parametrize("char", ["\u202a", "\u202e", "\u2066", "\u2069"])
def test_text_direction_codepoints_are_refused_as_rustc_refuses_them(char):
    src = KERNEL.format(doc="d", comment=f"if admin {char} then")
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert d.code == "E0001" and f"U+{ord(char):04X}" in d.message and d.line == 6
    assert char not in d.render() and f"\\u{{{ord(char):x}}}" in d.render()  # shown escaped


# ------------------------------------------------------------------ names as Rust sees them


def test_names_python_would_fold_together_stay_apart():
    # Python folds identifiers by NFKC (`𝐱` is `x`, `ﬁ` is `fi`, fullwidth `ｔｌ` is `tl`); rustc does not.
    src = KERNEL.format(doc="d", comment="c").replace(
        "    let offs = T::arange(0, B);", "    let offs = T::arange(0, B);\n    let 𝐱 = offs + offs;").replace(
        "T::store(x_ptr.add_offsets(offs), x,", "T::store(x_ptr.add_offsets(offs), x * 𝐱,")
    for name in ("ﬁ", "fi", "ｔｌ"):
        src += KERNEL.format(doc="d", comment="c").split("/// d\n", 1)[1].replace("pub fn k<", f"pub fn {name}<")
    text = rs2triton.transpile_source(src, "names.rs").text
    tree = ast.parse(text)
    fns = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(set(fns)) == len(fns) == 4 and "tl" not in fns and "fi" in fns
    k = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "k")
    assigned = [t.id for s in k.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)]
    assert "x" in assigned and len(set(assigned)) == len(assigned)  # `𝐱` did not overwrite `x`
    compile(text, "names.py", "exec")


# ------------------------------------------------------------------ rustc's verdicts: #[cfg]

CFG = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32) {
    let offs = T::arange(0, B);
    let mut x = T::load(x_ptr.add_offsets(offs), Some(offs.lt(n)), None, &[], None, None, None, false);
    #[cfg(any())]
    x = x + 1.0;
    #[cfg(feature = "training")]
    x = x * 2.0;
    #[cfg(not(feature = "training"))]
    x = x - 3.0;
    #[cfg(all(feature = "extra", unix))]
    x = x * 5.0;
    T::store(x_ptr.add_offsets(offs), x, Some(offs.lt(n)), &[], None, None);
}

#[cfg(feature = "extra")]
#[kernel]
pub fn extra_only<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, B);
    T::store(x_ptr.add_offsets(offs), T::zeros::<f32>(&[B]), None, &[], None, None);
}
"""


@pytest.mark.parametrize("features,want,extra", [
    (None, "x = x * 2.0", False),  # teenygrad's default features: cuda, training
    (frozenset(), "x = x - 3.0", False),
    (frozenset({"training", "extra"}), "x = x * 2.0\n    x = x * 5.0", True),
])
def test_cfg_on_statements_and_items_is_evaluated_as_rustc_does(features, want, extra):
    text = rs2triton.transpile_source(CFG, "cfg.rs", features=features).text
    assert want in text and "x + 1.0" not in text
    assert ("def extra_only(" in text) is extra


def test_features_on_the_command_line(tmp_path):
    from click.testing import CliRunner

    from rs2triton.cli import main

    (tmp_path / "cfg.rs").write_text(CFG)
    runner = CliRunner()
    out = runner.invoke(main, ["show", str(tmp_path / "cfg.rs"), "--no-default-features", "--features", "extra"])
    assert out.exit_code == 0 and "x = x - 3.0" in out.output and "def extra_only(" in out.output
    out = runner.invoke(main, ["transpile", str(tmp_path / "cfg.rs"), "-o", str(tmp_path / "o"), "--features",
                               "extra,training"])
    assert out.exit_code == 0 and "x = x * 5.0" in (tmp_path / "o" / "cfg.py").read_text()


# ------------------------------------------------------------------ launches that cannot go wrong


def _relu():
    return rs2triton.load(ROOT / "kernels_rs" / "relu.rs")


@pytest.mark.parametrize("grid", [(-1,), (2 ** 31,), (2 ** 40,), (1, 70000), (1, 1, -2)])
def test_a_grid_out_of_range_is_refused(grid):
    x = torch.zeros(4)
    with pytest.raises(ValueError, match="ReluForward: grid axis"):
        _relu().ReluForward(BLOCK_SIZE=4)[grid](x, x, 4)
    with pytest.raises(ValueError, match="ReluForward: grid axis"):  # from a grid function, too
        _relu().ReluForward(BLOCK_SIZE=4)[lambda meta: grid](x, x, 4)


@pytest.mark.parametrize("option,value,error", [
    ("num_warps", 3, ValueError), ("num_warps", 64, ValueError), ("num_stages", -1, ValueError),
    ("num_ctas", 0, ValueError), ("num_warps", 4.0, TypeError), ("enable_fp_fusion", 1, TypeError),
])
def test_a_launch_option_triton_cannot_take_is_refused(option, value, error):
    x = torch.zeros(4)
    with pytest.raises(error, match=f"`{option}`"):
        _relu().ReluForward(BLOCK_SIZE=4, **{option: value})
    with pytest.raises(error, match=f"`{option}`"):
        _relu().ReluForward(BLOCK_SIZE=4)[(1,)](x, x, 4, **{option: value})


@pytest.mark.parametrize("view", ["transpose", "step", "expand"])
def test_a_non_contiguous_tensor_is_refused_where_the_kernel_reads_dense_buffers(view):
    base = torch.randn(8, 8)
    x = {"transpose": base.t(), "step": base[:, ::2], "expand": torch.randn(8, 1).expand(8, 8)}[view]
    y = torch.empty_like(base)
    with pytest.raises(ValueError, match=r"ReluForward: argument `x_ptr` is not contiguous .* pass `x_ptr.contiguous\(\)`"):
        _relu().ReluForward(BLOCK_SIZE=64)[(1,)](x, y, 64)


def test_a_kernel_with_strides_takes_a_strided_view():
    matmul = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs")
    a, b = torch.randn(32, 32), torch.randn(32, 32)
    at = a.t()  # column-major: the strides say so
    c = torch.empty(32, 32)
    matmul.Matmul(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)[(2, 2)](at, b, c, 32, 32, 32, *at.stride(), *b.stride(),
                                                              *c.stride())
    assert torch.allclose(c, at @ b, atol=1e-4)


def test_autotuning_an_in_place_kernel_applies_it_once(tmp_path):
    src = tmp_path / "inplace.rs"
    src.write_text("""use teeny_triton::triton::*;

#[kernel]
pub fn add_one<T: Triton, const BLOCK: i32>(x_ptr: InOutPtr<T::Pointer<f32>>, n: i32) {
    let offs = T::arange(0, BLOCK) + T::program_id(Axis::X) * BLOCK;
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offs), x + 1.0, Some(mask), &[], None, None);
}
""")
    module = rs2triton.load(src)
    tuned = module.AddOne.autotune([{"BLOCK": 16}, {"BLOCK": 32}, {"BLOCK": 64}], key=["n"])
    x = torch.zeros(64)
    tuned()[lambda meta: (triton.cdiv(64, meta["BLOCK"]),)](x, 64)
    assert torch.equal(x, torch.ones(64))  # not 4: each config's trial run was undone


def test_bad_kernel_arguments_and_parameter_types_are_located_errors():
    base = KERNEL.format(doc="d", comment="c")
    for attr, message in (("#[kernel(dtypes = [f32, \"f64\"])]", "`dtypes` must be a list of element types"),
                          ("#[kernel(bogus = 1)]", "unknown `#[kernel]` argument `bogus`")):
        with pytest.raises(rs2triton.TranspileError, match=re.escape(message)) as info:
            rs2triton.transpile_source(base.replace("#[kernel]", attr), "k.rs")
        assert info.value.diagnostics[0].code == "E0007" and info.value.diagnostics[0].line == 4
    for ty in ("char", "u128", "[f32; 4]", "String"):
        with pytest.raises(rs2triton.TranspileError, match=f"unsupported type `{re.escape(ty)}`"):
            rs2triton.transpile_source(base.replace("n: i32)", f"n: {ty})"), "k.rs")


# ------------------------------------------------------------------ all or nothing on disk


def _tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("relu", "softmax", "vector_add"):
        (src / f"{name}.rs").write_text((ROOT / "kernels_rs" / f"{name}.rs").read_text())
    return src, tmp_path / "out"


def _snapshot(folder):
    return {p.name: p.read_bytes() if p.is_file() else b"<folder>" for p in sorted(folder.iterdir())} \
        if folder.exists() else {}


def test_a_replace_that_fails_midway_puts_back_what_it_replaced(tmp_path, monkeypatch):
    from rs2triton.transpiler.driver import files

    src, out = _tree(tmp_path)
    assert files.write(files.plan([str(src)], out))
    for p in src.iterdir():  # every module will change
        p.write_text(p.read_text().replace("pub fn", "/// changed\npub fn", 1))
    before = _snapshot(out)
    real, calls = os.replace, []

    def failing(a, b):
        calls.append(b)
        if len(calls) == 3:
            raise PermissionError(1, "Operation not permitted", str(b))
        return real(a, b)

    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(rs2triton.TranspileError, match="cannot write"):
        files.write(files.plan([str(src)], out))
    monkeypatch.setattr(files.os, "replace", real)
    assert _snapshot(out) == before  # the two replaced modules are the old ones again
    assert not [p for p in out.iterdir() if p.name.startswith(".rs2triton-")]


def test_a_folder_in_the_way_stops_the_run_before_anything_is_replaced(tmp_path):
    from click.testing import CliRunner

    from rs2triton.cli import main

    src, out = _tree(tmp_path)
    assert CliRunner().invoke(main, ["transpile", str(src), "-o", str(out)]).exit_code == 0
    for p in src.iterdir():
        p.write_text(p.read_text().replace("pub fn", "/// changed\npub fn", 1))
    (out / "softmax.py").unlink()
    (out / "softmax.py").mkdir()
    before = _snapshot(out)
    res = CliRunner().invoke(main, ["transpile", str(src), "-o", str(out)])
    assert res.exit_code == 1 and "softmax.py" in res.output and "nothing was written" in res.output
    assert _snapshot(out).keys() == before.keys()
    assert all(_snapshot(out)[k] == v for k, v in before.items() if k != "softmax.py")


def test_a_killed_run_s_temp_files_are_reported_and_a_user_s_file_is_left_alone(tmp_path):
    # rs2triton removes only the temp files it made in this process: a killed run's are reported
    # (by check, and by transpile as a warning) for the user to delete; a file of the user's
    # that merely begins like one (`.rs2triton-<pid>-notes.txt`) is neither reported nor removed.
    from click.testing import CliRunner

    from rs2triton.cli import main

    src, out = _tree(tmp_path)
    runner = CliRunner()
    assert runner.invoke(main, ["transpile", str(src), "-o", str(out)]).exit_code == 0
    stray = out / ".rs2triton-999999999-00ff00ff-relu.py"  # a pid no process has
    stray.write_text("half")
    notes = out / ".rs2triton-999999999-notes.txt"
    notes.write_text("the user's own")
    res = runner.invoke(main, ["check", str(src), "-o", str(out)])
    assert res.exit_code == 1 and f"{stray.as_posix()}: a temp file a killed run left" in res.output
    assert "notes.txt" not in res.output
    (src / "relu.rs").write_text((src / "relu.rs").read_text().replace("pub fn", "/// changed\npub fn", 1))
    res = runner.invoke(main, ["transpile", str(src), "-o", str(out)])
    assert res.exit_code == 0 and f"warning: {stray.as_posix()}: a temp file a killed run left" in res.output
    assert stray.read_text() == "half" and notes.read_text() == "the user's own" and "notes.txt" not in res.output
    stray.unlink()
    assert runner.invoke(main, ["check", str(src), "-o", str(out)]).exit_code == 0


def test_a_run_stopped_by_ctrl_c_removes_its_own_temp_files(tmp_path, monkeypatch):
    from rs2triton.transpiler.driver import files

    src, out = _tree(tmp_path)
    assert files.write(files.plan([str(src)], out))
    for p in src.iterdir():
        p.write_text(p.read_text().replace("pub fn", "/// changed\npub fn", 1))
    before = _snapshot(out)

    def interrupted(a, b):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write(files.plan([str(src)], out))
    assert _snapshot(out) == before


# ------------------------------------------------------------------ the text is the tree


def test_a_printer_that_let_a_line_break_through_is_caught_before_writing(monkeypatch):
    # Were comment escaping broken, the module would hold code from a comment: it is refused.
    from rs2triton.transpiler.emit import literals

    monkeypatch.setattr(literals, "one_line", lambda text: text)
    src = KERNEL.format(doc="d", comment='x\r__import__("os").system("echo pwned")')
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert d.code == "E0999" and "U+000D" in " ".join(d.notes)


PLAIN_KERNEL = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {
    // pwned = 1
    let x = T::load(x_ptr.add_offsets(T::arange(0, B)), None, None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(T::arange(0, B)), x, None, &[], None, None);
}
"""


@pytest.mark.parametrize("verify", [None, "0", "1"])
@pytest.mark.parametrize("bug", ["a comment", "a string"])
def test_a_printer_bug_that_turns_text_into_code_is_caught_in_every_module(monkeypatch, bug, verify):
    # A plain source (no control character, nothing out of the ordinary) and a printer that writes
    # a comment without its `#`, or a string without its quotes: the module still compiles, but it
    # no longer reads back as the code lowered, so it is refused, whatever RS2TRITON_VERIFY says
    # (it once turned the read-back on for every module; it is now always on, and the variable is
    # read by nothing).
    from rs2triton.transpiler.emit import printer

    if verify is None:
        monkeypatch.delenv("RS2TRITON_VERIFY", raising=False)
    else:
        monkeypatch.setenv("RS2TRITON_VERIFY", verify)
    if bug == "a comment":
        src = PLAIN_KERNEL
        monkeypatch.setattr(printer, "comment", lambda text: text)
    else:
        src = STRING_KERNEL.format(text="pwned")
        real = printer.constant_text
        monkeypatch.setattr(printer, "constant_text", lambda v: v if v == "pwned" else real(v))
    assert not set(src) - {"\n", *map(chr, range(32, 127))}  # (plain text)
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert d.code == "E0999" and "does not read back as the code lowered" in " ".join([d.message, *d.notes])
    monkeypatch.undo()
    assert "pwned" in rs2triton.transpile_source(src, "k.rs").text  # (the same source, printed right)


def test_reading_back_finds_code_the_lowering_did_not_build():
    from rs2triton.transpiler.emit.verify import difference

    lowered = ast.parse("def f(x):\n    y = x + 1\n    return y\n").body[0]
    same = ast.parse('def f(x):\n    y = x + 1  # a note\n    return y\n').body[0]
    extra = ast.parse('def f(x):\n    y = x + 1\n    __import__("os")\n    return y\n').body[0]
    changed = ast.parse("def f(x):\n    y = x + 2\n    return y\n").body[0]
    assert difference(same, lowered) is None
    assert "body: 3 printed, 2 lowered" in difference(extra, lowered)
    assert "2 printed, 1 lowered" in difference(changed, lowered)
    renamed = ast.parse("def f(x):\n    y = x + 1\n    return z\n").body[0]
    assert difference(renamed, lowered) == ".body[1].value.id: 'z' printed, 'y' lowered"
    assert "Name printed, Constant lowered" in difference(ast.parse("x\n").body[0], ast.parse("1\n").body[0])
    nan = ast.Expr(ast.Constant(float("nan")))
    assert difference(nan, ast.Expr(ast.Constant(float("nan")))) is None  # (NaN is NaN)
    assert "1 printed, True lowered" in difference(ast.parse("1\n").body[0], ast.parse("True\n").body[0])
    from rs2triton.transpiler.emit.verify import check_module

    module = ast.parse("def f(x):\n    y = x + 1\n    return y\n")
    assert check_module(module, [lowered]) is None
    module.body.append(ast.parse("def g():\n    pass\n").body[0])  # a definition nobody lowered
    assert "defines `g`, which was not lowered" in check_module(module, [lowered])
    assert "`f` is not in the printed module" in check_module(ast.parse("x = 1\n"), [lowered])


# ------------------------------------------------------------------ the smaller holes


def test_a_tuning_table_with_a_typo_in_its_name_is_an_error(tmp_path):
    (tmp_path / "vector_add.rs").write_text((ROOT / "kernels_rs" / "vector_add.rs").read_text())
    (tmp_path / "pyproject.toml").write_text("[tool.rs2triton.tune.vector_ad]\nconfigs = [{ BLOCK_SIZE = 256 }]\n")
    with pytest.raises(rs2triton.TranspileError, match="did you mean `vector_add`") as info:
        rs2triton.transpile_file(tmp_path / "vector_add.rs")
    assert info.value.diagnostics[0].code == "E0013" and info.value.diagnostics[0].line == 1


@pytest.mark.parametrize("value", ["nan", "inf", "1979-05-27", "1.5"])
def test_a_tuning_value_that_is_no_count_is_an_error(tmp_path, value):
    (tmp_path / "vector_add.rs").write_text((ROOT / "kernels_rs" / "vector_add.rs").read_text())
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.rs2triton.tune.vector_add]\nconfigs = [{{ BLOCK_SIZE = 256, num_warps = {value} }}]\n")
    with pytest.raises(rs2triton.TranspileError, match="`num_warps` must be an int") as info:
        rs2triton.transpile_file(tmp_path / "vector_add.rs")
    assert info.value.diagnostics[0].code == "E0013"


def test_fifos_devices_and_huge_files_are_located_errors(tmp_path):
    from rs2triton.transpiler.driver import pipeline

    os.mkfifo(tmp_path / "pipe.rs")
    (tmp_path / "zero.rs").symlink_to("/dev/zero")
    with open(tmp_path / "huge.rs", "wb") as f:
        f.truncate(pipeline.MAX_SOURCE_BYTES + 1)
    for name, what in (("pipe.rs", "it is a FIFO"), ("zero.rs", "it is a device"), ("huge.rs", "more than a kernel")):
        with pytest.raises(rs2triton.TranspileError, match=what) as info:
            rs2triton.transpile_file(tmp_path / name)
        assert info.value.diagnostics[0].code == "E0010"


@pytest.mark.parametrize("grid", ['__import__("os").system("echo pwned")', "().__class__.__bases__", "n if n else 1",
                                  "[n]", "2 ** 80", "cdiv(n, 0)", "lambda: 1"])
def test_the_grid_option_computes_a_grid_and_nothing_else(grid):
    from rs2triton.tools.run import RunError
    from rs2triton.tools.tune import grid_of

    with pytest.raises(RunError, match="cannot evaluate"):
        grid_of(grid, {"n": 100})
    assert grid_of("cdiv(n, 32), max(n // 50, 1)", {"n": 100}) == (4, 2)


@pytest.mark.parametrize("how", ["not a folder", "full"])
def test_load_with_a_cache_it_cannot_write_still_loads_with_a_warning(tmp_path, monkeypatch, how):
    import errno

    from rs2triton.loading import loader
    from rs2triton.transpiler.driver import cache

    src = tmp_path / "relu.rs"
    src.write_text((ROOT / "kernels_rs" / "relu.rs").read_text().replace("relu_forward", "relu_fwd_" + how[:3]))
    if how == "not a folder":
        (tmp_path / "cachefile").write_text("")
        monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(tmp_path / "cachefile"))
    else:
        monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(tmp_path / "cache"))
        real = cache.write_atomic

        def full(path, text):
            if str(path).startswith(str(tmp_path / "cache")):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(path, text)

        monkeypatch.setattr(cache, "write_atomic", full)
    monkeypatch.setattr(loader, "_WARNED", set())
    with pytest.warns(RuntimeWarning, match="cannot write its cache"):
        module = rs2triton.load(src)
    x = torch.tensor([-1.0, 2.0, -3.0, 4.0])
    y = torch.zeros(4)
    launcher = getattr(module, {"not a folder": "ReluFwdNot", "full": "ReluFwdFul"}[how])  # (a module per case)
    launcher(BLOCK_SIZE=16)[(1,)](x, y, 4)
    assert torch.equal(y, torch.relu(x))
    assert not str(module.__file__).startswith(str(tmp_path))  # from the process's own folder


def _children(pid: int) -> list[int]:
    out = []
    for stat in os.listdir("/proc"):
        if stat.isdigit():
            try:
                with open(f"/proc/{stat}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(stat))
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_with_their_command(tmp_path):
    """`kill -9` of a `transpile` leaves no worker running (they watch their parent)."""
    import signal
    import subprocess
    import sys
    import time

    src = tmp_path / "src"
    src.mkdir()
    for i in range(60):
        for f in (ROOT / "kernels_rs").glob("*.rs"):
            (src / f"{f.stem}_{i}.rs").write_text(f.read_text())
    env = {**os.environ, "RS2TRITON_NO_CACHE": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "rs2triton", "transpile", str(src), "-o", str(tmp_path / "out"),
                             "-j", "3"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # (2 workers)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
        workers = _children(proc.pid)
    assert len(workers) == 2, "the run ended before its workers could be seen: give it more files"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while any(_running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if _running(w)], "workers outlived their command"


def test_check_does_not_depend_on_how_the_paths_are_spelled(tmp_path, monkeypatch):
    import shutil

    from click.testing import CliRunner

    from rs2triton.cli import main

    proj, other = tmp_path / "proj", tmp_path / "other"
    shutil.copytree(ROOT / "kernels_rs", proj / "src")
    other.mkdir()
    runner = CliRunner()
    monkeypatch.chdir(proj)
    assert runner.invoke(main, ["transpile", "src", "-o", "out"]).exit_code == 0
    header = (proj / "out" / "relu.py").read_text().splitlines()[0]
    assert header.startswith("# Generated by rs2triton from src/relu.rs.")
    for cwd, args in ((proj, [str(proj / "src"), "-o", str(proj / "out")]), (other, ["../proj/src", "-o", "../proj/out"]),
                      (proj / "src", [".", "-o", "../out"]), (proj / "src", ["relu.rs", "-o", "../out"])):
        monkeypatch.chdir(cwd)
        res = runner.invoke(main, ["check", *args])
        assert res.exit_code == 0 and "up to date" in res.output, (cwd, args, res.output)
    # a transpile spelled another way writes the same bytes, and an orphan is still found from elsewhere
    monkeypatch.chdir(other)
    res = runner.invoke(main, ["transpile", "../proj/src", "-o", "../proj/out"])
    assert res.exit_code == 0 and "0 changed" in res.output and (proj / "out" / "relu.py").read_text().startswith(header)
    (proj / "src" / "relu.rs").unlink()
    res = runner.invoke(main, ["check", "../proj/src", "-o", "../proj/out"])
    assert res.exit_code == 1 and "relu.py" in res.output and "/dev/null" in res.output


def test_a_triton_error_through_a_launcher_is_reported_at_the_rust_line(monkeypatch):
    monkeypatch.chdir(ROOT)
    module = rs2triton.load("kernels_rs/vector_add.rs")
    line = next(i for i, s in enumerate((ROOT / "kernels_rs" / "vector_add.rs").read_text().splitlines(), 1)
                if "T::arange(0, BLOCK_SIZE)" in s)
    a = torch.ones(100)
    with pytest.raises(rs2triton.TranspileError) as info:
        module.VectorAdd(BLOCK_SIZE=100)[(1,)](a, a, a, 100)  # arange needs a power of two
    d = info.value.diagnostics[0]
    assert (d.code, d.path, d.line) == ("E0011", "kernels_rs/vector_add.rs", line) and "power of 2" in d.message
    assert type(info.value.__cause__).__module__.startswith("triton")  # Triton's own error, kept as the cause
    with pytest.raises(TypeError, match="VectorAdd"):  # an argument error stays what it is
        module.VectorAdd(BLOCK_SIZE=128)[(1,)](a, a, 100)


def test_a_transpiled_module_with_or_without_line_comments_reports_at_the_rust_line(tmp_path, monkeypatch):
    import importlib.util

    from click.testing import CliRunner

    from rs2triton.cli import main

    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    rust = (ROOT / "kernels_rs" / "vector_add.rs").read_text()
    (proj / "src" / "vector_add.rs").write_text(rust)
    lines = rust.splitlines()
    arange = next(i for i, s in enumerate(lines, 1) if "T::arange(0, BLOCK_SIZE)" in s)
    masked_b = [i for i, s in enumerate(lines, 1) if "let b = T::load(" in s][-1]  # (the tail block's)
    monkeypatch.chdir(tmp_path)  # (found from the module's own folder, not the working one)
    for flag, out in (["--line-comments"], "with"), ([], "without"):
        res = CliRunner().invoke(main, ["transpile", "proj/src", "-o", f"proj/{out}", "-q", *flag])
        assert res.exit_code == 0, res.output
    for out in ("with", "without"):
        spec = importlib.util.spec_from_file_location(f"lc_{out}", proj / out / "vector_add.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # (not registered in sys.modules: found from the jit function)
        a = torch.ones(100)  # (without line comments, the module's own map names the Rust line all the same)
        with pytest.raises(rs2triton.TranspileError) as info:
            module.VectorAdd(BLOCK_SIZE=100)[(1,)](a, a, a, 100)
        d = info.value.diagnostics[0]
        assert (d.code, d.path, d.line) == ("E0011", "src/vector_add.rs", arange) and "power of 2" in d.message
        assert "T::arange(0, BLOCK_SIZE)" in str(info.value)  # the Rust line's text, read from the source
        with pytest.raises(ValueError, match=rf"VectorAdd: a load at src/vector_add.rs:{masked_b} reaches outside "
                                             "the tensor `b_ptr`"):
            module.VectorAdd(BLOCK_SIZE=128)[(1,)](a, a[:10].clone(), a, 100)


# ---------------------------------------------------------------------- the terminal

CONTROLS = "\x1b\x07\r\x00\u202e"  # what a terminal acts on: ESC (CSI, OSC), BEL, CR, NUL, RLO
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x00"


def test_a_diagnostic_prints_nothing_a_terminal_acts_on():
    """Source text, messages, hints and paths are shown as rustc shows them: control characters
    in the source line as their Unicode pictures (`␛`), elsewhere as Rust escapes (`\\u{1b}`)."""
    src = ("use teeny_triton::triton::*;\n\n#[kernel]\npub fn k<T: Triton>(x_ptr: T::Pointer<f32>) {\n"
           f'    T::device_print("{HOSTILE}", T::nope(x_ptr), false);\n}}\n')
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, f"ker{HOSTILE}\r\u202enel.rs")
    text = str(info.value)
    assert not any(c in text for c in CONTROLS), repr(text)
    assert '"ker\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\0\\r\\u{202e}nel.rs":5:' in text  # the path, as Rust's {:?}
    assert 'T::device_print("␛]0;pwned␇␛[2J␀", T::nope(x_ptr), false);' in text  # the line, as rustc draws it
    assert "`T::nope`" in text


def test_the_command_line_prints_nothing_a_terminal_acts_on(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    name = "k\x1b]0;pwned\x07\r\u202e.rs"  # (a file name cannot hold NUL)
    (tmp_path / name).write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    for args in (["transpile", name, "-o", "out"], ["kernels", name], ["check", name, "-o", "out"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 0, res.output
        assert not any(c in res.output for c in CONTROLS), repr(res.output)
        assert args[0] != "kernels" or '"k\\u{1b}]0;pwned\\u{7}\\r\\u{202e}.rs": ReluForward(' in res.output
    module = (tmp_path / "out" / f"{name[:-3]}.py").read_text()  # (its header names the path: no line break in it)
    assert "\r" not in module and "\u202e" not in module and "\x1b" not in module  # (nor ESC, BEL: escaped)
    assert "from k\\x1b]0;pwned\\x07\\r\\u202e.rs." in module


# ---------------------------------------------------------------------- the output folder


def _transpile(args):
    from click.testing import CliRunner

    from rs2triton.cli import main

    return CliRunner().invoke(main, args)


def test_a_packages_own_init_files_are_left_as_they_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src" / "sub").mkdir(parents=True)
    for rel in ("relu.rs", "sub/relu2.rs"):
        (tmp_path / "src" / rel).write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    (tmp_path / "out" / "sub").mkdir(parents=True)
    (tmp_path / "out" / "__init__.py").write_text("from .relu import ReluForward  # the user's\n")
    (tmp_path / "out" / "sub" / "__init__.py").write_text("VERSION = 2\n")
    for _ in range(2):
        res = _transpile(["transpile", "src", "-o", "out"])
        assert res.exit_code == 0, res.output
        assert (tmp_path / "out" / "__init__.py").read_text() == "from .relu import ReluForward  # the user's\n"
        assert (tmp_path / "out" / "sub" / "__init__.py").read_text() == "VERSION = 2\n"
    assert _transpile(["check", "src", "-o", "out"]).exit_code == 0
    (tmp_path / "out" / "sub" / "__init__.py").unlink()  # (where there is none, an empty one is made)
    assert _transpile(["transpile", "src", "-o", "out"]).exit_code == 0
    assert (tmp_path / "out" / "sub" / "__init__.py").read_text() == ""


def test_a_file_rs2triton_did_not_write_is_never_replaced(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    for name in ("relu", "vector_add"):
        (tmp_path / "src" / f"{name}.rs").write_text((ROOT / "kernels_rs" / f"{name}.rs").read_text())
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "relu.py").write_text("print('my own relu')\n")
    res = _transpile(["transpile", "src", "-o", "out"])
    assert res.exit_code == 1 and "error[E0010]: out/relu.py exists and was not written by rs2triton" in res.output
    assert (tmp_path / "out" / "relu.py").read_text() == "print('my own relu')\n"
    assert not (tmp_path / "out" / "vector_add.py").exists()  # nothing written
    res = _transpile(["check", "src", "-o", "out"])
    assert res.exit_code == 1 and "out/relu.py exists and was not written by rs2triton" in res.output


@pytest.mark.parametrize("kind", ["fifo", "symlink to /dev/zero", "symlink to a fifo", "folder"])
def test_an_odd_file_at_an_output_path_is_an_error_without_reading_it(tmp_path, monkeypatch, kind):
    import threading

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "relu.rs").write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "relu.py"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink to /dev/zero":
        target.symlink_to("/dev/zero")
    elif kind == "symlink to a fifo":
        os.mkfifo(tmp_path / "pipe")
        target.symlink_to(tmp_path / "pipe")
    else:
        target.mkdir()
    results = {}

    def run():
        results["transpile"] = _transpile(["transpile", "src", "-o", "out"])
        results["check"] = _transpile(["check", "src", "-o", "out"])

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), f"rs2triton hung on a {kind} at an output path"
    what = {"fifo": "a FIFO", "symlink to /dev/zero": "a device (through a symlink)",
            "symlink to a fifo": "a FIFO (through a symlink)", "folder": "a folder"}[kind]
    for command in ("transpile", "check"):
        res = results[command]
        assert res.exit_code == 1 and f"out/relu.py is {what}, not a file rs2triton wrote" in res.output, res.output


# ---------------------------------------------------------------------- run --expect

ATTACKS = [
    "torch.os.system('touch pwned')", "torch.sys.modules['os'].system('touch pwned')",
    "torch.save(a_ptr, 'pwned')", "torch.load('pwned')", "a_ptr.__class__", "a_ptr.numpy().tofile('pwned')",
    "torch.nn.functional.__builtins__", "torch", "[x for x in a_ptr]", "(lambda: 1)()", "getattr(a_ptr, 'T')",
    "open('pwned')", "a_ptr.device.type.join('x')", "torch.ops.aten.add(a_ptr, b_ptr)", "torch.nn.Module",
    "a_ptr.storage().tolist()", "torch.relu(**{'input': a_ptr})", "b_ptr if torch.os else a_ptr",
]


@pytest.mark.parametrize("expression", ATTACKS)
def test_expect_evaluates_an_allow_list_and_nothing_else(tmp_path, monkeypatch, expression):
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", str(ROOT / "kernels_rs" / "vector_add.rs"), "vector_add", "--grid", "1",
                                    "-c", "BLOCK_SIZE=16", "-a", "a_ptr=8", "-a", "b_ptr=8", "-a", "out_ptr=8",
                                    "-a", "n_elements=8", "--expect", f"out_ptr={expression}"])
    assert res.exit_code == 1 and "cannot evaluate" in res.output and "Traceback" not in res.output, res.output
    assert "not allowed here" in res.output or "not an input" in res.output, res.output
    assert not list(tmp_path.iterdir()), list(tmp_path.iterdir())  # nothing was made


def test_expect_takes_torch_expressions_of_the_inputs():
    from rs2triton.tools.expect import evaluate

    x, y = torch.randn(4, 6), torch.randn(4, 6)
    cases = {
        "x + y * 2 - 1": x + y * 2 - 1,
        "torch.softmax(x, dim=1)": torch.softmax(x, dim=1),
        "torch.nn.functional.gelu(x, approximate='tanh')": F.gelu(x, approximate="tanh"),
        "x.sum(dim=1, keepdim=True).expand(4, 6) / x.shape[1]": x.sum(dim=1, keepdim=True).expand(4, 6) / 6,
        "torch.where(x > 0, x, -y)[1:3, ::2].T": torch.where(x > 0, x, -y)[1:3, ::2].T,
        "x.to(torch.float16).float() if True else y": x.to(torch.float16).float(),
        "torch.maximum(x, y).abs() ** 0.5": torch.maximum(x, y).abs() ** 0.5,
    }
    for expression, want in cases.items():
        assert torch.equal(evaluate(expression, {"x": x, "y": y}), want), expression


# ---------------------------------------------------------------------- the cache

NOBODY = 65534


def _planted(folder, rel: str, text: str, owner: int | None = None):
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if owner is not None:
        os.chown(path, owner, owner)
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="planting files as another user needs root (as the CI runs)")
@pytest.mark.parametrize("how", ["another user's folder", "a folder others may write"])
def test_a_cache_another_user_could_feed_is_not_used(tmp_path, monkeypatch, how):
    from rs2triton.transpiler.driver import cache

    shared = tmp_path / "shared-cache"
    shared.mkdir()
    if how == "another user's folder":
        os.chown(shared, NOBODY, NOBODY)
    else:
        shared.chmod(0o777)
    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(shared))
    monkeypatch.delenv("RS2TRITON_NO_CACHE", raising=False)
    text = rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs").text
    import hashlib

    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    _planted(shared, f"modules/{digest}/relu.py", "import os\nos.environ['RS2TRITON_PWNED'] = '1'\n", NOBODY)
    with pytest.warns(RuntimeWarning, match=rf"not using the cache at {re.escape(str(shared))}: "):
        module = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    assert "RS2TRITON_PWNED" not in os.environ and module.ReluForward.name == "ReluForward"
    assert not str(module.__file__).startswith(str(shared))
    assert cache.cache_dir() != shared


def test_a_module_file_is_the_text_transpiled_whatever_the_cache_folder_held(tmp_path, monkeypatch):
    import hashlib

    folder = tmp_path / "cache"
    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(folder))
    monkeypatch.delenv("RS2TRITON_NO_CACHE", raising=False)
    src = tmp_path / "relu_planted.rs"
    src.write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    text = rs2triton.transpile_file(src).text
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder.mkdir(mode=0o700)
    planted = _planted(folder, f"modules/{digest}/relu_planted.py",
                       "import os\nos.environ['RS2TRITON_PWNED'] = '2'\n")
    planted.chmod(0o600)
    module = rs2triton.load(src)
    assert "RS2TRITON_PWNED" not in os.environ and module.ReluForward.name == "ReluForward"
    assert planted.read_text() == text  # written again, as transpiled


@pytest.mark.skipif(os.geteuid() != 0, reason="planting files as another user needs root (as the CI runs)")
@pytest.mark.parametrize("how", ["another user's", "writable by others", "sticky, writable by others"])
def test_a_cache_in_a_folder_another_user_could_swap_is_checked_up_to_the_root(tmp_path, monkeypatch, how):
    # The cache folder is the user's own and 0700, but a folder above it lets another user rename
    # it away and put theirs in its place between the check and the import: every folder on
    # the way is checked (ssh's StrictModes), and a sticky one (/tmp) may be writable by others.
    from rs2triton.transpiler.driver import cache

    parent = tmp_path / "parent"
    parent.mkdir()
    if how == "another user's":
        os.chown(parent, NOBODY, NOBODY)
    else:
        parent.chmod(0o1777 if how.startswith("sticky") else 0o777)
    folder = parent / "mine"
    folder.mkdir(mode=0o700)
    why = cache.untrusted(folder)
    if how.startswith("sticky"):
        assert why is None
        return
    assert why is not None and why.startswith(f"{parent} "), why
    assert ("belongs to another user (uid 65534)" if how == "another user's" else "writable by other users") in why
    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(folder))
    monkeypatch.delenv("RS2TRITON_NO_CACHE", raising=False)
    with pytest.warns(RuntimeWarning, match=rf"not using the cache at {re.escape(str(folder))}: {re.escape(str(parent))}"):
        module = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    assert not str(module.__file__).startswith(str(parent))


@pytest.mark.skipif(os.geteuid() != 0, reason="planting files as another user needs root (as the CI runs)")
def test_a_symlinked_cache_folder_is_judged_by_where_it_leads(tmp_path):
    # A symlink's own mode (0777) says nothing: the folders it leads through are checked, and a
    # target that passes every check is used, one that does not is named as the reason.
    from rs2triton.transpiler.driver import cache

    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir(mode=0o700)
    bad.mkdir(mode=0o700)
    os.chown(bad, NOBODY, NOBODY)
    (tmp_path / "to-good").symlink_to(good)
    (tmp_path / "to-bad").symlink_to("bad")
    assert cache.untrusted(tmp_path / "to-good") is None
    why = cache.untrusted(tmp_path / "to-bad")
    assert why == f"{bad} belongs to another user (uid 65534) (reached through the symlink {tmp_path / 'to-bad'} -> bad)"


def test_what_load_imports_is_what_it_checked_whatever_the_path_holds_after(tmp_path, monkeypatch):
    # Between the check of the module file and its import, the file is swapped for another's:
    # the import reads the file once, checks what it opened and runs those bytes, never the path again.
    from rs2triton.loading import loader

    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RS2TRITON_NO_CACHE", raising=False)
    src = tmp_path / "relu_swapped.rs"
    src.write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    checked = loader.cached

    def swap_after_the_check(*args, **kwargs):
        result, py = checked(*args, **kwargs)
        planted = py.with_name("planted.py")
        planted.write_text("import os\nos.environ['RS2TRITON_PWNED'] = '3'\n")
        os.replace(planted, py)  # (what a rename by another user does)
        return result, py

    monkeypatch.setattr(loader, "cached", swap_after_the_check)
    module = rs2triton.load(src)
    assert "RS2TRITON_PWNED" not in os.environ and module.ReluForward.name == "ReluForward"
    import inspect

    assert "def relu_forward" in inspect.getsource(module.relu_forward.fn)  # (Triton's view: the lines run)


def test_check_does_not_call_a_committed_file_stale_on_the_caches_word(tmp_path, monkeypatch):
    import sqlite3

    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RS2TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RS2TRITON_NO_CACHE", raising=False)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "relu.rs").write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    assert CliRunner().invoke(main, ["transpile", "src", "-o", "out"]).exit_code == 0
    con = sqlite3.connect(tmp_path / "cache" / "transpile.sqlite3")
    with con:  # every cached text replaced by another (a damaged or tampered row)
        con.execute("UPDATE entries SET text = '# Generated by rs2triton from src/relu.rs. Do not edit.\\nX = 1\\n'")
    con.close()
    res = CliRunner().invoke(main, ["check", "src", "-o", "out"])
    assert res.exit_code == 0 and "up to date" in res.output, res.output


# ---------------------------------------------------------------------- register_op

BUMP = """use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{types::{AddOffsets, Comparison}, *};

/// `y = x`, and the parameter `seen` overwritten with `x` through a plain pointer (no `Out` mark).
#[kernel]
pub fn bump_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>, seen_ptr: InPtr<T::Pointer<D>>, y_ptr: T::Pointer<D>, n: i32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offs = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offs), x, Some(mask), &[], None, None);
    let seen = seen_ptr.add_offsets(offs);
    T::store(seen, x, Some(mask), &[], None, None);
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for BumpForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        vec![input_shapes[0].to_vec()]
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(output);
        visitor.visit_i32(n as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [n.div_ceil(self.block_size as usize) as u32, 1, 1]
    }
}
"""


@pytest.fixture(scope="module")
def bump(tmp_path_factory):
    path = tmp_path_factory.mktemp("bump") / "bump.rs"
    path.write_text(BUMP)
    return rs2triton.load(path)


def test_a_kernel_that_stores_through_an_unmarked_param_is_registered_as_mutating_it(bump):
    from rs2triton.runtime.apply import stored_pointers
    from rs2triton.runtime.torch_ops import writes_params

    op = bump.BumpForward(BLOCK_SIZE=16)
    assert stored_pointers(op.forward_kernel()) == {"y_ptr", "seen_ptr"}  # (through `let seen = ..` too)
    assert writes_params(op)
    packet = rs2triton.register_op(op, "rs2triton_trust::bump")
    x, seen = torch.arange(5.0), torch.zeros(5)
    y = packet([x], [seen], [5])
    assert torch.equal(y, x) and torch.equal(seen, x)  # declared to torch as written (Tensor(a!)[] params)
    assert "Tensor(a!)[] params" in str(packet.default._schema)


def test_register_op_refuses_a_name_in_use_a_bad_name_and_what_is_no_op(bump):
    op = bump.BumpForward(BLOCK_SIZE=16)
    rs2triton.register_op(op, "rs2triton_trust::twice", mutates_params=True)
    with pytest.raises(ValueError, match=r"an op named rs2triton_trust::twice is registered already \(.*replace=True"):
        rs2triton.register_op(op, "rs2triton_trust::twice", mutates_params=True)
    rs2triton.register_op(op, "rs2triton_trust::twice", mutates_params=True, replace=True)
    for bad in ("nonamespace", "a::b::c", "rs2triton_trust::has space", "rs2triton_trust::1st", "x::ünï", "::x"):
        with pytest.raises(ValueError, match=r"the name must be `namespace::name`, both Python identifiers"):
            rs2triton.register_op(op, bad, mutates_params=True)
    with pytest.raises(TypeError, match=r"register_op: object is not a teenygrad op .* no `n_activation_inputs`"):
        rs2triton.register_op(object(), "rs2triton_trust::nothing")
    with pytest.raises(TypeError, match=r"register_op: BumpForward is not a teenygrad op"):  # (unconfigured)
        rs2triton.register_op(bump.BumpForward, "rs2triton_trust::unconfigured")


def test_a_failing_dry_run_is_said_with_its_cause(bump):
    op = bump.BumpForward(BLOCK_SIZE=16)

    def broken(input_shapes, output_shape):
        raise ValueError("shapes beyond me")

    op.param_shapes = broken
    with pytest.warns(RuntimeWarning, match=r"cannot tell whether BumpForward writes its params: .*ValueError: "
                                            r"shapes beyond me.*mutates_params=True or False"):
        rs2triton.register_op(op, "rs2triton_trust::broken")


# ---------------------------------------------------------------------- smaller holes

KERNEL_HEAD = "use teeny_triton::triton::*;\n\n"


@pytest.mark.parametrize(("attr", "message"), [
    ("dtypes = [f32], dtypes = [f16]", "`dtypes` is given twice in `#[kernel(...)]`"),
    ("backward = ABackward, backward = BBackward", "`backward` is given twice in `#[kernel(...)]`"),
    ("dtypes = [f32, i32]", "the trait bound `i32: Float` is not satisfied: `dtypes` lists `i32` for `D: Float`"),
])
def test_kernel_arguments_given_twice_or_outside_the_bound_are_refused(attr, message):
    src = KERNEL_HEAD + f"#[kernel({attr})]\npub fn k<T: Triton, D: Float, const B: i32>(x_ptr: T::Pointer<D>) {{}}\n"
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "kernels/k.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == ("E0007", 3, 9) and message in d.message, d.render()


def test_a_tiled_kernel_cfg_switches_off_is_not_checked():
    off = (KERNEL_HEAD + '#[cfg(feature = "nope")]\n#[tiled_kernel]\n'
           "pub fn t<T: Triton, D: Float>(x: In<Tile<T, D>>, y: Out<Tile<T, D>>) {\n    let z = undefined_thing;\n}\n\n"
           "#[kernel]\npub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {}\n")
    res = rs2triton.transpile_source(off, "kernels/k.rs", features=frozenset())
    assert [k.name for k in res.kernels] == ["k"]
    with pytest.raises(rs2triton.TranspileError):  # (switched on, it is checked: it needs BLOCK_SIZE)
        rs2triton.transpile_source(off, "kernels/k.rs", features=frozenset({"nope"}))


def test_a_malformed_cargo_toml_is_a_located_warning(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    for name in ("relu", "vector_add"):
        (tmp_path / "src" / f"{name}.rs").write_text((ROOT / "kernels_rs" / f"{name}.rs").read_text())
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\n[features\ndefault = []\n')
    res = CliRunner().invoke(main, ["transpile", "src", "-o", "out"])
    assert res.exit_code == 0, res.output
    assert res.output.count("warning[W0011]: the crate's Cargo.toml cannot be read: it is not valid TOML") == 1
    assert " --> Cargo.toml:3:10" in res.output and "3 | [features" in res.output, res.output


@pytest.mark.parametrize(("method", "count"), [("n_launches", 2**64 - 1), ("n_launches", 0),
                                               ("n_backward_launches", 10**9)])
def test_an_absurd_launch_count_is_an_error_not_a_list_of_them(method, count):
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs").ReluForward(BLOCK_SIZE=8)
    setattr(relu, method, lambda: count)
    x = torch.randn(4, requires_grad=method == "n_backward_launches")
    with pytest.raises(ValueError, match=rf"ReluForward: `{method}` says {count} launches; an op makes from 1 to 4096"):
        relu.apply(x, out_shape=(4,)).sum().backward()


def test_a_store_through_an_inptr_is_a_located_warning_and_a_loaded_offset_is_not():
    src = KERNEL_HEAD + (
        "#[kernel]\npub fn k<T: Triton, const B: i32>(x_ptr: InPtr<T::Pointer<f32>>, i_ptr: InPtr<T::Pointer<i32>>, "
        "y_ptr: OutPtr<T::Pointer<f32>>) {\n"
        "    let offs = T::arange(0, B);\n"
        "    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
        "    let at = T::load(i_ptr.add_offsets(offs), None, None, &[], None, None, None, false);\n"
        "    T::store(y_ptr.add_offsets(at), x, None, &[], None, None);\n"
        "    let back = x_ptr.add_offsets(offs);\n"
        "    T::atomic_add(back, x, None, None, None);\n}\n")
    res = rs2triton.transpile_source(src, "kernels/k.rs")
    [w] = [w for w in res.warnings if w.code == "W0012"]  # (x_ptr; not i_ptr, which only gives offsets)
    assert (w.severity, w.line, w.col) == ("warning", 4, 42) and "stores through `x_ptr`" in w.message, w.render()
