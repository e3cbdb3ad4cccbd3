"""Names that Python reads otherwise than Rust: every identifier is renamed in one pass that ends
(dunders, `__x` that Python mangles in a class body, keywords, soft keywords, builtins, what the
generated class has of its own, names that collide once renamed), raw identifiers in every
position, control characters in the source's path, and macro expansion that scales linearly
(issue 35)."""

from __future__ import annotations

import ast
import builtins
import keyword
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rs2triton
from rs2triton.transpiler.lowering.host.classes import CLASS_NAMES
from rs2triton.transpiler.lowering.names import Names, rust_key
from rs2triton.transpiler.lowering.values import UNKNOWN
from rs2triton.transpiler.pyast import PY_RESERVED, python_name
from tests.conftest import ROOT

# Rust's keywords (strict, reserved, 2018's and 2024's): such a name is written `r#name`; `self`,
# `Self`, `super`, `crate` and `_` cannot be raw identifiers, so they are no names of a program.
RUST_KEYWORDS = frozenset("""as break const continue else enum extern false fn for if impl in let loop match mod
    move mut pub ref return static struct trait true type unsafe use where while async await dyn abstract become box
    do final macro override priv typeof unsized virtual yield try gen""".split())
NOT_RAW = frozenset({"self", "Self", "super", "crate", "_"})

HOSTILE = sorted({
    # Python's dunders, and names it mangles in a class body
    "__init__", "__getattribute__", "__getattr__", "__setattr__", "__class__", "__dict__", "__name__", "__new__",
    "__init_subclass__", "__slots__", "__call__", "__repr__", "__eq__", "__hash__", "__x", "__", "___", "__x_",
    # keywords, soft keywords and builtins of Python
    *(k for k in keyword.kwlist + keyword.softkwlist if k not in NOT_RAW),
    "len", "int", "float", "print", "range", "min", "max", "object", "id", "str", "list", "dict", "iter", "next",
    # what the generated class and module have of their own
    *(n for n in CLASS_NAMES if not n.startswith("__")), "cls", "visitor", "ArgVisitor", "as_usize", "typing", "tl",
    "triton", "math", "Unsupported", "RuntimeOp",
    # names that are another's Python name once renamed
    "lambda_", "lambda__", "apply_", "type_args_field", "grid_field", "_u5f__x", "_u5f__init__", "_u5f__",
    "\U0001d431", "_u1d431_", "ｔｌ", "ﬁ", "fi", "tl_", "len_", "x_1",
} - {"new", "None"})  # (a wrapper's `new` is its constructor, below; `None` is a pattern to rustc, no name)


def rust(name: str) -> str:
    return f"r#{name}" if name in RUST_KEYWORDS else name


IDENTS = st.sampled_from(HOSTILE) | st.from_regex(r"\A_{0,3}[a-zA-Z][a-zA-Z0-9_]{0,5}_{0,3}\Z").filter(
    lambda n: n not in RUST_KEYWORDS and n not in NOT_RAW and n not in ("new", "None"))


def test_python_names_are_identifiers_python_reads_as_written():
    for n in HOSTILE + ["__", "___", "_", "x", "𝐱𝐲", "_𝐱"]:
        py = python_name(n)
        assert py.isidentifier() and not keyword.iskeyword(py) and py not in PY_RESERVED, (n, py)
        assert not py.startswith("__"), (n, py)  # never mangled in a class body, never a dunder
        assert unicodedata.normalize("NFKC", py) == py, (n, py)


@given(st.lists(IDENTS, unique_by=rust_key, max_size=12), st.sampled_from([frozenset(), CLASS_NAMES]),
       st.sampled_from(["_", "_field"]))
def test_class_names_are_apart_from_each_other_and_the_class_s_own(names, reserved, suffix):
    from rs2triton.transpiler.lowering.host.classes import class_names

    out = class_names(names, reserved, suffix)
    assert list(out) == names and len(set(out.values())) == len(names)
    for n, py in out.items():
        assert py not in reserved and py.isidentifier() and not py.startswith("__"), (n, py)
        assert py == n or python_name(n) != n or n in reserved or n in out.values()  # a good name is kept


