"""Host statements and control flow: ``let`` with patterns, assignments, blocks, ``if``, ``match``,
``return``, panics and assertions (loops: :mod:`.loops`).

Each rule lowers its node into the lowerer's current sink (:mod:`.lowerer`): in statement
position the sink discards the value, in value position each branch ends by giving its value
to it (a ``return``, an assignment).
"""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES
from rs2triton.transpiler.frontend.parse import named_children, part, text, written
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.host.expressions import condition, format_message, macro_args, shown
from rs2triton.transpiler.lowering.host.lowerer import HostLowerer, assign_to, discard, returning
from rs2triton.transpiler.lowering.lowerer import COMMENTS, names_in, unparen
from rs2triton.transpiler.lowering.operators import binop
from rs2triton.transpiler.lowering.registry import HOST, STATEMENTS, statement
from rs2triton.transpiler.lowering.values import BOOL, NONE_TY, PTR, SHAPE, UNKNOWN, Kind, Ty, Val
from rs2triton.transpiler.pyast import LOAD, STORE, call, const, literal_value, name

_STATEMENT_KINDS = ("let_declaration", "expression_statement", "empty_statement", "function_item", "const_item",
                    "use_declaration", "attribute_item", "struct_item", "impl_item", "macro_definition", *COMMENTS)
_BLOCK_LIKE = ("if_expression", "match_expression", "block", "unsafe_block", "loop_expression", "while_expression",
               "for_expression")


# ------------------------------------------------------------------ blocks


def _tail(children: list[Node]) -> tuple[Node | None, Node | None]:
    """(the node the statements stop at, the block's value expression), or (None, None)."""
    real = [c for c in children if c.type not in COMMENTS]
    if not real:
        return None, None
    last = real[-1]
    if last.type == "expression_statement":
        if any(c.type == ";" for c in last.children) or not last.named_children:
            return None, None
        inner = last.named_children[0]
        return (last, inner) if inner.type in _BLOCK_LIKE else (None, None)
    if last.type in _STATEMENT_KINDS or last.type.endswith("_item"):
        return None, None
    return last, last


@statement("block", target=HOST)
def block(lw: HostLowerer, node: Node) -> None:
    """`{ stmts; tail }`: the statements, then the tail into the sink (a block without one is `()`)."""
    sink = lw.sink
    children = list(node.named_children)
    stop, tail = _tail(children)
    with lw.names.scope(python_block=False):
        lw.stmts(children, node, stop=stop)
        if tail is not None:
            lw.value_into(tail, sink)
        elif sink is not discard and not _diverges(children):
            sink(lw, Val(const(None), NONE_TY), node)


@statement("unsafe_block", target=HOST)
def unsafe_block(lw: HostLowerer, node: Node) -> None:
    inner = next((c for c in named_children(node) if c.type == "block"), None)
    if inner is not None:
        lw.value_into(inner, lw.sink)


def _diverges(children: list[Node]) -> bool:
    """A block ending in `return`/`panic!`/`break`: it gives no value to a sink."""
    real = [c for c in children if c.type not in COMMENTS]
    if not real:
        return False
    last = real[-1]
    inner = last.named_children[0] if last.type == "expression_statement" and last.named_children else last
    if inner.type in ("return_expression", "break_expression", "continue_expression"):
        return True
    return inner.type == "macro_invocation" and _macro_name(inner) in _PANICS


@statement("expression_statement", target=HOST)
def expression_statement(lw: HostLowerer, node: Node) -> None:
    inner = node.named_children[0] if node.named_children else None
    if inner is None:
        return
    if any(c.type == ";" for c in node.children):
        lw.as_statement(inner)
    else:
        lw.value_into(inner, lw.sink)


@statement("parenthesized_expression", target=HOST)
def parenthesized(lw: HostLowerer, node: Node) -> None:
    inner = named_children(node)[0]
    if STATEMENTS[HOST].get(unparen(inner).type) is None:
        # a plain value: where it goes, it is the parenthesized expression (`let y: f64 = (x);`:
        # rustc's E0308 at the parentheses)
        lw.sink(lw, lw.expr(inner), node)
        return
    lw.value_into(inner, lw.sink)


@statement("function_item", "struct_item", "impl_item", "macro_definition", "enum_item", "trait_item",
           target=HOST)
