"""Host expressions beyond the shared ones: ``self``, ``()``, indexing and slicing, references,
arrays, struct literals, ``if``/``match``/blocks/``loop`` used as values, and the value macros
(``vec![..]``, ``format!``, ``concat!``, ``stringify!``). Literals, names, paths, operators,
casts, tuples and fields are the shared rules' (:mod:`rs2triton.transpiler.lowering.expressions`)."""

from __future__ import annotations

import ast
import re

from tree_sitter import Node

from rs2triton.rust.semantics import ConstError
from rs2triton.rust.std import FLOAT_METHODS, INT_METHODS
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES
from rs2triton.transpiler.frontend.parse import named_children, parser, part, text, written
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.expressions import rust_string
from rs2triton.transpiler.lowering.host.lowerer import HostLowerer, assign_to
from rs2triton.transpiler.lowering.lowerer import COMMENTS
from rs2triton.transpiler.lowering.registry import HOST, expression
from rs2triton.transpiler.lowering.values import (
    NONE_TY,
    STR,
    UNKNOWN,
    USIZE,
    Kind,
    Ty,
    Val,
    container,
    known_value,
)
from rs2triton.transpiler.pyast import LOAD, STORE, call, const, name


@expression("self", target=HOST)
def self_(lw: HostLowerer, node: Node) -> Val:
    if lw.in_classmethod:
        raise lw.rejects(node, "E0424", "`self` is not available here", "this function has no `self` parameter")
    return Val(name("self"), Ty(Kind.STRUCT, lw.struct))


@expression("unit_expression", target=HOST)
def unit(lw: HostLowerer, node: Node) -> Val:
    return Val(const(None), NONE_TY)


@expression("char_literal", target=HOST)
def char_literal(lw: HostLowerer, node: Node) -> Val:
    try:
        value = rust_string('"' + text(node)[1:-1].replace('"', '\\"') + '"')
    except ValueError as e:
        raise lw.err(node, "E0001", f"invalid character literal: {e}") from None
    if len(value) != 1:
        raise lw.err(node, "E0001", "character literal may only contain one codepoint", "use a string: `\"..\"`")
    return Val(ast.Constant(value), Ty(Kind.STR, "char"))


@expression("reference_expression", target=HOST)
def reference(lw: HostLowerer, node: Node) -> Val:
    return lw.expr(part(node, "value"))  # `&x`, `&mut x`: the same value in Python


@expression("index_expression", target=HOST)
def index(lw: HostLowerer, node: Node) -> Val:
    value_node, index_node = [c for c in named_children(node) if c.type not in COMMENTS][:2]
    base = lw.expr(value_node)
    if base.ty.kind not in (Kind.SEQ, Kind.ARRAY, Kind.UNKNOWN):
        raise lw.rejects(node, "E0608", f"cannot index into a value of type {base.ty.kind.value}", None)
    if index_node.type == "range_expression":
        lo, hi = range_bounds(lw, index_node)
        return Val(call(lw.helper("subslice"), [base.expr, lo or const(None), hi or const(None)]),
                   container(Kind.SEQ, base.ty.inner))
    if index_node.type == "unary_expression" and text(index_node).startswith("-"):
        raise lw.err(index_node, "E0014", "negative integers cannot be used to index on a slice",
                     "slices are indexed by `usize`")
    lw.hint(index_node, USIZE)
    i = lw.expr(index_node)
    if i.ty.elem not in ("usize", None) and not i.weak:
        raise lw.rejects(index_node, "E0277", f"the type `[T]` cannot be indexed by `{i.ty.elem}`",
                         "slices are indexed by `usize`")
    at = known_value(i)  # (a literal, or what rustc's constant propagation knows: `let k = 5; a[k]`)
    i = lw.settle(i, USIZE, index_node)
    if base.ty.kind is Kind.ARRAY and base.ty.length is not None and at is not None and type(at.value) is int \
            and at.value >= base.ty.length:
        with rustc.lints_on(lw, node, at.via):
            raise ConstError("this operation will panic at runtime",
                             f"index out of bounds: the length is {base.ty.length} but the index is {at.value}")
    return Val(ast.Subscript(value=base.expr, slice=i.expr, ctx=LOAD), base.ty.inner)


