"""A kernel fn -> its ``@triton.jit`` function: the parameters (Rust's, then the const
generics), the docstring from ``///``, the dtype aliases and integer parameters' conversions,
and the body."""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.frontend.items import Kernel
from rs2triton.transpiler.frontend.parse import part, text
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.context import ModuleContext, ParamComments
from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.values import Kind, Ty
from rs2triton.transpiler.pyast import attr_path, call, comment_lines, name, python_name


def lower_kernel(ctx: ModuleContext, kernel: Kernel) -> ast.FunctionDef:
    """The ``@triton.jit`` function for one kernel: Rust parameters, then const generics."""
    fn = kernel.node
    assert fn is not None, "a discovered kernel has its node"
    lw = Lowerer(ctx, kernel, fn, kernel.triton)
    args: list[ast.arg] = []
    notes = _parameter_comments(part(fn, "parameters"))
    comments: ParamComments = {}
    mutable = {text(part(p, "pattern")) for p in part(fn, "parameters").named_children
               if p.type == "parameter" and rustc.is_mut(p)}
    for param in part(fn, "parameters").named_children:
        if param.type == "parameter":
            typeck.check_pattern_names(lw, param, param.child_by_field_name("type"))
    for p in kernel.params:
        ty = Ty(Kind.PTR, p.elem) if p.kind == "pointer" else Ty(Kind.SCALAR, p.elem)
        args.append(ast.arg(arg=lw.names.declare(p.name, ty)))
        rustc.declared(lw, p.name, "mut" if p.name in mutable else "param")  # (what it may be assigned)
        if p.name in notes:
            comments[args[-1].arg] = notes[p.name]
    const_notes = _parameter_comments(fn.child_by_field_name("type_parameters"))
    for c in kernel.consts:
        args.append(ast.arg(arg=lw.names.declare(c.name, Ty(Kind.CONST, c.rust_type)),
                            annotation=attr_path("tl.constexpr")))
        rustc.declared(lw, c.name, "const")
        if c.name in const_notes:
            comments[args[-1].arg] = const_notes[c.name]
    body: list[ast.stmt] = []
    lw.start_typing(part(fn, "body"))  # (Rust's inference of the `let`s' types, before lowering)
    lw.block_into(part(fn, "body"), body, scoped=False)
    prelude: list[ast.stmt] = []
    if kernel.doc:
        prelude.append(ast.Expr(ast.Constant(docstring(kernel.doc))))
    for dtype_name, alias in lw.names.dtype_aliases():
        ptr = kernel.pointer_for(dtype_name)
        assert ptr is not None, "dtype_expr made the alias only for a dtype with a pointer"
        prelude.append(ast.Assign(targets=[ast.Name(id=alias, ctx=ast.Store())],
                                  value=attr_path(f"{ptr.name}.dtype.element_ty")))
    for p, a in zip(kernel.params, args, strict=False):
        # Triton types an int argument by its value: one that fits in 32 bits arrives as
        # i32 whatever the parameter's type, so for an `i64` `a * b` would wrap where Rust does
        # not, for a `u32` `a >> 1` would shift in sign bits, for an `i8` `a + b` would not wrap.
        # Any integer parameter but an `i32` is made its own type first.
        s = SCALARS.get(p.elem) if p.kind == "scalar" else None
        if s is not None and s.is_int and (s.bits, s.signed) != (32, True) and not p.name.startswith("_"):
            prelude.append(ast.Assign(targets=[ast.Name(id=a.arg, ctx=ast.Store())],
                                      value=call("tl.cast", [name(a.arg), attr_path(s.triton)])))
    if prelude and len(body) == 1 and isinstance(body[0], ast.Pass):
        body = []
    fn_line = part(fn, "name").start_point[0] + 1
    for stmt in prelude:
        stmt.lineno = fn_line
    func = ast.FunctionDef(
        name=python_name(kernel.name),  # `fn lambda` -> `lambda_`, as for every name
        args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=prelude + body, decorator_list=[attr_path("triton.jit")], returns=None)
    func.lineno = fn_line
    if comments:
        ctx.param_comments[func.name] = comments
    return func


def _parameter_comments(params: Node | None) -> ParamComments:
    """{parameter: (comment lines above it, the comment ending its line)}, for a parameter
    list or a generic parameter list (where `const N: i32` become parameters, the rest not)."""
    out: ParamComments = {}
    above: list[str] = []
    last: str | None = None  # the parameter the previous item was, if it becomes one
    last_row = -1
    for c in params.named_children if params is not None else []:
        if c.type in ("line_comment", "block_comment"):
            lines = comment_lines(text(c))
            if c.start_point[0] == last_row and len(lines) == 1:
                if last is not None:
                    out[last] = (out[last][0], lines[0])
            else:
                above.extend(lines)
            continue
        if c.type == "parameter":
            last = text(part(c, "pattern")).removeprefix("mut").strip()
        elif c.type == "const_parameter":
            last = text(part(c, "name"))
        else:  # `T: Triton`, `D: Float`, lifetimes: no Python parameter to carry a comment
            last = None
        if last is not None:
            out[last] = (above, None)
        above, last_row = [], c.end_point[0]
    return {k: v for k, v in out.items() if v[0] or v[1] is not None}


def docstring(doc: str) -> str:
    """A `///` doc comment's text as a docstring's value, laid out as the printer lays one out."""
    lines = doc.split("\n")
    if len(lines) == 1:
        return lines[0]
    indent = "    "
    return lines[0] + "\n" + "\n".join(indent + ln if ln.strip() else "" for ln in lines[1:]) + "\n" + indent