def nested_item(lw: HostLowerer, node: Node) -> None:
    raise lw.err(node, "E0002", f"a nested `{node.type.removesuffix('_item').replace('_', ' ')}` item in host code",
                 "define it at module level")


# ------------------------------------------------------------------ let and assignments


@statement("let_declaration", target=HOST)
def let(lw: HostLowerer, node: Node) -> None:
    pattern = part(node, "pattern")
    value = node.child_by_field_name("value")
    alternative = node.child_by_field_name("alternative")
    if alternative is not None and value is not None:  # `let Some(x) = e else { return .. };`
        subject = subject_of(lw, value, node)
        test = pattern_test(lw, pattern, subject)
        if test is not None:
            lw.emit(ast.If(test=_negate(test), body=lw.body_of(alternative, discard), orelse=[]), node)
        return
    if value is None:
        if pattern.type == "identifier" and (use := _first_read(node, text(pattern))) is not None:
            raise lw.rejects(use, "E0381", f"used binding `{text(pattern)}` isn't initialized",
                             f"initialize it where it is declared: `let {text(pattern)} = ...;`")
        raise lw.err(node, "E0002", "a `let` without a value", "initialize the variable where it is declared")
    declared = lw.rust_type(node.child_by_field_name("type")) if node.child_by_field_name("type") else None
    mutable = any(c.type == "mutable_specifier" for c in node.children) or pattern.type == "mut_pattern"
    if text(pattern) == "_":
        lw.value_into(value, discard)  # `let _ = expr;`: evaluated for what it does
        return
    typeck.check_branches(lw, declared.elem if declared is not None and declared.kind in (Kind.SCALAR, Kind.CONST)
                          else None, value)
    if pattern.type in ("identifier", "mut_pattern"):
        name_node = pattern.named_children[-1] if pattern.type == "mut_pattern" else pattern
        check_identifier(lw, name_node)
        bind_value(lw, text(name_node), value, declared, mutable, node)
        typeck.check_pattern_names(lw, pattern, node.child_by_field_name("type"), value, mutable)  # (after the value, as rustc)
        return
    if pattern.type == "tuple_pattern":
        lw.hint(value, declared)
        v = lw.expr(value)
        typeck.check_pattern_names(lw, pattern, node.child_by_field_name("type"), value, mutable)
        target = pattern_target(lw, pattern, declared or v.ty, mutable)
        lw.emit(ast.Assign(targets=[target], value=v.expr), node)
        return
    raise lw.err(pattern, "E0002", f"this `let` pattern (`{text(pattern)}`)", "bind a name or a tuple of names")


def _weak_shift(value: Node) -> bool:
    """Whether ``value`` is a shift of an unsuffixed integer literal (`1 << a`): its type, and so
    the width its amount is masked to, is what the binding's uses make it."""
    while value.type == "parenthesized_expression" and value.named_children:
        value = value.named_children[0]
    left = value.child_by_field_name("left") if value.type == "binary_expression" else None
    op = value.child_by_field_name("operator")
    return (left is not None and op is not None and text(op) in ("<<", ">>") and left.type == "integer_literal"
            and not any(text(left).endswith(t) for t in INT_TYPES))


def _typed_by_use(lw: HostLowerer, let_node: Node, name_: str) -> Ty:
    """The integer type Rust infers for `let name_ = 1 << a;` from the binding's first use: the
    function's return type where it is returned as the body's tail, else Rust's fallback, `i32`
    (`x as u64` does not type `x`)."""
    use = _first_read(let_node, name_)
    body = lw.fn.child_by_field_name("body")
    if use is not None and body is not None and use.parent is not None and use.parent.id == body.id:
        real = [c for c in body.named_children if c.type not in COMMENTS]
        if real and real[-1].id == use.id and lw.returns.kind is Kind.SCALAR and lw.returns.elem in INT_TYPES:
            return lw.returns
    return Ty(Kind.SCALAR, "i32")


