"""Calls: DSL methods (``T::load(...)``, looked up in the op table and built by their rule),
value methods (``x.lt(y)``, ``a.min(b)``), ``Some(x)``, dtype constructors
(``D::from_f64(v)``) and calls of combine functions."""

from __future__ import annotations

import ast
import difflib
from typing import Any, cast

from tree_sitter import Node

from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.dsl.ops import (
    DESCRIPTOR,
    F32_MATH,
    KEEPS_F32,
    METHODS,
    NOTHING,
    OPS,
    POINTERS,
    REQUIRED,
    TUPLE,
    Elem,
    LikeArg,
    Op,
    Param,
    PointeeOf,
    Turbofish,
)
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.kernel.builder import convert
from rs2triton.transpiler.lowering.lowerer import Lowerer, unparen
from rs2triton.transpiler.lowering.operators import binop
from rs2triton.transpiler.lowering.registry import KERNEL, OP_RULES, expression
from rs2triton.transpiler.lowering.values import (
    NONE_TY,
    OMIT,
    UNKNOWN,
    Arg,
    Kind,
    Omit,
    Ty,
    Val,
    exact_in_f32,
    is_default,
    join_kind,
    shape_form,
)
from rs2triton.transpiler.pyast import call, const, literal_value

BLOCK_PTR_OPS = frozenset({"load", "store", "advance"})
Lowered = list[tuple[Param, Arg, Node]]  # an op's parameters, the values given for them, their nodes


@expression("call_expression", target=KERNEL)
def call_expression(lw: Lowerer, node: Node) -> Val:
    func = part(node, "function")
    args = named_children(part(node, "arguments"))
    generics: list[Node] = []
    if func.type == "generic_function":
        targs = func.child_by_field_name("type_arguments")
        generics = named_children(targs) if targs is not None else []
        func = part(func, "function")
    if func.type == "field_expression":
        return method_call(lw, func, args, node)
    if func.type == "identifier":
        fname = text(func)
        if fname == "Some":
            if len(args) != 1:
                raise lw.err(node, "E0004", "`Some` takes one value")
            return lw.expr(args[0])
        local = lw.local_fns.get(fname)
        if local is not None or fname in lw.ctx.functions:
            from rs2triton.transpiler.lowering.kernel.helpers import call_helper

            return call_helper(lw, fname, local if local is not None else lw.ctx.functions[fname], args, node)
        raise lw.err(func, "E0003", f"cannot call `{fname}`",
                     "kernels call DSL methods (`T::load`, ...) and combine functions defined in the same file")
    if func.type == "scoped_identifier":
        path = func.child_by_field_name("path")
        fname = text(part(func, "name"))
        head = text(path) if path is not None else ""
        if head == lw.T:
            op = OPS.get(fname)
            if op is None:
                raise lw.err(part(func, "name"), "E0003",
                             f"`{lw.T}::{fname}` is not a method of the Triton trait", _suggest(fname, OPS))
            rustc.check_op_generics(lw, fname, generics, node)
            return lower_op(lw, op, args, generics, node)
        if lw.is_dtype(head) or head in SCALARS:
            return dtype_constructor(lw, head, fname, args, node)
    raise lw.err(func, "E0003", f"cannot call `{text(func)}`",
                 f"kernels call methods of the Triton trait as `{lw.T}::name(...)`")


def _suggest(word: str, table: dict[str, Any]) -> str:
    close = difflib.get_close_matches(word, list(table), n=3)
    if close:
        return "did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    return "see docs/ops.md for the methods of the Triton trait"


def method_call(lw: Lowerer, func: Node, args: list[Node], node: Node) -> Val:
    meth = text(part(func, "field"))
    recv_node = part(func, "value")
    op = METHODS.get(meth)
    if op is not None:
        return lower_op(lw, op, [recv_node, *args], [], node)
    recv = lw.expr(recv_node)
    if meth in ("clone", "into") and not args:
        return recv
    if meth in ("min", "max") and len(args) == 1:
        recv, other = lw.narrow(recv, recv_node), lw.narrow(lw.expr(args[0]), args[0])
        if recv.ty.compile_time and other.ty.compile_time:
            return Val(call(meth, [recv.expr, other.expr]), recv.ty)
        fn = "tl.minimum" if meth == "min" else "tl.maximum"
        return Val(call(fn, [recv.expr, other.expr]), Ty(join_kind(recv.ty, other.ty), recv.ty.elem))
    if meth in ("abs", "sqrt", "exp", "exp2", "ln", "log2", "sin", "cos", "floor", "ceil") and not args:
        target = {"ln": "log"}.get(meth, meth)
        return Val(call(f"tl.{target}", [recv.expr]), Ty(Kind.SCALAR if recv.ty.compile_time else recv.ty.kind,
                                                          recv.ty.elem))
    raise lw.err(part(func, "field"), "E0003", f"unknown method `.{meth}()`",
                 "values support `.add_offsets(..)`, the comparisons `.lt/.le/.gt/.ge/.eq/.ne(..)`, "
                 "and on scalars `.min/.max/.abs()`")


