"""The standard library as host code uses it: method calls and paths, with their Python forms.

The tables are data: :data:`INT_METHODS` maps a method of an integer to how it is written in
Python (a function of ``rs2triton.runtime.host``, a builtin, or an operator form), and the
iterator adapters and consumers are :data:`ITER_ADAPTERS` and :data:`ITER_CONSUMERS`. A method
not in them is a :class:`~.lower.HostUnsupported` naming it.
"""

from __future__ import annotations

import ast
import re

from tree_sitter import Node

from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.host.context import HostUnsupported, Local
from rs2triton.transpiler.host.types import (
    BOOL,
    PTR,
    UNKNOWN,
    USIZE,
    HTy,
    element,
    iterator,
    option,
    scalar,
    seq,
)
from rs2triton.transpiler.pyast import LOAD, STORE, call, const, name

# method -> (form, arity): "host:f" calls rs2triton.runtime.host.f(self, *args); "builtin:f"
# calls f(self, *args); "cdiv" is triton.cdiv; "sat_sub" max(a - b, 0); "same" the receiver.
INT_METHODS: dict[str, tuple[str, int]] = {
    "div_ceil": ("cdiv", 1), "next_power_of_two": ("host:next_power_of_two", 0),
    "next_multiple_of": ("host:next_multiple_of", 1), "max": ("builtin:max", 1), "min": ("builtin:min", 1),
    "saturating_sub": ("sat_sub", 1), "pow": ("pow", 1), "abs": ("builtin:abs", 0),
    "is_power_of_two": ("pow2", 0), "count_ones": ("bit_count", 0), "ilog2": ("host:ilog2", 0),
    "clamp": ("clamp", 2), "clone": ("same", 0), "to_owned": ("same", 0), "into": ("same", 0),
}
FLOAT_METHODS: dict[str, tuple[str, int]] = {
    "sqrt": ("math:sqrt", 0), "exp": ("math:exp", 0), "ln": ("math:log", 0), "log2": ("math:log2", 0),
    "abs": ("builtin:abs", 0), "max": ("builtin:max", 1), "min": ("builtin:min", 1), "floor": ("math:floor", 0),
    "ceil": ("math:ceil", 0), "powi": ("pow", 1), "powf": ("pow", 1), "recip": ("recip", 0),
    "clone": ("same", 0),
}
ITER_ADAPTERS = ("map", "filter", "take", "skip", "enumerate", "copied", "cloned", "rev", "zip")
ITER_CONSUMERS = ("sum", "product", "max", "min", "count", "collect", "all", "any", "last")


def method_call(x, node: Node, receiver: Node, method: str, args: list[Node], turbofish: list[str] | None,
                expected: HTy | None) -> tuple[ast.expr, HTy]:
    lw = x.lw
    if text(receiver) == "self" and (method in lw.methods or method in _trait_methods()):
        return x.self_method(node, method, args)
    value, ty = x.expr(receiver)
    if ty.kind == "int" or (ty.kind == "unknown" and method in INT_METHODS):
        return _number(x, node, value, ty, method, args, INT_METHODS)
    if ty.kind == "float":
        return _number(x, node, value, ty, method, args, FLOAT_METHODS)
    if ty.kind == "ptr" and method == "add" and len(args) == 1:
        count, _ = x.expr(args[0], USIZE)
        return call(lw.helper("ptr_add"), [value, count]), PTR
    if ty.kind in ("seq", "array"):
        return _sequence(x, node, value, ty, method, args, turbofish, expected)
    if ty.kind == "iter":
        return _iterator(x, node, value, ty, method, args, turbofish, expected)
    if ty.kind == "option":
        return _option(x, node, value, ty, method, args, expected)
    if ty.kind == "str" and method in ("to_string", "to_owned", "clone", "into"):
        return value, ty
    raise HostUnsupported(node, f"`.{method}()` on a value of kind {ty.kind}")


def _trait_methods() -> set[str]:
    from rs2triton.transpiler.host.trait import METHODS

    return set(METHODS)


