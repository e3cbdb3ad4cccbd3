"""The kernel target's expressions: slices (`&[a, b]`), teenygrad's `Tile { tensor, mask }`,
blocks and `if` as values (a ternary, or statements into a temporary: :mod:`.control`). The
expressions both targets share are in :mod:`..expressions`; host code's in :mod:`..host.expressions`."""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.kernel.control import if_value, simple_if
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.operators import min_max
from rs2triton.transpiler.lowering.registry import KERNEL, expression
from rs2triton.transpiler.lowering.values import Kind, TileParts, Ty, Val, join_kind
from rs2triton.transpiler.pyast import LOAD, call, name


@expression("array_expression", target=KERNEL)
def array_expression(lw: Lowerer, node: Node) -> Val:
    return Val(ast.List(elts=[lw.expr(c).expr for c in named_children(node)], ctx=LOAD), Ty(Kind.LIST))


@expression("reference_expression", target=KERNEL)
def reference_expression(lw: Lowerer, node: Node) -> Val:
    inner = part(node, "value")
    if inner.type == "array_expression":
        return lw.expr(inner)
    raise lw.err(node, "E0002", "references are not part of the DSL",
                 "pass the value itself; only `&[...]` slices are references in the DSL")


@expression("struct_expression", target=KERNEL)
def struct_expression(lw: Lowerer, node: Node) -> Val:
    """teenygrad's ``Tile { tensor, mask }`` (``Tile::<T, D> { .. }`` too): its fields, kept apart."""
    name_node = part(node, "name")
    struct = text(name_node).replace(" ", "").split("<")[0].removesuffix("::").split("::")[-1]
    if struct != "Tile":
        raise lw.err(node, "E0002", "unsupported construct: struct",
                     "structs are not part of the DSL (but teenygrad's `Tile { tensor, mask }`); pass values as "
                     "kernel parameters")
    fields: dict[str, Val | None] = {}
    for init in named_children(part(node, "body")):
        if init.type == "shorthand_field_initializer":
            field, value_node = text(init), init.named_children[0] if init.named_children else init
        elif init.type == "field_initializer":
            field, value_node = text(part(init, "field")), part(init, "value")
        else:
            raise lw.err(init, "E0002", "`..` in a `Tile` literal is not supported", "give `tensor` and `mask`")
        if field not in ("tensor", "mask") or field in fields:
            raise lw.err(init, "E0006" if field not in ("tensor", "mask") else "E0007",
                         f"struct `Tile` has no field named `{field}`" if field not in ("tensor", "mask")
                         else f"field `{field}` specified more than once", "a Tile has `tensor` and `mask`")
        if field == "mask" and value_node.type == "identifier" and text(value_node) == "None":
            fields[field] = None
            continue
        v = lw.narrow(lw.expr(value_node), value_node)
        if v.tile is not None:
            raise lw.err(value_node, "E0008", "a Tile's field holds a tensor, not a Tile", "take its `.tensor`")
        fields[field] = None if v.ty.kind is Kind.NONE else v
    missing = [f for f in ("tensor", "mask") if f not in fields]
    if missing:
        raise lw.err(node, "E0007", f"missing field{'s' if len(missing) > 1 else ''} "
                     + ", ".join(f"`{f}`" for f in missing) + " in initializer of `Tile`", "give `tensor` and `mask`")
    tensor = fields["tensor"]
    if tensor is None:
        raise lw.err(node, "E0008", "a Tile's `tensor` cannot be `None`")
    return Val(ast.Constant(None), Ty(Kind.TILE, tensor.ty.elem), tile=TileParts(tensor, fields["mask"]))


@expression("block", target=KERNEL)
def block(lw: Lowerer, node: Node) -> Val:
    """`{ stmts; tail }` as a value: hoist the statements, keep the tail."""
    tail = lw.block_value(node)
    with lw.names.scope(python_block=False):
        lw.stmts(list(node.named_children), node, stop=tail)
        lw.emit_inner_comments(tail)
        return lw.expr(tail)


@expression("if_expression", target=KERNEL)
def if_expression(lw: Lowerer, node: Node) -> Val:
    if not simple_if(node):
        tmp = lw.names.fresh("_tmp")
        stmt, ty = if_value(lw, node, tmp)
        lw.emit(stmt, node)
        return Val(name(tmp), ty)
    # A ternary has no lines of its own: comments in its branches go above the statement.
    lw.emit_inner_comments(part(node, "consequence"))
    other = named_children(part(node, "alternative"))[0]
    if other.type == "block":
        lw.emit_inner_comments(other)
    cond = lw.expr(part(node, "condition"))
    rustc.check_condition(lw, part(node, "condition"), cond)
    body = lw.narrow(lw.branch_value(named_children(part(node, "consequence"))[0], "a conditional expression"), node)
    orelse = lw.narrow(lw.branch_value(other if other.type == "if_expression" else named_children(other)[0],
                                       "a conditional expression"), node)
    elem = body.ty.elem or orelse.ty.elem
    if cond.ty.compile_time and body.ty.compile_time and orelse.ty.compile_time:
        ty = Ty(Kind.CONST, elem)
    else:
        kind = join_kind(body.ty, orelse.ty)
        ty = Ty(Kind.SCALAR if kind in (Kind.CONST, Kind.UNKNOWN) else kind, elem)
    picked = min_max(cond.expr, body.expr, orelse.expr)
    if picked is not None and ty.kind is not Kind.CONST and lw.is_float(ty) is False:
        # `if a < b { a } else { b }` on integers is `tl.minimum(a, b)` (no branch, one op).
        return Val(call(picked[0], list(picked[1:])), ty)
    # A compile-time choice keeps a compile-time branch compile-time (see statements.bind_new).
    static = cond.ty.compile_time and (body.ty.compile_time or orelse.ty.compile_time)
    return Val(ast.IfExp(test=cond.expr, body=body.expr, orelse=orelse.expr), ty, static)

