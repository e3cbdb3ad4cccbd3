"""The printer lays out generated modules as ``ruff format`` does, so no formatter ever runs:
ruff (a development dependency) leaves every module of every kernel the suite knows as it is,
and lays out thousands of random statements, docstrings and launcher literals exactly as the
printer does."""

import ast
import random
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rs2triton.diagnostics import TranspileError
from rs2triton.transpiler.driver.pipeline import lower_source
from rs2triton.transpiler.emit.literals import LINE_LENGTH, docstring_lines, literal_lines
from rs2triton.transpiler.emit.module import print_statement
from tests.conftest import ROOT
from tests.ruff_format import not_as_ruff_lays_out, reformat

# ------------------------------------------------------------------ every known kernel


def _sources(tmp: Path) -> list[Path]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from gen_corpus import generate

    generate(tmp, files=35, seed=5)  # five files of each family
    dirs = [ROOT / "kernels_rs", ROOT / "tests" / "kernels", ROOT / "tests" / "filecheck", ROOT / "tests" / "fuzz_corpus"]
    return [p for d in dirs for p in sorted(d.glob("*.rs"))] + sorted(tmp.rglob("*.rs"))


def _lower_all(files, **options):
    out = []
    for path in files:
        try:
            r = lower_source(path.read_bytes(), str(path), **options)
        except TranspileError:
            continue  # fuzz inputs that are rejected
        if r.text is not None:
            out.append(r)
    return out


def test_every_known_kernel_is_laid_out_as_ruff_lays_it_out(tmp_path):
    files = _sources(tmp_path)
    variants = [{"line_comments": False}, {"line_comments": True}, {"launchers": False}]
    laid = [r for options in variants for r in _lower_all(files, **options)]
    assert len(laid) > 150
    assert [r.source_path for r in laid if not r.exact_layout] == []  # no line left long
    assert [laid[i].source_path for i in not_as_ruff_lays_out([r.text for r in laid])] == []


def test_a_long_line_of_an_unknown_shape_stays_valid_python():
    # ruff would split a long `return` at parentheses it adds; the printer leaves such a line
    # as it is (and says so): valid Python, the same bytes every time.
    long = " and ".join(f"value_number_{i}" for i in range(12))
    fn = ast.parse(f"def f():\n    return {long}\n").body[0]
    p = print_statement(fn)
    assert not p.exact and p.lines[1] == f"    return {long}"
    assert ast.dump(ast.parse("\n".join(p.lines))) == ast.dump(ast.parse(f"def f():\n    return {long}\n"))


# ------------------------------------------------------------------ random statements

NAMES = ["x", "offs", "mask", "BLOCK_N", "stride_am", "acc", "row_start", "zero_fill", "a_ptr",
         "dy_tile", "running_mean_accumulator", "sum_dy_gamma_xhat_broadcast_over_the_row"]
CALLEES = ["tl.load", "tl.where", "tl.full", "tl.sum", "tl.maximum", "_upcast_f16", "tl.math.exp", "f"]
KEYWORDS = ["mask", "other", "dtype", "axis", "eviction_policy"]
ARITHMETIC = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.LShift,
              ast.BitXor, ast.MatMult]


def _name(rng) -> ast.expr:
    return ast.Name(rng.choice(NAMES), ast.Load())


def _callee(rng) -> ast.expr:
    parts = rng.choice(CALLEES).split(".")
    node: ast.expr = ast.Name(parts[0], ast.Load())
    for p in parts[1:]:
        node = ast.Attribute(node, p, ast.Load())
    return node