def _number(x, node, value, ty, method, args, table):
    lw = x.lw
    form = table.get(method)
    if form is None:
        raise HostUnsupported(node, f"`.{method}()` of a `{ty.elem}`")
    how, arity = form
    if len(args) != arity:
        raise HostUnsupported(node, f"`.{method}()` with {len(args)} arguments")
    lowered = [x.expr(a, ty)[0] for a in args]
    if how == "same":
        return value, ty
    if how == "cdiv":
        if not ty.unsigned and ty.kind == "int" and ty.elem not in (None, "{integer}"):
            raise HostUnsupported(node, f"`div_ceil` of a signed `{ty.elem}` (unstable in Rust)")
        lw.use("triton")
        return call("triton.cdiv", [value, *lowered]), ty
    if how.startswith("host:"):
        return call(lw.helper(how[5:]), [value, *lowered]), ty
    if how.startswith("builtin:"):
        return call(how[8:], [value, *lowered]), ty
    if how.startswith("math:"):
        lw.use("math")
        out = call("math." + how[5:], [value])
        if how in ("math:floor", "math:ceil"):
            out = call("float", [out])
        return (call(lw.helper("f32"), [out]) if ty.elem == "f32" else out), ty
    if how == "sat_sub":
        return call("max", [ast.BinOp(left=value, op=ast.Sub(), right=lowered[0]), const(0)]), ty
    if how in ("pow", "recip"):
        arith: ast.expr = ast.BinOp(left=value, op=ast.Pow(), right=lowered[0]) if how == "pow" else \
            ast.BinOp(left=const(1.0), op=ast.Div(), right=value)
        return (call(lw.helper("f32"), [arith]) if ty.elem == "f32" else arith), ty
    if how == "pow2":
        return call(lw.helper("is_power_of_two"), [value]), BOOL
    if how == "bit_count":
        return call(ast.Attribute(value=value, attr="bit_count", ctx=LOAD), []), HTy("int", "u32")
    if how == "clamp":
        return call("min", [call("max", [value, lowered[0]]), lowered[1]]), ty
    raise HostUnsupported(node, f"`.{method}()`")


def _sequence(x, node, value, ty, method, args, turbofish, expected):
    lw = x.lw
    el = element(ty)
    if method in ("iter", "into_iter"):
        return value, iterator(el)
    if method == "len":
        return call("len", [value]), USIZE
    if method == "is_empty":
        return ast.Compare(left=call("len", [value]), ops=[ast.Eq()], comparators=[const(0)]), BOOL
    if method in ("first", "last"):
        return call(lw.helper(method), [value]), option(el)
    if method == "get" and len(args) == 1:
        index, _ = x.expr(args[0], USIZE)
        return call(lw.helper("get"), [value, index]), option(el)
    if method in ("to_vec", "clone", "to_owned", "into"):
        return call("list", [value]), seq(el)
    if method == "contains" and len(args) == 1:
        item, _ = x.expr(args[0], el)
        return ast.Compare(left=item, ops=[ast.In()], comparators=[value]), BOOL
    if method in ITER_ADAPTERS or method in ITER_CONSUMERS:
        return _iterator(x, node, value, iterator(el), method, args, turbofish, expected)
    raise HostUnsupported(node, f"`.{method}()` of a slice")


def _closure(x, closure: Node, elem: HTy, source: ast.expr, body_expected: HTy | None = None
             ) -> tuple[ast.comprehension, ast.expr, HTy]:
    """A one-parameter closure over the items of ``source``: the comprehension clause binding its
    parameter, and its body."""
    lw = x.lw
    if closure.type != "closure_expression":
        raise HostUnsupported(closure, "a function passed where rs2triton expects a closure")
    params = closure.child_by_field_name("parameters")
    body = closure.child_by_field_name("body")
    assert params is not None and body is not None
    ps = named_children(params)
    if len(ps) != 1:
        raise HostUnsupported(closure, f"a closure of {len(ps)} parameters")
    pattern = ps[0].child_by_field_name("pattern") if ps[0].type == "parameter" else ps[0]
    assert pattern is not None
    lw.scopes.append({})
    try:
        target = lw.pattern_target(pattern, elem)
        if body.type == "block":
            value, ty = x.tail_value(body, body_expected)
        else:
            value, ty = x.expr(body, body_expected)
    finally:
        lw.scopes.pop()
    return ast.comprehension(target=target, iter=source, ifs=[], is_async=0), value, ty