def _first_read(let_node: Node, name_: str) -> Node | None:
    """The first place after ``let_node`` (in its block, in source order) that reads ``name_``
    before anything assigns or binds it again: a read of a binding never initialized, rustc's
    E0381. None where the name is assigned (or declared again) first, or never used."""
    stack = [c for c in reversed(let_node.parent.named_children)
             if c.start_byte >= let_node.end_byte] if let_node.parent is not None else []
    while stack:
        n = stack.pop()
        if n.type == "identifier" and text(n) == name_:
            parent = n.parent
            if parent is not None and parent.type == "assignment_expression" and parent.child_by_field_name("left") == n:
                return None
            if parent is not None and parent.type == "let_declaration" and parent.child_by_field_name("pattern") == n:
                return None
            return n
        if n.type not in ("function_item", *COMMENTS):
            stack.extend(reversed(n.named_children))
    return None


RUST_KEYWORDS = frozenset("""as break const continue crate else enum extern false fn for if impl in let loop match mod
move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract
become box do final macro override priv typeof unsized virtual yield try""".split())


def check_identifier(lw: HostLowerer, node: Node) -> None:
    """A keyword is no name (`let fn = 1;`), nor are `r#self`, `r#Self`, `r#super`, `r#crate`."""
    name_ = written(node)
    if name_ in RUST_KEYWORDS:
        raise lw.err(node, "E0001", f"expected identifier, found keyword `{name_}`", f"write `r#{name_}`")
    if name_ in ("r#self", "r#Self", "r#super", "r#crate"):
        raise lw.err(node, "E0001", f"`{name_[2:]}` cannot be a raw identifier", "choose another name")


def bind_value(lw: HostLowerer, rust: str, value: Node, declared: Ty | None, mutable: bool, node: Node) -> None:
    """`let rust = value;` or a `const` item in a body (shadowing any binding of the name before it)."""
    py = lw.names.declare_pending(rust)
    inferred = lw.typing.let_type(node.id) if declared is None else None
    if inferred == "f32" or inferred in INT_TYPES:  # (`let z = 0.1;`, a use makes it f32; `let n = 0;`, an i64)
        declared = Ty(Kind.SCALAR, inferred)
    if declared is None and _weak_shift(value):
        declared = _typed_by_use(lw, node, rust)  # (the shift's width is its type's: Rust infers it from the uses)
    lw.hint(value, declared)
    bound: list[Ty] = []
    values: list[Val] = []
    lw.value_into(value, assign_to(py, declared, bound, infer=declared is None, values=values))
    ty = declared if declared is not None and declared.kind is not Kind.UNKNOWN else (bound[0] if bound else UNKNOWN)
    if ty.wide and mutable:
        ty = Ty(ty.kind, ty.elem, ty.items)
    moves = _moved_vec(lw, value)
    if moves:
        rustc.moved(lw, value)  # `let w = v;` moves the Vec `v`
    lw.names.bind(rust, py, Ty(Kind.SCALAR, ty.elem) if ty.kind is Kind.CONST and mutable else ty)
    b = lw.names.lookup(rust)
    assert b is not None
    b.decl = "mut" if mutable else ""
    if len(values) == 1:  # (a value from branches is no constant to rustc's propagation)
        rustc.bound_known(lw, rust, values[0], const_item=node.type == "const_item", typed=declared is not None)
    lw.int_lets.pop(py, None)
    if ty.elem is None and ty.kind is Kind.SCALAR and values and (
            all(type(literal_value(v.expr)) is int and v.weak for v in values)
            or len(values) == 1 and lw.inferred_int(values[0])):  # (or branches of such: `if c { 1 } else { 2 }`)
        # (`let n = 0;`: an integer, its type inferred from the uses; `let m = n * 2;`: n's; not a
        # shift's amount, whose type is its own)
        shifts = any(isinstance(e, ast.BinOp) and isinstance(e.op, ast.LShift | ast.RShift)
                     for e in ast.walk(values[0].expr))
        lw.int_let(py, node.id, [] if shifts else [n for n in names_in(values[0].expr) if n in lw.int_lets])
    if moves or _owned_vec(value, node):
        rustc.tile_bound(lw, rust, "Vec")  # (not `Copy`: its moves are tracked, as rustc tracks them)


