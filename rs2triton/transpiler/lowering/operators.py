"""Operators and casts on lowered values: Rust's arithmetic, comparisons, `&&`/`||` and `as`,
built as the Python that computes what Rust computes (the rules themselves are in
:mod:`rs2triton.rust.semantics`; this module applies them to values and their kinds)."""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES
from rs2triton.transpiler.lowering import typeck
from rs2triton.transpiler.lowering.rustc import lints_on
from rs2triton.transpiler.lowering.values import BLOCKS, Kind, Known, Ty, Val, join_kind, known_value
from rs2triton.transpiler.pyast import const, literal_value

if TYPE_CHECKING:
    from rs2triton.transpiler.lowering.lowerer import Lowerer

ARITHMETIC = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "%": ast.Mod, "&": ast.BitAnd, "|": ast.BitOr,
    "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift,
}
COMPARISONS = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
LOGICAL = {"&&": ast.And, "||": ast.Or}
_PRIMITIVE = frozenset({Kind.SCALAR, Kind.CONST, Kind.INDEX})  # values of Rust's own number types


def may_be_negative(e: ast.expr) -> bool:
    """Whether a compile-time expression could be negative (it subtracts or negates)."""
    lit = literal_value(e)
    return any(isinstance(n, (ast.Sub, ast.USub)) for n in ast.walk(e)) or (lit is not None and lit < 0)


def not_is_logical(ty: Ty) -> bool:
    """Whether Rust's ``!`` is Python's ``not`` (a compile-time bool) rather than ``~``.

    On Triton values ``~`` is both: logical on bools (i1) and bitwise on integers.
    """
    return ty.compile_time and ty.elem == "bool"


def binop(lw: Lowerer, op: str, left: Val, right: Val, node: Node) -> Val:
    """``left op right`` with Rust's meaning: what Rust decides (the result's type, constant
    folding, what rustc rejects at compile time) here, for both targets; the Python that
    computes it is the target's (``lw.build``: a Triton expression, or host Python)."""
    if left.block_ptr is not None or right.block_ptr is not None:
        raise lw.err(node, "E0008", "block pointers have no arithmetic", "move a block pointer with `T::advance(ptr, &[..])`")
    if op in COMPARISONS or op in LOGICAL:
        left, right = lw.narrow(left, node), lw.narrow(right, node)
    kind = join_kind(left.ty, right.ty)
    if op in COMPARISONS:
        return Val(ast.Compare(left=left.expr, ops=[COMPARISONS[op]()], comparators=[right.expr]),
                   Ty(lw.build.bool_kind(kind), "bool"))
    if op in LOGICAL:
        if kind in BLOCKS:  # elementwise on blocks: Python's `and`/`or` need one truth value
            pyop: ast.operator = ast.BitAnd() if op == "&&" else ast.BitOr()
            return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty(kind, "bool"))
        return Val(ast.BoolOp(op=LOGICAL[op](), values=[left.expr, right.expr]), Ty(lw.build.bool_kind(kind), "bool"))
    if op != "/" and op not in ARITHMETIC:
        raise lw.err(node, "E0002", f"unsupported operator `{op}`")
    if left.ty.kind in (Kind.PTR, Kind.PTRS):
        return lw.build.pointer_arith(lw, op, left, right, node)
    if op in ("<<", ">>") and left.weak and type(literal_value(left.expr)) is int and node.type == "binary_expression":
        typed = lw.literal_type(node.child_by_field_name("left") or node)  # `let x: u64 = 1 << a;`: a u64 shift
        if typed in INT_TYPES and typed != left.ty.elem:
            left = Val(left.expr, Ty(left.ty.kind, typed), weak=True)
    elem = semantics.result_elem(lw.operand(left), lw.operand(right), op)
    # Rust knows the type of a suffixed literal; an unsuffixed one takes its type from the use.
    weak = left.weak if op in ("<<", ">>") else left.weak and right.weak
    folded = None
    lit_left, lit_right = literal_value(left.expr), literal_value(right.expr)
    if lit_left is not None and lit_right is not None:  # two literals: Rust computes it now
        typed = lw.literal_type(node) if weak else elem  # `let a: i32 = 2147483647 + 1;` is typed
        rejected = len(lw.ctx.deferred)
        with lw.rust_rules(node):
            folded = semantics.fold(op, lit_left, lit_right, typed if typed in INT_TYPES else None)
        if len(lw.ctx.deferred) > rejected:  # (rustc rejects it: a value of its type stands in, checks go on)
            return Val(const(0), Ty(Kind.CONST, typed if weak and typed in INT_TYPES else elem))
        if folded is not None and weak and typed in INT_TYPES:
            return Val(const(folded), Ty(Kind.CONST, typed))
    else:
        with lw.rust_rules(node):
            _check_literal_operand(lw, op, left, right, lit_left, lit_right, elem)
        if op not in ("<<", ">>") and elem in INT_TYPES:
            for v, lit, side in ((left, lit_left, "left"), (right, lit_right, "right")):
                if v.weak and type(lit) is int:  # an unsuffixed literal out of the range the other side gives it
                    at = node.child_by_field_name(side) if node.type == "binary_expression" else None
                    with lw.rust_rules(at or node):
                        semantics.check_int_literal(lit, elem)
    if folded is not None:
        return Val(const(folded), Ty(Kind.CONST, elem), weak=weak)
    known = _propagated(lw, op, left, right, elem, node) if left.known or right.known else None
    out = lw.build.arith(lw, op, left, right, Ty(kind, elem), node)
    return out if known is None else dataclasses.replace(out, known=known)