def _iterator(x, node, value, ty, method, args, turbofish, expected):
    lw = x.lw
    el = element(ty)
    if method in ("copied", "cloned", "iter", "into_iter"):
        return value, ty
    if method == "map":
        clause, body, bty = _closure(x, args[0], el, value)
        return ast.GeneratorExp(elt=body, generators=[clause]), iterator(bty)
    if method == "filter":
        clause, test, _ = _closure(x, args[0], el, value)
        target = clause.target
        clause.ifs = [test]
        return ast.GeneratorExp(elt=_load(target), generators=[clause]), ty
    if method in ("all", "any"):
        clause, test, _ = _closure(x, args[0], el, value)
        return call(method, [ast.GeneratorExp(elt=test, generators=[clause])]), BOOL
    if method in ("take", "skip"):
        n, _ = x.expr(args[0], USIZE)
        if isinstance(value, ast.GeneratorExp):
            raise HostUnsupported(node, f"`.{method}()` after `.map()`")
        bounds = ast.Slice(lower=None, upper=n, step=None) if method == "take" else ast.Slice(lower=n, upper=None,
                                                                                                step=None)
        return ast.Subscript(value=value, slice=bounds, ctx=LOAD), ty
    if method == "enumerate":
        return call("enumerate", [value]), iterator(HTy("tuple", items=(USIZE, el)))
    if method == "rev":
        return call("reversed", [call("list", [value]) if isinstance(value, ast.GeneratorExp) else value]), ty
    if method == "zip":
        other, oty = x.expr(args[0])
        return call("zip", [value, other]), iterator(HTy("tuple", items=(el, element(oty))))
    result = scalar(turbofish[0]) if turbofish else None
    if method == "sum":
        return call("sum", [value]), result or _number_type(el, expected)
    if method == "product":
        lw.use("math")
        return call("math.prod", [value]), result or _number_type(el, expected)
    if method in ("max", "min"):
        return call(method, [value], [("default", const(None))]), option(el)
    if method == "count":
        return call("len", [call("list", [value])]), USIZE
    if method == "last":
        return call(lw.helper("last"), [call("list", [value])]), option(el)
    if method == "collect":
        return call("list", [value]), seq(el)
    raise HostUnsupported(node, f"`.{method}()` of an iterator")


def _number_type(el: HTy, expected: HTy | None) -> HTy:
    if expected is not None and expected.kind in ("int", "float"):
        return expected
    return el if el.kind in ("int", "float") else UNKNOWN


def _option(x, node, value, ty, method, args, expected):
    lw = x.lw
    inner = element(ty)
    if method in ("copied", "cloned", "as_ref"):
        return value, ty
    if method == "unwrap":
        return call(lw.helper("unwrap"), [value]), inner
    if method == "expect":
        message = x.const_string(args[0]) if args else None
        return call(lw.helper("unwrap"), [value] + ([ast.Constant(message)] if message is not None else [])), inner
    if method == "unwrap_or" and len(args) == 1:
        default, _ = x.expr(args[0], inner)
        return call(lw.helper("unwrap_or"), [value, default]), inner
    if method == "is_some":
        return ast.Compare(left=value, ops=[ast.IsNot()], comparators=[const(None)]), BOOL
    if method == "is_none":
        return ast.Compare(left=value, ops=[ast.Is()], comparators=[const(None)]), BOOL
    if method in ("and_then", "map") and len(args) == 1:
        param = _param_name(args[0])
        py = lw.fresh(param or "v")
        lw.scopes.append({})
        try:
            lw.scopes[-1][param or "_"] = Local(py, inner)
            clause_body = args[0].child_by_field_name("body")
            assert clause_body is not None
            body, bty = x.expr(clause_body)
        finally:
            lw.scopes.pop()
        helper = "and_then" if method == "and_then" else "map_option"
        lam = ast.Lambda(args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=py)], kwonlyargs=[], kw_defaults=[],
                                            defaults=[]), body=body)
        out_ty = bty if method == "and_then" else option(bty)
        return call(lw.helper(helper), [value, lam]), out_ty
    raise HostUnsupported(node, f"`.{method}()` of an Option")


