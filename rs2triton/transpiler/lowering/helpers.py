"""The ``@triton.jit`` helpers a generated module may define besides its kernels.

- Combine functions: plain fns of the file passed to ``T::reduce`` / ``T::associative_scan``,
  lowered (once per file, on first use) to helpers whose tail expression is their return value.
- Helpers rs2triton writes itself where Triton lacks the function on some backend
  (``_upcast_f16``, ``_atan``, ``_cat``), emitted only when a kernel uses them.
"""

from __future__ import annotations

import ast

from rs2triton.transpiler.frontend.items import param_name
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.statements import annotation_elem
from rs2triton.transpiler.lowering.values import Kind, Ty
from rs2triton.transpiler.pyast import attr_path, python_name, without_positions

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


def use_helper(ctx: ModuleContext, helper: str) -> str:
    """The name of one of :data:`HELPER_SOURCES`, which the module now defines."""
    if helper not in ctx.helpers:
        tree = without_positions(ast.parse(HELPER_SOURCES[helper]).body[0])
        assert isinstance(tree, ast.FunctionDef)
        ctx.helpers[helper] = tree
    return helper


def lower_helper(ctx: ModuleContext, fn_name: str, triton: str, dtype_bounds: dict[str, str]) -> None:
    """Lower the plain fn ``fn_name`` to a ``@triton.jit`` helper of the module (once)."""
    if fn_name in ctx.helpers or fn_name in ctx.lowering_helpers:
        return
    fn = ctx.functions[fn_name]
    ctx.lowering_helpers.add(fn_name)
    bounds = dict(dtype_bounds)
    tparams = fn.child_by_field_name("type_parameters")
    helper_triton = triton
    for tp in named_children(tparams) if tparams is not None else []:
        if tp.type == "type_parameter":
            pname = text(part(tp, "name"))
            b = tp.child_by_field_name("bounds")
            bound = text(named_children(b)[0]).split("::")[-1] if b is not None and named_children(b) else "Dtype"
            if bound == "Triton":
                helper_triton = pname
            else:
                bounds[pname] = bound
    lw = Lowerer(ctx, None, fn, helper_triton, bounds)
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
    body_node = part(fn, "body")
    real = [c for c in body_node.named_children if c.type not in ("line_comment", "block_comment")]
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
    ctx.helpers[fn_name] = ast.FunctionDef(
        name=python_name(fn_name), args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[],
                                                      defaults=[]),
        body=body, decorator_list=[attr_path("triton.jit")], returns=None)
    ctx.lowering_helpers.discard(fn_name)