def range_parts(node: Node) -> tuple[Node | None, Node | None]:
    """The start and end of a range expression (either may be absent)."""
    start, end = node.child_by_field_name("start"), node.child_by_field_name("end")
    parts = [c for c in named_children(node) if c.type not in COMMENTS]
    if start is None and end is None and parts:  # (the grammar's positional children)
        op_at = next(c for c in node.children if c.type in ("..", "..="))
        for p in parts:
            if p.end_byte <= op_at.start_byte:
                start = p
            else:
                end = p
    return start, end


def range_bounds(lw: HostLowerer, node: Node) -> tuple[ast.expr | None, ast.expr | None]:
    """The Python bounds of a Rust range `a..b` / `a..=b` / `..b` / `a..`."""
    start, end = range_parts(node)
    inclusive = any(c.type == "..=" for c in node.children)
    lo = hi = None
    if start is not None:
        lw.hint(start, USIZE)
        lo = lw.settle(lw.expr(start), USIZE, start).expr
    if end is not None:
        lw.hint(end, USIZE)
        hi = lw.settle(lw.expr(end), USIZE, end).expr
        if inclusive:
            hi = ast.BinOp(left=hi, op=ast.Add(), right=const(1))
    return lo, hi


@expression("array_expression", target=HOST)
def array(lw: HostLowerer, node: Node) -> Val:
    length = node.child_by_field_name("length")
    items = [c for c in named_children(node) if c.type not in COMMENTS]
    if length is not None:
        item = lw.settle(lw.expr(items[0]), None, items[0])
        lw.hint(length, USIZE)
        n = lw.settle(lw.expr(length), USIZE, length)
        return Val(repeat(item, n.expr), container(Kind.SEQ, item.ty))
    vals = [lw.expr(c) for c in items]
    typed = next((v.ty for v in vals if not v.weak), None)
    vals = [lw.settle(v, typed, c) for v, c in zip(vals, items, strict=True)]
    return Val(ast.Tuple(elts=[v.expr for v in vals], ctx=LOAD),
               Ty(Kind.ARRAY, None, (vals[0].ty if vals else UNKNOWN,), length=len(vals)))


def repeat(item: Val, n: ast.expr) -> ast.expr:
    """``[item; n]``: a list of n items (each its own copy when it is a list, as Rust clones it)."""
    if item.ty.kind in (Kind.SEQ, Kind.ARRAY):
        return ast.ListComp(elt=item.expr, generators=[ast.comprehension(target=ast.Name("_", STORE),
                                                                         iter=call("range", [n]), ifs=[], is_async=0)])
    return ast.BinOp(left=ast.List(elts=[item.expr], ctx=LOAD), op=ast.Mult(), right=n)


@expression("struct_expression", target=HOST)
def struct_literal(lw: HostLowerer, node: Node) -> Val:
    """``Self { a, b: x }``: the op's own struct, built by keyword (``cls(a=a, b=x)``)."""
    struct = text(part(node, "name")).split("::")[-1].split("<")[0].strip()
    if struct == "Self":
        struct = lw.struct
    if struct != lw.struct or struct not in lw.module.structs:
        raise lw.err(node, "E0002", f"a `{struct} {{ .. }}` value", "host code builds the op's own struct only")
    fields = lw.module.structs[struct]
    keywords: list[ast.keyword] = []
    for init in named_children(part(node, "body")):
        if init.type in COMMENTS:
            continue
        if init.type == "shorthand_field_initializer":
            field = text(init)
            value_node = init.named_children[0] if init.named_children else init
        elif init.type == "field_initializer":
            field, value_node = text(part(init, "field")), part(init, "value")
        else:
            raise lw.err(init, "E0002", "`..` in a struct expression", "give every field")
        fty = fields.get(field)
        if fty is None:
            raise lw.rejects(init, "E0560", f"struct `{struct}` has no field named `{field}`", None)
        if fty.kind is Kind.PHANTOM:
            continue
        lw.hint(value_node, fty)
        v = lw.settle(lw.expr(value_node), fty, value_node)
        if v.ty.kind is Kind.KERNEL and fty.kind is not Kind.KERNEL:
            # a `String` field given a kernel's `source` holds that kernel (as its source stands for it)
            lw.module.source_fields.setdefault(struct, {})[field] = v.ty.elem or ""
        keywords.append(ast.keyword(arg=lw.module.field_key(struct, field), value=v.expr))
    if lw.in_classmethod:  # `new(..., *, D=None)` hands its type parameters on
        keywords += [ast.keyword(arg=tp, value=name(tp)) for tp in lw.type_params]
    owner = name("cls") if lw.in_classmethod else call("type", [name("self")])
    return Val(ast.Call(func=owner, args=[], keywords=keywords), Ty(Kind.STRUCT, struct))