def _param_name(closure: Node) -> str | None:
    if closure.type != "closure_expression":
        raise HostUnsupported(closure, "a function passed where rs2triton expects a closure")
    params = closure.child_by_field_name("parameters")
    ps = named_children(params) if params is not None else []
    if len(ps) != 1:
        raise HostUnsupported(closure, f"a closure of {len(ps)} parameters")
    p = ps[0].child_by_field_name("pattern") if ps[0].type == "parameter" else ps[0]
    if p is None or p.type != "identifier":
        raise HostUnsupported(closure, "a closure parameter that is not a name")
    return text(p)


def _load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, LOAD)
    if isinstance(target, ast.Tuple):
        return ast.Tuple(elts=[_load(e) for e in target.elts], ctx=LOAD)
    return target


# --------------------------------------------------------------------- paths

_TURBOFISH = re.compile(r"::<(?:[^<>]|<[^<>]*>)*>")


def path_call(x, node: Node, path: str, turbofish: list[str], args: list[Node], expected: HTy | None
              ) -> tuple[ast.expr, HTy]:
    lw = x.lw
    path = _TURBOFISH.sub("", path)  # `Kernel::<D>::new` -> `Kernel::new`: launchers take any dtype
    segments = [s.split("<")[0] for s in path.split("::")]
    last = segments[-1]
    owner = segments[-2] if len(segments) >= 2 else ""
    if last in ("null_mut", "null") and (not owner or owner == "ptr"):
        return const(None), PTR
    if last == "size_of" and (not owner or owner == "mem") and turbofish:
        t = turbofish[0]
        s = SCALARS.get(t)
        if s is not None:
            return const(max(1, s.bits // 8)), USIZE
        if t in lw.type_params and not lw.in_classmethod:
            return call(ast.Attribute(value=name("self"), attr="size_of", ctx=LOAD), [ast.Constant(t)]), USIZE
        raise HostUnsupported(node, f"`size_of::<{t}>()`")
    if path in ("Some", "Option::Some") and len(args) == 1:
        value, ty = x.expr(args[0], element(expected) if expected else None)
        return value, option(ty)
    if owner == "Vec" and last in ("new", "with_capacity"):
        return ast.List(elts=[], ctx=LOAD), expected if expected is not None and expected.kind == "seq" else seq(UNKNOWN)
    if last in ("max", "min") and owner in ("cmp", "") and len(args) == 2 and (owner or not lw.lookup(last)):
        a, ta = x.expr(args[0], expected)
        b, _ = x.expr(args[1], ta)
        return call(last, [a, b]), ta
    if last == "from" and owner in SCALARS and len(args) == 1:
        value, ty = x.expr(args[0])
        return value, scalar(owner) or ty
    if last == "new" and owner in lw.module.kernels:
        values = [x.expr(a, scalar(t))[0] for a, t in zip(args, lw.module.kernels[owner].values(), strict=False)]
        if len(args) != len(lw.module.kernels[owner]):
            raise HostUnsupported(node, f"`{owner}::new` with {len(args)} arguments; the kernel has "
                                        f"{len(lw.module.kernels[owner])} const generics")
        return call(ast.Attribute(value=name(owner), attr="new", ctx=LOAD), values), HTy("kernel", owner)
    if last == "new" and (owner in lw.module.structs or owner == "Self"):
        struct = lw.struct if owner == "Self" else owner
        values = [x.expr(a)[0] for a in args]
        target = name("cls") if lw.in_classmethod and owner == "Self" else name(struct)
        return call(ast.Attribute(value=target, attr="new", ctx=LOAD), values), HTy("op", struct)
    raise HostUnsupported(node, f"a call of `{path}`")


__all__ = ["method_call", "path_call", "INT_METHODS", "FLOAT_METHODS", "STORE", "BOOL"]
