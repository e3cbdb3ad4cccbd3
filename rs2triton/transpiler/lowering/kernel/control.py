"""Control flow: `if` as a statement and as a value, `for` over ranges, `while` (a counted
`while` becomes a `for`: see loops.py)."""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.kernel.loops import CountedLoop
from rs2triton.transpiler.lowering.lowerer import Lowerer, unparen
from rs2triton.transpiler.lowering.registry import KERNEL, statement
from rs2triton.transpiler.lowering.values import Kind, Ty, Val
from rs2triton.transpiler.pyast import call, const, literal_value

_NOT_A_VALUE = ("let_declaration", "expression_statement")
_BLOCKS = ("if_expression", "block", "for_expression", "while_expression")


def simple_if(node: Node) -> bool:
    """An if-expression whose branches are single expressions (-> a Python ternary)."""
    cons = part(node, "consequence")
    alt = node.child_by_field_name("alternative")
    if alt is None or len(named_children(cons)) != 1:
        return False
    tail = named_children(cons)[0]
    if tail.type in _NOT_A_VALUE or tail.type.endswith("_item") or tail.type in _BLOCKS:
        return False
    other = named_children(alt)[0]
    if other.type == "if_expression":
        return simple_if(other)
    parts = named_children(other)
    return len(parts) == 1 and parts[0].type not in (*_NOT_A_VALUE, *_BLOCKS)


def if_statement(lw: Lowerer, node: Node) -> ast.If:
    cond = lw.expr(part(node, "condition"))
    rustc.check_condition(lw, part(node, "condition"), cond)
    then: list[ast.stmt] = []
    defined = lw.block_into(part(node, "consequence"), then)
    orelse: list[ast.stmt] = []
    alt = node.child_by_field_name("alternative")
    if alt is not None:
        other = named_children(alt)[0]
        # Triton merges names defined in both branches; keep the branches' own lets apart.
        with lw.names.else_branch(defined):
            if other.type == "if_expression":
                orelse.append(if_statement(lw, other))
            else:
                lw.block_into(other, orelse)
    return ast.If(test=cond.expr, body=then, orelse=orelse)


def if_value(lw: Lowerer, node: Node, target: str) -> tuple[ast.If, Ty]:
    """`if c { stmts; a } else { stmts; b }` as a value: assign ``target`` in each branch."""
    cond = lw.expr(part(node, "condition"))
    rustc.check_condition(lw, part(node, "condition"), cond)
    then: list[ast.stmt] = []
    t_ty = _branch_value(lw, part(node, "consequence"), then, target)
    alt = node.child_by_field_name("alternative")
    if alt is None:
        raise lw.err(node, "E0002", "an `if` used as a value needs an `else` branch")
    other = named_children(alt)[0]
    orelse: list[ast.stmt] = []
    if other.type == "if_expression":
        stmt, e_ty = if_value(lw, other, target)
        orelse.append(stmt)
    else:
        e_ty = _branch_value(lw, other, orelse, target)
    return ast.If(test=cond.expr, body=then, orelse=orelse), t_ty if t_ty.kind is not Kind.UNKNOWN else e_ty


def _branch_value(lw: Lowerer, block: Node, body: list[ast.stmt], target: str) -> Ty:
    children = list(block.named_children)
    tail = lw.block_value(block)
    with lw.names.scope(), lw.into(body):
        if lw.stmts(children, block, stop=tail):
            raise lw.err(block, "E0002", "a branch that never returns cannot give this `if` a value in Triton",
                         "write `if c { .. }` around the endless call alone, and the other branch's code after it")
        lw.emit_inner_comments(tail)
        v = lw.narrow(lw.expr(tail), tail)
        lw.assign(target, v.expr, tail)
        after = children[next(i for i, c in enumerate(children) if c.id == tail.id) + 1:]
        for c in after:  # comments after the block's value: on its line, or below it
            lw.emit_comment(c, trailing=c.start_point[0] == tail.end_point[0])
    return v.ty


@statement("for_expression", target=KERNEL)
def for_(lw: Lowerer, node: Node) -> None:
    pattern = part(node, "pattern")
    if pattern.type != "identifier":
        raise lw.err(pattern, "E0002", "only a plain loop variable is supported")
    rustc.not_a_const_generic(lw, text(pattern), pattern)
    emit_range_for(lw, text(pattern), "i32", range_args(lw, part(node, "value")), node)


def emit_range_for(lw: Lowerer, rust_var: str, elem: str, args: list[ast.expr], node: Node) -> None:
    """`for var in range(...)` with the loop's Rust body."""
    body: list[ast.stmt] = []
    with lw.names.scope():
        var = lw.names.declare(rust_var, Ty(Kind.INDEX, elem))
        lw.loop_depth += 1
        try:
            lw.block_into(part(node, "body"), body)
        finally:
            lw.loop_depth -= 1
    lw.emit(ast.For(target=ast.Name(id=var, ctx=ast.Store()), iter=call("range", args), body=body, orelse=[]), node)


