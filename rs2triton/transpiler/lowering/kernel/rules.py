"""Op rules: how the calls of each op-table row are built.

Every row of the op table (``dsl/ops.py``) names a rule; the function registered under that
name here (``@op_rule``) builds the call: ``rule(lw, op, arg_nodes, generics, node) -> Val``.
``call`` is the generic rule (positional DSL arguments as Triton's, defaults dropped); the
others are what a row cannot say as data: f16/bf16 promotion for f32-only math, casts,
`full` fills, block pointers lowered to pointer arithmetic, combine functions...
"""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.rust.semantics import round_float
from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.dsl.ops import F32_MATH, KEEPS_F32, NOTHING, Op
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.lowering import typeck
from rs2triton.transpiler.lowering.kernel.calls import Lowered, build_call, lower_args, result_ty
from rs2triton.transpiler.lowering.kernel.helpers import HELPER_SOURCES, UPCAST_HELPER, use_helper
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.operators import binop
from rs2triton.transpiler.lowering.registry import op_rule
from rs2triton.transpiler.lowering.values import (
    BLOCKS,
    NONE_TY,
    Arg,
    BlockPtr,
    Kind,
    Omit,
    Ty,
    Val,
    exact_in_f32,
    is_default,
)
from rs2triton.transpiler.pyast import LOAD, attr_path, call, const, literal_value

Args = list[Node]


def _f32_math(lw: Lowerer, lowered: Lowered) -> tuple[Lowered, str | None]:
    """Promote a half-precision first argument; returns the args and the dtype the result
    is a value of (held in f32 until it meets that dtype again: ``Lowerer.narrow``)."""
    p, x, a = lowered[0]
    assert isinstance(x, Val)  # lower_args refuses `None` for a required argument (E0008)
    elem = x.ty.elem
    if x.ty.wide:
        return lowered, elem  # already in f32: a chain of f32 math
    if elem is None or elem in ("f32", "f64") or x.ty.compile_time or lw.is_float(x.ty) is False:
        return lowered, None
    if elem in ("f16", "bf16"):
        promoted = call(ast.Attribute(value=x.expr, attr="to", ctx=LOAD), [attr_path("tl.float32")])
    else:  # a dtype parameter: only known when Triton compiles
        promoted = call(use_helper(lw.ctx, UPCAST_HELPER), [x.expr])
    return [(p, Val(promoted, Ty(x.ty.kind, "f32")), a), *lowered[1:]], elem


