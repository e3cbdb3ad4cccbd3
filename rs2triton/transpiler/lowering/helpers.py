"""Combine functions: plain fns passed to `T::reduce` / `T::associative_scan`.

Each becomes a module-level ``@triton.jit`` helper whose tail expression is its
return value. Lowered once per file, on first use.
"""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.transpiler.frontend.items import _param_name
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.lowering.function import FunctionLowerer, ModuleContext, named_children
from rs2triton.transpiler.pyast import Ty, attr_path, python_name


def lower_helper(ctx: ModuleContext, fn_name: str, triton: str, use: Node,
                 dtype_bounds: dict[str, str]) -> None:
    if fn_name in ctx.helpers or fn_name in ctx.lowering_helpers:
        return
    fn = ctx.functions[fn_name]
    ctx.lowering_helpers.add(fn_name)
    bounds = dict(dtype_bounds)
    tparams = fn.child_by_field_name("type_parameters")
    helper_triton = triton
    for tp in named_children(tparams) if tparams is not None else []:
        if tp.type == "type_parameter":
            pname = text(tp.child_by_field_name("name"))
            b = tp.child_by_field_name("bounds")
            bound = text(named_children(b)[0]).split("::")[-1] if b is not None and named_children(b) else "Dtype"
            if bound == "Triton":
                helper_triton = pname
            else:
                bounds[pname] = bound
    lw = FunctionLowerer(ctx, None, fn, helper_triton, bounds)
    args = []
    for p in named_children(fn.child_by_field_name("parameters")):
        if p.type != "parameter":
            raise ctx.smap.error(p, "E0007", "combine functions take plain parameters")
        rust = _param_name(p.child_by_field_name("pattern"), ctx.smap)
        if rust != "_" and lw.names.lookup(rust) is not None:
            raise ctx.smap.error(p.child_by_field_name("pattern"), "E0007", f"identifier `{rust}` is bound more "
                                 "than once in this parameter list", "rename one of the parameters")
        elem = lw._annotation_elem(p.child_by_field_name("type"))
        args.append(ast.arg(arg=lw.names.declare(rust, Ty("tensor", elem))))
    body_node = fn.child_by_field_name("body")
    children = list(body_node.named_children)
    real = [c for c in children if c.type not in ("line_comment", "block_comment")]
    if not real or real[-1].type in ("let_declaration", "expression_statement"):
        raise ctx.smap.error(fn.child_by_field_name("name"), "E0002",
                             f"combine function `{fn_name}` must end with the value it returns",
                             "end the body with an expression (no trailing `;`)")
    body: list[ast.stmt] = []
    lw.bodies.append(body)
    for c in children:
        if c.id == real[-1].id:
            break
        lw.lower_stmt(c)
    value = lw.narrow(lw.expr(real[-1]), real[-1])
    lw.bodies.pop()
    body.append(ast.Return(value=value.expr))
    ctx.helpers[fn_name] = ast.FunctionDef(
        name=python_name(fn_name), args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[],
                                         defaults=[]),
        body=body, decorator_list=[attr_path("triton.jit")], returns=None, type_params=[])
    ctx.lowering_helpers.discard(fn_name)
