"""What a name, a path or a field means in a kernel beyond what both targets share
(:mod:`..expressions`): a module ``const`` (a ``tl.constexpr`` of the module), a plain fn of
the file passed by name (a ``@triton.jit`` helper), a dtype parameter's ``D::ZERO``."""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import part, text
from rs2triton.transpiler.frontend.types import read_type
from rs2triton.transpiler.lowering import rustc
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.registry import KERNEL, expression
from rs2triton.transpiler.lowering.values import Kind, Ty, Val
from rs2triton.transpiler.pyast import call, name, python_name


def free_name(lw: Lowerer, ident: str, node: Node) -> Val:
    """A name no binding of the kernel holds: a module const or a fn of the file."""
    if ident == "None":
        raise lw.err(node, "E0002", "`None` is only an argument of a DSL method",
                     "it stands for an argument left at its default: `T::load(ptr, None, ...)`")
    if ident in lw.ctx.consts:
        return module_const(lw, ident, node)
    if ident in lw.local_fns or ident in lw.ctx.functions:
        return helper_ref(lw, ident, node)
    raise lw.err(node, "E0006", f"cannot find value `{ident}` in this scope",
                 "kernels can use their parameters, const generics, local `let`s and module `const`s")


def path_value(lw: Lowerer, head: str, rest: str, node: Node) -> Val:
    if lw.is_dtype(head):
        return dtype_const(lw, head, rest, node)
    if head in ("self", "crate", "super") and rest in lw.ctx.consts:
        return module_const(lw, rest, node)
    raise lw.err(node, "E0006", f"unknown path `{text(node)}`",
                 "paths in kernels are DSL enums (Axis::X ...), scalar constants (f32::INFINITY) or D::ZERO / D::ONE")


def field_value(lw: Lowerer, base: Val, field_node: Node, node: Node) -> Val:
    raise lw.err(node, "E0002", f"field access `.{text(field_node)}` is not part of the DSL",
                 "kernels have no structs; pass the value as a parameter")


def module_const(lw: Lowerer, ident: str, node: Node) -> Val:
    """A module-level `const` a kernel uses: a `tl.constexpr` of the module, evaluated once."""
    item = lw.ctx.consts[ident]
    ty_node = item.child_by_field_name("type")
    value = item.child_by_field_name("value")
    if value is None:
        raise lw.smap.error(item, "E0002", f"module constant `{ident}` has no value", "give it one: `const NAME: i32 = 4;`")
    if ident in lw.ctx.evaluating_consts:  # rustc's E0391
        raise lw.err(node, "E0002", f"cycle detected when evaluating module constant `{ident}`",
                     "a constant cannot be defined in terms of itself")
    sub = type(lw)(lw.ctx, None, item, lw.T)
    sub.in_const_item = True
    lw.ctx.evaluating_consts.add(ident)
    try:
        v = sub.expr(value)
    finally:
        lw.ctx.evaluating_consts.discard(ident)
    if not v.ty.compile_time:
        raise lw.err(node, "E0002", f"module constant `{ident}` is not a compile-time value",
                     "module `const`s used by kernels must be literals or arithmetic on literals")
    elem = (read_type(ty_node).scalar if ty_node is not None else None) or v.ty.elem
    lw.ctx.used_consts[ident] = ast.Assign(targets=[ast.Name(id=python_name(ident), ctx=ast.Store())],
                                           value=call("tl.constexpr", [v.expr]))
    return Val(name(python_name(ident)), Ty(Kind.CONST, elem), known=rustc.const_known(lw, ident, v))


def dtype_const(lw: Lowerer, dtype: str, what: str, node: Node) -> Val:
    """``D::ZERO`` / ``D::ONE`` of a dtype parameter."""
    if what in ("ZERO", "ONE"):
        value = 0 if what == "ZERO" else 1
        return Val(ast.Constant(float(value) if lw.is_float(Ty(Kind.CONST, dtype)) else value), Ty(Kind.CONST, dtype))
    raise lw.err(node, "E0006", f"unknown associated constant `{dtype}::{what}`",
                 f"dtype parameters provide `{dtype}::ZERO`, `{dtype}::ONE` and `{dtype}::from_f64(v)`")


@expression("generic_function", target=KERNEL)
def generic_function(lw: Lowerer, node: Node) -> Val:
    """A combine function passed by name: `add_combine::<T, D>`."""
    f = part(node, "function")
    if f.type == "identifier" and (text(f) in lw.local_fns or text(f) in lw.ctx.functions):
        rustc.check_fn_generics(lw, lw.local_fns.get(text(f)) or lw.ctx.functions[text(f)], node)
        return helper_ref(lw, text(f), f)
    raise lw.err(node, "E0002", "generic paths are only valid as DSL calls or combine functions")


def helper_ref(lw: Lowerer, fn_name: str, node: Node) -> Val:
    """A plain fn of the file (or one nested in the body, which shadows it as Rust's block items
    do), lowered (once) to a ``@triton.jit`` helper."""
    from rs2triton.transpiler.lowering.kernel.helpers import lower_helper

    bounds = dict(lw.dtype_bounds) if lw.kernel is None else {d.name: d.bound for d in lw.kernel.dtype_params}
    py = lower_helper(lw.ctx, fn_name, lw.T, bounds, lw.local_fns.get(fn_name), lw.local_fns)
    return Val(name(py), Ty(Kind.FN))