def range_args(lw: Lowerer, node: Node) -> list[ast.expr]:
    """`a..b`, `a..=b`, `(a..b).step_by(s)`, `.rev()` -> range() arguments."""
    rev = False
    step: Val | None = None
    cur = node
    while True:
        if cur.type == "parenthesized_expression":
            cur = named_children(cur)[0]
            continue
        if cur.type == "call_expression" and part(cur, "function").type == "field_expression":
            f = part(cur, "function")
            meth = text(part(f, "field"))
            args = named_children(part(cur, "arguments"))
            # Adapters are met outermost first.
            if meth == "rev" and not args:
                if rev:
                    raise lw.err(cur, "E0002", "`.rev().rev()` is not supported", "drop both")
                rev = True
            elif meth == "step_by" and len(args) == 1:
                if rev or step is not None:
                    raise lw.err(cur, "E0002", f"`.{'step_by(..).rev()' if rev else 'step_by().step_by()'}` "
                                 "is not supported",
                                 "write `(a..b).rev().step_by(s)` (from b - 1 down) or compute the bounds")
                step = lw.expr(args[0])
            elif meth == "into_iter" and not args:
                pass
            else:
                raise lw.err(f, "E0002", f"unsupported iterator adapter `.{meth}()`",
                             "loops run over ranges: `a..b`, `a..=b`, `.step_by(s)`, `.rev()`")
            cur = part(f, "value")
            continue
        break
    if cur.type != "range_expression":
        raise lw.err(cur, "E0002", "a `for` loop must run over a range", "write `for i in 0..n { ... }`")
    parts = named_children(cur)
    if len(parts) != 2:
        raise lw.err(cur, "E0002", "a loop range needs both ends", "write `a..b`")
    lo, hi = lw.expr(parts[0]), lw.expr(parts[1])
    inclusive = "..=" in text(cur)[len(text(parts[0])):].lstrip()[:3]
    hi_expr = ast.BinOp(left=hi.expr, op=ast.Add(), right=ast.Constant(1)) if inclusive else hi.expr
    if not rev:
        if step is None:
            return [hi_expr] if literal_value(lo.expr) == 0 else [lo.expr, hi_expr]
        return [lo.expr, hi_expr, step.expr]
    # (a..b).rev() visits b-1 down to a.
    start = hi.expr if inclusive else _minus_one(hi.expr)
    stop = _minus_one(lo.expr)
    neg = ast.UnaryOp(op=ast.USub(), operand=step.expr) if step is not None else const(-1)
    return [start, stop, neg]


def _minus_one(e: ast.expr) -> ast.expr:
    """``e - 1``, folded when ``e`` is a non-negative integer constant."""
    if isinstance(e, ast.Constant) and isinstance(e.value, int):
        return const(e.value - 1)
    return ast.BinOp(left=e, op=ast.Sub(), right=ast.Constant(1))


def _plus(e: ast.expr, k: int) -> ast.expr:
    """``e + k`` (folded when ``e`` is an integer literal)."""
    v = literal_value(e)
    if isinstance(v, int):
        return const(v + k)
    return ast.BinOp(left=e, op=ast.Add() if k > 0 else ast.Sub(), right=ast.Constant(abs(k)))


@statement("while_expression", target=KERNEL)
def while_(lw: Lowerer, node: Node) -> None:
    info = lw.counted.get(node.id)
    if info is not None and _counted_while(lw, node, info):
        return
    if info is not None:  # not a range after all: the counter's start and step come back
        lw.absorbed.discard(info.step_stmt.id)
        if info.let.id in lw.absorbed:
            lw.absorbed.discard(info.let.id)
            _start_counter(lw, info)
    cond = lw.expr(part(node, "condition"))
    rustc.check_condition(lw, part(node, "condition"), cond, "while")
    body: list[ast.stmt] = []
    lw.loop_depth += 1
    try:
        lw.block_into(part(node, "body"), body)
    finally:
        lw.loop_depth -= 1
    lw.emit(ast.While(test=cond.expr, body=body, orelse=[]), node)


def _counted_while(lw: Lowerer, node: Node, info: CountedLoop) -> bool:
    """`let mut i = a; while i < b { ..; i += s; }` as `for i in range(a, b, s)` (see loops.py)."""
    stop, step = lw.expr(info.bound), lw.expr(info.step)
    if lw.is_float(stop.ty) is not False or step.ty.kind is not Kind.CONST or lw.is_float(step.ty) is not False:
        return False  # a float bound, or a runtime step of unknown sign: keep the while
    start = lw.expr(info.start)
    if lw.is_float(start.ty) is not False:
        _start_counter(lw, info, start)
        lw.absorbed.discard(info.let.id)
        return False
    if info.inclusive:
        stop = Val(_plus(stop.expr, -1 if info.descending else 1), stop.ty)
    step_expr = step.expr
    if info.descending:
        lit = literal_value(step_expr)
        step_expr = const(-lit) if lit is not None else ast.UnaryOp(op=ast.USub(), operand=step_expr)
    args = [stop.expr] if literal_value(start.expr) == 0 and literal_value(step_expr) == 1 \
        else [start.expr, stop.expr] + ([] if literal_value(step_expr) == 1 else [step_expr])
    emit_range_for(lw, info.counter, start.ty.elem or "i32", args, node)
    return True


def _start_counter(lw: Lowerer, info: CountedLoop, start: Val | None = None) -> None:
    """The absorbed `let mut i = a;` (or `i = a;`) of a loop that stays a `while`, given back."""
    start = start or lw.expr(info.start)
    b = lw.names.lookup(info.counter) if info.let.type != "let_declaration" else None
    if b is None:  # its `let` went to an earlier loop of the chain that became a `for`
        ty = Ty(Kind.SCALAR, start.ty.elem) if start.ty.compile_time else start.ty
        py = lw.names.declare(info.counter, ty)
        rustc.declared(lw, info.counter, "mut")  # (a `let mut`)
    else:
        py = b.py
    lw.assign(py, lw.narrow(start, info.start).expr, info.let)


__all__ = ["if_statement", "if_value", "simple_if", "unparen"]