def _owned_vec(value: Node, let_node: Node) -> bool:
    """Whether a `let`'s value is a `Vec` it owns: `vec![..]`, `Vec::new()`, `.to_vec()`, a `Vec<T>` annotation."""
    annotation = let_node.child_by_field_name("type")
    if annotation is not None and text(annotation).startswith("Vec<"):
        return True
    if value.type == "macro_invocation":
        return text(value.child_by_field_name("macro") or value).split("::")[-1] == "vec"
    if value.type == "call_expression":
        called = text(value.child_by_field_name("function") or value)
        return called.startswith("Vec::") or called.endswith(".to_vec")
    return False


def _moved_vec(lw: HostLowerer, value: Node) -> bool:
    """Whether ``value`` is a name bound to a `Vec` whose moves are tracked (`let w = v;` moves it)."""
    if value.type != "identifier":
        return False
    b = lw.names.lookup(text(value))
    return b is not None and id(b) in lw.tile_moves


def pattern_target(lw: HostLowerer, pattern: Node, ty: Ty, mutable: bool = False) -> ast.expr:
    """The Python target of a Rust pattern over a value of type ``ty``, binding its names. A
    `(ptr, shape)` pair is one tensor in Python: its names stand for the tensor and its shape."""
    kind = pattern.type
    if kind in ("reference_pattern", "ref_pattern"):
        return pattern_target(lw, pattern.named_children[-1], ty, mutable)
    if kind == "mut_pattern":
        return pattern_target(lw, pattern.named_children[-1], ty, True)
    if text(pattern) == "_":
        return ast.Name("_", STORE)
    if kind == "identifier":
        py = lw.names.declare(text(pattern), ty)
        b = lw.names.lookup(text(pattern))
        assert b is not None
        b.decl = "mut" if mutable else ""
        return ast.Name(py, STORE)
    if kind == "tuple_pattern":
        subs = [c for c in pattern.children if c.type not in ("(", ")", ",", *COMMENTS)]
        if ty.kind is Kind.INPUT and len(subs) == 2:
            py = lw.names.fresh("t")
            for i, sub in enumerate(subs):
                inner = sub.named_children[-1] if sub.type in ("reference_pattern", "mut_pattern", "ref_pattern") \
                    and sub.named_children else sub
                if text(inner) == "_":
                    continue
                if inner.type != "identifier":
                    raise lw.err(sub, "E0002", "a nested pattern in a (pointer, shape) pair", "bind two names")
                expr = name(py) if i == 0 else ast.Attribute(value=name(py), attr="shape", ctx=LOAD)
                lw.names.declare(text(inner), PTR if i == 0 else SHAPE)
                b = lw.names.lookup(text(inner))
                assert b is not None
                b.expr = expr
            return ast.Name(py, STORE)
        items = ty.items if ty.kind is Kind.TUPLE and len(ty.items) == len(subs) else (UNKNOWN,) * len(subs)
        return ast.Tuple(elts=[pattern_target(lw, s, t, mutable) for s, t in zip(subs, items, strict=True)], ctx=STORE)
    raise lw.err(pattern, "E0002", f"this pattern (`{text(pattern)}`)", "bind names, tuples of names or `_`")


def _assign_target(lw: HostLowerer, left: Node, node: Node) -> tuple[ast.expr, Val]:
    """The Python target of an assignment (a name, an element, a field) and its current value."""
    if left.type == "identifier":
        b = lw.names.lookup(text(left))
        if b is None:
            raise lw.err(left, "E0006", f"cannot find value `{text(left)}` in this scope")
        rustc.check_assign(lw, b, left, node)
        return ast.Name(b.py, STORE), Val(name(b.py), b.ty)
    current = lw.expr(left)
    target = current.expr
    if isinstance(target, ast.Subscript):
        return ast.Subscript(value=target.value, slice=target.slice, ctx=STORE), current
    if isinstance(target, ast.Attribute):
        return ast.Attribute(value=target.value, attr=target.attr, ctx=STORE), current
    raise lw.err(left, "E0002", "this assignment target", "assign to a variable, an element or a field")