def _expr(rng, depth: int, host: bool = False) -> ast.expr:
    if depth <= 0 or rng.random() < 0.2:
        return rng.choice([
            lambda: _name(rng), lambda: _name(rng), lambda: ast.Constant(rng.choice([0, 1, 2, 1024, 0.5, 1e-05, 1e20])),
            lambda: ast.Constant(rng.choice(["ieee", "evict_last", "a'b"])),
            lambda: ast.Attribute(ast.Name("tl", ast.Load()), rng.choice(["float32", "int64"]), ast.Load()),
        ])()
    kind = rng.random()
    if kind < 0.4:
        return ast.BinOp(_expr(rng, depth - 1, host), rng.choice(ARITHMETIC)(), _expr(rng, depth - 1, host))
    if kind < 0.45:  # a method call: `x.to(tl.float32)`, `(a + b).to(D)`
        return ast.Call(ast.Attribute(_expr(rng, depth - 1, host), "to", ast.Load()), [_expr(rng, 0)], [])
    if kind < 0.75:
        args = [_expr(rng, depth - 1, host) for _ in range(rng.randint(0, 3))]
        keywords = [ast.keyword(k, _expr(rng, depth - 1, host)) for k in rng.sample(KEYWORDS, rng.randint(0, 2))]
        return ast.Call(_callee(rng), args, keywords)
    if kind < 0.8:
        return ast.UnaryOp(rng.choice([ast.USub, ast.Not, ast.Invert])(), _expr(rng, depth - 1, host))
    if kind < 0.85:
        return ast.Compare(_expr(rng, depth - 1, host), [rng.choice([ast.Lt, ast.GtE, ast.Eq])()], [_expr(rng, depth - 1, host)])
    if kind < 0.9:
        return ast.IfExp(_expr(rng, depth - 1, host), _expr(rng, depth - 1, host), _expr(rng, depth - 1, host))
    if kind < 0.92:
        return ast.List([_expr(rng, depth - 1, host) for _ in range(rng.randint(0, 3))], ast.Load())
    if kind < 0.94:  # the host side's shapes: tuples, dicts of constant keys, `**`, a generator
        return ast.Tuple([_expr(rng, depth - 1, host) for _ in range(rng.randint(1, 3))], ast.Load())
    if kind < 0.95:
        keys = rng.sample(KEYWORDS, rng.randint(1, 3))
        return ast.Dict([ast.Constant(k) for k in keys], [_expr(rng, depth - 1, host) for _ in keys])
    if kind < 0.96:
        return ast.BinOp(_expr(rng, depth - 1, host), ast.Pow(), _expr(rng, depth - 1, host))
    if kind < 0.97 and host:  # (ast.unparse writes a lone generator argument in parentheses of its own)
        gen = ast.GeneratorExp(_expr(rng, depth - 1, host), [ast.comprehension(ast.Name("t", ast.Store()), _name(rng),
                                                                         [], 0)])
        return ast.Call(ast.Name(rng.choice(["sum", "max"]), ast.Load()), [gen], [])
    index = rng.choice([ast.Tuple([ast.Slice(), ast.Constant(None)], ast.Load()), _name(rng),
                        ast.Slice(_name(rng), None), ast.Slice(_expr(rng, 1), _name(rng))])
    return ast.Subscript(_name(rng), index, ast.Load())


def _statement(rng, host: bool = False) -> ast.stmt:
    value = _expr(rng, rng.randint(1, 5), host)
    kind = rng.random()
    if kind < 0.5:
        return ast.Assign([_name(rng)], value)
    if kind < 0.65:
        return ast.AugAssign(_name(rng), rng.choice([ast.Add, ast.Mult])(), value)
    if kind < 0.85:
        return ast.Expr(ast.Call(_callee(rng), [value, _expr(rng, 2)], []))
    if kind < 0.93:
        return ast.Return(value)
    if kind < 0.96:
        return ast.Raise(ast.Call(ast.Name("NotImplementedError", ast.Load()), [value], []), None)
    return ast.If(value, [ast.Pass()], [])


def _function(rng, host: bool = False) -> ast.FunctionDef:
    body: list[ast.stmt] = [_statement(rng, host) for _ in range(2)]
    for _ in range(rng.randint(0, 3)):  # nested a few blocks deep: less room on each line
        body = [ast.If(_name(rng), body, [])]
    params = [ast.arg(n) for n in rng.sample(NAMES, rng.randint(1, 9))]
    args = ast.arguments([], params, None, [], [], None, [])
    fn = ast.FunctionDef(rng.choice(["k", "a_kernel_with_a_rather_long_name"]), args, body, [], None, None)
    if sys.version_info >= (3, 12):
        fn.type_params = []
    return ast.fix_missing_locations(fn)


def _class(rng) -> ast.ClassDef:
    """A class as the host side writes them: a docstring, attributes, methods (a classmethod)."""
    body: list[ast.stmt] = [ast.Expr(ast.Constant("The op.\n\nMore about it."))] if rng.random() < 0.7 else []
    body += [ast.Assign([ast.Name(n, ast.Store())], _expr(rng, 2)) for n in ["RUST_NAME", "FIELDS"][:rng.randint(0, 2)]]
    for _ in range(rng.randint(1, 3)):
        fn = _function(rng, host=True)
        fn.args.args.insert(0, ast.arg("self"))
        if rng.random() < 0.3:
            fn.decorator_list = [ast.Name("classmethod", ast.Load())]
            fn.args.kwonlyargs, fn.args.kw_defaults = [ast.arg("D")], [ast.Constant(None)]
        body.append(fn)
    cls = ast.ClassDef("ReluForwardOp", [ast.Name("RuntimeOp", ast.Load())], [], body, [])
    if sys.version_info >= (3, 12):
        cls.type_params = []
    return ast.fix_missing_locations(cls)