# ------------------------------------------------------------------------ DSL methods


def lower_op(lw: Lowerer, op: Op, arg_nodes: list[Node], generics: list[Node], node: Node) -> Val:
    """A call of a DSL method: its arguments checked against the row, then the row's rule."""
    if len(arg_nodes) != len(op.params):
        sig = ", ".join(p.name for p in op.params)
        raise lw.err(node, "E0004",
                     f"`{op.name}` takes {len(op.params)} argument{'s' if len(op.params) != 1 else ''} "
                     f"but {len(arg_nodes)} {'were' if len(arg_nodes) != 1 else 'was'} supplied",
                     f"the DSL signature is `{op.name}({sig})`: every argument is positional")
    return cast(Val, OP_RULES[op.rule](lw, op, arg_nodes, generics, node))


def arg(lw: Lowerer, node: Node) -> Arg:
    """A DSL method argument: `None` is the argument left out, `Some(x)` is `x`."""
    if node.type == "identifier" and node.end_byte - node.start_byte == 4 and text(node) == "None":
        return OMIT
    v = lw.expr(node)
    if v.ty.kind is Kind.NONE and isinstance(v.expr, ast.Constant) and v.expr.value is None:
        return OMIT  # a Tile's `mask` that is `None`
    if v.tile is not None:
        raise lw.err(node, "E0008", "a `Tile` is not a tensor", "pass its `.tensor` (and its `.mask` as a mask)")
    return v


def lower_args(lw: Lowerer, op: Op, arg_nodes: list[Node]) -> Lowered:
    """Every argument of an op call lowered, against its parameter."""
    out: Lowered = []
    vals = [arg(lw, a) for a in arg_nodes]
    keep = op.name in F32_MATH or (op.name in KEEPS_F32 and not _meets_half(vals))
    for i, (p, a, v) in enumerate(zip(op.params, arg_nodes, vals, strict=True)):
        if isinstance(v, Omit):
            if p.default is REQUIRED:
                raise lw.err(a, "E0008", f"`{op.name}` needs a value for `{p.name}`",
                             "`None` only stands for optional arguments")
            out.append((p, v, a))
            continue
        if not keep and not (op.rule == "cast" and i == 0):
            v = lw.narrow(v, a)  # an operand of a non-math op meets its Rust type again
        if v.block_ptr is not None and (i != 0 or op.name not in BLOCK_PTR_OPS):
            raise lw.err(a, "E0008", "a block pointer can only be passed to `load`, `store` and `advance`",
                         "make it with `T::make_block_ptr` and move it with `T::advance`")
        if isinstance(v.expr, ast.List):
            v = Val(shape_form(v.expr, p.form), v.ty)
        out.append((p, v, a))
    return out


def _meets_half(vals: list[Arg]) -> bool:
    """Whether values held in f32 meet a value of their half type among ``vals`` (a runtime D
    operand that is not itself held in f32)."""
    wide = {v.ty.elem for v in vals if isinstance(v, Val) and v.ty.wide}
    return any(isinstance(v, Val) and not v.ty.wide and v.ty.runtime and v.ty.elem in wide for v in vals)


def build_call(target: str | ast.expr, lowered: Lowered, extra_kw: list[tuple[str, ast.expr]] | tuple[()] = ()) -> ast.Call:
    """The Triton call: positional parameters first, then keywords; defaults left out."""
    pos: list[ast.expr] = []
    kws: list[tuple[str, ast.expr]] = []
    for p, v, _ in lowered:
        if isinstance(v, Omit) or is_default(v, p) or p.kw == "":
            continue
        if p.positional and not kws:
            pos.append(v.expr)
        else:
            kws.append((p.keyword, v.expr))
    kws.extend(extra_kw)
    return call(target, pos, kws)


