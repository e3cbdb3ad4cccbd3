"""printer.py prints exactly what the reference printer (``ast.unparse`` plus the comment
passes, ``render.unparse_reference``) prints: on every kernel the suite knows, and on
random trees of the node types it handles."""

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rs2triton.diagnostics import TranspileError
from rs2triton.transpiler.driver.pipeline import lower_source
from rs2triton.transpiler.emit import module as render
from rs2triton.transpiler.emit import printer
from rs2triton.transpiler.emit.printer import LINE_LENGTH, Printer, Unhandled, docstring_literal, print_tree
from rs2triton.transpiler.pyast import comment_marker
from tests.conftest import ROOT

# Python 3.10's ast.unparse writes tuple targets in parentheses (`(a, b) = f()`); printer.py
# writes them as 3.11 and later do, so on 3.10 whole functions may differ from the reference.
STATEMENTS_AS_311 = pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10's ast.unparse: `(a, b) = ...`")

# ------------------------------------------------------------------ every known kernel


def _sources(tmp: Path) -> list[Path]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from gen_corpus import generate

    generate(tmp, files=14, seed=3)  # two files of each family
    dirs = [ROOT / "kernels_rs", ROOT / "tests" / "kernels", ROOT / "tests" / "filecheck", ROOT / "tests" / "fuzz_corpus"]
    return [p for d in dirs for p in sorted(d.glob("*.rs"))] + sorted(tmp.rglob("*.rs"))


@STATEMENTS_AS_311
def test_every_known_kernel_prints_as_the_reference_prints_it(tmp_path, monkeypatch):
    printed: list[tuple[str, ast.AST, str]] = []

    def both(node, layout=False):
        new = print_tree(node)  # raises Unhandled: a node the lowering makes and printer.py lacks
        printed.append((new, node, render.unparse_reference(node)))
        return print_tree(node, layout)

    monkeypatch.setattr(printer, "print_tree", both)
    files = _sources(tmp_path)
    for path in files:
        for line_comments in (False, True):  # `# path:LINE` trailing comments, placed by LINE_LENGTH
            try:
                lower_source(path.read_bytes(), str(path), line_comments)
            except TranspileError:
                pass  # fuzz inputs that are rejected print nothing
    functions = [node for _, node, _ in printed if isinstance(node, ast.FunctionDef)]
    assert len(functions) > 200 and len(files) > 40
    assert any(any(getattr(a, "rs_comments", None) for a in f.args.args) for f in functions)
    for new, node, reference in printed:
        assert new == reference, getattr(node, "name", ast.dump(node))


# ------------------------------------------------------------------ random expressions

BINARY_OPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
              ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult]
UNARY_OPS = [ast.USub, ast.UAdd, ast.Invert, ast.Not]
COMPARE_OPS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn]
ODD_TEXT = st.text(st.sampled_from(list("ab '\"\\\n\t\r\x00\x7fé\u2028{}#")) | st.characters(), max_size=8)


def _name(id_):
    return ast.Name(id=id_, ctx=ast.Load())


names = st.sampled_from(["a", "b", "x_ptr", "tl", "N"]).map(_name)
numbers = st.one_of(st.integers(min_value=-(10 ** 20), max_value=10 ** 20), st.floats(),
                    st.sampled_from([1e-05, 1e16, 1e300, -0.0, 0.1, 2.5e-310, float("inf"), float("nan")]),
                    st.complex_numbers(allow_nan=True, allow_infinity=True))
constants = st.one_of(numbers, ODD_TEXT, st.booleans(), st.none(), st.just(...), st.binary(max_size=4),
                      st.tuples(numbers, ODD_TEXT), st.tuples(numbers)).map(ast.Constant)
negatives = st.one_of(st.integers(min_value=1, max_value=10 ** 6), st.floats(min_value=1e-9, max_value=1e9)).map(
    lambda v: ast.UnaryOp(op=ast.USub(), operand=ast.Constant(v)))  # pyast.const's form of a negative literal


def _op(ops):
    return st.sampled_from(ops).map(lambda cls: cls())


def _compare(left, pairs):
    return ast.Compare(left=left, ops=[op for op, _ in pairs], comparators=[c for _, c in pairs])