def _docs_cleaned(tree: ast.Module) -> str:
    """The tree's dump with docstrings as ``ast.get_docstring`` reads them (the printer, like ruff,
    indents a docstring's lines to its body)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and ast.get_docstring(node) is not None:
            node.body[0].value.value = ast.get_docstring(node)  # type: ignore[attr-defined]
    return ast.dump(tree)


def test_random_classes_are_laid_out_as_ruff_lays_them_out():
    rng = random.Random(int(__import__('os').environ.get('LAYOUT_SEED', '20261201')))
    classes = [_class(rng) for _ in range(200)]
    printed = [print_statement(c) for c in classes]
    done = ["\n".join(p.lines) + "\n" for p in printed if p.exact]
    assert len(done) > 40
    assert not_as_ruff_lays_out(done) == []  # ruff leaves each as it is
    for c, text in zip(classes, ["\n".join(p.lines) + "\n" for p in printed], strict=True):
        assert _docs_cleaned(ast.parse(text)) == _docs_cleaned(ast.parse(ast.unparse(c)))  # the tree printed


def test_random_statements_are_laid_out_as_ruff_lays_them_out():
    rng = random.Random(int(__import__('os').environ.get('LAYOUT_SEED', '20261201')))
    functions = [_function(rng) for _ in range(1000)]
    flat = [ast.unparse(f) + "\n" for f in functions]  # Python's own printer: one line a statement
    printed = [print_statement(f) for f in functions]
    done = [("\n".join(p.lines) + "\n", want) for p, want in zip(printed, reformat(flat), strict=True) if p.exact]
    long_lines = sum(any(len(line) > LINE_LENGTH for line in text.split("\n")) for text in flat)
    assert long_lines > 500 and len(done) > 400  # many need a layout, and many of those get one
    for text, want in done:
        assert text == want


# ------------------------------------------------------------------ docstrings and literals

DOC_TEXT = st.text(st.sampled_from(list("ab `[]()\\\"'\n    é—\t\x00")), max_size=60)


@settings(max_examples=300, deadline=None)
@given(DOC_TEXT)
def test_docstrings_are_laid_out_as_ruff_lays_them_out(text):
    laid = "\n".join(["def f():", *docstring_lines(text, "    "), "    pass"]) + "\n"
    assert not_as_ruff_lays_out([laid]) == []
    value = ast.get_docstring(ast.parse(laid).body[0], clean=False)
    assert value.split() == text.split()  # the text, as ruff leaves a docstring: blanks at line ends dropped


DATA = st.recursive(
    st.one_of(st.integers(-10 ** 6, 10 ** 6), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
              st.text(st.sampled_from(list("abkn_*'")), max_size=30)),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(st.sampled_from(list("abkn_")), min_size=1,
                                                                        max_size=25), inner, max_size=6),
    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["params", "consts", "dtypes", "tuning"]), DATA, min_size=1))
def test_launcher_literals_are_laid_out_as_ruff_lays_them_out(keywords):
    body = [line for k, v in keywords.items() for line in literal_lines(f"{k}=", v, "    ", ",")]
    laid = "\n".join(["X = Launcher(", "    f,", '    "X",', *body, ")"]) + "\n"
    plain = "X = Launcher(\n    f,\n    'X',\n" + "".join(f"    {k}={v!r},\n" for k, v in keywords.items()) + ")\n"
    assert laid == reformat([plain])[0]


def test_a_node_in_two_places_is_printed_alike_in_both():
    # The lowering may put one node object in two places: each is printed for its own context.
    a_b = ast.BinOp(ast.Name("running_mean_accumulator", ast.Load()), ast.Add(), ast.Name("dy_tile", ast.Load()))
    uses = [
        ast.BinOp(ast.BinOp(a_b, ast.Mult(), ast.Name("stride_am", ast.Load())), ast.Add(),
                  ast.Call(_callee(random.Random(1)), [a_b, ast.Name("sum_dy_gamma_xhat_broadcast", ast.Load())], [])),
        ast.BinOp(ast.Call(ast.Name("f", ast.Load()), [a_b], []), ast.Sub(), ast.BinOp(a_b, ast.Mult(), a_b)),
    ]
    for value in uses:
        fn = ast.FunctionDef("k", ast.arguments([], [], None, [], [], None, []),
                             [ast.Assign([ast.Name("x", ast.Load())], value), ast.Assign([ast.Name("y", ast.Load())],
                                                                                       value)], [], None, None)
        if sys.version_info >= (3, 12):
            fn.type_params = []
        fn = ast.fix_missing_locations(fn)
        p = print_statement(fn)
        text = "\n".join(p.lines) + "\n"
        assert p.exact and text == reformat([ast.unparse(ast.parse(ast.unparse(fn))) + "\n"])[0]
