"""Op rules: how the ops that the generic call rule cannot express are lowered.

Each row of the op table (``ops.py``) names a rule; ``SPECIAL_RULES`` maps the name
to a function ``rule(lw, op, arg_nodes, generics, node) -> Val`` here, where ``lw``
is the :class:`~rs2triton.transpiler.lowering.function.FunctionLowerer` of the function being lowered.
Helpers that generated code may call (``_upcast_f16``, ``_atan``, ``_cat``) live
here too and are emitted into a module only when used.
"""

from __future__ import annotations

import ast

from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.dsl.ops import F32_MATH, KEEPS_F32, METHODS, OPS, UNSUPPORTED, Op
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.pyast import (
    LOAD,
    NONE_TY,
    OMIT,
    BlockPtr,
    Ty,
    Val,
    attr_path,
    call,
    const,
    exact_in_f32,
    f32_round,
    is_default,
    literal_value,
    without_positions,
)

UPCAST_HELPER = "_upcast_f16"

# Module-level @triton.jit helpers that generated code may call, emitted only when used.
HELPER_SOURCES = {
    UPCAST_HELPER: '''
@triton.jit
def _upcast_f16(x):
    """f16/bf16 -> f32 for Triton's f32/f64-only math; other dtypes pass through."""
    return x.to(tl.float32) if x.dtype.primitive_bitwidth < 32 else x
''',
    # libdevice's atan does not run on Triton's interpreter: a portable f32 atan
    # (argument reduction to |t| <= tan(pi/8), then an odd minimax polynomial).
    "_atan": '''
@triton.jit
def _atan(x):
    """atan(x) from Triton primitives, so it runs on every backend and the interpreter."""
    a = tl.abs(x)
    big = a > 2.414213562373095
    mid = a > 0.4142135623730950
    t = tl.where(big, -1.0 / a, tl.where(mid, (a - 1.0) / (a + 1.0), a))
    base = tl.where(big, 1.5707963267948966, tl.where(mid, 0.7853981633974483, 0.0))
    z = t * t
    p = ((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1
    r = base + (p * z * t + t)
    return tl.where(x < 0, -r, r)
''',
    # Triton's tl.cat may reorder elements; the DSL's `cat(a, b, false)` keeps order.
    "_cat": '''
@triton.jit
def _cat(a, b):
    """Concatenate two 1-D blocks in order (Triton's tl.cat is free to reorder)."""
    tl.static_assert(len(a.shape) == 1, "ordered cat supports 1-D blocks")
    return tl.ravel(tl.permute(tl.join(a, b), (1, 0)))
''',
}


def use_helper(ctx, helper: str) -> str:
    if helper not in ctx.helpers:
        ctx.helpers[helper] = without_positions(ast.parse(HELPER_SOURCES[helper]).body[0])
    return helper


def _f32_math(lw, lowered, node) -> tuple[list, str | None]:
    """Promote a half-precision first argument; returns the args and the dtype the result
    is a value of (held in f32 until it meets that dtype again: ``lw.narrow``)."""
    p, x, a = lowered[0]
    elem = x.ty.elem if x is not OMIT else None
    if x is not OMIT and x.ty.wide:
        return lowered, elem  # already in f32: a chain of f32 math
    if elem is None or elem in ("f32", "f64") or x.ty.kind == "const" or lw.is_float(x.ty) is False:
        return lowered, None
    if elem in ("f16", "bf16"):
        promoted = call(ast.Attribute(value=x.expr, attr="to", ctx=LOAD), [attr_path("tl.float32")])
    else:  # a dtype parameter: only known when Triton compiles
        promoted = call(use_helper(lw.ctx, UPCAST_HELPER), [x.expr])
    return [(p, Val(promoted, Ty(x.ty.kind, "f32")), a), *lowered[1:]], elem