def _propagated(lw: Lowerer, op: str, left: Val, right: Val, elem: str | None, node: Node) -> Known | None:
    """``left op right`` where rustc's constant propagation knows an operand that is no literal
    (a `const` item, a `let` of a constant: :class:`Known`): what rustc's lints reject with it (a
    divisor of 0, a shift amount past the width; with both operands known, any overflow) when
    they know it too, and the value they then know the result has."""
    kl, kr = known_value(left), known_value(right)
    if kr is None or left.ty.kind not in _PRIMITIVE:  # (the DSL's tensor operators are trait calls: no lint)
        return None
    if kl is None:
        if right.known is not None:  # (a literal divisor or amount is checked already)
            with lints_on(lw, node, kr.via):
                _check_literal_operand(lw, op, left, right, None, kr.value, elem)
        return None
    via = kl.via + kr.via
    if op in ("<<", ">>"):  # (the amount's type is its own)
        weak, typed = kl.weak, None if kl.weak else left.ty.elem
        with lints_on(lw, node, via) as lint:
            _check_literal_operand(lw, op, left, right, None, kr.value, elem)
        if lint.failed:
            return None  # (the fold below would report the same shift again)
    else:  # (a typed operand gives the other its type)
        weak = kl.weak and kr.weak
        typed = elem if elem in INT_TYPES else next((v.ty.elem for v, k in ((left, kl), (right, kr))
                                                     if not k.weak and v.ty.elem in INT_TYPES), None)
    folded = None
    with lints_on(lw, node, via):
        folded = semantics.fold(op, kl.value, kr.value, None if weak or typed not in INT_TYPES else typed)
    return None if folded is None else Known(folded, via, weak)


def _check_literal_operand(lw: Lowerer, op: str, left: Val, right: Val, lit_left: int | float | None,
                           lit_right: int | float | None, elem: str | None) -> None:
    """What rustc rejects in ``a op b`` with one literal operand: a divisor that is a literal 0
    (``unconditional_panic``), a shift by a literal amount past the width (``arithmetic_overflow``),
    an unsuffixed literal out of the range of the type the other operand gives it."""
    if op in ("/", "%") and type(lit_right) is int and lit_right == 0 and lw.is_float(left.ty) is False:
        raise semantics.ConstError("this operation will panic at runtime",
                                   "attempt to divide by zero" if op == "/"
                                   else "attempt to calculate the remainder with a divisor of zero")
    typed = left.ty.elem in INT_TYPES and not left.weak
    if op in ("<<", ">>") and type(lit_right) is int and (typed or left.ty.kind is Kind.SCALAR and left.ty.elem is None):
        # (of an integer whose type is still inferred: past 128 bits, whatever type it gets)
        bits = semantics.int_info(left.ty.elem)[0] if typed and left.ty.elem else 128
        if not 0 <= lit_right < bits:
            raise semantics.ConstError("this arithmetic operation will overflow",
                                       f"attempt to shift {'left' if op == '<<' else 'right'} by `{lit_right}`, "
                                       f"which would overflow `{left.ty.elem if typed else '{integer}'}`")


