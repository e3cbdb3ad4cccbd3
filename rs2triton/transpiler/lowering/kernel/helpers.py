"""The ``@triton.jit`` helpers a generated module may define besides its kernels.

- Combine functions: plain fns of the file passed to ``T::reduce`` / ``T::associative_scan``,
  lowered (once per file, on first use) to helpers whose tail expression is their return value.
- Helpers rs2triton writes itself where Triton lacks the function on some backend
  (``_upcast_f16``, ``_atan``, ``_cat``), emitted only when a kernel uses them.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from tree_sitter import Node

from rs2triton.transpiler.frontend.items import doc_of, param_name
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.frontend.types import TypeRef, read_type
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.expressions import identifier
from rs2triton.transpiler.lowering.kernel.function import docstring
from rs2triton.transpiler.lowering.kernel.statements import annotation_elem
from rs2triton.transpiler.lowering.lowerer import COMMENTS, Lowerer
from rs2triton.transpiler.lowering.values import Kind, TileParts, Ty, Val
from rs2triton.transpiler.pyast import LOAD, attr_path, call, name, python_name, without_positions

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
    # Rust's `loop {}`. The frontend needs a condition known only at run time, and the barrier
    # is an effect the compiler must keep: an empty loop is deleted by MLIR's canonicalizer.
    "_loop_forever": '''
@triton.jit
def _loop_forever():
    """Rust's `loop {}`: never returns."""
    while tl.program_id(0) >= 0:
        tl.debug_barrier()
