"""A source file's text as rustc reads it: where its lines end (only a line feed; a CR LF is one),
what a diagnostic shows of them and where its carets go, and that a file saved with CR LFs is the
same program, module byte for byte."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import rs2triton
from rs2triton.diagnostics import Diagnostic, Lines, normalize_newlines
from tests.conftest import ROOT

# What str.splitlines (and Python's text mode, for CR) end a line at, and rustc does not.
NOT_LINE_ENDS = {"CR": "\r", "NEL": "\x85", "FF": "\x0c", "VT": "\x0b", "U+2028": "\u2028", "U+2029": "\u2029",
                 "FS": "\x1c"}

KERNEL = """use teeny_triton::triton::*;
// before{char}after
#[kernel]
pub fn k<T: Triton, D: Num, const B: i32>(x_ptr: T::Pointer<D>) {{
    /* a{char}b */ let x = T::no_such_method(0);
}}
"""


@pytest.mark.parametrize("char", NOT_LINE_ENDS.values(), ids=NOT_LINE_ENDS.keys())
def test_a_diagnostic_after_a_comment_holding_a_character_python_ends_lines_at_shows_the_right_line(char):
    src = KERNEL.format(char=char)
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert (d.line, d.col, d.length) == (5, 26, len("no_such_method")), d.render()
    assert d.source_line == f"    /* a{char}b */ let x = T::no_such_method(0);"
    shown = d.render().split("\n")
    assert char not in d.render()  # (a picture or an escape in its place)
    text, carets = shown[3], shown[4]
    assert text.startswith("5 | ") and text.endswith("let x = T::no_such_method(0);")
    # the carets under the method's name, whatever the character before it is shown as
    assert carets.index("^") == text.index("no_such_method") and carets.count("^") == len("no_such_method")


@pytest.mark.parametrize("char", NOT_LINE_ENDS.values(), ids=NOT_LINE_ENDS.keys())
def test_lines_are_divided_where_rustc_divides_them(char, tmp_path):
    """`Lines` against rustc itself: the line, column and text rustc gives an error's span."""
    src = f'fn main() {{\r\n// a{char}b\n /* c{char}d */ let x: i32 = "s"; }}\n'
    path = tmp_path / "t.rs"
    path.write_bytes(src.encode())
    lines = Lines.read(path)
    offset = src.encode().replace(b"\r\n", b"\n").index(b'"s"')
    line, col = lines.position(offset)
    assert (line, col) == (3, 25) and lines.text(3) == f' /* c{char}d */ let x: i32 = "s"; }}'
    assert lines.text(1) == "fn main() {" and len(lines) == 4
    if shutil.which("rustc"):
        proc = subprocess.run(["rustc", "--error-format=json", "--emit=metadata", "-o", str(tmp_path / "t.rmeta"),
                               str(path)], capture_output=True, text=True, timeout=120)
        error = json.loads(proc.stderr.split("\n")[0])  # (raw U+2028s in it: not splitlines)
        span = error["spans"][0]
        assert (span["line_start"], span["column_start"], span["text"][0]["text"]) == (line, col, lines.text(line))


def test_a_lone_cr_stays_in_its_line_and_a_cr_lf_ends_one():
    lines = Lines(b"a\rb\nc\r\r\nd")  # (as the parser reads it: CR LFs already made LFs)
    assert [lines.text(n) for n in range(1, len(lines) + 1)] == ["a\rb", "c\r\r", "d"]
    read = Lines(normalize_newlines(b"a\r\nb\rc\r\n"))  # (as a file is read)
    assert read.text(2) == "b\rc" and len(read) == 3
    assert lines.position(lines.data.index(b"d")) == (3, 1) and lines.text(4) is None and lines.text(0) is None


@pytest.mark.parametrize(("before", "shown"), [
    ("\t", "    "),  # rustc: a tab is four spaces, wherever it is
    ("\u4e2d", "\u4e2d"),  # a wide character: two columns
    ("e\u0301", "e\u0301"),  # a combining mark: none
    ("\x1b", "\u241b"),  # a control character's picture: one
    ("\x85", "\\u{85}"),  # an escape: as wide as it is written
])
def test_the_carets_stand_under_what_they_mark(before, shown):
    line = f"/*{before}*/ let x = T::no_such_method(0);"
    col = line.index("no_such_method") + 1
    rendered = Diagnostic("E0003", "m", "k.rs", 7, col, len("no_such_method"), None, line).render().split("\n")
    assert rendered[3] == f"7 | /*{shown}*/ let x = T::no_such_method(0);"
    columns = len(f"7 | /*{shown}*/ let x = T::") + (1 if before == "\u4e2d" else 0) - (1 if before == "e\u0301" else 0)
    assert rendered[4] == "  | " + " " * (columns - 4) + "^" * len("no_such_method")


