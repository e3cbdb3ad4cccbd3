"""The printer writes exactly the tree it is given: what it prints parses back to the same
Python AST (every parenthesis where precedence needs one), on every kernel the suite knows and on
random trees of the node types the lowering builds; comments land where they belong."""

import ast
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rs2triton.diagnostics import TranspileError
from rs2triton.transpiler.driver.pipeline import lower_source
from rs2triton.transpiler.emit.literals import LINE_LENGTH, PrinterError, comment
from rs2triton.transpiler.emit.module import print_statement
from rs2triton.transpiler.emit.printer import Printer
from rs2triton.transpiler.pyast import Comment
from tests.conftest import ROOT


def _code(tree: ast.AST) -> str:
    """``tree`` without comments, as Python's own parser sees code (a docstring's blanks as ruff
    leaves them: its words are what counts)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            if isinstance(getattr(node, field, None), list):
                setattr(node, field, [s for s in getattr(node, field) if type(s) is not Comment] or [ast.Pass()])
        if isinstance(node, ast.FunctionDef) and ast.get_docstring(node, clean=False) is not None:
            node.body[0] = ast.Expr(ast.Constant(" ".join(ast.get_docstring(node, clean=False).split())))
    return ast.dump(tree, annotate_fields=False)


# ------------------------------------------------------------------ every known kernel


def _sources(tmp: Path) -> list[Path]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from gen_corpus import generate

    generate(tmp, files=14, seed=3)  # two files of each family
    dirs = [ROOT / "kernels_rs", ROOT / "tests" / "kernels", ROOT / "tests" / "filecheck", ROOT / "tests" / "fuzz_corpus"]
    return [p for d in dirs for p in sorted(d.glob("*.rs"))] + sorted(tmp.rglob("*.rs"))


def test_every_known_kernel_prints_as_its_tree(tmp_path):
    checked = 0
    for path in _sources(tmp_path):
        for line_comments in (False, True):
            try:
                r = lower_source(path.read_bytes(), str(path), line_comments)
            except TranspileError:
                continue  # fuzz inputs that are rejected print nothing
            if r.text is None:
                continue
            printed = {n.name: n for n in ast.parse(r.text).body if isinstance(n, ast.FunctionDef)}
            for fn in r.functions:
                assert _code(printed[fn.name]) == _code(fn), (path, fn.name)
                checked += 1
    assert checked > 200


# ------------------------------------------------------------------ random expressions

BINARY_OPS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift,
              ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult]
UNARY_OPS = [ast.USub, ast.UAdd, ast.Invert, ast.Not]
COMPARE_OPS = [ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE]
ODD_TEXT = st.text(st.sampled_from(list("ab '\"\\\n\t\r\x00\x7fé\u2028{}#")) | st.characters(), max_size=8)


def _name(id_):
    return ast.Name(id=id_, ctx=ast.Load())


names = st.sampled_from(["a", "b", "x_ptr", "tl", "N"]).map(_name)
numbers = st.one_of(st.integers(min_value=0, max_value=10 ** 20), st.floats(min_value=0.0, allow_nan=False),
                    st.sampled_from([1e-05, 1e16, 1e300, 0.1, 2.5e-310, float("inf")]))
constants = st.one_of(numbers, ODD_TEXT, st.booleans(), st.none()).map(ast.Constant)
negatives = st.one_of(st.integers(min_value=1, max_value=10 ** 6), st.floats(min_value=1e-9, max_value=1e9)).map(
    lambda v: ast.UnaryOp(op=ast.USub(), operand=ast.Constant(v)))  # pyast.const's form of a negative literal


def _op(ops):
    return st.sampled_from(ops).map(lambda cls: cls())


def _compare(left, pairs):
    return ast.Compare(left=left, ops=[op for op, _ in pairs], comparators=[c for _, c in pairs])


def _shared(x, y, which):
    """Trees holding one node object twice (as the lowering may build them): each use is
    printed for its own context."""
    f = _name("f")
    return [
        ast.BinOp(left=x, op=ast.Mult(), right=ast.Call(func=f, args=[x], keywords=[])),
        ast.Tuple(elts=[ast.BinOp(left=x, op=ast.Mod(), right=y), x], ctx=ast.Load()),
        _compare(x, [(ast.Lt(), ast.IfExp(test=x, body=y, orelse=x))]),
        ast.Call(func=f, args=[ast.UnaryOp(op=ast.USub(), operand=x), x], keywords=[ast.keyword(arg="k", value=x)]),
        ast.List(elts=[ast.Attribute(value=x, attr="t", ctx=ast.Load()), x], ctx=ast.Load()),
        ast.BoolOp(op=ast.Or(), values=[y, x, ast.Subscript(value=x, slice=x, ctx=ast.Load()), x]),
    ][which]


def _extend(children):
    slices = st.builds(ast.Slice, st.none() | children, st.none() | children, st.none() | children)
    index = st.one_of(children, slices, st.lists(children | slices, max_size=3).map(
        lambda elts: ast.Tuple(elts=elts, ctx=ast.Load())))
    keywords = st.lists(st.builds(ast.keyword, arg=st.sampled_from(["mask", "other"]), value=children),
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
def test_random_expressions_print_as_their_tree(tree):
    assert _code(ast.parse(Printer().expr(tree), mode="eval").body) == _code(tree)


@pytest.mark.parametrize("source,printed", [
    ("-(a % 2)", None), ("(-2) % 0.5", "-2 % 0.5"), ("1 .real", "(1).real"), ("0.5 .to(x)", "(0.5).to(x)"),
    ("1e-05", None), ("1e309", None), ("1e+20", "1e20"), ("-3", None), ("a or b or (c and d)", None),
    ("(a or b) or c", None), ("(a, b)[0]", None), ("f((a, b))", None),
    ("a if b else (c if d else e)", "a if b else c if d else e"), ("(a if b else c) + d", None),
    ("not (a < b)", "not a < b"), ("-(-a)", "--a"), ("(a < b) < c", None), ("a[b : c + 1]", None),
    ("a[1:, None]", None), ("(a + b).to(c)", None), ("~(a | b)", None), ("a - (b - c)", None),
    ("a * (b // c)", None), ("(a << b) + c", "(a << b) + c"), ("'it\\'s'", "\"it's\""), ("'say \"hi\"'", None),
], ids=str)
def test_tricky_expressions(source, printed):
    tree = ast.parse(source, mode="eval").body
    text = Printer().expr(tree)
    assert text == (printed or source)
    assert _code(ast.parse(text, mode="eval").body) == _code(tree)


def test_a_node_the_lowering_never_builds_is_a_printer_error():
    fn = ast.parse("def k(x):\n    y = {x, 1}\n").body[0]
    with pytest.raises(PrinterError, match="Set"):
        print_statement(fn)


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
        st.just(ast.Pass()),
        COMMENT_TEXT.map(lambda t: Comment(text=t, trailing=False)),
        COMMENT_TEXT.map(lambda t: Comment(text=t, trailing=True)),
        COMMENT_TEXT.map(lambda t: Comment(text="x" * 70 + t, trailing=True)),  # too long to end its line
    )
    if depth == 0:
        return simple
    body = st.lists(_statements(depth - 1), min_size=1, max_size=4).filter(_has_code)
    return st.one_of(
        simple,
        st.builds(lambda t, b, e: ast.If(test=t, body=b, orelse=e), expressions, body, st.just([]) | body),
        st.builds(lambda t, b, e: ast.If(test=t, body=b, orelse=[e]), expressions, body,
                  st.builds(lambda t, b: ast.If(test=t, body=b, orelse=[]), expressions, body)),  # elif
        st.builds(lambda t, n, b, e: ast.For(target=t, iter=ast.Call(func=_name("range"), args=[n], keywords=[]),
                                             body=b, orelse=e), targets, expressions, body, st.just([]) | body),
        st.builds(lambda t, b: ast.While(test=t, body=b, orelse=[]), expressions, body),
    )


def _functions(depth: int):
    comments = st.none() | st.tuples(st.lists(COMMENT_TEXT, max_size=2), st.none() | COMMENT_TEXT)

    def arg(name, annotated):
        return ast.arg(arg=name, annotation=ast.Attribute(value=_name("tl"), attr="constexpr", ctx=ast.Load())
                       if annotated else None)

    args = st.lists(st.builds(arg, st.sampled_from(["x_ptr", "n", "BLOCK"]), st.booleans()), max_size=3,
                    unique_by=lambda a: a.arg)
    notes = st.dictionaries(st.sampled_from(["x_ptr", "n", "BLOCK"]), comments.filter(lambda c: c is not None))
    docstrings = st.one_of(st.just([]), ODD_TEXT.map(lambda t: [ast.Expr(ast.Constant(t))]))
    return st.builds(
        lambda a, doc, body, n: (ast.FunctionDef(
            name="k", args=ast.arguments(posonlyargs=[], args=a, kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=doc + body, decorator_list=[ast.Attribute(value=_name("triton"), attr="jit", ctx=ast.Load())],
            returns=None, type_params=[]), n),
        args, docstrings, st.lists(_statements(depth), min_size=1, max_size=5).filter(_has_code), notes)


def _has_code(body: list) -> bool:
    """A block holds a statement besides comments (the lowering adds `pass` to one that would not)."""
    return any(type(s) is not Comment for s in body)


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(_functions(2))
def test_random_functions_print_as_their_tree_with_their_comments(case):
    fn, notes = case
    lines = print_statement(fn, notes).lines
    text = "\n".join(lines) + "\n"
    assert _code(ast.parse(text).body[0]) == _code(fn)
    comments = [n.text for n in ast.walk(fn) if type(n) is Comment]
    comments += [c for above, after in (notes.get(a.arg, ([], None)) for a in fn.args.args)
                 for c in [*above, *([after] if after is not None else [])]]
    for c in comments:  # each comment is printed whole, as a comment
        assert any(line.endswith(comment(c)) or line.strip() == comment(c) for line in lines), c


def test_a_trailing_comment_that_does_not_fit_goes_above_its_line():
    long = ast.Assign(targets=[ast.Name(id="x", ctx=ast.Store())], value=ast.Constant("y" * 70))
    body = [long, Comment(text="path.rs:12", trailing=True)]
    fn = ast.FunctionDef(name="k", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[],
                                                      defaults=[]), body=body, decorator_list=[], returns=None)
    lines = print_statement(fn).lines
    assert lines[1:] == ["    # path.rs:12", '    x = "' + "y" * 70 + '"']
    assert len(lines[2]) + len("  # path.rs:12") > LINE_LENGTH


def test_the_line_map_counts_comment_lines_after_a_header_as_the_header():
    source = "def k(x):\n    if x:\n        # a note\n        y = 1\n    # between\n    z = 2\n"
    fn = ast.parse(source).body[0]
    fn.lineno, fn.body[0].lineno, fn.body[0].body[0].lineno, fn.body[1].lineno = 10, 11, 13, 15
    fn.body[0].body.insert(0, Comment(text="a note", trailing=False))
    fn.body.insert(1, Comment(text="between", trailing=False))
    p = print_statement(fn)
    assert "\n".join(p.lines) + "\n" == source
    assert p.line_map() == {1: 10, 2: 11, 3: 11, 4: 13, 6: 15}  # as a parser sees the statements' lines