def condition(lw: HostLowerer, node: Node) -> ast.expr:
    if node.type in ("let_condition", "let_chain"):
        raise lw.err(node, "E0002", "`if let` / `while let` in host code", "compare with `is_some()` and `unwrap()`")
    v = lw.narrow(lw.expr(node), node)
    if v.ty.elem not in ("bool", None) or v.ty.kind in (Kind.SEQ, Kind.ARRAY, Kind.PTR, Kind.STR, Kind.OPTION):
        raise lw.rejects(node, "E0308", f"mismatched types: expected `bool`, found `{v.ty.elem or v.ty.kind.value}`",
                     "Rust has no truthiness: compare explicitly (`x != 0`)")
    return v.expr


def iterable(lw: HostLowerer, node: Node) -> Val:
    """What a `for` loop iterates: a range, an iterator, a slice, an array."""
    v = lw.expr(node)
    if v.ty.kind not in (Kind.ITER, Kind.SEQ, Kind.ARRAY):
        raise lw.rejects(node, "E0277", f"a value of kind {v.ty.kind.value} is not an iterator", None)
    return Val(v.expr, container(Kind.ITER, v.ty.inner))


def closure_function(lw: HostLowerer, arg: Node, param_types: list[Ty | None]) -> tuple[ast.expr, Ty]:
    """A closure (``|acc, (i, x)| ..``) as a Python ``lambda``, its patterns bound to what they read of
    its parameters; or a path to a scalar method (``f32::max``) as that method."""
    if arg.type == "scoped_identifier":
        owner, _, method = text(arg).replace(" ", "").rpartition("::")
        owner = owner.split("::")[-1]
        table = INT_METHODS if owner in INT_TYPES else FLOAT_METHODS if owner in FLOAT_TYPES else {}
        if method in table:
            returns = Ty(Kind.SCALAR, owner) if table[method].returns == "Self" else UNKNOWN
            return ast.Attribute(lw.helper(owner), method, LOAD), returns
    if arg.type != "closure_expression":
        raise lw.err(arg, "E0002", "a function passed where a closure is translated", "write `|x| f(x)`")
    params = [p for p in named_children(part(arg, "parameters")) if p.type not in COMMENTS]
    if len(params) != len(param_types):
        raise lw.rejects(arg, "E0593", f"this closure takes {len(params)} arguments but {len(param_types)} are given")
    if part(arg, "body").type in _STATEMENT_BODIES:
        return _closure_def(lw, arg, params, param_types)
    with lw.names.scope():
        args = _closure_params(lw, params, param_types)
        statements: list[ast.stmt] = []
        with lw.into(statements):
            body = lw.settle(lw.expr(part(arg, "body")), None, arg)
    if statements:
        raise lw.err(arg, "E0002", "a closure whose body needs statements", "make it one expression")
    lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[], defaults=[]),
                     body=body.expr)
    return lam, body.ty


def _closure_params(lw: HostLowerer, params: list[Node], param_types: list[Ty | None]) -> list[ast.arg]:
    """A closure's parameters, declared in the scope open now (a pattern's names bound to what they
    read of a parameter of its own); a parameter's annotation wins over the type it is given."""
    args: list[ast.arg] = []
    for p, ty in zip(params, param_types, strict=True):
        pattern = p.child_by_field_name("pattern") if p.type == "parameter" else p
        assert pattern is not None
        if p.type == "parameter" and p.child_by_field_name("type") is not None:
            ty = lw.rust_type(p.child_by_field_name("type"))
        if pattern.type == "identifier":
            py = lw.names.declare(text(pattern), ty or UNKNOWN)
        else:
            py = lw.names.fresh("p")
            _bind_reads(lw, pattern, name(py), ty or UNKNOWN)
        args.append(ast.arg(arg=py))
    return args