@statement("assignment_expression", target=HOST)
def assignment(lw: HostLowerer, node: Node) -> None:
    left, right = part(node, "left"), part(node, "right")
    if left.type == "identifier":
        rustc.reinitialized(lw, text(left))  # (a moved Vec assigned anew is usable again)
    target, current = _assign_target(lw, left, node)
    lw.hint(right, current.ty)
    v = lw.settle(lw.expr(right), current.ty, right)
    if lw.inferred_int(current):  # (`n = b;` types `let mut n = 0;` as `b`'s type; no float for it)
        if v.ty.elem in FLOAT_TYPES:
            raise lw.rejects(right, "E0308", "mismatched types: expected integer, found floating-point number")
        lw.int_let_met(current, None if v.weak else v.ty.elem, left)
    lw.emit(ast.Assign(targets=[target], value=v.expr), node)


@statement("compound_assignment_expr", target=HOST)
def compound_assignment(lw: HostLowerer, node: Node) -> None:
    left, right = part(node, "left"), part(node, "right")
    op = text(part(node, "operator")).removesuffix("=")
    target, current = _assign_target(lw, left, node)
    typeck.check_compound_operand(lw, op, current.ty.elem, right)
    lw.hint(right, current.ty)
    rhs = lw.expr(right)
    typeck.check_operands(lw, op, current, rhs, node)  # (`x += b` takes a `b` of `x`'s type, as `x + b` does)
    v = lw.settle(binop(lw, op, current, rhs, node), current.ty, node)
    e = v.expr
    if isinstance(e, ast.BinOp) and e.left is current.expr and e.right is rhs.expr and \
            isinstance(target, ast.Name | ast.Attribute | ast.Subscript):
        lw.emit(ast.AugAssign(target=target, op=e.op, value=e.right), node)  # Python's operator means Rust's here
        return
    lw.emit(ast.Assign(targets=[target], value=e), node)


@statement("const_item", target=HOST)
def local_const(lw: HostLowerer, node: Node) -> None:
    declared = lw.rust_type(node.child_by_field_name("type"))
    bind_value(lw, text(part(node, "name")), part(node, "value"), declared, False, node)


# ------------------------------------------------------------------ if and match


def subject_of(lw: HostLowerer, value: Node, node: Node) -> Val:
    """The value a pattern is matched against, in a variable of its own unless it is one."""
    subject = lw.narrow(lw.expr(value), value)
    if not isinstance(subject.expr, ast.Name | ast.Constant):
        tmp = lw.names.fresh("value")
        lw.emit(ast.Assign(targets=[ast.Name(tmp, STORE)], value=subject.expr), node)
        subject = Val(name(tmp), subject.ty)
    return subject


@statement("if_expression", target=HOST)
def if_(lw: HostLowerer, node: Node) -> None:
    sink = lw.sink
    cond = part(node, "condition")
    if cond.type == "let_condition":  # `if let Some(x) = e { .. }`: the pattern's test, its names in the branch
        pattern, value = cond.child_by_field_name("pattern"), cond.child_by_field_name("value")
        assert pattern is not None and value is not None
        subject = subject_of(lw, value, node)
        with lw.names.scope():
            test = pattern_test(lw, pattern, subject) or const(True)
            body = lw.body_of(part(node, "consequence"), sink)
    else:
        test = condition(lw, cond)
        body = lw.body_of(part(node, "consequence"), sink)
    alt = node.child_by_field_name("alternative")
    orelse: list[ast.stmt] = []
    if alt is not None:
        inner = alt.named_children[-1] if alt.type == "else_clause" else alt
        orelse = lw.body_of(inner, sink)
    elif sink is not discard and not (sink is returning and lw.returns.kind is Kind.NONE) and \
            _tail(list(part(node, "consequence").named_children))[1] is not None:
        raise lw.rejects(node, "E0317", "`if` may be missing an `else` clause", "a value needs both branches")
    lw.emit(ast.If(test=test, body=body, orelse=orelse), node)