def result_ty(op: Op, lowered: Lowered, generics: list[Node]) -> Ty:
    """The type of an op call's value, by the row's ``returns``."""
    vals = [v for _, v, _ in lowered]
    r = op.returns
    if r is NOTHING:
        return NONE_TY
    if r is TUPLE:
        base = vals[0].ty if vals and isinstance(vals[0], Val) else UNKNOWN
        return Ty(Kind.TUPLE, None, (Ty(Kind.TENSOR, base.elem), Ty(Kind.TENSOR, "i32")) * 2)
    first = vals[0] if vals and isinstance(vals[0], Val) else None
    if r is DESCRIPTOR:
        return Ty(Kind.DESC, first.ty.elem if first is not None else None)
    if r is POINTERS:
        return Ty(Kind.PTRS, first.ty.elem if first is not None else None)
    if isinstance(r, Elem):
        kind = Kind.SCALAR if op.name in ("program_id", "num_programs", "cdiv") else Kind.TENSOR
        return Ty(kind, r.elem)
    if isinstance(r, LikeArg):
        v = vals[r.index] if r.index < len(vals) else OMIT
        if isinstance(v, Omit):
            return Ty(Kind.TENSOR)
        return Ty(v.ty.kind if v.ty.kind in (Kind.SCALAR, Kind.TENSOR) else Kind.TENSOR, v.ty.elem)
    if isinstance(r, PointeeOf):
        v = vals[r.index] if r.index < len(vals) else OMIT
        return Ty(Kind.TENSOR, v.ty.elem if isinstance(v, Val) else None)
    if isinstance(r, Turbofish):
        return Ty(Kind.TENSOR, text(generics[r.index]) if r.index < len(generics) else None)
    return UNKNOWN


# ------------------------------------------------------------------------ dtype constructors


def dtype_constructor(lw: Lowerer, dtype: str, fname: str, args: list[Node], node: Node) -> Val:
    """``D::from_f64(v)`` (and ``from_f32``, ``from_i32``, ``from``, ``new``): ``v`` as a ``D``."""
    if fname not in ("from_f64", "from_f32", "from_i32", "from", "new") or len(args) != 1:
        raise lw.err(node, "E0003", f"unsupported dtype constructor `{dtype}::{fname}`", f"use `{dtype}::from_f64(v)`")
    v = without_f64(lw, args[0]) if dtype in ("f16", "bf16", "f32") or (
        dtype not in SCALARS and lw.is_float(Ty(Kind.CONST, dtype))) else None
    v = v or lw.expr(args[0])
    if v.ty.compile_time:
        # A compile-time value stays a (weakly typed) Python scalar: it takes D's type
        # where it meets a D tensor, without promoting f16 math to f32.
        is_float = lw.is_float(Ty(Kind.CONST, dtype))
        lit = literal_value(v.expr)
        if lit is not None:
            return Val(const(int(lit) if is_float is False else float(lit)), Ty(Kind.CONST, dtype))
        if is_float is False:
            return Val(call("tl.cast", [v.expr, lw.dtype_expr(dtype, node)]), Ty(Kind.SCALAR, dtype))
        return Val(v.expr, Ty(Kind.CONST, dtype))
    return convert(lw, v, dtype, node)


_NARROW = ("f32", "f16", "bf16", "i8", "i16", "i32", "u8", "u16", "u32")
_HALF_OR_F32 = ("f32", "f16", "bf16")


def without_f64(lw: Lowerer, node: Node) -> Val | None:
    """`D::from_f64(e)` where the f64 in ``e`` is only the constructor's signature: ``x as f64``
    of an f32 (or narrower) value, its negation, or one `+ - * /` of such casts and literals exact in f32.
    Computed in f32 and rounded to D it is the same number (f32 has more than 2p + 2 bits
    for D = f16/bf16, so the two roundings are one), and the GPU never runs f64 code."""
    node = unparen(node)
    if node.type == "type_cast_expression":
        inner = unparen(part(node, "value"))
        if text(part(node, "type")) != "f64" or inner.type != "identifier":
            return None
        v = lw.expr(inner)
        return v if v.ty.elem in _NARROW and v.ty.kind in (Kind.SCALAR, Kind.CONST, Kind.INDEX) else None
    if node.type == "unary_expression" and text(node).startswith("-"):
        # `-(x as f64)`: negation is exact, so it stays in the narrow type too.
        operand = unparen(named_children(node)[-1])
        negated = without_f64(lw, operand) if operand.type in ("type_cast_expression", "unary_expression") else None
        if negated is None or negated.ty.elem not in _HALF_OR_F32:
            return None
        return Val(ast.UnaryOp(op=ast.USub(), operand=negated.expr), negated.ty)
    if node.type == "binary_expression" and text(part(node, "operator")) in ("+", "-", "*", "/"):
        sides = []
        for side in (part(node, "left"), part(node, "right")):
            side = unparen(side)
            if side.type == "float_literal" and exact_in_f32(lw.expr(side).expr):
                sides.append(Val(lw.expr(side).expr, Ty(Kind.CONST, "f32")))
                continue
            term = without_f64(lw, side) if side.type in ("type_cast_expression", "unary_expression") else None
            if term is None or term.ty.elem not in _HALF_OR_F32:
                return None
            sides.append(term)
        return binop(lw, text(part(node, "operator")), sides[0], sides[1], node)
    return None