@given(st.lists(IDENTS, unique_by=rust_key, min_size=1, max_size=12))
def test_local_names_are_apart_and_clear_of_the_reserved(names):
    reserved = frozenset(PY_RESERVED) | {"visitor", "lambda_", "lambda__", "len__", "__x", "_u5f__x"}
    scope = Names(reserved)
    pys = [scope.declare(n, UNKNOWN) for n in names]
    assert len(set(pys)) == len(pys)
    assert all(p.isidentifier() and not keyword.iskeyword(p) and p not in reserved for p in pys), pys


OP = """use teeny_macros::kernel;
#[kernel]
pub fn k<T: Triton, const B: i32>(x: T::Pointer<f32>) {{ }}
pub struct P {{ {fields} }}
impl P {{
    pub fn new(a: usize) -> Self {{ Self {{ {inits} }} }}
{methods}
}}
impl teeny_core::model::RuntimeOp for P {{
    fn n_activation_inputs(&self) -> usize {{ 1 }}
    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {{ vec![vec![{calls}]] }}
    fn pack_args(&self, inputs: &[(teeny_core::model::RawPtr, &[usize])], params: &[teeny_core::model::RawPtr],
                 output: teeny_core::model::RawPtr, output_shape: &[usize], output_row_stride: i32,
                 visitor: &mut dyn teeny_core::device::program::ArgVisitor) {{ }}
    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {{ [1, 1, 1] }}
}}
"""


def _op(names: list[str]) -> str:
    """A wrapper struct with a field, a method, a local and a parameter of each name: method `i`
    reads field `i`, binds local `i` and takes parameter `i + 1` (Rust keeps them all apart)."""
    r = [rust(n) for n in names]
    nxt = r[1:] + r[:1]
    methods = "\n".join(f"    pub fn {m}(&self, {p}: usize) -> usize {{ let {m} = {i + 1}000; self.{m} + {m} * 10 + {p} }}"
                        for i, (m, p) in enumerate(zip(r, nxt, strict=True)))
    return OP.format(fields=", ".join(f"{f}: usize" for f in r), inits=", ".join(f"{f}: a + {i}" for i, f in enumerate(r)),
                     methods=methods, calls=", ".join(f"self.{m}({100_000 * (i + 1)})" for i, m in enumerate(r)))


def _expected(names: list[str], a: int) -> list[int]:
    if len(names) == 1:  # (the parameter is the method's own name: the local shadows it)
        return [a + 10_000 + 1000]
    return [(a + i) + (i + 1) * 10_000 + 100_000 * (i + 1) for i in range(len(names))]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(IDENTS, unique_by=rust_key, min_size=1, max_size=6))
def test_any_names_of_fields_methods_locals_and_parameters_behave_as_in_rust(tmp_path, names):
    """The transpiler ends, and the class does what Rust does: each method reads its own field,
    local and parameter, whatever the names."""
    path = tmp_path / f"op_{abs(hash(tuple(names)))}.rs"
    path.write_text(_op(names), encoding="utf-8")
    op = rs2triton.load(path).P
    assert op.new(7).param_shapes([], []) == [_expected(names, 7)]


def test_every_hostile_name_at_once(tmp_path):
    names = [n for n in HOSTILE if not n.startswith("_u") or n == "_u1d431_"]
    path = tmp_path / "all_names.rs"
    path.write_text(_op(names), encoding="utf-8")
    module = rs2triton.load(path)
    p = module.P.new(3)
    assert p.param_shapes([], []) == [_expected(names, 3)]
    # the runtime's own machinery is intact: the constructor, attribute access, repr, apply
    assert type(p).__init__ is rs2triton.runtime.ops.RuntimeOp.__init__ and callable(p.apply)
    assert repr(p).startswith("P(") and p.n_activation_inputs() == 1