def _shared(x, y, which):
    """Trees holding one node object twice: ast.unparse then prints the second use at
    the precedence the first use set (printer.py must do the same)."""
    f = _name("f")
    return [
        ast.BinOp(left=x, op=ast.Mult(), right=ast.Call(func=f, args=[x], keywords=[])),
        ast.Tuple(elts=[ast.BinOp(left=x, op=ast.Pow(), right=y), x], ctx=ast.Load()),
        _compare(x, [(ast.Lt(), ast.IfExp(test=x, body=y, orelse=x))]),
        ast.Call(func=f, args=[ast.UnaryOp(op=ast.USub(), operand=x), x], keywords=[ast.keyword(arg="k", value=x)]),
        ast.List(elts=[ast.Attribute(value=x, attr="t", ctx=ast.Load()), x], ctx=ast.Load()),
        ast.BoolOp(op=ast.Or(), values=[y, x, ast.Subscript(value=x, slice=x, ctx=ast.Load()), x]),
    ][which]


def _extend(children):
    slices = st.builds(ast.Slice, st.none() | children, st.none() | children, st.none() | children)
    index = st.one_of(children, slices, st.lists(children | slices, max_size=3).map(
        lambda elts: ast.Tuple(elts=elts, ctx=ast.Load())))
    keywords = st.lists(st.builds(ast.keyword, arg=st.sampled_from(["mask", "other", None]), value=children),
                        max_size=2)
    return st.one_of(
        st.builds(ast.BinOp, left=children, op=_op(BINARY_OPS), right=children),
        st.builds(ast.UnaryOp, op=_op(UNARY_OPS), operand=children),
        st.builds(ast.BoolOp, op=_op([ast.And, ast.Or]), values=st.lists(children, min_size=2, max_size=4)),
        st.builds(_compare, children, st.lists(st.tuples(_op(COMPARE_OPS), children), min_size=1, max_size=3)),
        st.builds(ast.IfExp, test=children, body=children, orelse=children),
        st.builds(ast.Call, func=children, args=st.lists(children, max_size=3), keywords=keywords),
        st.builds(ast.Attribute, value=children, attr=st.sampled_from(["to", "dtype", "real"]),
                  ctx=st.just(ast.Load())),
        st.builds(ast.Subscript, value=children, slice=index, ctx=st.just(ast.Load())),
        st.builds(ast.Tuple, elts=st.lists(children, max_size=3), ctx=st.just(ast.Load())),
        st.builds(ast.List, elts=st.lists(children, max_size=3), ctx=st.just(ast.Load())),
    )


leaves = st.one_of(names, constants, negatives)
plain = st.recursive(leaves, _extend, max_leaves=8)
# Shared nodes come in as leaves (a tree of distinct nodes, used two or three times), so
# the printed size stays bounded.
expressions = st.recursive(leaves | st.builds(_shared, plain, plain, st.integers(0, 5)), _extend, max_leaves=12)
SETTINGS = settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(expressions)
def test_random_expressions_print_as_ast_unparse_prints_them(tree):
    assert Printer().expr(tree) == ast.unparse(tree)


@SETTINGS
@given(ODD_TEXT | st.text(st.sampled_from(list("'\"\\\n ")), max_size=8))
def test_docstrings_print_as_ast_unparse_prints_them(text):
    module = ast.Module(body=[ast.Expr(ast.Constant(text))], type_ignores=[])
    assert docstring_literal(text) == ast.unparse(module)


@pytest.mark.parametrize("tree", [
    ast.BinOp(left=ast.Constant(2), op=ast.Pow(), right=ast.BinOp(left=_name("a"), op=ast.Pow(), right=_name("b"))),
    ast.BinOp(left=ast.BinOp(left=_name("a"), op=ast.Pow(), right=_name("b")), op=ast.Pow(), right=ast.Constant(2)),
    ast.UnaryOp(op=ast.USub(), operand=ast.BinOp(left=_name("a"), op=ast.Pow(), right=ast.Constant(2))),
    ast.BinOp(left=ast.UnaryOp(op=ast.USub(), operand=ast.Constant(2)), op=ast.Pow(), right=ast.Constant(0.5)),
    ast.Attribute(value=ast.Constant(1), attr="real", ctx=ast.Load()),
    ast.Constant(1e-05), ast.Constant(float("-inf")), ast.Constant(float("nan")), ast.Constant(-3),
    ast.Constant("it's \"quoted\" \\ and\nnewline"),
    ast.BoolOp(op=ast.Or(), values=[_name("a"), _name("b"), ast.BoolOp(op=ast.And(), values=[_name("c"), _name("d")])]),
], ids=lambda t: ast.unparse(t))
def test_tricky_expressions(tree):
    assert Printer().expr(tree) == ast.unparse(tree)


# ------------------------------------------------------------------ random functions

COMMENT_TEXT = st.text(st.sampled_from(list("ab #:'\"\\é")), max_size=100)  # one line, as comment_lines gives
targets = names.map(lambda n: ast.Name(id=n.id, ctx=ast.Store()))


