"""The kernel target's builder: the Triton that computes what the shared rules decided.

:mod:`..operators` decides what Rust means for an operator or a cast (the result's type,
constants folded, rustc's compile-time errors), for both targets; this builder writes it as
Triton: ``//`` (which truncates on Triton's integers, as Rust's ``/``), pointer arithmetic on
blocks, ``.to(dtype)`` / ``tl.cast`` conversions, f16/bf16 values held in f32 for f32-only math
(``Ty.wide``) and rounded where they meet their type again. The host target's builder
(:mod:`..host.builder`) writes the same decisions as plain Python.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import INT_TYPES
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.lowering.kernel import debug, loops, paths
from rs2triton.transpiler.lowering.operators import ARITHMETIC, may_be_negative, not_is_logical
from rs2triton.transpiler.lowering.registry import KERNEL, builder
from rs2triton.transpiler.lowering.values import BLOCKS, Kind, Ty, Val
from rs2triton.transpiler.pyast import LOAD, call, const, literal_value

if TYPE_CHECKING:
    from rs2triton.transpiler.lowering.lowerer import Lowerer


def _arith_op(lw: Lowerer, op: str, left: Val, right: Val) -> ast.operator:
    if op == "/":
        integer = semantics.int_division(lw.is_float(left.ty), lw.is_float(right.ty),
                                         left.ty.compile_time, right.ty.compile_time)
        # `//` truncates on Triton's runtime ints, as in Rust (compile-time values: see arith)
        return ast.FloorDiv() if integer else ast.Div()
    return ARITHMETIC[op]()


@builder(KERNEL)
class KernelBuilder:
    """Triton for the shared rules' decisions (see the module's docstring), and what a name, a
    path or a field means in a kernel beyond the shared rules (:mod:`.paths`)."""

    def free_name(self, lw: Lowerer, ident: str, node: Node) -> Val:
        return paths.free_name(lw, ident, node)

    def path_value(self, lw: Lowerer, head: str, rest: str, node: Node) -> Val:
        return paths.path_value(lw, head, rest, node)

    def field_value(self, lw: Lowerer, base: Val, field_node: Node, node: Node) -> Val:
        return paths.field_value(lw, base, field_node, node)

    def bool_kind(self, kind: Kind) -> Kind:
        return kind

    def block_entered(self, lw: Lowerer, block: Node, children: list[Node]) -> None:
        """A block's statements are about to be lowered: its counted `while` loops become `for`
        loops (:mod:`.loops`), which absorb the counter's start and step statements."""
        if lw.smap.source.find(b"while", block.start_byte, block.end_byte) < 0:  # (most blocks: none)
            return
        for loop_id, info in loops.counted_loops(children).items():
            lw.counted[loop_id] = info
            lw.absorbed |= {info.let.id, info.step_stmt.id}

    def pointer_arith(self, lw: Lowerer, op: str, left: Val, right: Val, node: Node) -> Val:
        if literal_value(right.expr) == 0:
            return Val(left.expr, Ty(left.ty.kind, left.ty.elem))
        return Val(ast.BinOp(left=left.expr, op=_arith_op(lw, op, left, right), right=right.expr),
                   Ty(Kind.PTRS, left.ty.elem))

    def arith(self, lw: Lowerer, op: str, left: Val, right: Val, ty: Ty, node: Node) -> Val:
        kind, elem = ty.kind, ty.elem
        pyop = _arith_op(lw, op, left, right)
        left_float = lw.is_float(left.ty)
        if (kind is Kind.CONST and (isinstance(pyop, ast.FloorDiv) and left_float is False
                                    or isinstance(pyop, ast.Mod) and left_float is not None)
                and (may_be_negative(left.expr) or may_be_negative(right.expr))):
            # Compile-time values use Python's floor semantics; Rust truncates toward zero.
            quotient = call("int", [ast.BinOp(left=left.expr, op=ast.Div(), right=right.expr)])
            if isinstance(pyop, ast.FloorDiv):
                return Val(quotient, Ty(Kind.CONST, elem))
            rem = ast.BinOp(left=left.expr, op=ast.Sub(),
                            right=ast.BinOp(left=right.expr, op=ast.Mult(), right=quotient))
            return Val(rem, Ty(Kind.CONST, elem))
        lhs = left.expr
        if isinstance(pyop, ast.Mod) and kind is Kind.SCALAR and left_float and left.ty.elem is not None:
            # Triton's float `%` is fmod, as Rust's; but the interpreter passes float arguments
            # as Python floats, whose `%` floors: make the dividend a Triton scalar.
            lhs = call("tl.cast", [lhs, lw.dtype_expr(left.ty.elem, node)])
        # f32 arithmetic on a value held in f32 (Triton promotes a half operand) stays in f32.
        wide = (left.ty.wide or right.ty.wide) and elem in (left.ty.elem, right.ty.elem)
        if elem is not None and debug.checks(lw, op, left, right):  # Rust's debug build: the op may panic
            return Val(debug.checked(lw, op, elem, [lhs, right.expr], node), Ty(kind, elem))
        return Val(ast.BinOp(left=lhs, op=pyop, right=_shift_amount(op, left, right, kind)), Ty(kind, elem, wide=wide))

    def negate(self, lw: Lowerer, v: Val, node: Node) -> Val:
        if v.ty.elem is not None and debug.checks(lw, "-", v, None):
            return Val(debug.checked(lw, "neg", v.ty.elem, [v.expr], node), v.ty, weak=v.weak)
        return Val(ast.UnaryOp(op=ast.USub(), operand=v.expr), v.ty, weak=v.weak)

    def invert(self, lw: Lowerer, v: Val, node: Node) -> Val:
        if v.ty.elem in INT_TYPES:
            lo, hi = semantics.int_limits(v.ty.elem)
            if lo == 0:
                # Python's `~` is signed, and Triton 3.6's interpreter cannot `~` an unsigned
                # tensor: flip the bits of an unsigned value with `^ MAX`.
                return Val(ast.BinOp(left=v.expr, op=ast.BitXor(), right=const(hi)), v.ty)
        pyop = ast.Not() if not_is_logical(v.ty) else ast.Invert()
        return Val(ast.UnaryOp(op=pyop, operand=v.expr), v.ty)

    def deref(self, lw: Lowerer, v: Val, node: Node) -> Val:
        raise lw.err(node, "E0002", "unsupported unary operator `*`",
                     "references and dereferences have no meaning in a kernel")

    def cast(self, lw: Lowerer, v: Val, target: str, node: Node) -> Val:
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

    def cast_to_type(self, lw: Lowerer, v: Val, type_node: Node, node: Node) -> Val:
        raise lw.err(type_node, "E0002", f"cannot cast to `{text(type_node)}`",
                     "`as` casts take a scalar type such as f32 or i64; use T::cast for tensors")

    def narrow(self, lw: Lowerer, v: Val, node: Node) -> Val:
        """A value computed in f32 for f32-only math, rounded once to its Rust type here,
        where it meets that type again (a store, an operand of a non-math op, a branch
        merge, a mutable binding). Arithmetic and f32 math keep it in f32 (docs/translation.md)."""
        if not v.ty.wide or v.ty.elem is None:
            return v
        dtype = lw.dtype_expr(v.ty.elem, node)
        return Val(call(ast.Attribute(value=v.expr, attr="to", ctx=LOAD), [dtype]),
                   Ty(v.ty.kind, v.ty.elem), v.static_choice, block_ptr=v.block_ptr)


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


def _shift_amount(op: str, left: Val, right: Val, kind: Kind) -> ast.expr:
    """The right operand of ``left op right``; for a shift of an integer by an amount known only
    at run time, masked to the left type's width, as Rust's release build does (``1u32 << 33`` is
    2 there; Triton would give 0). A literal amount is in range already (rustc refuses any other),
    and compile-time values are Rust's constant evaluation's."""
    if op not in ("<<", ">>") or left.ty.elem not in INT_TYPES or kind is Kind.CONST:
        return right.expr
    bits = semantics.int_info(left.ty.elem)[0]
    amount = literal_value(right.expr)
    if type(amount) is int and 0 <= amount < bits:
        return right.expr
    return ast.BinOp(left=right.expr, op=ast.BitAnd(), right=ast.Constant(bits - 1))