@statement("match_expression", target=HOST)
def match(lw: HostLowerer, node: Node) -> None:
    """An integer, bool or char ``match`` as an ``if``/``elif`` chain: literal and range patterns,
    ``|`` alternatives, guards, ``_`` and a bound name."""
    sink = lw.sink
    value, body = part(node, "value"), part(node, "body")
    subject = lw.narrow(lw.expr(value), value)
    if not isinstance(subject.expr, ast.Name | ast.Constant):
        tmp = lw.names.fresh("value")
        lw.emit(ast.Assign(targets=[ast.Name(tmp, STORE)], value=subject.expr), node)
        subject = Val(name(tmp), subject.ty)
    chain: list[tuple[ast.expr | None, list[ast.stmt]]] = []
    covered: list[tuple[int, int]] | None = []  # the integers (or bools) the unguarded arms match
    for arm in [a for a in named_children(body) if a.type == "match_arm"]:
        pattern, arm_value = part(arm, "pattern"), part(arm, "value")
        with lw.names.scope():
            guard = pattern.child_by_field_name("condition")
            inner = next((c for c in pattern.named_children if c.id != (guard.id if guard else -1)), pattern)
            test = pattern_test(lw, inner, subject)
            if covered is not None and guard is None:
                spans = _spans(test, subject)
                covered = None if spans is None else covered + spans
            if guard is not None:
                g = condition(lw, guard)
                test = g if test is None else ast.BoolOp(op=ast.And(), values=[test, g])
            arm_body: list[ast.stmt] = []
            with lw.into(arm_body):
                lw.value_into(arm_value, sink)
        chain.append((test, arm_body or [ast.Pass()]))
        if test is None:
            break  # (arms after a catch-all are never reached)
    integers = subject.ty.elem in INT_TYPES or subject.ty.elem == "bool"
    if chain and chain[-1][0] is not None and (covered is None or not integers or _exhaustive(covered, subject.ty.elem)):
        # the arms cover every value (integers and bools: checked, as rustc checks them; other values,
        # `Some(..)` and `None` say: taken from the source, which rustc checked): the last is the rest
        chain[-1] = (None, chain[-1][1])
    if not chain or chain[-1][0] is not None:
        raise lw.rejects(value, "E0004", "non-exhaustive patterns: this `match` has no catch-all arm",
                         "add a `_ => ...` arm")
    out: list[ast.stmt] = chain[-1][1]
    for test, arm_body in reversed(chain[:-1]):
        assert test is not None
        out = [ast.If(test=test, body=arm_body, orelse=out)]
    for s in out:
        lw.emit(s, node)