def _statements(depth: int):
    simple = st.one_of(
        st.builds(lambda t, v: ast.Assign(targets=[t], value=v), targets, expressions),
        st.builds(lambda ts, v: ast.Assign(targets=[ast.Tuple(elts=ts, ctx=ast.Store())], value=v),
                  st.lists(targets, min_size=1, max_size=3), expressions),
        st.builds(ast.AugAssign, target=targets, op=_op(BINARY_OPS), value=expressions),
        st.builds(lambda t, v: ast.AnnAssign(target=t, annotation=ast.Attribute(value=_name("tl"), attr="constexpr",
                                                                                ctx=ast.Load()), value=v, simple=1),
                  targets, expressions),
        st.builds(ast.Expr, expressions),
        st.builds(ast.Return, st.none() | expressions),
        st.just(ast.Pass()), st.just(ast.Break()), st.just(ast.Continue()),
        COMMENT_TEXT.map(comment_marker),
        COMMENT_TEXT.map(lambda t: comment_marker(t, trailing=True)),
        COMMENT_TEXT.map(lambda t: comment_marker("x" * 70 + t, trailing=True)),  # too long to end its line
    )
    if depth == 0:
        return simple
    body = st.lists(_statements(depth - 1), min_size=1, max_size=4)
    return st.one_of(
        simple,
        st.builds(lambda t, b, e: ast.If(test=t, body=b, orelse=e), expressions, body, st.just([]) | body),
        st.builds(lambda t, b, e: ast.If(test=t, body=b, orelse=[e]), expressions, body,
                  st.builds(lambda t, b: ast.If(test=t, body=b, orelse=[]), expressions, body)),  # elif
        st.builds(lambda t, n, b, e: ast.For(target=t, iter=ast.Call(func=_name("range"), args=[n], keywords=[]),
                                             body=b, orelse=e), targets, expressions, body, st.just([]) | body),
        st.builds(lambda t, b: ast.While(test=t, body=b, orelse=[]), expressions, body),
        _functions(depth - 1),  # a nested definition
    )


def _functions(depth: int):
    comments = st.none() | st.tuples(st.lists(COMMENT_TEXT, max_size=2), st.none() | COMMENT_TEXT)

    def arg(name, annotated, notes):
        a = ast.arg(arg=name, annotation=ast.Attribute(value=_name("tl"), attr="constexpr", ctx=ast.Load())
                    if annotated else None)
        a.rs_comments = notes
        return a

    args = st.lists(st.builds(arg, st.sampled_from(["x_ptr", "n", "BLOCK"]), st.booleans(), comments), max_size=3)
    docstrings = st.one_of(st.just([]), ODD_TEXT.map(lambda t: [ast.Expr(ast.Constant(t))]),
                           st.text(st.sampled_from(list("ab'\"\\\n")), max_size=12).map(
                               lambda t: [ast.Expr(ast.Constant(t, kind="u"))]))
    return st.builds(
        lambda a, doc, body: ast.FunctionDef(
            name="k", args=ast.arguments(posonlyargs=[], args=a, kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=doc + body, decorator_list=[ast.Attribute(value=_name("triton"), attr="jit", ctx=ast.Load())],
            returns=None, type_params=[]),
        args, docstrings, st.lists(_statements(depth), min_size=1, max_size=5))


@STATEMENTS_AS_311
@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(_functions(2))
def test_random_functions_print_as_the_reference_prints_them(fn):
    assert print_tree(fn) == render.unparse_reference(fn)


def test_a_trailing_comment_that_does_not_fit_goes_above_its_line():
    long = ast.Assign(targets=[ast.Name(id="x", ctx=ast.Store())], value=ast.Constant("y" * 70))
    body = [long, comment_marker("path.rs:12", trailing=True)]
    fn = ast.FunctionDef(name="k", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                                      defaults=[]), body=body, decorator_list=[], returns=None)
    text = print_tree(fn)
    assert text.split("\n")[1:] == ["    # path.rs:12", f"    x = '{'y' * 70}'"]
    assert len(text.split("\n")[2]) + len("  # path.rs:12") > LINE_LENGTH
    assert text == render.unparse_reference(fn)


def test_an_unknown_node_falls_back_to_the_reference():
    lam = ast.parse("def k(x):\n    y = lambda v: v + 1\n").body[0]
    lam.body.insert(0, comment_marker("kept as a comment"))
    with pytest.raises(Unhandled):
        print_tree(lam)
    assert render.unparse(lam) == render.unparse_reference(lam)
    assert "# kept as a comment\n    y = lambda v: v + 1" in render.unparse(lam)