def test_a_dunder_method_is_not_python_s_and_a_mangled_name_reads_its_field(tmp_path):
    """`fn __init__` and `fn __getattribute__` hung the transpiler (checked in a process of its own,
    with a time limit); `self.__x` read `_P__x`."""
    path = tmp_path / "dunders.rs"
    path.write_text(OP.format(
        fields="n: usize, __x: usize", inits="n: a, __x: a + 1",
        methods="    pub fn __init__(&self) -> usize { self.n + 1 }\n"
                "    pub fn __getattribute__(&self) -> usize { self.__init__() + self.__x }\n"
                "    pub fn __y(&self) -> usize { self.__x * 2 }",
        calls="self.__getattribute__(), self.__y(), self.__x"))
    done = subprocess.run([sys.executable, "-m", "rs2triton", "transpile", str(path), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    op = rs2triton.load(path).P
    p = op.new(5)
    assert p.param_shapes([], []) == [[6 + 6, 12, 6]]
    assert p.n == 5  # attribute access is Python's own
    tree = ast.parse(rs2triton.transpile_file(path).text)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "P")
    defined = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    assert not any(d.startswith("__") for d in defined)  # no dunder, nothing mangled
    assert not any(n.attr.startswith("__") for n in ast.walk(cls) if isinstance(n, ast.Attribute))


def test_module_names_with_two_underscores_are_read_from_a_class_body(tmp_path):
    """A module const `__LIMIT` read in a method would be mangled (`_P__LIMIT`: a NameError), and
    a const `__name__` would be the module's name."""
    src = OP.format(fields="n: usize", inits="n: a", methods="    pub fn m(&self) -> usize { self.n + __LIMIT + __name__ }",
                    calls="self.m()")
    path = tmp_path / "consts.rs"
    path.write_text(src.replace("pub struct P", "const __LIMIT: usize = 40;\nconst __name__: usize = 2;\npub struct P"))
    module = rs2triton.load(path)
    assert module.P.new(1).param_shapes([], []) == [[43]]
    assert isinstance(module.__name__, str)


def test_builtins_and_keywords_as_fields_keep_python_s_own(tmp_path):
    names = ["len", "print", "lambda", "lambda_", "type_args", "type_args_field", "apply", "apply_"]
    path = tmp_path / "kw.rs"
    path.write_text(_op(names), encoding="utf-8")
    p = rs2triton.load(path).P.new(2)
    assert p.param_shapes([], []) == [_expected(names, 2)]
    assert p.type_args == {} and builtins.len([1]) == 1


RAW = """use teeny_macros::kernel;
use teeny_triton::triton::{{types::{{AddOffsets, Comparison}}, *}};

const {r}K: usize = 3;

fn {r}twice<T: Triton>(x: T::Tensor<f32>) -> T::Tensor<f32> {{
    x + x
}}

#[kernel]
pub fn {r}double<T: Triton, const {r}B: i32>(x_ptr: T::Pointer<f32>, {r}n: i32)
where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
{{
    let {r}offs = T::arange(0, {r}B);
    let x = T::load(x_ptr.add_offsets({r}offs), Some({r}offs.lt({r}n)), None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offs), {r}twice::<T>(x), Some(offs.lt(n)), &[], None, None);
}}

pub struct {r}Wrap {{ fwd: {r}Double, {r}n: usize, {r}m: usize }}

impl {r}Wrap {{
    pub fn {r}new({r}n: usize) -> Self {{ let {r}m = {r}n + 1; Self {{ fwd: {r}Double::new(64), {r}n, {r}m }} }}
    pub fn {r}get(&self) -> usize {{ self.{r}n * 2 + self.{r}m + {r}K }}
}}

macro_rules! {r}op {{
    ($t:ident) => {{
        impl teeny_core::model::RuntimeOp for $t {{
            fn n_activation_inputs(&self) -> usize {{ 1 }}
            fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {{ vec![] }}
            fn pack_args(&self, inputs: &[(teeny_core::model::RawPtr, &[usize])], params: &[teeny_core::model::RawPtr],
                         output: teeny_core::model::RawPtr, output_shape: &[usize], output_row_stride: i32,
                         visitor: &mut dyn teeny_core::device::program::ArgVisitor) {{ }}
            fn grid(&self, _: &[usize]) -> [u32; 3] {{
                [self.{r}get() as u32 + {r}Wrap::{r}new(1).{r}get() as u32, 1, 1]
            }}
        }}
    }};
}}

{r}op!({r}Wrap);
"""


def test_a_raw_identifier_is_the_name_it_spells_in_every_position(tmp_path):
    """`r#twice::<T>(x)` was E0003 and `struct r#Wrap` lost its `impl RuntimeOp`: with `r#` on
    every item, binding, field, method, path, call and macro name, the module is the one of the
    same source without it, as rustc reads `r#x` as `x` (it compiles these forms), and the op
    computes what Rust computes."""
    raw = rs2triton.transpile_source(RAW.format(r="r#"), "raw.rs")
    plain = rs2triton.transpile_source(RAW.format(r=""), "raw.rs")
    assert raw.text == plain.text
    assert not raw.warnings
    path = tmp_path / "raw.rs"
    path.write_text(RAW.format(r="r#"))
    module = rs2triton.load(path)
    assert module.Wrap.new(4).grid([8]) == (4 * 2 + 5 + 3 + 1 * 2 + 2 + 3, 1, 1)
    assert "Double" in vars(module) and "twice" in vars(module)


def test_a_macro_arm_matches_a_raw_identifier_as_written(tmp_path):
    """rustc's macro_rules tells `r#foo` from a literal `foo` (rustc: `m!(r#foo)` takes the
    `(r#foo)` arm; `n!(foo)` does not take `n`'s `(r#foo)` arm), though both are the name `foo`."""
    src = _op(["a"]).replace("pub struct P", """macro_rules! pick {
    (foo) => { const A: usize = 1; };
    (r#foo) => { const A: usize = 20; };
}
macro_rules! pick2 {
    (r#foo) => { const B: usize = 300; };
    ($x:ident) => { const B: usize = 4000; };
}
pick!(r#foo);
pick2!(foo);
pub struct P""").replace("self.a(100000)", "A + B")
    path = tmp_path / "raw_arms.rs"
    path.write_text(src)
    assert rs2triton.load(path).P.new(0).param_shapes([], []) == [[4020]]


PATH_CHARS = ["\t", "\x0b", "\x0c", "\x1b", "\x7f", "\u2028", "\x85", "\u202e", "\r", "\n"]


@pytest.mark.parametrize("char", PATH_CHARS, ids=[f"U+{ord(c):04X}" for c in PATH_CHARS])
def test_a_control_character_in_the_source_folder_is_text(tmp_path, monkeypatch, char):
    """A tab in the source's folder was E0999 (the class docstring that names the source read back
    with the tab expanded at another column): every generated module is written, its header and
    docstrings name the source as text, and its code is the code of the same file elsewhere."""
    from click.testing import CliRunner

    from rs2triton.cli import main

    source = (ROOT / "kernels_rs" / "vector_add.rs").read_text()
    monkeypatch.chdir(tmp_path)
    for folder in (f"src{char}dir", "plain"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "vector_add.rs").write_text(source)
        done = CliRunner().invoke(main, ["transpile", folder, "-o", f"out_{folder == 'plain'}"])
        assert done.exit_code == 0, done.output
    escaped = char.encode("unicode_escape").decode("ascii")
    odd = (tmp_path / "out_False" / "vector_add.py").read_text()
    plain = (tmp_path / "out_True" / "vector_add.py").read_text()

    def code(text: str) -> str:  # the module, the strings naming the source aside
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                node.value = node.value.replace(f"src{char}dir", "plain").replace(f"src{escaped}dir", "plain")
        return ast.dump(tree)

    assert code(odd) == code(plain)
    assert odd.count("\n") == plain.count("\n")  # (no line of the path became a line of the module)
    cls = next(n for n in ast.parse(odd).body if isinstance(n, ast.ClassDef) and n.name == "VectorAddOp")
    assert f"(src{escaped}dir/vector_add.rs, line " in ast.get_docstring(cls, clean=False)  # (as text, on one line)


def test_a_tab_in_a_doc_comment_reads_back_as_lowered(tmp_path):
    """The check every module passes compared docstrings with their tabs expanded, at columns the
    printer's indentation moves: a tab on a struct's second doc line was E0999."""
    src = _op(["a"]).replace("pub struct P", "/// A wrapper whose doc has a long first line\n/// and a\ttab.\npub struct P")
    path = tmp_path / "tab_doc.rs"
    path.write_text(src)
    assert "and a\ttab." in rs2triton.load(path).P.__doc__


def _lines_run(source: str) -> int:
    """The Python lines the transpiler runs for ``source`` (expansions not cached): a count of
    work that does not depend on the machine's speed."""
    from rs2triton.transpiler.driver.pipeline import transpile_source
    from rs2triton.transpiler.frontend import macros

    count = 0

    def line(frame, event, arg):
        nonlocal count
        count += 1
        return line

    transpile_source(source, "scale.rs")  # (imports and first-use caches, uncounted)
    macros._EXPANSIONS.clear()
    before = sys.gettrace()  # (a coverage tool's, if one runs: given back after)
    sys.settrace(lambda frame, event, arg: line)
    try:
        transpile_source(source, "scale.rs")
    finally:
        sys.settrace(before)
    return count


@pytest.mark.parametrize(("kind", "n"), [("const", 300), ("kernel", 50)])
def test_macro_expansion_grows_linearly_with_the_invocations(kind, n):
    """Four times the invocations is about four times the work (it was 11.8 times for `const`
    items: each expansion looked through the whole file for its macros; 5.1 times for kernels:
    each lowered line looked through every appended region). Timings: benchmarks/bench_macros.py."""
    from benchmarks.bench_macros import macro_source

    ratio = _lines_run(macro_source(kind, 4 * n)) / _lines_run(macro_source(kind, n))
    assert ratio < 4.3, ratio


def test_a_raw_keyword_inside_a_macro_s_arguments_stays_a_name(tmp_path):
    """`vec![self.r#await(1)]`: the arguments of `vec!`, `format!`, `assert!` are parsed again from
    their text, which must keep the `r#` (`self.await` would be an await expression); rustc's
    `stringify!(r#match)` is `r#match`."""
    src = OP.format(fields="n: usize", inits="n: a",
                    methods="    pub fn r#await(&self, k: usize) -> usize { self.n + k }\n"
                            "    pub fn r#match(&self) -> usize { assert!(self.r#await(0) < 100, \"{}\", stringify!(r#match)); "
                            "self.r#await(2) }",
                    calls="self.r#await(1), self.r#match()")
    path = tmp_path / "raw_in_macros.rs"
    path.write_text(src)
    module = rs2triton.load(path)
    assert module.P.new(5).param_shapes([], []) == [[6, 7]]
    with pytest.raises(rs2triton.runtime.host.Panic, match=r": r#match$"):
        module.P.new(200).param_shapes([], [])


def test_methods_named_as_what_the_class_body_reads_keep_it_working(tmp_path):
    """A method `classmethod` before `new`, or `Unsupported` beside a method left untranslated,
    stood for the decorator and the placeholder the class body uses after its methods."""
    src = OP.format(fields="n: usize", inits="n: a", methods="", calls="self.classmethod(), self.Unsupported()")
    src = src.replace("    pub fn new(a: usize)", "    pub fn classmethod(&self) -> usize { self.n + 1 }\n"
                      "    pub fn Unsupported(&self) -> usize { self.n + 2 }\n    pub fn new(a: usize)")
    src = src.replace("fn n_activation_inputs(&self) -> usize { 1 }",
                      "fn n_activation_inputs(&self) -> usize { other_crate::count(3) }")  # (not translated)
    path = tmp_path / "class_body_names.rs"
    path.write_text(src)
    module = rs2triton.load(path)
    assert "Unsupported(" in rs2triton.transpile_file(path).text
    p = module.P.new(5)
    assert p.param_shapes([], []) == [[6, 7]]
    with pytest.raises(NotImplementedError):
        p.n_activation_inputs()


TILED = """use teeny_triton::triton::*;

#[tiled_kernel]
pub fn t<T: Triton, D: Float, const BLOCK_SIZE: i32>({a}: In<Tile<T, D>>, {b}: Out<Tile<T, D>>, n_elements: i32) {{
    T::store({b}.tensor, {a}.tensor, {b}.mask, &[], None, None);
}}
"""


def test_a_tiled_kernel_s_prelude_names_raw_parameters_as_written():
    """`#[tiled_kernel]` writes `let r#in = Tile {..}` for a parameter `r#in` (it wrote `let in`,
    which is no Rust: the kernel came out of tree-sitter's error recovery)."""
    from rs2triton.transpiler.frontend.parse import parser
    from rs2triton.transpiler.frontend.source import SourceMap
    from rs2triton.transpiler.frontend.tiled import expand

    src = TILED.format(a="r#in", b="r#type").encode()
    expanded = expand(src, parser().parse(src), SourceMap("t.rs", src))
    assert expanded is not None and not parser().parse(expanded).root_node.has_error
    assert b"let r#in = Tile" in expanded
    def kernel(source: str) -> str:  # (the launcher names the Rust parameters: `in` or `in_`)
        text = rs2triton.transpile_source(source, "t.rs").text
        return text[text.index("@triton.jit"):text.index("# Launchers")]

    assert kernel(src.decode()) == kernel(TILED.format(a="in_", b="type"))