# ---------------------------------------------------------------------- CR LF


def _kernel_files():
    return sorted(p.name for p in (ROOT / "kernels_rs").glob("*.rs"))


@pytest.mark.parametrize("name", _kernel_files())
def test_a_file_with_cr_lf_line_ends_gives_the_module_lf_gives(name):
    """git's autocrlf checks a file out with CR LFs on Windows: the module, its docstrings and its
    line map are those of the LF file (`check` is not stale across platforms)."""
    src = (ROOT / "kernels_rs" / name).read_bytes()
    assert b"\r" not in src
    lf = rs2triton.transpile_source(src, name)
    crlf = rs2triton.transpile_source(src.replace(b"\n", b"\r\n"), name)
    assert crlf.text == lf.text and crlf.line_map == lf.line_map
    assert "\r" not in crlf.text


def test_cr_lf_keeps_lines_and_columns_and_a_lone_cr_in_a_doc_comment_stays_visible():
    src = KERNEL.format(char="").replace("\n", "\r\n")
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "k.rs")
    d = info.value.diagnostics[0]
    assert (d.line, d.col, d.source_line) == (5, 25, "    /* ab */ let x = T::no_such_method(0);")
    assert "\u240d" not in d.render()  # (no CR is left to show)
    doc = "use teeny_triton::triton::*;\r\n/// one\r\n/// two\r\n#[kernel]\r\npub fn k<T: Triton>(x_ptr: T::Pointer<f32>) {}\r\n"
    text = rs2triton.transpile_source(doc, "k.rs").text
    assert '    """one\n    two\n    """\n' in text and "\r" not in text


def test_check_is_up_to_date_whichever_line_ends_the_source_has(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    src = (ROOT / "kernels_rs" / "relu.rs").read_bytes()
    (tmp_path / "src" / "relu.rs").write_bytes(src)
    assert CliRunner().invoke(main, ["transpile", "src", "-o", "out", "--no-cache"]).exit_code == 0
    (tmp_path / "src" / "relu.rs").write_bytes(src.replace(b"\n", b"\r\n"))  # checked out on Windows
    res = CliRunner().invoke(main, ["check", "src", "-o", "out", "--no-cache"])
    assert res.exit_code == 0, res.output


REJECTED = """/// Triton needs a compile-time bound for arange.
#[kernel]
pub fn k<T: Triton>(x_ptr: T::Pointer<f32>, n: i32) {{
    let pid = T::program_id(Axis::X); // a{char}b
    // a runtime bound{char}
    let offs = T::arange(0, n);
    T::store(x_ptr.add_offsets(offs), T::zeros::<f32>(&[4]), None, &[], None, None);
}}
"""


@pytest.mark.parametrize("char", ["\r", "\x85", "\u2028", "\x0c"], ids=["CR", "NEL", "U+2028", "FF"])
def test_a_triton_error_shows_the_rust_line_it_names(char, tmp_path, monkeypatch):
    """The runtime reads the Rust line of a Triton error as rustc divides the file (it read it in
    text mode and split it with str.splitlines: a line after such a comment was another's text)."""
    from click.testing import CliRunner

    from rs2triton.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "rejected.rs").write_bytes(REJECTED.format(char=char).encode())
    res = CliRunner().invoke(main, ["run", "rejected.rs", "k", "--grid", "1", "-a", "x_ptr=4", "-a", "n=4"])
    assert res.exit_code == 1 and "error[E0011]" in res.output, res.output
    assert "--> rejected.rs:6:5" in res.output and "6 |     let offs = T::arange(0, n);\n" in res.output


def test_a_tuning_table_error_after_a_comment_holding_u2028_is_at_its_line(tmp_path):
    """TOML ends lines at LF (or CR LF) only: a U+2028 in a comment of pyproject.toml is no line end."""
    (tmp_path / "vector_add.rs").write_bytes((ROOT / "kernels_rs" / "vector_add.rs").read_bytes())
    (tmp_path / "pyproject.toml").write_text(
        "# sizes\u2028measured on an H100\n[tool.rs2triton.tune.vector_ad]\nconfigs = [{ BLOCK_SIZE = 256 }]\n",
        encoding="utf-8")
    with pytest.raises(rs2triton.TranspileError, match="did you mean `vector_add`") as info:
        rs2triton.transpile_file(tmp_path / "vector_add.rs")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.source_line) == ("E0013", 2, "[tool.rs2triton.tune.vector_ad]")