# A closure body that is a statement (or a block of them): the closure is a nested `def`.
_STATEMENT_BODIES = frozenset({"assignment_expression", "compound_assignment_expr", "block"})


def _closure_def(lw: HostLowerer, arg: Node, params: list[Node], param_types: list[Ty | None]) -> tuple[ast.expr, Ty]:
    """A closure whose body is a statement or a block (`|d| c = c.wrapping_add(d)`) as a nested
    ``def`` emitted before the statement that uses it; the names it assigns of the enclosing
    function (what it captures by `&mut`) are its ``nonlocal``s, as Rust's `FnMut` writes them."""
    fn = lw.names.fresh("closure")
    body: list[ast.stmt] = []
    returned: list[Ty] = []

    def give(lw_: HostLowerer, v: Val, node: Node) -> None:
        if v.ty.kind is not Kind.NONE:
            v = lw_.settle(v, None, node)
            returned.append(v.ty)
            lw_.emit(ast.Return(value=v.expr), node)

    with lw.names.scope():
        args = _closure_params(lw, params, param_types)
        with lw.into(body):
            lw.value_into(part(arg, "body"), give)
        own = set(lw.names.bindings())
    assigned = {t.id for s in body for n in ast.walk(s) if isinstance(n, ast.Assign | ast.AugAssign)
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    captured = sorted(assigned - own - {a.arg for a in args})
    prelude: list[ast.stmt] = [ast.Nonlocal(names=captured)] if captured else []
    lw.emit(ast.FunctionDef(name=fn, args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[],
                                                         defaults=[]),
                            body=prelude + body or [ast.Pass()], decorator_list=[], returns=None), arg)
    return name(fn), returned[0] if returned else NONE_TY


def _bind_reads(lw: HostLowerer, pattern: Node, value: ast.expr, ty: Ty) -> None:
    """Bind a pattern's names to what they read of ``value`` (``(i, &x)`` of ``p``: ``p[0]``, ``p[1]``)."""
    kind = pattern.type
    if kind in ("reference_pattern", "ref_pattern", "mut_pattern"):
        _bind_reads(lw, pattern.named_children[-1], value, ty)
        return
    if text(pattern) == "_":
        return
    if kind == "identifier":
        lw.names.declare(text(pattern), ty)
        b = lw.names.lookup(text(pattern))
        assert b is not None
        b.expr = value
        return
    if kind == "tuple_pattern":
        subs = [c for c in pattern.children if c.type not in ("(", ")", ",", *COMMENTS)]
        items = ty.items if ty.kind is Kind.TUPLE and len(ty.items) == len(subs) else (UNKNOWN,) * len(subs)
        for i, (sub, item) in enumerate(zip(subs, items, strict=True)):
            _bind_reads(lw, sub, ast.Subscript(value=value, slice=const(i), ctx=LOAD), item)
        return
    raise lw.err(pattern, "E0002", f"this closure pattern (`{text(pattern)}`)", "bind names or tuples of names")


# ------------------------------------------------------------------ statements as values


def hoisted(lw: HostLowerer, node: Node) -> Val:
    """A block, ``if``, ``match`` or ``loop`` in the middle of an expression: lowered into a
    variable of its own before the statement that uses it."""
    py = lw.names.fresh("value")
    bound: list[Ty] = []
    lw.value_into(node, assign_to(py, None, bound))
    return Val(name(py), bound[0] if bound else UNKNOWN)


@expression("if_expression", target=HOST)
def if_value(lw: HostLowerer, node: Node) -> Val:
    """``if c { a } else { b }`` inside an expression: ``a if c else b`` where both branches are
    plain values, else a variable assigned in each branch."""
    alt = node.child_by_field_name("alternative")
    cons = part(node, "consequence")
    other = alt.named_children[-1] if alt is not None and alt.named_children else None
    if other is not None and _single(cons) is not None and (other.type != "block" or _single(other) is not None):
        body: list[ast.stmt] = []
        with lw.into(body):
            test = condition(lw, part(node, "condition"))
            a = lw.expr(_single(cons))  # type: ignore[arg-type]
            b = lw.expr(_single(other) if other.type == "block" else other)  # type: ignore[arg-type]
        if not body:
            typed = a.ty if not a.weak else b.ty
            a, b = lw.settle(a, typed, node), lw.settle(b, typed, node)
            return Val(ast.IfExp(test=test, body=a.expr, orelse=b.expr), a.ty)
    return hoisted(lw, node)