@op_rule("call")
def rule_call(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    round_to = None
    if op.name in F32_MATH:
        lowered, round_to = _f32_math(lw, lowered)
    kws = []
    for i, g in enumerate(generics):
        kw = op.generics[i] if i < len(op.generics) else None
        if kw == "out_dtype" and text(g) == "f32":
            continue  # Triton's default
        if kw:
            kws.append((kw, lw.dtype_expr(text(g), g)))
    if op.target in HELPER_SOURCES:
        use_helper(lw.ctx, op.target)
    result = Val(build_call(op.target, lowered, kws), result_ty(op, lowered, generics))
    held = [v.ty.elem for _, v, _ in lowered if isinstance(v, Val) and v.ty.wide]
    if op.name in KEEPS_F32 and held and result.ty.elem in held:
        result = Val(result.expr, Ty(result.ty.kind, result.ty.elem, wide=True))  # still in f32
    if round_to is not None:
        kind = result.ty.kind if result.ty.kind is not Kind.UNKNOWN else Kind.TENSOR
        result = Val(result.expr, Ty(kind, round_to, wide=True))
    return result


@op_rule("binop")
def rule_binop(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    left, right = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    typeck.check_method_operand(lw, op.name, left, right, arg_nodes[1])
    return binop(lw, op.target, left, right, node)


@op_rule("arange_f32")
def rule_arange_f32(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    inner = build_call("tl.arange", lower_args(lw, op, arg_nodes))
    return Val(call(ast.Attribute(value=inner, attr="to", ctx=LOAD), [attr_path("tl.float32")]), Ty(Kind.TENSOR, "f32"))


@op_rule("load_scalar_f32_as_i32")
def rule_load_scalar_f32_as_i32(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    ptr, off = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    loaded = call("tl.load", [ast.BinOp(left=ptr.expr, op=ast.Add(), right=off.expr)])
    return Val(call(ast.Attribute(value=loaded, attr="to", ctx=LOAD), [attr_path("tl.int32")]), Ty(Kind.SCALAR, "i32"))


def _dtype_from_generic_or(lw: Lowerer, generics: Args, fallback: str | None, node: Node) -> tuple[ast.expr, str]:
    if generics:
        g = text(generics[0])
        return lw.dtype_expr(g, generics[0]), g
    fallback = fallback or "f32"
    return lw.dtype_expr(fallback, node), fallback


@op_rule("zeros")
def rule_zeros(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    shape = lw.expr(arg_nodes[0])
    pointee = _pointer_type(lw, generics[0]) if generics else None
    if pointee is not None:
        # `T::zeros::<T::Pointer<D>>(..)`: null pointers (address 0, as Rust's zeroed pointers)
        zeros = call("tl.zeros", [shape.expr], [("dtype", attr_path("tl.int64"))])
        to = call(ast.Attribute(value=zeros, attr="to", ctx=LOAD), [call("tl.pointer_type", [lw.dtype_expr(pointee, generics[0])])])
        return Val(to, Ty(Kind.PTRS, pointee))
    dtype, elem = _dtype_from_generic_or(lw, generics, lw.expected_elem, node)
    return Val(call("tl.zeros", [shape.expr], [("dtype", dtype)]), Ty(Kind.TENSOR, elem))


def _pointer_type(lw: Lowerer, generic: Node) -> str | None:
    """``D`` of a turbofish type ``T::Pointer<D>`` (None for any other type)."""
    spelled = text(generic).replace(" ", "")
    head = f"{lw.T}::Pointer<"
    return spelled[len(head):-1] if spelled.startswith(head) and spelled.endswith(">") else None


@op_rule("full")
def rule_full(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    shape, value = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    fallback = lw.expected_elem or value.ty.elem
    if fallback not in SCALARS and not lw.is_dtype(fallback or ""):
        fallback = "f32" if lw.is_float(value.ty) is not False else "i32"
    dtype, elem = _dtype_from_generic_or(lw, generics, fallback, node)
    fill = None
    if elem == "f32":
        # The fill's exact f32 value: then `cast::<f32, D>` of it is the same fill made in D
        # (see rule_cast). A literal is rounded to f32 first, as Rust does (`-3.4028235e38_f32`).
        lit = literal_value(value.expr)
        if value.ty.runtime or exact_in_f32(value.expr):
            fill = value.expr
        elif isinstance(lit, float):
            fill = const(round_float(lit, "f32"))
    return Val(call("tl.full", [shape.expr, value.expr], [("dtype", dtype)]), Ty(Kind.TENSOR, elem), f32_fill=fill)


@op_rule("cast")
def rule_cast(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    if len(generics) < 2 and lw.expected_elem is None:
        raise lw.err(node, "E0005", "`cast` needs its target type", f"write `{lw.T}::cast::<Src, Dst>(x, None, false)`")
    dst = text(generics[1]) if len(generics) >= 2 else lw.expected_elem
    assert dst is not None
    lowered = lower_args(lw, op, arg_nodes)
    x = lowered[0][1]
    if isinstance(x, Omit):
        raise lw.err(arg_nodes[0], "E0008", "`cast` needs a value to cast")
    kws = [(p.keyword, v.expr) for p, v, _ in lowered[1:] if isinstance(v, Val) and not is_default(v, p)]
    if x.ty.wide and not kws and dst == "f32" and x.ty.elem in ("f16", "bf16"):
        return Val(x.expr, Ty(x.ty.kind, "f32"))  # computed in f32 already: no round trip
    if x.ty.wide and (kws or dst not in ("f32", "f64")):
        x = lw.narrow(x, arg_nodes[0])
    dtype = lw.dtype_expr(dst, generics[1] if len(generics) >= 2 else node)
    if x.f32_fill is not None and not kws and lw.is_float(Ty(Kind.CONST, dst)):
        # `T::cast::<f32, D>(T::full::<f32>(shape, v))`: fill in D directly, no tensor-wide cast.
        assert isinstance(x.expr, ast.Call)
        return Val(call("tl.full", [x.expr.args[0], x.f32_fill], [("dtype", dtype)]), Ty(Kind.TENSOR, dst))
    if x.ty.kind not in BLOCKS:  # scalars may be plain Python numbers: no `.to`
        return Val(call("tl.cast", [x.expr, dtype], kws), Ty(Kind.SCALAR if x.ty.kind is not Kind.UNKNOWN
                                                             else Kind.TENSOR, dst))
    return Val(call(ast.Attribute(value=x.expr, attr="to", ctx=LOAD), [dtype], kws), Ty(x.ty.kind, dst))


@op_rule("trans")
def rule_trans(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    dims = lowered[1][1]
    if isinstance(dims, Val) and isinstance(dims.expr, ast.Tuple):
        if [literal_value(e) for e in dims.expr.elts] in ([], [1, 0]):
            lowered = lowered[:1]
    return Val(build_call("tl.trans", lowered), result_ty(op, lowered, generics))


@op_rule("dot")
def rule_dot(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    kws = []
    acc = lowered[2][1]
    out_elem = text(generics[1]) if len(generics) >= 2 else "f32"
    if isinstance(acc, Omit) and out_elem != "f32":
        kws.append(("out_dtype", lw.dtype_expr(out_elem, generics[1])))
    elem = acc.ty.elem if isinstance(acc, Val) and acc.ty.elem else out_elem
    return Val(build_call("tl.dot", lowered, kws), Ty(Kind.TENSOR, elem))


@op_rule("load_store")
def rule_load_store(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    ptr = lowered[0][1]
    if isinstance(ptr, Val) and ptr.block_ptr is not None:
        return _block_ptr_access(lw, op, lowered, ptr.block_ptr, node)
    kept = []
    for p, v, a in lowered:
        if p.name == "boundary_check" and isinstance(v, Val) and not is_default(v, p):
            raise lw.err(a, "E0002", "`boundary_check` needs a block pointer (`T::make_block_ptr`)",
                         "pass `&[]` and mask the access: `T::load(ptr, Some(mask), ...)`")
        if p.name == "padding_option":
            continue  # only meaningful for block pointers; Triton ignores it otherwise
        kept.append((p, v, a))
    return Val(build_call(op.target, kept), result_ty(op, lowered, generics))


def _items(v: Arg, what: str, lw: Lowerer, node: Node) -> list[ast.expr]:
    if isinstance(v, Omit) or not isinstance(v.expr, (ast.List, ast.Tuple)):
        raise lw.err(node, "E0008", f"`{what}` must be a slice such as `&[a, b]`")
    return list(v.expr.elts)


@op_rule("make_block_ptr")
def rule_make_block_ptr(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    base = lowered[0][1]
    assert isinstance(base, Val)
    shape, strides, offsets, block = (_items(v, p.name, lw, a) for p, v, a in lowered[1:5])
    if not len(shape) == len(strides) == len(offsets) == len(block):
        raise lw.err(node, "E0008", "shape, strides, offsets and block_shape must have the same length",
                     "give one entry per dimension of the block")
    bp = BlockPtr(base.expr, shape, strides, offsets, block)
    return Val(ast.Constant(None), Ty(Kind.BLOCK_PTR, base.ty.elem), block_ptr=bp)


@op_rule("advance")
def rule_advance(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    ptr = lowered[0][1]
    bp = ptr.block_ptr if isinstance(ptr, Val) else None
    if bp is None or not isinstance(ptr, Val):
        raise lw.err(arg_nodes[0], "E0008", "`advance` takes a block pointer made by `T::make_block_ptr`")
    deltas = _items(lowered[1][1], "offsets", lw, arg_nodes[1])
    if len(deltas) != len(bp.offsets):
        raise lw.err(arg_nodes[1], "E0008", f"this block pointer has {len(bp.offsets)} dimensions")
    moved = [o if literal_value(d) == 0 else ast.BinOp(left=o, op=ast.Add(), right=d)
             for o, d in zip(bp.offsets, deltas, strict=True)]
    return Val(ast.Constant(None), ptr.ty, block_ptr=BlockPtr(bp.base, bp.shape, bp.strides, moved, bp.block, bp.label))


def _expand(e: ast.expr, dim: int, rank: int) -> ast.expr:
    """`e[:, None]`-style broadcasting of a 1-D index along ``dim`` of ``rank`` dims."""
    if rank == 1:
        return e
    idx: list[ast.expr] = [ast.Slice() if i == dim else ast.Constant(None) for i in range(rank)]
    return ast.Subscript(value=e, slice=ast.Tuple(elts=idx, ctx=LOAD), ctx=LOAD)


def _block_ptr_access(lw: Lowerer, op: Op, lowered: Lowered, bp: BlockPtr, node: Node) -> Val:
    """A load/store through a block pointer: pointer arithmetic plus a boundary mask."""
    args = {p.name: v for p, v, _ in lowered}
    rank = len(bp.offsets)
    index: list[ast.expr] = []
    for i in range(rank):
        var = lw.names.fresh(f"{bp.label}_idx{i}")
        lw.assign(var, ast.BinOp(left=bp.offsets[i], op=ast.Add(),
                                 right=call("tl.arange", [ast.Constant(0), bp.block[i]])), node)
        index.append(ast.Name(id=var, ctx=LOAD))
    ptr: ast.expr = bp.base
    for i in range(rank):
        term = _expand(index[i], i, rank)
        if literal_value(bp.strides[i]) != 1:
            term = ast.BinOp(left=term, op=ast.Mult(), right=bp.strides[i])
        ptr = ast.BinOp(left=ptr, op=ast.Add(), right=term)
    checks = args["boundary_check"]
    dims = [] if isinstance(checks, Omit) else [literal_value(e) for e in getattr(checks.expr, "elts", [])]
    if any(type(d) is not int or not 0 <= d < rank for d in dims):
        raise lw.err(node, "E0008", "`boundary_check` must list literal dimensions of the block pointer")
    terms: list[ast.expr] = []
    for d in sorted({int(d) for d in dims if d is not None}):  # Triton's boundary check: 0 <= index < shape
        at = _expand(index[d], d, rank)
        terms.append(ast.Compare(left=at, ops=[ast.GtE()], comparators=[const(0)]))
        terms.append(ast.Compare(left=at, ops=[ast.Lt()], comparators=[bp.shape[d]]))
    user_mask = args.get("mask")
    if isinstance(user_mask, Val):
        terms.append(user_mask.expr)
    mask = None
    for t in terms:
        mask = t if mask is None else ast.BinOp(left=mask, op=ast.BitAnd(), right=t)
    kws: list[tuple[str, ast.expr]] = []
    if mask is not None:
        kws.append(("mask", mask))
    is_load = op.name == "load"
    if is_load:
        other, padding = args["other"], args["padding_option"]
        if isinstance(other, Val):
            kws.append(("other", other.expr))
        elif mask is not None and isinstance(padding, Val):
            nan = getattr(padding.expr, "value", None) == "nan"
            kws.append(("other", call("float", [ast.Constant("nan")]) if nan else ast.Constant(0.0)))
    params = {p.name: p for p, _, _ in lowered}
    for key in ("cache_modifier", "eviction_policy", "volatile"):
        v = args.get(key)
        if isinstance(v, Val) and not is_default(v, params[key]):
            kws.append((key, v.expr))
    if is_load:
        return Val(call("tl.load", [ptr], kws), Ty(Kind.TENSOR, _pointee(lowered)))
    src = args["src"]
    assert isinstance(src, Val)
    return Val(call("tl.store", [ptr, src.expr], kws), NONE_TY)


def _pointee(lowered: Lowered) -> str | None:
    ptr = lowered[0][1]
    return ptr.ty.elem if isinstance(ptr, Val) else None


@op_rule("with_indices")
def rule_with_indices(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    x = lowered[0][1]
    assert isinstance(x, Val)
    kws: list[tuple[str, ast.expr]] = [("return_indices", ast.Constant(True))]
    for p, v, _ in lowered[1:]:
        if isinstance(v, Val) and not is_default(v, p):
            kws.append((p.keyword, v.expr))
    return Val(call(op.target, [x.expr], kws), Ty(Kind.TUPLE, None, (Ty(Kind.TENSOR, x.ty.elem), Ty(Kind.TENSOR, "i32"))))


@op_rule("method")
def rule_method(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    recv = lowered[0][1]
    assert isinstance(recv, Val)
    args = [v.expr for _, v, _ in lowered[1:] if isinstance(v, Val)]
    ty = NONE_TY if op.returns is NOTHING else Ty(Kind.TENSOR, recv.ty.elem)
    return Val(call(ast.Attribute(value=recv.expr, attr=op.target, ctx=LOAD), args), ty)


@op_rule("combine")
def rule_combine(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    fn = lowered[2][1]
    if isinstance(fn, Omit) or fn.ty.kind is not Kind.FN:
        raise lw.err(arg_nodes[2], "E0008", "the combine function must be a plain `fn` of this file",
                     "pass it by name, e.g. `add_combine::<T, D>`")
    return Val(build_call(op.target, lowered), result_ty(op, lowered, generics))


@op_rule("cat")
def rule_cat(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    (_, a, _), (_, b, _), (_, reorder, _) = lowered
    assert isinstance(a, Val) and isinstance(b, Val)
    ty = Ty(Kind.TENSOR, a.ty.elem)
    flag = reorder.expr.value if isinstance(reorder, Val) and isinstance(reorder.expr, ast.Constant) else None
    if flag is True:
        return Val(call("tl.cat", [a.expr, b.expr], [("can_reorder", ast.Constant(True))]), ty)
    if flag is False:
        return Val(call(use_helper(lw.ctx, "_cat"), [a.expr, b.expr]), ty)
    raise lw.err(arg_nodes[2], "E0008", "`can_reorder` must be `true` or `false`",
                 "pass a literal: the choice selects different Triton code")


@op_rule("flip")
def rule_flip(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    lowered = lower_args(lw, op, arg_nodes)
    (_, x, _), (p, dim, a) = lowered
    assert isinstance(x, Val)
    if isinstance(dim, Omit):  # Triton 3.6 rejects dim=None; -1 (the last dim) means the same everywhere
        dim = Val(ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1)), Ty(Kind.CONST, "i32"))
    return Val(build_call(op.target, [lowered[0], (p, dim, a)]), Ty(Kind.TENSOR, x.ty.elem))


@op_rule("inline_asm")
def rule_inline_asm(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    if len(generics) != 1:
        raise lw.err(node, "E0005", "`inline_asm_elementwise` needs its result type",
                     f"write `{lw.T}::inline_asm_elementwise::<i32>(asm, constraints, is_pure, pack)`")
    lowered = lower_args(lw, op, arg_nodes)
    values = [v.expr for _, v, _ in lowered if isinstance(v, Val)]
    if len(values) != 4:
        raise lw.err(node, "E0008", "`inline_asm_elementwise` needs all four arguments")
    elem = text(generics[0])
    kws = [("asm", values[0]), ("constraints", values[1]), ("args", ast.List(elts=[], ctx=LOAD)),
           ("dtype", lw.dtype_expr(elem, generics[0])), ("is_pure", values[2]), ("pack", values[3])]
    return Val(call(op.target, [], kws), Ty(Kind.SCALAR, elem))


@op_rule("untranslatable")
def rule_untranslatable(lw: Lowerer, op: Op, arg_nodes: Args, generics: Args, node: Node) -> Val:
    raise lw.err(node, "E0002", f"`{lw.T}::{op.name}` has no Triton equivalent: Triton kernels cannot "
                 "allocate, index or transpose shared memory (the compiler alone places it)",
                 "stage the data through a global scratch tensor, or use `T::trans` / `T::permute` on "
                 "register tensors")