# ---------------------------------------------------------------------- generated comments

# What a module never holds as itself: controls (ESC, BEL, DEL, a C1 CSI, NEL), separators and
# format characters (zero-width, byte-order mark, a right-to-left mark).
SMUGGLED = {"ESC": "\x1b", "BEL": "\x07", "DEL": "\x7f", "CSI": "\x9b", "NEL": "\x85", "FF": "\x0c",
            "U+2028": "\u2028", "ZWSP": "\u200b", "BOM": "\ufeff", "RLM": "\u200f", "ALM": "\u061c"}

COMMENTED = """//! Module{c}doc
use teeny_triton::triton::*;

/// Kernel{c}doc
#[kernel]
pub fn k<T: Triton, const B: i32>(
    x_ptr: T::Pointer<f32>, // param{c}comment
) {{
    // line{c}comment
    let x = T::load(x_ptr.add_offsets(T::arange(0, B)), None, None, &[], None, None, None, false); // trail{c}ing
    T::store(x_ptr.add_offsets(T::arange(0, B)), x, None, &[], None, None);
}}
"""


@pytest.mark.parametrize("char", SMUGGLED.values(), ids=SMUGGLED.keys())
def test_a_control_or_format_character_of_the_source_is_written_visibly_in_every_comment(char, tmp_path, monkeypatch):
    import ast

    from rs2triton.transpiler.emit.literals import hidden

    monkeypatch.chdir(tmp_path)
    name = f"k{char}.rs"
    (tmp_path / name).write_text(COMMENTED.format(c=char), encoding="utf-8")
    text = rs2triton.transpile_file(name).text
    escape = repr(char)[1:-1]
    assert char not in text and hidden(text, newlines=False) is None
    for shown in (f"from k{escape}.rs. Do not edit", f"Module{escape}doc", f"Kernel{escape}doc",
                  f"# param{escape}comment", f"# line{escape}comment", f"# trail{escape}ing"):
        assert shown in text, shown
    plain = rs2triton.transpile_source(COMMENTED.format(c=" "), name).text
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(plain)).replace(" doc", f"{escape}doc")  # (code alike)


def test_what_a_module_may_not_hold_is_every_control_separator_and_format_character_but_tab():
    import unicodedata

    from rs2triton.transpiler.emit.literals import comment, hidden

    for code in range(0x110000):
        c = chr(code)
        if 0xD800 <= code < 0xE000:
            continue
        banned = c != "\t" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
        assert (hidden(f"a{c}b") == c) is banned, f"U+{code:04X}"
        if banned:
            assert comment(c) == "# " + repr(c)[1:-1]


# ---------------------------------------------------------------------- names in the header


@pytest.mark.parametrize("name", ["src/k.rs", "s\nrc/k.rs", "s\u202erc/k\x1b.rs", "a\\b/k.rs", "a\\nb/k.rs",
                                  "a\\u202eb\\x1b.rs", "x. Do not edit: y.rs", "t\tab/\u2028\x85.rs"])
def test_the_header_names_any_source_and_reads_back_as_that_name(name):
    from rs2triton.transpiler.emit.literals import hidden
    from rs2triton.transpiler.emit.module import HEADER_PREFIX, HEADER_SUFFIX, header_name, header_source

    line = f"{HEADER_PREFIX}{header_name(name)}{HEADER_SUFFIX}\n"
    assert hidden(line, newlines=False) is None and line.count("\n") == 1
    assert header_source(line) == name
    assert header_source("# Generated by someone else.\n") is None


def _cli(*args):
    from click.testing import CliRunner

    from rs2triton.cli import main

    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("folder", ["s\nrc", "s\u202erc", "s\\nrc"], ids=["newline", "U+202E", "backslash-n"])