def _single(block: Node) -> Node | None:
    real = [c for c in named_children(block) if c.type not in COMMENTS]
    if len(real) == 1 and real[0].type not in ("let_declaration", "expression_statement", "macro_invocation"):
        return real[0]
    return None


@expression("block", "unsafe_block", "match_expression", "loop_expression", target=HOST)
def statement_value(lw: HostLowerer, node: Node) -> Val:
    """A block of one expression is that expression (``unsafe { p.add(n) }``); the rest, hoisted."""
    inner = next((c for c in named_children(node) if c.type == "block"), None) if node.type == "unsafe_block" else node
    if inner is not None and inner.type == "block" and _single(inner) is not None:
        with lw.names.scope(python_block=False):
            return lw.expr(_single(inner))  # type: ignore[arg-type]
    return hoisted(lw, node)


@expression("closure_expression", target=HOST)
def closure(lw: HostLowerer, node: Node) -> Val:
    """A closure as a value (``let f = |x: i32| x * k;``): a ``lambda`` over what it captures (one that
    changes what it captures, or needs statements, is not translated)."""
    params = [p for p in named_children(part(node, "parameters")) if p.type not in COMMENTS]
    fn, returns = closure_function(lw, node, [None] * len(params))
    return Val(fn, Ty(Kind.FN, None, (returns,)))


@expression("try_expression", target=HOST)
def try_(lw: HostLowerer, node: Node) -> Val:
    """``e?`` of an ``Option``: ``None`` returned at once, the value otherwise."""
    inner = next(c for c in named_children(node) if c.type not in COMMENTS)
    v = lw.expr(inner)
    if v.ty.kind is not Kind.OPTION:
        raise lw.err(node, "E0002", "`?` on a value that is not an `Option`", "host code's `?` is Option's")
    py = lw.names.fresh("value")
    lw.emit(ast.Assign(targets=[ast.Name(py, STORE)], value=v.expr), node)
    lw.emit(ast.If(test=ast.Compare(left=name(py), ops=[ast.Is()], comparators=[const(None)]),
                   body=[ast.Return(value=const(None))], orelse=[]), node)
    return Val(name(py), v.ty.inner)


# ------------------------------------------------------------------ macros


def reparse(lw: HostLowerer, source: str, wrap: str, node: Node) -> Node:
    """Tokens of a macro's arguments parsed as Rust: ``wrap`` puts them where an expression list
    is expected (``f({})``, ``[{}]``); the node of that expression."""
    tree = parser().parse(("fn __rs2triton() { " + wrap.format(source) + "; }").encode())
    if tree.root_node.has_error:
        raise lw.err(node, "E0002", "macro arguments that do not parse as expressions")
    fn_body = tree.root_node.named_children[0].child_by_field_name("body")
    assert fn_body is not None
    stmt = fn_body.named_children[0]
    return stmt.named_children[0] if stmt.type == "expression_statement" else stmt


def macro_args(lw: HostLowerer, node: Node) -> list[Node]:
    tree = next((c for c in node.children if c.type == "token_tree"), None)
    if tree is None:
        return []
    inner = written(tree)[1:-1]  # (as written: `r#await` stays a name when parsed again)
    if not inner.strip():
        return []
    call_node = reparse(lw, inner, "__f({})", node)
    args = call_node.child_by_field_name("arguments")
    return [a for a in named_children(args) if a.type not in COMMENTS] if args is not None else []


def const_string(lw: HostLowerer, node: Node) -> str | None:
    """A string known now: a literal, ``concat!(...)`` of such, ``stringify!(tokens)``."""
    if node.type in ("string_literal", "raw_string_literal"):
        v = lw.expr(node)
        return v.expr.value if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, str) else None
    if node.type == "macro_invocation":
        macro = text(node.child_by_field_name("macro") or node).split("::")[-1]
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        if macro == "stringify" and tree is not None:
            return " ".join(written(tree)[1:-1].split())
        if macro == "concat":
            with lw.anchored(node):
                parts = [const_string(lw, a) for a in macro_args(lw, node)]
            if all(p is not None for p in parts):
                return "".join(p for p in parts if p is not None)
    return None