''',
}


def use_helper(ctx: ModuleContext, helper: str) -> str:
    """The name of one of :data:`HELPER_SOURCES`, which the module now defines."""
    if helper not in ctx.helpers:
        tree = without_positions(ast.parse(HELPER_SOURCES[helper]).body[0])
        assert isinstance(tree, ast.FunctionDef)
        ctx.helpers[helper] = tree
    return helper


def own_type_params(fn: Node, triton: str, bounds: dict[str, str]) -> str:
    """A helper's own type parameters: the one bounded by `Triton` names the hardware (returned;
    ``triton`` when none is), the others are dtype parameters, added to ``bounds``."""
    helper_triton = triton
    tparams = fn.child_by_field_name("type_parameters")
    for tp in named_children(tparams) if tparams is not None else []:
        if tp.type == "type_parameter":
            pname = text(part(tp, "name"))
            b = tp.child_by_field_name("bounds")
            bound = text(named_children(b)[0]).split("::")[-1] if b is not None and named_children(b) else "Dtype"
            if bound == "Triton":
                helper_triton = pname
            else:
                bounds[pname] = bound
    return helper_triton


def lower_helper(ctx: ModuleContext, fn_name: str, triton: str, dtype_bounds: dict[str, str],
                 local: Node | None = None, outer_fns: dict[str, Node] | None = None) -> str:
    """Lower the plain fn ``fn_name`` to a ``@triton.jit`` helper of the module (once); its Python
    name. ``local``: the fn item nested in a body that ``fn_name`` names there (it shadows a
    module fn of that name); ``outer_fns``: the fn items of that body, which it sees too."""
    key = fn_name if local is None else f"{local.start_byte}:{fn_name}:combine"
    if key in ctx.helpers:
        return ctx.helpers[key].name
    if local is None:
        py_name = python_name(fn_name)
    else:  # one per fn item: clear of every other helper, kernel and module fn
        taken = ({f.name for f in ctx.helpers.values()} | {h[0] for h in ctx.helper_calls.values()}
                 | ctx.kernel_names | {python_name(f) for f in ctx.functions})
        py_name = base = python_name(fn_name)
        i = 1
        while py_name in taken:
            i += 1
            py_name = f"{base}_{i}"
    if key in ctx.lowering_helpers:
        return py_name
    fn = ctx.functions[fn_name] if local is None else local
    ctx.lowering_helpers.add(key)
    bounds = dict(dtype_bounds)
    helper_triton = own_type_params(fn, triton, bounds)
    lw = Lowerer(ctx, None, fn, helper_triton, bounds)
    lw.local_fns = {**(outer_fns or {}), **lw.local_fns}
    rustc.check_signature(lw, fn)
    args = []
    for p in named_children(part(fn, "parameters")):
        if p.type != "parameter":
            raise ctx.smap.error(p, "E0007", "combine functions take plain parameters")
        rust = param_name(part(p, "pattern"), ctx.smap)
        if rust != "_" and lw.names.lookup(rust) is not None:
            raise ctx.smap.error(part(p, "pattern"), "E0007", f"identifier `{rust}` is bound more "
                                 "than once in this parameter list", "rename one of the parameters")
        elem = annotation_elem(lw, part(p, "type"))
        args.append(ast.arg(arg=lw.names.declare(rust, Ty(Kind.TENSOR, elem))))
        rustc.declared(lw, rust, "mut" if rustc.is_mut(p) else "param")
        _dtype_from(lw, part(p, "type"), name(args[-1].arg))  # `DD` is the dtype of `a: TT::Tensor<DD>`
    body_node = part(fn, "body")
    real = [c for c in body_node.named_children if c.type not in COMMENTS]
    if not real or real[-1].type in ("let_declaration", "expression_statement"):
        raise ctx.smap.error(part(fn, "name"), "E0002",
                             f"combine function `{fn_name}` must end with the value it returns",
                             "end the body with an expression (no trailing `;`)")
    body: list[ast.stmt] = []
    with lw.into(body):
        for c in body_node.named_children:
            if c.id == real[-1].id:
                break
            lw.stmt(c)
        value = lw.narrow(lw.expr(real[-1]), real[-1])
    body.append(ast.Return(value=value.expr))
    ctx.helpers[key] = ast.FunctionDef(
        name=py_name, args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[],
                                         defaults=[]),
        body=body, decorator_list=[attr_path("triton.jit")], returns=None)
    ctx.lowering_helpers.discard(key)
    return py_name


# ---------------------------------------------------------------------- helpers called from kernels


def _is_tile_type(ty: Node | None) -> bool:
    return ty is not None and text(ty).replace(" ", "").split("<")[0].split("::")[-1] == "Tile"


def call_helper(lw: Lowerer, fn_name: str, fn: Node, arg_nodes: list[Node], node: Node) -> Val:
    """``helper(args)`` / ``helper::<T, D>(args)`` of a plain fn (of the file, or nested in the
    body): a ``@triton.jit`` helper, lowered once per shape of its arguments.

    A ``Tile`` argument is passed as its fields (its tensor, and its mask unless that is
    ``None``); a ``Tile`` result comes back as its tensor and, where it has one, its mask, bound
    to fresh locals at the call. Nothing of a Tile crosses the call as an aggregate, and a
    ``None`` mask never does (Triton 3.6 cannot return one from a helper)."""
    params = [p for p in named_children(part(fn, "parameters")) if p.type == "parameter"]
    if len(params) != len(arg_nodes):
        raise lw.err(node, "E0004", f"`{fn_name}` takes {len(params)} argument{'s' if len(params) != 1 else ''} "
                     f"but {len(arg_nodes)} {'were' if len(arg_nodes) != 1 else 'was'} supplied")
    func = part(node, "function")
    if func.type == "generic_function":
        rustc.check_fn_generics(lw, fn, func)
    vals = []
    for p, a in zip(params, arg_nodes, strict=True):
        v = lw.expr(a)
        if _is_tile_type(p.child_by_field_name("type")) != (v.tile is not None):
            want = "a `Tile`" if v.tile is None else "a tensor or scalar"
            raise lw.err(a, "E0008", f"`{fn_name}` takes {want} here", "pass what its parameter's type says")
        if v.tile is not None:
            rustc.moved(lw, a)  # passed by value: moved into the helper
        vals.append(v if v.tile is not None else lw.narrow(v, a))
    if diverges(fn):
        # `fn dummy() -> D { loop {} }`: the call never returns (Rust's `!`). It is the loop it
        # runs, here; the value after it is never reached, so any of the type will do (and the
        # code after it is left out: see Lowerer.stmts).
        loop = ast.Expr(call(use_helper(lw.ctx, "_loop_forever"), []))
        lw.emit(loop, node)
        lw.diverged = (node, loop)
        ret = part(fn, "return_type") if fn.child_by_field_name("return_type") is not None else None
        is_bool = ret is not None and "Bool" in text(ret) or (ret is not None and text(ret) == "bool")
        return Val(ast.Constant(False if is_bool else 0), Ty(Kind.CONST, "bool" if is_bool else None), weak=True)
    shape = tuple(v.tile.mask is not None if v.tile is not None else None for v in vals)
    key = f"{fn.start_byte}:{fn_name}:{shape}"
    helper = lw.ctx.helper_calls.get(key)
    if helper is None:
        helper = _lower_called_helper(lw, fn_name, fn, params, vals, key)
    py_name, returns, dtype_args = helper
    flat: list[ast.expr] = []
    for v in vals:
        if v.tile is not None:
            flat.append(v.tile.tensor.expr)
            if v.tile.mask is not None:
                flat.append(v.tile.mask.expr)
        else:
            flat.append(v.expr)
    flat += _const_args(lw, fn_name, fn, node)
    if dtype_args:  # the helper's own dtype parameters no argument carries, as this call binds them
        bound = _dtype_bindings(fn, node, params, vals)
        for dtype in dtype_args:
            elem = bound.get(dtype)
            if elem is None:
                raise lw.err(node, "E0005", f"cannot infer the dtype parameter `{dtype}` of `{fn_name}`",
                             f"name it: `{fn_name}::<..>(..)` (rustc's E0282, type annotations needed)")
            flat.append(lw.dtype_expr(elem, node))
    result = call(py_name, flat)
    if returns[0] != "tile":
        return Val(result, returns[1])
    _, tensor_ty, has_mask = returns
    # `let out = helper(..)` names the fields `out_tensor`, `out_mask`; a Tile used in place, the helper.
    target_name = lw.let_target[1] if lw.let_target is not None and lw.let_target[0] == node else fn_name
    stem = python_name(target_name)
    tensor_py = lw.names.fresh(f"{stem}_tensor")
    if has_mask:
        mask_py = lw.names.fresh(f"{stem}_mask")
        target: ast.expr = ast.Tuple(elts=[ast.Name(id=tensor_py, ctx=ast.Store()), ast.Name(id=mask_py, ctx=ast.Store())],
                                     ctx=ast.Store())
    else:
        target = ast.Name(id=tensor_py, ctx=ast.Store())
    lw.emit(ast.Assign(targets=[target], value=result), node)
    mask = Val(name(mask_py), Ty(Kind.TENSOR, "bool")) if has_mask else None
    return Val(ast.Constant(None), Ty(Kind.TILE, tensor_ty.elem),
               tile=TileParts(Val(name(tensor_py), tensor_ty), mask))


def diverges(fn: Node) -> bool:
    """Whether ``fn``'s body is an endless `loop {}` (so a call of it never returns)."""
    body = fn.child_by_field_name("body")
    real = [c for c in body.named_children if c.type not in COMMENTS] if body else []
    if len(real) != 1:
        return False
    stmt = real[0]
    loop = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_children else stmt
    return loop.type == "loop_expression" and not [c for c in part(loop, "body").named_children
                                                   if c.type not in COMMENTS]


def _lower_called_helper(lw: Lowerer, fn_name: str, fn: Node, params: list[Node], vals: list[Val],
                         key: str) -> tuple[Any, ...]:
    """Lower one shape of a called helper; (its Python name, what it returns)."""
    ctx = lw.ctx
    if key in ctx.lowering_helpers:
        raise lw.err(fn, "E0002", f"`{fn_name}` calls itself", "Triton has no recursion; write it as a loop")
    ctx.lowering_helpers.add(key)
    bounds = dict(lw.dtype_bounds) if lw.kernel is None else {d.name: d.bound for d in lw.kernel.dtype_params}
    helper_triton = own_type_params(fn, lw.T, bounds)
    hl = Lowerer(ctx, None, fn, helper_triton, bounds)
    hl.local_fns = {**lw.local_fns, **hl.local_fns}  # the items of the block it is declared in, too
    own = own_dtype_params(fn)
    hl.dtype_args = dict.fromkeys(own)
    rustc.check_signature(hl, fn)
    args: list[ast.arg] = []
    for p, v in zip(params, vals, strict=True):
        rust = param_name(part(p, "pattern"), ctx.smap)
        decl = "mut" if rustc.is_mut(p) else "param"
        ty_node = p.child_by_field_name("type")
        named = _named_dtype(ty_node)  # `DD` of `k: DD`, `TT::Tensor<DD>`, `Tile<TT, DD>`: the helper's own
        named = named if named in own else None
        if v.tile is not None:
            elem = named or v.tile.tensor.ty.elem
            py = hl.names.declare(rust, Ty(Kind.TILE, elem))
            rustc.declared(hl, rust, decl)
            rustc.tile_bound(hl, rust)
            tensor_py = hl.names.fresh(f"{py}_tensor")
            args.append(ast.arg(arg=tensor_py))
            mask = None
            if v.tile.mask is not None:
                mask_py = hl.names.fresh(f"{py}_mask")
                args.append(ast.arg(arg=mask_py))
                mask = Val(name(mask_py), v.tile.mask.ty)
            hl.tiles[py] = TileParts(Val(name(tensor_py), Ty(Kind.TENSOR, elem)), mask)
            _dtype_from(hl, ty_node, name(tensor_py))
        else:
            elem = named or annotation_elem(hl, ty_node) or v.ty.elem
            kind = Kind.TENSOR if v.ty.kind in (Kind.TENSOR, Kind.PTRS) else v.ty.kind
            py = hl.names.declare(rust, Ty(kind if kind is not Kind.UNKNOWN else Kind.TENSOR, elem))
            rustc.declared(hl, rust, decl)
            args.append(ast.arg(arg=py))
            if v.ty.kind is Kind.TENSOR:
                _dtype_from(hl, ty_node, name(py))
    for const_name, rust_type in own_const_params(fn):  # `const N: i32`: a constexpr the call passes
        args.append(ast.arg(arg=hl.names.declare(const_name, Ty(Kind.CONST, rust_type)),
                            annotation=attr_path("tl.constexpr")))
        rustc.declared(hl, const_name, "const")
    body_node = part(fn, "body")
    real = [c for c in body_node.named_children if c.type not in COMMENTS]
    tail = real[-1] if real and real[-1].type not in ("let_declaration", "expression_statement") else None
    body: list[ast.stmt] = []
    returns: tuple[Any, ...]
    try:
        returns = _lower_body(hl, body, body_node, tail)
    finally:  # (an error inside leaves no helper half-lowered, to be taken for a recursive call later)
        ctx.lowering_helpers.discard(key)
    passed = [(d, py) for d, py in hl.dtype_args.items() if py is not None]

    dtype_args = tuple(d for d, _ in passed)
    for _, py in passed:  # `tl.full([1], k, dtype=DD)` where no argument's dtype is DD: the caller's
        args.append(ast.arg(arg=py, annotation=attr_path("tl.constexpr")))
    doc = _doc_above(fn)
    if doc is not None:  # the helper's `///` lines are its docstring, as a kernel's are
        body.insert(0, ast.Expr(ast.Constant(docstring(doc))))
    taken = {f.name for f in ctx.helpers.values()} | {h[0] for h in ctx.helper_calls.values()}
    py_name = python_name(fn_name)
    base, i = py_name, 1
    while py_name in taken or py_name in ctx.kernel_names:
        i += 1
        py_name = f"{base}_{i}"
    ctx.helpers[key] = ast.FunctionDef(
        name=py_name, args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=body or [ast.Pass()], decorator_list=[attr_path("triton.jit")], returns=None,
        lineno=part(fn, "name").start_point[0] + 1)
    ctx.helper_calls[key] = (py_name, returns, dtype_args)
    return ctx.helper_calls[key]


def _lower_body(hl: Lowerer, body: list[ast.stmt], body_node: Node, tail: Node | None) -> tuple[Any, ...]:
    """A helper's statements into ``body``, its tail expression returned; what it returns."""
    with hl.into(body):
        hl.stmts(list(body_node.named_children), body_node, stop=tail)
        if tail is None:
            return ("value", Ty(Kind.NONE))
        value = hl.expr(tail)
        if value.tile is not None:
            tensor = hl.narrow(value.tile.tensor, tail)
            parts = [tensor.expr] + ([value.tile.mask.expr] if value.tile.mask is not None else [])
            body.append(ast.Return(value=parts[0] if len(parts) == 1 else ast.Tuple(elts=parts, ctx=LOAD)))
            return ("tile", tensor.ty, value.tile.mask is not None)
        value = hl.narrow(value, tail)
        body.append(ast.Return(value=value.expr))
        return ("value", value.ty)


def own_const_params(fn: Node) -> list[tuple[str, str]]:
    """A fn's `const N: i32` generic parameters: (name, Rust type), in order."""
    tparams = fn.child_by_field_name("type_parameters")
    return [(text(part(tp, "name")), text(part(tp, "type"))) for tp in named_children(tparams)
            if tp.type == "const_parameter"] if tparams is not None else []


def _const_args(lw: Lowerer, fn_name: str, fn: Node, call_node: Node) -> list[ast.expr]:
    """What a call passes for the helper's const generics: the turbofish's arguments at their
    places (`helper::<T, D, BLOCK_N>`: a const generic of the caller, a literal or a `{ .. }`
    block), each a compile-time value."""
    consts = own_const_params(fn)
    if not consts:
        return []
    func = part(call_node, "function")
    targs = func.child_by_field_name("type_arguments") if func.type == "generic_function" else None
    if targs is None:
        raise lw.err(call_node, "E0005", f"cannot infer the value of the const parameter `{consts[0][0]}` of "
                     f"`{fn_name}`", f"name it: `{fn_name}::<..>(..)` (rustc's E0284, type annotations needed)")
    tparams = part(fn, "type_parameters")
    decl = [tp for tp in named_children(tparams) if tp.type in ("type_parameter", "const_parameter")]
    given = [a for a in named_children(targs) if a.type not in ("lifetime", *COMMENTS)]
    out = []
    for tp, arg in zip(decl, given, strict=False):
        if tp.type != "const_parameter":
            continue
        inner = named_children(arg)[-1] if arg.type == "block" and named_children(arg) else arg
        value = identifier(lw, inner) if inner.type == "type_identifier" else lw.expr(inner)
        if value.ty.kind is not Kind.CONST:
            raise lw.err(arg, "E0008", f"the const parameter `{text(part(tp, 'name'))}` of `{fn_name}` needs a "
                         "compile-time value", "pass a const generic of the caller, a literal or a const")
        out.append(value.expr)
    return out


def own_dtype_params(fn: Node) -> list[str]:
    """The names of a fn's own type parameters but the one bounded by `Triton`, in order."""
    tparams = fn.child_by_field_name("type_parameters")
    out = []
    for tp in named_children(tparams) if tparams is not None else []:
        b = tp.child_by_field_name("bounds")
        bound = text(named_children(b)[0]).split("::")[-1] if b is not None and named_children(b) else ""
        if tp.type == "type_parameter" and bound != "Triton":
            out.append(text(part(tp, "name")))
    return out


def _named_dtype(ty_node: Node | None) -> str | None:
    """The type parameter a parameter's type names as its element type: `D` of `D`,
    `TT::Tensor<D>` or `Tile<TT, D>` (None for any other type)."""
    if ty_node is None:
        return None
    t = read_type(ty_node)
    if t.kind != "generic_type":
        return _plain(t)
    if re.fullmatch(r"\w+::Tensor", t.head) and len(t.args) == 1:
        return _plain(t.args[0])
    if re.fullmatch(r"(?:\w+::)*Tile", t.head) and len(t.args) == 2 and _plain(t.args[0]):
        return _plain(t.args[1])
    return None


def _plain(t: TypeRef) -> str | None:
    """The name ``t`` is where it is a plain one (`D`, `f32`)."""
    return t.head if not t.args and re.fullmatch(r"\w+", t.head) else None


def _dtype_bindings(fn: Node, call_node: Node, params: list[Node], vals: list[Val]) -> dict[str, str | None]:
    """What a call binds a helper's type parameters to: its turbofish (`helper::<T, f32>`, in the
    order they are declared), else the element types of the arguments whose parameter types name them."""
    func = call_node.child_by_field_name("function")
    targs = func.child_by_field_name("type_arguments") if func is not None and func.type == "generic_function" else None
    out: dict[str, str | None] = {}
    if targs is not None:
        tparams = fn.child_by_field_name("type_parameters")
        decl = [tp for tp in named_children(tparams) if tp.type in ("type_parameter", "const_parameter")] \
            if tparams is not None else []
        for tp, ta in zip(decl, named_children(targs), strict=False):
            out[text(part(tp, "name"))] = text(ta).replace(" ", "")
        return out
    for p, v in zip(params, vals, strict=True):
        named = _named_dtype(p.child_by_field_name("type"))
        if named is not None and out.get(named) is None:
            out[named] = v.tile.tensor.ty.elem if v.tile is not None else v.ty.elem
    return out


def _doc_above(fn: Node) -> str | None:
    """The `///` lines just above a fn item (its attributes may stand between)."""
    comments = []
    at = fn.prev_named_sibling
    while at is not None and at.type in (*COMMENTS, "attribute_item"):
        if at.type != "attribute_item":
            comments.append(at)
        at = at.prev_named_sibling
    return doc_of(comments[::-1])


def _dtype_from(hl: Lowerer, ty_node: Node | None, value: ast.expr) -> None:
    """A helper's dtype parameter, from a parameter of type `Tile<TT, DD>` or `TT::Tensor<DD>`:
    `DD` is that value's dtype."""
    if ty_node is None:
        return
    t = read_type(ty_node)
    while t.kind in ("reference_type", "pointer_type") and t.args:  # (`&Tile<TT, DD>`)
        t = t.args[0]
    dtype = None
    if t.kind == "generic_type" and len(t.args) == 2 and _plain(t.args[0]):
        dtype = _plain(t.args[1])
    elif t.kind == "generic_type" and t.head.endswith("::Tensor") and len(t.args) == 1:
        dtype = _plain(t.args[0])
    if dtype is not None and dtype in hl.dtype_bounds and dtype not in hl.dtype_sources:
        hl.dtype_sources[dtype] = ast.Attribute(value=value, attr="dtype", ctx=LOAD)