def test_no_false_orphan_for_a_source_whose_name_holds_a_line_break_or_a_direction_mark(folder, tmp_path, monkeypatch):
    """A module whose source (named in its header, escaped) is there is no orphan; one whose
    source is gone is, and every message names it as Rust's `{:?}` would: no raw line break or
    text-direction codepoint reaches the terminal."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")  # (headers name sources from here)
    (tmp_path / folder).mkdir()
    for kernel in ("relu", "vector_add"):
        (tmp_path / folder / f"{kernel}.rs").write_bytes((ROOT / "kernels_rs" / f"{kernel}.rs").read_bytes())
    out = "o\nut\u202e/gen"
    res = _cli("transpile", folder, "-o", out, "-q", "--no-cache")
    assert res.exit_code == 0, res.output
    res = _cli("transpile", f"{folder}/relu.rs", "-o", out, "--no-cache")  # vector_add.py: not planned, its source there
    assert res.exit_code == 0 and "warning" not in res.output, res.output
    assert _cli("check", f"{folder}/relu.rs", "-o", out, "--no-cache").exit_code == 0
    (tmp_path / folder / "vector_add.rs").unlink()
    res = _cli("transpile", f"{folder}/relu.rs", "-o", out, "--no-cache")
    assert res.exit_code == 0
    assert 'warning: "o\\nut\\u{202e}/gen/vector_add.py" was generated by rs2triton but no input' in res.output
    assert 'into "o\\nut\\u{202e}/gen" (' in res.output
    assert "\u202e" not in res.output and res.output.count("\n") == 2, repr(res.output)
    res = _cli("check", f"{folder}/relu.rs", "-o", out, "--no-cache")
    assert res.exit_code == 1 and '--- "o\\nut\\u{202e}/gen/vector_add.py"\n' in res.output, res.output
    assert "\u202e" not in res.output and "\nut" not in res.output.replace("\\nut", "")


def test_show_ir_shows_the_rust_line_each_ir_line_came_from(tmp_path):
    """`show --ir`'s Rust lines are read as rustc divides the file (it split them with str.splitlines)."""
    from rs2triton.tools.ir import beside_rust

    rust = tmp_path / "k.rs"
    rust.write_bytes("fn k() {\r\n    // a\u2028b\x0cc\x85d\rE\n    let x = 1;\n}\n".encode())
    ir = '%0 = arith.constant 1 : i32 loc("k.rs":3:13)\n'
    assert beside_rust("ttir", ir, str(rust)) == f"// k.rs:3 | let x = 1;\n{ir}"


def test_a_cargo_toml_warning_after_a_comment_holding_u2028_shows_its_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "relu.rs").write_bytes((ROOT / "kernels_rs" / "relu.rs").read_bytes())
    (tmp_path / "Cargo.toml").write_text('[package]\n# a\u2028b\nname = "x"\n[features\ndefault = []\n', encoding="utf-8")
    res = _cli("transpile", "src", "-o", "out")
    assert res.exit_code == 0, res.output
    assert " --> Cargo.toml:4:10" in res.output and "4 | [features\n" in res.output, res.output


def test_an_unreadable_source_is_named_as_rust_s_debug_writes_it(tmp_path, monkeypatch):
    import os

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "p\nipe\u202e.rs")
    res = _cli("transpile", "p\nipe\u202e.rs", "-o", "out")
    assert res.exit_code == 1
    assert 'error[E0010]: cannot read "p\\nipe\\u{202e}.rs": it is a FIFO\n  --> "p\\nipe\\u{202e}.rs":1:1' in res.output
    assert "\u202e" not in res.output and "\nipe" not in res.output


DEBUG_NAMES = ["o\nut\u202e/gen", "k\x1b]0;x\x07\r\u202e.rs", 'a"b\\c\td\x85e\u2028f\u061c\x00g\x7fh', "plain/k.rs"]


def test_a_name_is_shown_as_rust_s_debug_shows_it(tmp_path):
    from rs2triton.diagnostics import debug_text, terminal_text

    shown = [debug_text(n) for n in DEBUG_NAMES]
    assert shown[-1] == "plain/k.rs"  # (nothing to escape: as it is, no quotes)
    assert shown[0] == '"o\\nut\\u{202e}/gen"' and terminal_text("a\rb\nc") == "a\\rb\\nc"
    if shutil.which("rustc"):
        literals = ", ".join('"' + "".join(f"\\u{{{ord(c):x}}}" for c in n) + '"' for n in DEBUG_NAMES[:-1])
        (tmp_path / "d.rs").write_text(f'fn main() {{ for s in [{literals}] {{ println!("{{:?}}", s); }} }}\n')
        subprocess.run(["rustc", "-o", str(tmp_path / "d"), str(tmp_path / "d.rs")], check=True, timeout=120)
        out = subprocess.run([str(tmp_path / "d")], capture_output=True, text=True, check=True).stdout
        assert out.split("\n")[:-1] == shown[:-1]
