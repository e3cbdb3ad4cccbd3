"""Operators and casts on lowered values: Rust's arithmetic, comparisons, `&&`/`||` and `as`,
built as the Python that computes what Rust computes (the rules themselves are in
:mod:`rs2triton.rust.semantics`; this module applies them to values and their kinds)."""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import INT_TYPES
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.values import BLOCKS, Kind, Ty, Val, join_kind
from rs2triton.transpiler.pyast import LOAD, call, const, literal_value

ARITHMETIC = {
    "+": ast.Add, "-": ast.Sub, "*": ast.Mult, "%": ast.Mod, "&": ast.BitAnd, "|": ast.BitOr,
    "^": ast.BitXor, "<<": ast.LShift, ">>": ast.RShift,
}
COMPARISONS = {"<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE, "==": ast.Eq, "!=": ast.NotEq}
LOGICAL = {"&&": ast.And, "||": ast.Or}


def may_be_negative(e: ast.expr) -> bool:
    """Whether a compile-time expression could be negative (it subtracts or negates)."""
    lit = literal_value(e)
    return any(isinstance(n, (ast.Sub, ast.USub)) for n in ast.walk(e)) or (lit is not None and lit < 0)


def not_is_logical(ty: Ty) -> bool:
    """Whether Rust's ``!`` is Python's ``not`` (a compile-time bool) rather than ``~``.

    On Triton values ``~`` is both: logical on bools (i1) and bitwise on integers.
    """
    return ty.compile_time and ty.elem == "bool"


def _arith_op(lw: Lowerer, op: str, left: Val, right: Val, node: Node) -> ast.operator:
    if op == "/":
        integer = semantics.int_division(lw.is_float(left.ty), lw.is_float(right.ty),
                                         left.ty.compile_time, right.ty.compile_time)
        # `//` truncates on Triton's runtime ints, as in Rust (compile-time values: see binop)
        return ast.FloorDiv() if integer else ast.Div()
    if op in ARITHMETIC:
        return ARITHMETIC[op]()
    raise lw.err(node, "E0002", f"unsupported operator `{op}`")


def binop(lw: Lowerer, op: str, left: Val, right: Val, node: Node) -> Val:
    """``left op right`` with Rust's meaning."""
    if left.block_ptr is not None or right.block_ptr is not None:
        raise lw.err(node, "E0008", "block pointers have no arithmetic", "move a block pointer with `T::advance(ptr, &[..])`")
    if op in COMPARISONS or op in LOGICAL:
        left, right = lw.narrow(left, node), lw.narrow(right, node)
    kind = join_kind(left.ty, right.ty)
    if op in COMPARISONS:
        return Val(ast.Compare(left=left.expr, ops=[COMPARISONS[op]()], comparators=[right.expr]), Ty(kind, "bool"))
    if op in LOGICAL:
        if kind in BLOCKS:  # elementwise on blocks: Python's `and`/`or` need one truth value
            pyop: ast.operator = ast.BitAnd() if op == "&&" else ast.BitOr()
            return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty(kind, "bool"))
        return Val(ast.BoolOp(op=LOGICAL[op](), values=[left.expr, right.expr]), Ty(kind, "bool"))
    pyop = _arith_op(lw, op, left, right, node)
    if left.ty.kind in (Kind.PTR, Kind.PTRS):
        if literal_value(right.expr) == 0:
            return Val(left.expr, Ty(left.ty.kind, left.ty.elem))
        return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty(Kind.PTRS, left.ty.elem))
    elem = semantics.result_elem(lw.operand(left), lw.operand(right), op)
    # Rust knows the type of a suffixed literal; an unsuffixed one takes its type from the use.
    weak = left.weak if op in ("<<", ">>") else left.weak and right.weak
    folded = None
    lit_left, lit_right = literal_value(left.expr), literal_value(right.expr)
    if lit_left is not None and lit_right is not None:  # two literals: Rust computes it now
        typed = lw.literal_type(node) if weak else elem  # `let a: i32 = 2147483647 + 1;` is typed
        with lw.rust_rules(node):
            folded = semantics.fold(op, lit_left, lit_right, typed if typed in INT_TYPES else None)
        if folded is not None and weak and typed in INT_TYPES:
            return Val(const(folded), Ty(Kind.CONST, typed))
    elif op in ("/", "%") and type(lit_right) is int and lit_right == 0 and lw.is_float(left.ty) is False:
        # rustc's deny-by-default `unconditional_panic`, whatever the dividend
        with lw.rust_rules(node):
            raise semantics.ConstError("this operation will panic at runtime",
                                       "attempt to divide by zero" if op == "/"
                                       else "attempt to calculate the remainder with a divisor of zero")
    if folded is not None:
        return Val(const(folded), Ty(Kind.CONST, elem), weak=weak)
    left_float = lw.is_float(left.ty)
    if (kind is Kind.CONST and (isinstance(pyop, ast.FloorDiv) and left_float is False
                                or isinstance(pyop, ast.Mod) and left_float is not None)
            and (may_be_negative(left.expr) or may_be_negative(right.expr))):
        # Compile-time values use Python's floor semantics; Rust truncates toward zero.
        quotient = call("int", [ast.BinOp(left=left.expr, op=ast.Div(), right=right.expr)])
        if isinstance(pyop, ast.FloorDiv):
            return Val(quotient, Ty(Kind.CONST, elem))
        rem = ast.BinOp(left=left.expr, op=ast.Sub(), right=ast.BinOp(left=right.expr, op=ast.Mult(), right=quotient))
        return Val(rem, Ty(Kind.CONST, elem))
    lhs = left.expr
    if isinstance(pyop, ast.Mod) and kind is Kind.SCALAR and left_float and left.ty.elem is not None:
        # Triton's float `%` is fmod, as Rust's; but the interpreter passes float arguments
        # as Python floats, whose `%` floors: make the dividend a Triton scalar.
        lhs = call("tl.cast", [lhs, lw.dtype_expr(left.ty.elem, node)])
    # f32 arithmetic on a value held in f32 (Triton promotes a half operand) stays in f32.
    wide = (left.ty.wide or right.ty.wide) and elem in (left.ty.elem, right.ty.elem)
    return Val(ast.BinOp(left=lhs, op=pyop, right=right.expr), Ty(kind, elem, wide=wide))