def unary(lw: Lowerer, op: str, v: Val, node: Node) -> Val:
    """``-v`` or ``!v`` with Rust's meaning: literals folded (``-i32::MIN`` and ``-1u32`` are
    rustc's errors), the rest built by the target."""
    lit = literal_value(v.expr)
    if op == "-":
        if type(lit) is int:  # `-i32::MIN` overflows, as rustc says
            with lw.rust_rules(node):
                semantics.check_negation(lit, lw.literal_type(node) if v.weak else v.ty.elem)
        typeck.check_negated(lw, v, node)
        if lit is None and v.known is not None and v.ty.kind in _PRIMITIVE:  # `let x = i32::MIN; -x`: rustc knows `x`
            return _negated(lw, v, v.known, node)
        if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, (int, float)):
            return Val(const(-v.expr.value), v.ty, weak=v.weak)
        return lw.build.negate(lw, v, node)
    if op == "!":
        if v.ty.elem in INT_TYPES and isinstance(lit, int):
            return Val(const(semantics.bitwise_not(lit, v.ty.elem)), v.ty, weak=v.weak)
        return lw.build.invert(lw, v, node)
    if op == "*":
        return lw.build.deref(lw, v, node)
    raise lw.err(node, "E0002", f"unsupported unary operator `{op}`",
                 "references and dereferences have no meaning in a kernel")


def _negated(lw: Lowerer, v: Val, known: Known, node: Node) -> Val:
    """``-v`` of a value rustc's constant propagation knows (see :func:`_propagated`)."""
    if type(known.value) is int and not known.weak and v.ty.elem in INT_TYPES:
        with lints_on(lw, node, known.via) as lint:
            semantics.check_negation(known.value, v.ty.elem)
        if lint.failed:
            return lw.build.negate(lw, v, node)
    return dataclasses.replace(lw.build.negate(lw, v, node), known=Known(-known.value, known.via, known.weak))


def cast_value(lw: Lowerer, v: Val, target: str, node: Node) -> Val:
    """``v as target``: a literal cast now, with Rust's rules; the rest by the target."""
    lit: object = literal_value(v.expr)
    if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, bool):
        lit = v.expr.value  # (`true as f32` is rustc's E0606: typeck.check_cast)
    if isinstance(lit, int) and not isinstance(lit, bool) and v.weak and target in INT_TYPES and lit >= 0:
        with lw.rust_rules(node.child_by_field_name("value") or node):  # (`256 as u8`: rustc's overflowing_literals)
            semantics.check_int_literal(lit, target)
    if isinstance(lit, int) and v.weak:
        lit = semantics.wrap_int(lit, "i32")  # `as` does not infer its operand's type: it is i32
    if isinstance(lit, float) and not v.weak and v.ty.elem in ("f32", "f16", "bf16"):
        lit = semantics.round_float(lit, v.ty.elem)  # (`0.1f32 as f64` widens the f32 value)
    if isinstance(lit, (int, float)):
        return Val(const(semantics.cast_constant(lit, target)), Ty(Kind.CONST, target))
    if v.ty.elem == target:
        return v
    out = lw.build.cast(lw, v, target, node)
    k = v.known
    if k is None or target not in INT_TYPES | FLOAT_TYPES:
        return out
    # rustc knows the cast too. Of an integer whose type is still inferred, whatever type it gets:
    # it holds the value, and an integer cast keeps the value's bits; of such a float, Rust's
    # fallback, f64 (a float `let` a use makes f32 is typed so: lowering/typing.py)
    return dataclasses.replace(out, known=Known(semantics.cast_constant(k.value, target), k.via))


def min_max(cond: ast.expr, body: ast.expr, orelse: ast.expr) -> tuple[str, ast.expr, ast.expr] | None:
    """`a if a < b else b` -> ("tl.minimum", a, b), and the other three spellings of min/max."""
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1
            and isinstance(cond.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE))):
        return None
    a, b = cond.left, cond.comparators[0]
    less = isinstance(cond.ops[0], (ast.Lt, ast.LtE))
    same = [ast.dump(x) for x in (a, b, body, orelse)]
    if same[2] == same[0] and same[3] == same[1]:
        return ("tl.minimum" if less else "tl.maximum", a, b)
    if same[2] == same[1] and same[3] == same[0]:
        return ("tl.maximum" if less else "tl.minimum", a, b)
    return None