_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


def format_message(lw: HostLowerer, args: list[Node], node: Node) -> ast.expr:
    """A ``format!``-style message: the template (a literal, ``concat!``...) with its ``{}``,
    ``{:?}``, ``{0}`` and ``{name}`` placeholders filled by ``str.format`` at run time (the Rust
    text stays data; inline names are the arguments they name)."""
    with lw.anchored(node):
        template = const_string(lw, args[0]) if args else None
        if template is None:
            raise lw.err(args[0] if args else node, "E0002", "a format string that is not a string literal",
                         "rustc: format argument must be a string literal")
        values = [lw.narrow(lw.expr(a), a) for a in args[1:]]
        out: list[str] = []
        used: list[ast.expr] = []
        implicit = 0
        pos = 0
        for m in _PLACEHOLDER.finditer(template):
            out.append(template[pos:m.start()].replace("{", "{{").replace("}", "}}"))
            pos = m.end()
            tok = m.group(0)
            if tok in ("{{", "}}"):
                out.append(tok)
                continue
            if m.group(1) is None:
                raise lw.err(node, "E0002", f"invalid format string: unmatched `{tok}`", "escape it as `{{` or `}}`")
            arg, _, spec = m.group(1).partition(":")
            arg = arg.strip()
            if arg == "":
                if implicit >= len(values):
                    raise lw.err(node, "E0002", "format string has more `{}` than arguments")
                value = values[implicit]
                implicit += 1
            elif arg.isdigit():
                if int(arg) >= len(values):
                    raise lw.err(node, "E0002", f"invalid reference to positional argument {arg}")
                value = values[int(arg)]
            else:
                b = lw.names.lookup(arg)
                if b is None:
                    raise lw.rejects(node, "E0425", f"cannot find value `{arg}` in this scope")
                value = Val(b.expr if b.expr is not None else name(b.py), b.ty)
            used.append(shown(lw, value, spec))
            out.append("{}")
        out.append(template[pos:].replace("{", "{{").replace("}", "}}"))
    py_template = "".join(out)
    if not used:
        return ast.Constant(py_template.replace("{{", "{").replace("}}", "}"))
    return call("str.format", [ast.Constant(py_template), *used])


def shown(lw: HostLowerer, v: Val, spec: str = "") -> ast.expr:
    """``v`` as Rust's ``{:spec}`` writes it: an integer or a string with no spec as it is, the rest
    through ``display`` (``1.0`` is ``1``, ``true`` is ``true``, ``{:.2}`` is Rust's precision)."""
    elem = v.ty.elem or ""
    if not spec and (elem in INT_TYPES or v.ty.kind is Kind.STR):
        return v.expr
    return call(lw.helper("display"), [v.expr, ast.Constant(elem)] + ([ast.Constant(spec)] if spec else []))


@expression("macro_invocation", target=HOST)
def macro_value(lw: HostLowerer, node: Node) -> Val:
    macro = text(node.child_by_field_name("macro") or node).split("::")[-1]
    if macro == "vec":
        tree = next((c for c in node.children if c.type == "token_tree"), None)
        inner = written(tree)[1:-1] if tree is not None else ""
        if not inner.strip():
            return Val(ast.List(elts=[], ctx=LOAD), container(Kind.SEQ, UNKNOWN))
        with lw.anchored(node):
            v = lw.expr(reparse(lw, inner, "[{}]", node))
        if isinstance(v.expr, ast.Tuple):
            return Val(ast.List(elts=v.expr.elts, ctx=LOAD), container(Kind.SEQ, v.ty.inner))
        return Val(v.expr, container(Kind.SEQ, v.ty.inner))
    if macro == "format":
        return Val(format_message(lw, macro_args(lw, node), node), STR)
    s = const_string(lw, node)
    if s is not None:
        return Val(ast.Constant(s), STR)
    if macro in ("panic", "unreachable", "unimplemented", "todo", "assert", "assert_eq", "assert_ne"):
        raise lw.err(node, "E0002", f"`{macro}!` inside an expression", "make it a statement of its own")
    raise lw.err(node, "E0002", f"the macro `{macro}!` in host code",
                 "host code's macros are vec!, format!, concat!, stringify!, panic!-style and assert!-style ones")