def unary(lw: Lowerer, op: str, v: Val, node: Node) -> Val:
    """``-v`` or ``!v`` with Rust's meaning."""
    if op == "-":
        lit = literal_value(v.expr)
        if type(lit) is int:  # `-i32::MIN` overflows, as rustc says
            with lw.rust_rules(node):
                semantics.check_negation(lit, lw.literal_type(node) if v.weak else v.ty.elem)
        if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, (int, float)):
            return Val(const(-v.expr.value), v.ty, weak=v.weak)
        return Val(ast.UnaryOp(op=ast.USub(), operand=v.expr), v.ty, weak=v.weak)
    if op == "!":
        lit = literal_value(v.expr)
        if v.ty.elem in INT_TYPES:
            if isinstance(lit, int):
                return Val(const(semantics.bitwise_not(lit, v.ty.elem)), v.ty, weak=v.weak)
            lo, hi = semantics.int_limits(v.ty.elem)
            if lo == 0:
                # Python's `~` is signed, and Triton 3.6's interpreter cannot `~` an unsigned
                # tensor: flip the bits of an unsigned value with `^ MAX`.
                return Val(ast.BinOp(left=v.expr, op=ast.BitXor(), right=const(hi)), v.ty)
        pyop = ast.Not() if not_is_logical(v.ty) else ast.Invert()
        return Val(ast.UnaryOp(op=pyop, operand=v.expr), v.ty)
    raise lw.err(node, "E0002", f"unsupported unary operator `{op}`",
                 "references and dereferences have no meaning in a kernel")


def cast_value(lw: Lowerer, v: Val, target: str, node: Node) -> Val:
    """``v as target``."""
    lit: object = literal_value(v.expr)
    if isinstance(v.expr, ast.Constant) and isinstance(v.expr.value, bool):
        lit = v.expr.value
    if isinstance(lit, int) and v.weak:
        lit = semantics.wrap_int(lit, "i32")  # `as` does not infer its operand's type: it is i32
    if isinstance(lit, (int, float)):
        return Val(const(semantics.cast_constant(lit, target)), Ty(Kind.CONST, target))
    if v.ty.elem == target:
        return v
    if v.ty.compile_time and target in INT_TYPES and v.ty.elem in INT_TYPES:
        if semantics.int_cast_keeps_value(v.ty.elem, target, not may_be_negative(v.expr)):
            return Val(v.expr, Ty(Kind.CONST, target))
        # A compile-time value that may not fit: wrap it as Rust does (Python ints never wrap).
        offset, modulus = semantics.wrap_terms(target)
        shifted = ast.BinOp(left=v.expr, op=ast.Add(), right=const(offset)) if offset else v.expr
        wrapped: ast.expr = ast.BinOp(left=shifted, op=ast.Mod(), right=const(modulus))
        if offset:
            wrapped = ast.BinOp(left=wrapped, op=ast.Sub(), right=const(offset))
        return Val(wrapped, Ty(Kind.CONST, target))
    return convert(lw, v, target, node)


def convert(lw: Lowerer, v: Val, target: str, node: Node) -> Val:
    """A runtime conversion: ``x.to(dtype)`` on tensors, ``tl.cast(x, dtype)`` on scalars.

    Scalars may be plain Python numbers (compile-time values; loop indices and float
    arguments in the interpreter): ``tl.cast`` takes them all, ``.to`` does not.
    """
    if v.ty.wide and target == "f32" and v.ty.elem in ("f16", "bf16"):
        return Val(v.expr, Ty(v.ty.kind, target))  # already computed in f32
    if v.ty.wide and target not in ("f32", "f64"):
        v = lw.narrow(v, node)
    dtype = lw.dtype_expr(target, node)
    if v.ty.kind in BLOCKS:
        return Val(call(ast.Attribute(value=v.expr, attr="to", ctx=LOAD), [dtype]), Ty(v.ty.kind, target))
    return Val(call("tl.cast", [v.expr, dtype]), Ty(Kind.SCALAR, target))


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