def rule_call(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    round_to = None
    if op.name in F32_MATH:
        lowered, round_to = _f32_math(lw, lowered, node)
    kws = []
    for i, g in enumerate(generics):
        kw = op.generics[i] if i < len(op.generics) else None
        if kw == "out_dtype" and text(g) == "f32":
            continue  # Triton's default
        if kw:
            kws.append((kw, lw.dtype_expr(text(g), g)))
    if op.target in HELPER_SOURCES:
        use_helper(lw.ctx, op.target)
    result = Val(lw.build_call(op.target, lowered, kws), lw.result_ty(op, lowered, generics))
    held = [v.ty.elem for _, v, _ in lowered if v is not OMIT and v.ty.wide]
    if op.name in KEEPS_F32 and held and result.ty.elem in held:
        result = Val(result.expr, Ty(result.ty.kind, result.ty.elem, wide=True))  # still in f32
    if round_to is not None:
        result = Val(result.expr, Ty(result.ty.kind if result.ty.kind != "unknown" else "tensor", round_to, wide=True))
    return result


def rule_binop(lw, op: Op, arg_nodes, generics, node) -> Val:
    left, right = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    return lw.binop(op.target, left, right, node)


def rule_arange_f32(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    inner = lw.build_call("tl.arange", lowered)
    return Val(call(ast.Attribute(value=inner, attr="to", ctx=LOAD), [attr_path("tl.float32")]),
               Ty("tensor", "f32"))


def rule_load_scalar_f32_as_i32(lw, op: Op, arg_nodes, generics, node) -> Val:
    ptr, off = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    loaded = call("tl.load", [ast.BinOp(left=ptr.expr, op=ast.Add(), right=off.expr)])
    return Val(call(ast.Attribute(value=loaded, attr="to", ctx=LOAD), [attr_path("tl.int32")]),
               Ty("scalar", "i32"))


def _dtype_from_generic_or(lw, generics, fallback: str | None, node) -> tuple[ast.expr, str]:
    if generics:
        g = text(generics[0])
        return lw.dtype_expr(g, generics[0]), g
    if fallback is None:
        fallback = "f32"
    return lw.dtype_expr(fallback, node), fallback


def rule_zeros(lw, op: Op, arg_nodes, generics, node) -> Val:
    shape = lw.expr(arg_nodes[0])
    if shape is OMIT:
        raise lw.err(arg_nodes[0], "E0008", "`zeros` needs a shape")
    dtype, elem = _dtype_from_generic_or(lw, generics, lw.expected_elem, node)
    return Val(call("tl.zeros", [shape.expr], [("dtype", dtype)]), Ty("tensor", elem))


def rule_full(lw, op: Op, arg_nodes, generics, node) -> Val:
    shape, value = lw.expr(arg_nodes[0]), lw.expr(arg_nodes[1])
    fallback = lw.expected_elem or value.ty.elem
    if fallback not in SCALARS and (lw.kernel is None or lw.kernel.dtype_param(fallback or "") is None):
        fallback = "f32" if lw.is_float(value.ty) is not False else "i32"
    dtype, elem = _dtype_from_generic_or(lw, generics, fallback, node)
    full = call("tl.full", [shape.expr, value.expr], [("dtype", dtype)])
    if elem == "f32":
        # The fill's exact f32 value: then `cast::<f32, D>` of it is the same fill made in D
        # (see rule_cast). A literal is rounded to f32 first, as Rust does (`-3.4028235e38_f32`).
        if value.ty.runtime or exact_in_f32(value.expr):
            full.rs_f32_fill = value.expr
        elif isinstance(literal_value(value.expr), float):
            full.rs_f32_fill = const(f32_round(literal_value(value.expr)))
    return Val(full, Ty("tensor", elem))


def rule_cast(lw, op: Op, arg_nodes, generics, node) -> Val:
    if len(generics) < 2 and lw.expected_elem is None:
        raise lw.err(node, "E0005", "`cast` needs its target type",
                     f"write `{lw.T}::cast::<Src, Dst>(x, None, false)`")
    dst = text(generics[1]) if len(generics) >= 2 else lw.expected_elem
    lowered = lw.lower_args(op, arg_nodes)
    x = lowered[0][1]
    rest = lowered[1:]
    kws = [(p.keyword, v.expr) for p, v, _ in rest if v is not OMIT and not is_default(v, p)]
    if x.ty.wide and not kws and dst == "f32" and x.ty.elem in ("f16", "bf16"):
        return Val(x.expr, Ty(x.ty.kind, "f32"))  # computed in f32 already: no round trip
    if x.ty.wide and (kws or dst not in ("f32", "f64")):
        x = lw.narrow(x, arg_nodes[0])
    dtype = lw.dtype_expr(dst, generics[1] if len(generics) >= 2 else node)
    fill = getattr(x.expr, "rs_f32_fill", None)
    if fill is not None and not kws and lw.is_float(Ty("const", dst)):
        # `T::cast::<f32, D>(T::full::<f32>(shape, v))`: fill in D directly, no tensor-wide cast.
        return Val(call("tl.full", [x.expr.args[0], fill], [("dtype", dtype)]), Ty("tensor", dst))
    if x.ty.kind not in ("tensor", "ptrs"):  # scalars may be plain Python numbers: no `.to`
        return Val(call("tl.cast", [x.expr, dtype], kws), Ty("scalar" if x.ty.kind != "unknown" else "tensor", dst))
    return Val(call(ast.Attribute(value=x.expr, attr="to", ctx=LOAD), [dtype], kws), Ty(x.ty.kind, dst))


def rule_trans(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    dims = lowered[1][1]
    if dims is not OMIT and isinstance(dims.expr, ast.Tuple):
        values = [literal_value(e) for e in dims.expr.elts]
        if values in ([], [1, 0]):
            lowered = lowered[:1]
    return Val(lw.build_call("tl.trans", lowered), lw.result_ty(op, lowered, generics))


def rule_dot(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    kws = []
    has_acc = lowered[2][1] is not OMIT
    out_elem = text(generics[1]) if len(generics) >= 2 else "f32"
    if not has_acc and out_elem != "f32":
        kws.append(("out_dtype", lw.dtype_expr(out_elem, generics[1])))
    acc = lowered[2][1]
    elem = acc.ty.elem if has_acc and acc.ty.elem else out_elem
    return Val(lw.build_call("tl.dot", lowered, kws), Ty("tensor", elem))


def rule_load_store(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    ptr = lowered[0][1]
    if ptr.block_ptr is not None:
        return _block_ptr_access(lw, op, lowered, node)
    kept = []
    for p, v, a in lowered:
        if p.name == "boundary_check" and v is not OMIT and not is_default(v, p):
            raise lw.err(a, "E0002", "`boundary_check` needs a block pointer (`T::make_block_ptr`)",
                         "pass `&[]` and mask the access: `T::load(ptr, Some(mask), ...)`")
        if p.name == "padding_option":
            continue  # only meaningful for block pointers; Triton ignores it otherwise
        kept.append((p, v, a))
    return Val(lw.build_call(op.target, kept), lw.result_ty(op, lowered, generics))


def _items(v, what: str, lw, node) -> list[ast.expr]:
    if v is OMIT or not isinstance(v.expr, (ast.List, ast.Tuple)):
        raise lw.err(node, "E0008", f"`{what}` must be a slice such as `&[a, b]`")
    return list(v.expr.elts)


def rule_make_block_ptr(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    base = lowered[0][1]
    shape, strides, offsets, block = (_items(v, p.name, lw, a) for p, v, a in lowered[1:5])
    if not len(shape) == len(strides) == len(offsets) == len(block):
        raise lw.err(node, "E0008", "shape, strides, offsets and block_shape must have the same length",
                     "give one entry per dimension of the block")
    bp = BlockPtr(base.expr, shape, strides, offsets, block)
    return Val(ast.Constant(None), Ty("blockptr", base.ty.elem), block_ptr=bp)


def rule_advance(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    bp = lowered[0][1].block_ptr
    if bp is None:
        raise lw.err(arg_nodes[0], "E0008", "`advance` takes a block pointer made by `T::make_block_ptr`")
    deltas = _items(lowered[1][1], "offsets", lw, arg_nodes[1])
    if len(deltas) != len(bp.offsets):
        raise lw.err(arg_nodes[1], "E0008", f"this block pointer has {len(bp.offsets)} dimensions")
    moved = [o if literal_value(d) == 0 else ast.BinOp(left=o, op=ast.Add(), right=d)
             for o, d in zip(bp.offsets, deltas, strict=True)]
    moved_bp = BlockPtr(bp.base, bp.shape, bp.strides, moved, bp.block, bp.label)
    return Val(ast.Constant(None), lowered[0][1].ty, block_ptr=moved_bp)


def _expand(e: ast.expr, dim: int, rank: int) -> ast.expr:
    """`e[:, None]`-style broadcasting of a 1-D index along ``dim`` of ``rank`` dims."""
    if rank == 1:
        return e
    idx = [ast.Slice() if i == dim else ast.Constant(None) for i in range(rank)]
    return ast.Subscript(value=e, slice=ast.Tuple(elts=idx, ctx=LOAD), ctx=LOAD)


def _block_ptr_access(lw, op: Op, lowered, node) -> Val:
    """A load/store through a block pointer: pointer arithmetic plus a boundary mask."""
    bp = lowered[0][1].block_ptr
    args = {p.name: v for p, v, _ in lowered}
    rank = len(bp.offsets)
    index = []
    for i in range(rank):
        var = lw.names.fresh(f"{bp.label}_idx{i}")
        lw.emit(ast.Assign(targets=[ast.Name(id=var, ctx=ast.Store())],
                           value=ast.BinOp(left=bp.offsets[i], op=ast.Add(),
                                           right=call("tl.arange", [ast.Constant(0), bp.block[i]]))), node)
        index.append(ast.Name(id=var, ctx=LOAD))
    ptr: ast.expr = bp.base
    for i in range(rank):
        term = _expand(index[i], i, rank)
        if literal_value(bp.strides[i]) != 1:
            term = ast.BinOp(left=term, op=ast.Mult(), right=bp.strides[i])
        ptr = ast.BinOp(left=ptr, op=ast.Add(), right=term)
    checks = args["boundary_check"]
    dims = [] if checks is OMIT else [literal_value(e) for e in getattr(checks.expr, "elts", [])]
    if any(type(d) is not int or not 0 <= d < rank for d in dims):
        raise lw.err(node, "E0008", "`boundary_check` must list literal dimensions of the block pointer")
    terms: list[ast.expr] = []
    for d in sorted(set(dims)):  # Triton's boundary check: 0 <= index < shape
        at = _expand(index[d], d, rank)
        terms.append(ast.Compare(left=at, ops=[ast.GtE()], comparators=[const(0)]))
        terms.append(ast.Compare(left=at, ops=[ast.Lt()], comparators=[bp.shape[d]]))
    user_mask = args.get("mask", OMIT)
    if user_mask is not OMIT:
        terms.append(user_mask.expr)
    mask = None
    for t in terms:
        mask = t if mask is None else ast.BinOp(left=mask, op=ast.BitAnd(), right=t)
    kws: list[tuple[str, ast.expr]] = []
    if mask is not None:
        kws.append(("mask", mask))
    is_load = op.name == "load"
    if is_load:
        other = args["other"]
        padding = args["padding_option"]
        if other is not OMIT:
            kws.append(("other", other.expr))
        elif mask is not None and padding is not OMIT:
            fill = 'float("nan")' if getattr(padding.expr, "value", None) == "nan" else "0.0"
            kws.append(("other", ast.parse(fill, mode="eval").body))
    for key in ("cache_modifier", "eviction_policy", "volatile"):
        v = args.get(key, OMIT)
        p = next(p for p, _, _ in lowered if p.name == key) if key in args else None
        if v is not OMIT and p is not None and not is_default(v, p):
            kws.append((key, v.expr))
    if is_load:
        return Val(call("tl.load", [ptr], kws), Ty("tensor", lowered[0][1].ty.elem))
    return Val(call("tl.store", [ptr, args["src"].expr], kws), NONE_TY)


def rule_with_indices(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    kws = [("return_indices", ast.Constant(True))]
    pos = [lowered[0][1].expr]
    for p, v, _ in lowered[1:]:
        if v is not OMIT and not is_default(v, p):
            kws.append((p.keyword, v.expr))
    # Triton wants `return_indices` before the tie-break flag; order for readability.
    kws = [kws[0]] + [k for k in kws[1:] if k[0] == "axis"] + [k for k in kws[1:] if k[0] != "axis"]
    elem = lowered[0][1].ty.elem
    return Val(call(op.target, pos, kws), Ty("tuple", None, (Ty("tensor", elem), Ty("tensor", "i32"))))


def rule_method(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    recv = lowered[0][1]
    args = [v.expr for _, v, _ in lowered[1:] if v is not OMIT]
    ty = Ty("tensor", recv.ty.elem) if op.returns != "none" else NONE_TY
    return Val(call(ast.Attribute(value=recv.expr, attr=op.target, ctx=LOAD), args), ty)


def rule_combine(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    fn = lowered[2][1]
    if fn is OMIT or fn.ty.kind != "fn":
        raise lw.err(arg_nodes[2], "E0008", "the combine function must be a plain `fn` of this file",
                     "pass it by name, e.g. `add_combine::<T, D>`")
    return Val(lw.build_call(op.target, lowered), lw.result_ty(op, lowered, generics))


def rule_cat(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    (_, a, _), (_, b, _), (_, reorder, _) = lowered
    ty = Ty("tensor", a.ty.elem)
    if isinstance(reorder.expr, ast.Constant) and reorder.expr.value is True:
        return Val(call("tl.cat", [a.expr, b.expr], [("can_reorder", ast.Constant(True))]), ty)
    if isinstance(reorder.expr, ast.Constant) and reorder.expr.value is False:
        return Val(call(use_helper(lw.ctx, "_cat"), [a.expr, b.expr]), ty)
    raise lw.err(arg_nodes[2], "E0008", "`can_reorder` must be `true` or `false`",
                 "pass a literal: the choice selects different Triton code")


def rule_flip(lw, op: Op, arg_nodes, generics, node) -> Val:
    lowered = lw.lower_args(op, arg_nodes)
    (_, x, _), (p, dim, a) = lowered
    if dim is OMIT:  # Triton 3.6 rejects dim=None; -1 (the last dim) means the same everywhere
        dim = Val(ast.UnaryOp(op=ast.USub(), operand=ast.Constant(1)), Ty("const", "i32"))
    return Val(lw.build_call(op.target, [lowered[0], (p, dim, a)]), Ty("tensor", x.ty.elem))


def rule_inline_asm(lw, op: Op, arg_nodes, generics, node) -> Val:
    if len(generics) != 1:
        raise lw.err(node, "E0005", "`inline_asm_elementwise` needs its result type",
                     f"write `{lw.T}::inline_asm_elementwise::<i32>(asm, constraints, is_pure, pack)`")
    lowered = lw.lower_args(op, arg_nodes)
    elem = text(generics[0])
    kws = [("asm", lowered[0][1].expr), ("constraints", lowered[1][1].expr),
           ("args", ast.List(elts=[], ctx=LOAD)), ("dtype", lw.dtype_expr(elem, generics[0])),
           ("is_pure", lowered[2][1].expr), ("pack", lowered[3][1].expr)]
    return Val(call(op.target, [], kws), Ty("scalar", elem))


SPECIAL_RULES = {
    "call": rule_call,
    "binop": rule_binop,
    "arange_f32": rule_arange_f32,
    "load_scalar_f32_as_i32": rule_load_scalar_f32_as_i32,
    "zeros": rule_zeros,
    "full": rule_full,
    "cast": rule_cast,
    "trans": rule_trans,
    "dot": rule_dot,
    "load_store": rule_load_store,
    "with_indices": rule_with_indices,
    "method": rule_method,
    "combine": rule_combine,
    "cat": rule_cat,
    "flip": rule_flip,
    "make_block_ptr": rule_make_block_ptr,
    "advance": rule_advance,
    "inline_asm": rule_inline_asm,
}


def check_op_table(rows, rules=SPECIAL_RULES) -> None:
    """Every op-table row names a rule implemented here, or is marked unsupported.

    Run at import, so a row with a misspelt or unimplemented rule stops the program
    at once instead of being lowered by some other rule.
    """
    bad = [f"{op.name} (rule {op.rule!r})" for op in rows if op.rule != UNSUPPORTED and op.rule not in rules]
    if bad:
        raise RuntimeError("op table rows without an implemented rule: " + ", ".join(bad))


check_op_table([*OPS.values(), *METHODS.values()])