def _spans(test: ast.expr | None, subject: Val) -> list[tuple[int, int]] | None:
    """The integer intervals a pattern's test matches (a bool is 0 or 1), or None where the test is
    not literals and ranges."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        parts = [_spans(t, subject) for t in test.values]
        return None if any(p is None for p in parts) else [x for p in parts for x in p or []]
    if not isinstance(test, ast.Compare):
        return None
    values = [literal_value(e) if not (isinstance(e, ast.Constant) and isinstance(e.value, bool)) else int(e.value)
              for e in [test.left, *test.comparators]]
    ops = [type(o) for o in test.ops]
    if ops == [ast.Eq] and isinstance(values[1], int):
        return [(values[1], values[1])]
    if ops == [ast.GtE] and isinstance(values[1], int):
        return [(values[1], 1 << 128)]
    if len(ops) == 2 and isinstance(values[0], int) and isinstance(values[2], int):
        return [(values[0], values[2] - (1 if ops[1] is ast.Lt else 0))]
    return None


def _exhaustive(spans: list[tuple[int, int]], elem: str | None) -> bool:
    """Whether the intervals cover every value of ``elem`` (rustc's exhaustiveness for integers)."""
    from rs2triton.rust.types import SCALARS

    s = SCALARS.get(elem or "")
    if s is None or not (s.is_int or elem == "bool"):
        return False
    lo, hi = (0, 1) if elem == "bool" else (s.min, s.max)
    at = lo
    for a, b in sorted(spans):
        if a > at:
            return False
        at = max(at, b + 1)
        if at > hi:
            return True
    return at > hi


def pattern_test(lw: HostLowerer, pattern: Node, subject: Val) -> ast.expr | None:
    """The test of a pattern against ``subject`` (None: it always matches), binding its names to
    what they match: literals, ranges, ``|``, ``_``, names, ``name @ pattern``, tuples, ``&x``,
    ``Some(p)`` and ``None``."""
    kind = pattern.type
    if text(pattern) == "_":
        return None
    if kind == "identifier" and text(pattern) == "None":
        return ast.Compare(left=subject.expr, ops=[ast.Is()], comparators=[const(None)])
    if kind == "identifier":
        lw.names.declare(text(pattern), subject.ty)
        b = lw.names.lookup(text(pattern))
        assert b is not None
        b.expr = subject.expr
        return None
    if kind in ("reference_pattern", "ref_pattern", "mut_pattern"):
        return pattern_test(lw, pattern.named_children[-1], subject)
    if kind == "captured_pattern":  # `name @ pattern`
        inner = [c for c in pattern.named_children if c.type not in COMMENTS]
        test = pattern_test(lw, inner[-1], subject)
        pattern_test(lw, inner[0], subject)
        return test
    if kind == "tuple_pattern":
        subs = [c for c in pattern.children if c.type not in ("(", ")", ",", *COMMENTS)]
        if len(subs) == 1 and not any(c.type == "," for c in pattern.children):
            return pattern_test(lw, subs[0], subject)  # `(10 | 20)`: parentheses
        items = subject.ty.items if subject.ty.kind is Kind.TUPLE and len(subject.ty.items) == len(subs) \
            else (UNKNOWN,) * len(subs)
        tests = [pattern_test(lw, sub, Val(ast.Subscript(value=subject.expr, slice=const(i), ctx=LOAD), item))
                 for i, (sub, item) in enumerate(zip(subs, items, strict=True))]
        found = [t for t in tests if t is not None]
        return None if not found else found[0] if len(found) == 1 else ast.BoolOp(op=ast.And(), values=found)
    if kind == "tuple_struct_pattern" and text(pattern.child_by_field_name("type") or pattern).split("::")[-1] == "Some":
        fields = [c for c in pattern.named_children if c.type not in COMMENTS][1:]
        some = ast.Compare(left=subject.expr, ops=[ast.IsNot()], comparators=[const(None)])
        inner_test = pattern_test(lw, fields[0], Val(subject.expr, subject.ty.inner)) if fields else None
        return some if inner_test is None else ast.BoolOp(op=ast.And(), values=[some, inner_test])
    if kind == "or_pattern":
        tests = [pattern_test(lw, p, subject) for p in named_children(pattern)]
        if any(t is None for t in tests):
            return None
        return ast.BoolOp(op=ast.Or(), values=[t for t in tests if t is not None])
    if kind == "range_pattern":
        bounds = named_children(pattern)
        inclusive = any(c.type == "..=" for c in pattern.children)
        lo = _literal(lw, bounds[0], subject)
        if len(bounds) == 1:
            return ast.Compare(left=subject.expr, ops=[ast.GtE()], comparators=[lo])
        hi = _literal(lw, bounds[1], subject)
        return ast.Compare(left=lo, ops=[ast.LtE(), ast.LtE() if inclusive else ast.Lt()],
                           comparators=[subject.expr, hi])
    if kind in ("integer_literal", "boolean_literal", "negative_literal", "string_literal", "char_literal",
                "float_literal", "scoped_identifier"):
        return ast.Compare(left=subject.expr, ops=[ast.Eq()], comparators=[_literal(lw, pattern, subject)])
    raise lw.err(pattern, "E0002", f"this pattern (`{text(pattern)}`)",
                 "host code matches literals, ranges, `|`, `_`, names, tuples, `Some(..)` and `None`")


def _literal(lw: HostLowerer, node: Node, subject: Val) -> ast.expr:
    lw.hint(node, subject.ty)
    if node.type == "negative_literal":
        v = lw.expr(node.named_children[0])
        lit = literal_value(v.expr)
        return lw.settle(Val(const(-lit), v.ty, weak=v.weak), subject.ty, node).expr if lit is not None else v.expr
    return lw.settle(lw.expr(node), subject.ty, node).expr


@statement("return_expression", target=HOST)
def return_(lw: HostLowerer, node: Node) -> None:
    value = next((c for c in node.named_children if c.type not in COMMENTS), None)
    if value is None:
        lw.emit(ast.Return(value=name("visitor") if lw.visitor is not None else None), node)
        return
    lw.hint(value, lw.returns)
    lw.value_into(value, returning)


# ------------------------------------------------------------------ macros as statements

_PANICS = {"panic": "explicit panic", "unreachable": "internal error: entered unreachable code",
           "unimplemented": "not implemented", "todo": "not yet implemented"}
_ASSERTS = ("assert", "assert_eq", "assert_ne", "debug_assert", "debug_assert_eq", "debug_assert_ne")


def _macro_name(node: Node) -> str:
    return text(node.child_by_field_name("macro") or node).split("::")[-1]


@statement("macro_invocation", target=HOST)
def macro_statement(lw: HostLowerer, node: Node) -> None:
    """``panic!``-style macros raise Rust's panic (``unimplemented!``/``todo!``:
    ``NotImplementedError``, with Rust's message); ``assert!``-style ones test and panic; the
    ``debug_`` ones are gone in a release build; any other macro is a value (``vec![..]``)."""
    with lw.anchored(node):
        _macro_statement(lw, node, _macro_name(node))


def _macro_statement(lw: HostLowerer, node: Node, macro: str) -> None:
    if macro in _PANICS:
        args = macro_args(lw, node)
        message = format_message(lw, args, node) if args else ast.Constant(_PANICS[macro])
        if macro != "panic" and args:  # `unreachable!(m)`: "internal error: entered unreachable code: m"
            message = _prefixed(f"{_PANICS[macro]}: ", message)
        exc = "NotImplementedPanic" if macro in ("unimplemented", "todo") else "Panic"
        lw.emit(ast.Raise(exc=call(lw.helper(exc), [message]), cause=None), node)
        return
    if macro in _ASSERTS:
        args = macro_args(lw, node)
        if macro.startswith("debug_"):
            return  # (release: debug assertions are not compiled)
        pair = macro.endswith(("_eq", "_ne"))
        if len(args) < (2 if pair else 1):
            raise lw.err(node, "E0002", f"`{macro}!` with too few arguments")
        if pair:
            a, b = lw.narrow(lw.expr(args[0]), args[0]), lw.narrow(lw.expr(args[1]), args[1])
            fails: ast.expr = ast.Compare(left=a.expr, ops=[ast.NotEq() if macro == "assert_eq" else ast.Eq()],
                                          comparators=[b.expr])
            head = f"assertion `left {'==' if macro == 'assert_eq' else '!='} right` failed"
            template, values = _template(format_message(lw, args[2:], node)) if args[2:] else ("", [])
            message = call("str.format", [ast.Constant(head + (": " + template if args[2:] else "")
                                                       + "\n  left: {}\n right: {}"),
                                          *values, shown(lw, a, "?"), shown(lw, b, "?")])
        else:
            fails = _negate(condition(lw, args[0]))
            message = format_message(lw, args[1:], node) if args[1:] else ast.Constant(
                f"assertion failed: {' '.join(text(args[0]).split())}")
        raise_ = ast.Raise(exc=call(lw.helper("Panic"), [message]), cause=None)
        raise_.lineno = (lw.anchor or node).start_point[0] + 1
        lw.emit(ast.If(test=fails, body=[raise_], orelse=[]), node)
        return
    lw.sink(lw, lw.expr(node), node)


def _template(message: ast.expr) -> tuple[str, list[ast.expr]]:
    """A message as ``str.format``'s template and arguments."""
    if isinstance(message, ast.Constant) and isinstance(message.value, str):
        return message.value.replace("{", "{{").replace("}", "}}"), []
    assert isinstance(message, ast.Call) and isinstance(message.args[0], ast.Constant)
    return str(message.args[0].value), list(message.args[1:])


def _prefixed(prefix: str, message: ast.expr) -> ast.expr:
    if isinstance(message, ast.Constant) and isinstance(message.value, str):
        return ast.Constant(prefix + message.value)
    if isinstance(message, ast.Call) and message.args and isinstance(message.args[0], ast.Constant) and \
            isinstance(message.args[0].value, str):  # `str.format(template, ..)`
        return call("str.format", [ast.Constant(prefix + message.args[0].value), *message.args[1:]])
    return ast.BinOp(left=ast.Constant(prefix), op=ast.Add(), right=message)


# (`not a < b` is no `a >= b` for a NaN: orderings keep their `not`)
_OPPOSITE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn,
             ast.NotIn: ast.In}


def _negate(test: ast.expr) -> ast.expr:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPPOSITE:
        return ast.Compare(left=test.left, ops=[_OPPOSITE[type(test.ops[0])]()], comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


__all__ = ["BOOL", "bind_value", "pattern_target", "returning"]
