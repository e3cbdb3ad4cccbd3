"""Calls in host code: methods of scalars (through :mod:`rs2triton.rust.std`, folded now when
every argument is a literal), of slices, iterators and ``Option`` (:mod:`.std`), of ``self``
and of the visitor; and path calls (``Kernel::new``, ``Self::new``, ``Some``, ``size_of``,
``std::cmp::max``, ``u64::from``, ``i32::max(a, b)``...)."""

from __future__ import annotations

import ast
import math
import re

from tree_sitter import Node

from rs2triton.rust import std as rust_std
from rs2triton.rust.floats import FLOATS
from rs2triton.rust.semantics import ConstError, Panic
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering.host.expressions import closure_function as _function
from rs2triton.transpiler.lowering.host.expressions import const_string, range_parts, shown
from rs2triton.transpiler.lowering.host.lowerer import HostLowerer, rust_type
from rs2triton.transpiler.lowering.host.statements import pattern_target
from rs2triton.transpiler.lowering.host.std import ITER_METHODS, OPTION_METHODS, SAME, SEQ_METHODS
from rs2triton.transpiler.lowering.lowerer import COMMENTS
from rs2triton.transpiler.lowering.registry import HOST, expression
from rs2triton.transpiler.lowering.values import (
    BOOL,
    NONE_TY,
    PTR,
    STR,
    UNKNOWN,
    USIZE,
    Kind,
    Ty,
    Val,
    container,
)
from rs2triton.transpiler.pyast import LOAD, call, const, float_const, literal_value, name


def _args(node: Node) -> list[Node]:
    return [a for a in named_children(part(node, "arguments")) if a.type not in COMMENTS]


@expression("call_expression", target=HOST)
def call_expression(lw: HostLowerer, node: Node) -> Val:
    func = part(node, "function")
    args = _args(node)
    turbofish: list[Node] = []
    if func.type == "generic_function":
        targs = func.child_by_field_name("type_arguments")
        turbofish = [t for t in named_children(targs) if t.type not in COMMENTS] if targs is not None else []
        func = part(func, "function")
    if func.type == "field_expression":
        return method_call(lw, node, part(func, "value"), text(part(func, "field")), args, turbofish)
    if func.type == "identifier":
        b = lw.names.lookup(text(func))
        if b is not None and b.ty.kind is Kind.FN:  # a closure bound to a name
            vals = [lw.narrow(lw.expr(a), a).expr for a in args]
            return Val(call(b.expr if b.expr is not None else name(b.py), vals), b.ty.items[0] if b.ty.items else UNKNOWN)
    if func.type in ("identifier", "scoped_identifier"):
        return path_call(lw, node, func, args, turbofish)
    raise lw.err(node, "E0002", f"a call of `{' '.join(text(func).split())[:40]}`",
                 "host code calls methods, associated functions and `Some`")


# ------------------------------------------------------------------ methods


def method_call(lw: HostLowerer, node: Node, receiver: Node, method: str, args: list[Node],
                turbofish: list[Node]) -> Val:
    from rs2triton.transpiler.lowering.host.classes import TRAIT

    if receiver.type == "self" and (method in lw.methods or method in TRAIT):
        return self_method(lw, node, method, args)
    if method in TRAIT:
        recv = lw.expr(receiver)
        if recv.ty.kind is Kind.KERNEL:  # a kernel struct's op: `self.kernel.grid(shape)`
            return trait_call(lw, node, recv.expr, method, args)
    if lw.visitor is not None and receiver.type == "identifier" and text(receiver) == lw.visitor:
        return visit(lw, node, method, args)
    recv = lw.expr(receiver)
    kind, elem = recv.ty.kind, recv.ty.elem
    if method == "to_string" and not args:
        return Val(shown(lw, lw.narrow(recv, receiver)) if kind is Kind.STR else
                   (call("str", [lw.narrow(recv, receiver).expr]) if elem in INT_TYPES
                    else shown(lw, lw.narrow(recv, receiver), "")), STR)
    if method in SAME and kind not in (Kind.SEQ, Kind.ARRAY) or (method in ("clone", "to_owned", "into")
                                                                  and kind in (Kind.KERNEL, Kind.STRUCT)):
        return recv
    method_node = node.child_by_field_name("function")
    method_node = method_node.child_by_field_name("field") if method_node is not None and \
        method_node.type == "field_expression" else None
    if elem in INT_TYPES and kind in (Kind.SCALAR, Kind.CONST):
        return scalar_method(lw, node, recv, receiver, method, args, rust_std.INT_METHODS, method_node)
    if elem in FLOAT_TYPES and kind in (Kind.SCALAR, Kind.CONST):
        return scalar_method(lw, node, recv, receiver, method, args, rust_std.FLOAT_METHODS, method_node)
    if kind is Kind.PTR and method == "add" and len(args) == 1:
        lw.hint(args[0], USIZE)
        count = lw.settle(lw.expr(args[0]), USIZE, args[0])
        return Val(call(lw.helper("ptr_add"), [recv.expr, count.expr]), PTR)
    if kind in (Kind.SEQ, Kind.ARRAY):
        return seq_method(lw, node, recv, method, args, turbofish)
    if kind is Kind.ITER:
        return iter_method(lw, node, recv, method, args, turbofish)
    if kind is Kind.OPTION:
        return option_method(lw, node, recv, method, args)
    if kind is Kind.STR and method == "len":
        return Val(call("len", [call(ast.Attribute(recv.expr, "encode", LOAD), [])]), USIZE)
    if kind is Kind.STR and method in ("chars", "bytes") and not args:
        items = recv.expr if method == "chars" else call(ast.Attribute(recv.expr, "encode", LOAD), [])
        return Val(items, container(Kind.ITER, Ty(Kind.STR, "char") if method == "chars" else Ty(Kind.SCALAR, "u8")))
    if kind is Kind.STR and method in ("is_empty",) and not args:
        return Val(ast.Compare(left=call("len", [recv.expr]), ops=[ast.Eq()], comparators=[const(0)]), BOOL)
    if kind is Kind.STRUCT and recv.ty.elem in lw.module.inherent and method in lw.module.inherent[recv.ty.elem]:
        return _struct_call(lw, recv.expr, recv.ty.elem or "", method, args, node)
    raise lw.err(node, "E0002",
                 f"no method `{method}` that rs2triton translates on a value of "
                 f"{('type `' + elem + '`') if elem else 'kind ' + kind.value}",
                 "host code's methods are the standard library's on numbers, slices, iterators and Option, and the "
                 "struct's own")


_ORD_METHODS = frozenset({"max", "min", "clamp"})  # an integer's methods from the `Ord` trait


def _receiver_type(lw: HostLowerer, recv: Val, receiver: Node, method: str) -> str:
    """The scalar type of a method's receiver; an unsuffixed literal needs one from its context
    (rustc: "can't call method on ambiguous numeric type"), except an integer's `Ord` methods,
    which Rust resolves on `{integer}` and then falls back to `i32` (`5.max(3)` is 5, and
    `5.max(3.0)` a mismatched argument)."""
    if not recv.weak:
        return recv.ty.elem or "i32"
    typed = lw.literal_type(receiver)
    if typed is None and recv.ty.elem not in FLOAT_TYPES and method in _ORD_METHODS:
        return "i32"
    if typed is None:
        kind = "{float}" if recv.ty.elem in FLOAT_TYPES else "{integer}"
        raise lw.rejects(receiver, "E0689", f"can't call method `{method}` on ambiguous numeric type `{kind}`",
                     f"give the literal a suffix: `{text(receiver)}_{'f32' if kind == '{float}' else 'i32'}` "
                     "")
    return typed


def _result_type(spec: rust_std.Method, elem: str) -> Ty:
    r = spec.returns
    scalar = Ty(Kind.SCALAR, elem)
    if r == "Self":
        return scalar
    if r == "Unsigned":
        return Ty(Kind.SCALAR, "usize" if elem == "isize" else "u" + elem[1:])
    if r == "Option<Self>":
        return container(Kind.OPTION, scalar)
    if r == "Option<u32>":
        return container(Kind.OPTION, Ty(Kind.SCALAR, "u32"))
    if r == "(Self, bool)":
        return Ty(Kind.TUPLE, None, (scalar, BOOL))
    if r == "Ordering":
        return Ty(Kind.SCALAR, "i8")
    if r == "Option<Ordering>":
        return container(Kind.OPTION, Ty(Kind.SCALAR, "i8"))
    return Ty(Kind.SCALAR, r)


def scalar_method(lw: HostLowerer, node: Node, recv: Val, receiver: Node, method: str, args: list[Node],
                  table: dict[str, rust_std.Method], method_node: Node | None = None) -> Val:
    """``x.method(args)`` of an integer or float: ``i32.saturating_sub(x, y)``, or its value now
    when every argument is a literal; ``max``/``min`` of integers are Python's, ``abs`` of an
    integer is Python's (wrapped where observed)."""
    elem = _receiver_type(lw, recv, receiver, method)
    spec = table.get(method)
    is_int = elem in INT_TYPES
    signed = SCALARS[elem].signed
    if spec is None:
        known = rust_std.RUST_INT_METHODS if is_int else rust_std.RUST_FLOAT_METHODS
        if method not in known and not lw.module.imports_traits:
            raise lw.rejects(method_node or node, "E0599", f"no method named `{method}` found for type `{elem}`")
        raise lw.err(node, "E0002", f"`.{method}()` of a `{elem}`", "not in the translated subset of the standard library")
    if (is_int and method in rust_std.UNSIGNED_ONLY and signed) or (is_int and method in rust_std.SIGNED_ONLY and
                                                                    not signed):
        raise lw.rejects(node, "E0599", f"no method named `{method}` found for type `{elem}`",
                         f"`{method}` exists for {'unsigned' if signed else 'signed'} types only")
    if len(args) != spec.arity:
        raise lw.rejects(method_node or node, "E0061", f"`{elem}::{method}` takes {spec.arity} argument{'s' * (spec.arity != 1)} "
                     f"but {len(args)} were supplied", None)
    self_ty = Ty(Kind.SCALAR, elem)
    recv = lw.settle(recv, self_ty, receiver)
    arg_ty = self_ty if spec.arg == "Self" else Ty(Kind.SCALAR, spec.arg)
    vals = []
    for a in args:
        lw.hint(a, arg_ty)
        vals.append(lw.settle(lw.expr(a), arg_ty, a))
    result = _result_type(spec, elem)
    obj: object = rust_std.INTS[elem] if is_int else FLOATS[elem]
    literals = [literal_value(v.expr) for v in (recv, *vals)] if lw.in_const_item else None
    if literals is not None and all(x is not None for x in literals):  # (rustc evaluates it now)
        try:
            value = getattr(obj, method)(*literals)
        except Panic as panic:  # rustc's E0080: the constant cannot be evaluated
            with lw.rust_rules(node):
                raise ConstError("this operation will panic at runtime", str(panic)) from None
        else:
            return Val(_constant(value), Ty(Kind.CONST, result.elem, result.items) if result.kind is Kind.SCALAR
                       else result)
    # (Elsewhere a call is computed when it runs, as rustc's lints see it: `b / 7i32.trailing_zeros() as i32`
    # is no division by a constant zero for them, and `200u8.count_ones() as u8 * 200` no overflow.)
    if is_int and method in ("max", "min"):
        return Val(call(method, [recv.expr, vals[0].expr]), result)
    if method == "abs":
        return Val(call("abs", [recv.expr]), Ty(Kind.SCALAR, elem, wide=is_int))
    return Val(call(ast.Attribute(lw.helper(elem), method, LOAD), [recv.expr, *(v.expr for v in vals)]), result)


def _constant(value: int | float | bool | tuple[int | float | bool, ...] | None) -> ast.expr:
    if isinstance(value, tuple):
        return ast.Tuple(elts=[_constant(v) for v in value], ctx=LOAD)
    if isinstance(value, float):
        return float_const(value)
    return const(value)


def visit(lw: HostLowerer, node: Node, method: str, args: list[Node]) -> Val:
    """``visitor.visit_i32(x)``: the argument checked against the kind visited, as rustc checks it."""
    kind = method.removeprefix("visit_")
    if not method.startswith("visit_") or (kind != "ptr" and kind not in SCALARS):
        raise lw.rejects(node, "E0599", f"`ArgVisitor` has no method `{method}`", "visit_ptr, visit_i32, visit_f32...")
    if len(args) != 1:
        raise lw.rejects(node, "E0061", f"`visitor.{method}` takes 1 argument but {len(args)} were supplied")
    want = PTR if kind == "ptr" else Ty(Kind.SCALAR, kind)
    lw.hint(args[0], want)
    v = lw.settle(lw.expr(args[0]), want, args[0])
    if kind != "ptr" and v.ty.elem in SCALARS and v.ty.elem != kind:
        raise lw.rejects(args[0], "E0308", f"mismatched types: `visitor.{method}` takes a `{kind}`, found `{v.ty.elem}`",
                     f"cast it: `{text(args[0])} as {kind}`")
    return Val(call(ast.Attribute(name("visitor"), method, LOAD), [v.expr]), NONE_TY)


def self_method(lw: HostLowerer, node: Node, method: str, args: list[Node]) -> Val:
    """``self.method(args)``: the struct's own, or a trait method (its parameters typed by the trait;
    an inherent method of the name comes first, as in Rust's method lookup); one that takes the
    visitor (``self.pack_args_for_launch(.., visitor)``) visits here what it visits."""
    from rs2triton.transpiler.lowering.host.classes import TRAIT

    if method in TRAIT and method not in lw.module.inherent.get(lw.struct, {}):
        return trait_call(lw, node, name("self"), method, args)
    return _struct_call(lw, name("self"), lw.struct, method, args, node)


def trait_call(lw: HostLowerer, node: Node, owner: ast.expr, method: str, args: list[Node]) -> Val:
    """A ``RuntimeOp`` method of ``owner``, its parameters typed by the trait."""
    from rs2triton.transpiler.lowering.host.classes import TRAIT

    spec = TRAIT[method]
    n = len(spec.params)
    if len(args) != n + (1 if spec.visitor else 0):
        raise lw.rejects(node, "E0061", f"`{method}` takes {n + spec.visitor} arguments but {len(args)} were supplied")
    vals = []
    for a, (_, ty) in zip(args, spec.params, strict=False):
        lw.hint(a, ty)
        vals.append(lw.settle(lw.expr(a), ty, a).expr)
    out = call(ast.Attribute(owner, method, LOAD), vals)
    if spec.visitor:
        if lw.visitor is None:
            raise lw.err(node, "E0002", f"`{method}` outside a `pack_*` method", "pass it the visitor")
        return Val(call(ast.Attribute(name("visitor"), "extend_visited", LOAD), [out]), NONE_TY)
    return Val(out, spec.returns)


def _struct_call(lw: HostLowerer, owner: ast.expr, struct: str, method: str, args: list[Node], node: Node) -> Val:
    has_self, params, ret = lw.module.inherent.get(struct, {}).get(method, (True, [], None))
    vals = []
    for a, p in zip(args, params + [None] * len(args), strict=False):
        ty = rust_type(p, lw.module, struct) if p is not None else None
        lw.hint(a, ty)
        vals.append(lw.settle(lw.expr(a), ty, a).expr)
    if not has_self:
        owner = name("cls") if lw.in_classmethod else call("type", [name("self")])
    return Val(call(ast.Attribute(owner, lw.module.method_name(struct, method), LOAD), vals),
               rust_type(ret, lw.module, struct) if ret else NONE_TY)


# ------------------------------------------------------------------ slices, iterators, Option


def _closure(lw: HostLowerer, closure: Node, elem: Ty, source: ast.expr) -> tuple[ast.comprehension, Val]:
    """A one-parameter closure over the items of ``source``: the comprehension clause binding its
    parameter, and its body's value."""
    if closure.type != "closure_expression":
        raise lw.err(closure, "E0002", "a function passed where a closure is translated", "write `|x| f(x)`")
    params = [p for p in named_children(part(closure, "parameters")) if p.type not in COMMENTS]
    if len(params) != 1:
        raise lw.err(closure, "E0002", f"a closure of {len(params)} parameters", "this method's closure takes one")
    pattern = params[0].child_by_field_name("pattern") if params[0].type == "parameter" else params[0]
    assert pattern is not None
    body = part(closure, "body")
    with lw.names.scope():
        target = pattern_target(lw, pattern, elem)
        statements: list[ast.stmt] = []
        with lw.into(statements):
            value = lw.narrow(lw.expr(body), body)
    if statements:
        raise lw.err(body, "E0002", "a closure whose body needs statements", "make it one expression")
    return ast.comprehension(target=target, iter=source, ifs=[], is_async=0), value


def _load(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, LOAD)
    if isinstance(target, ast.Tuple):
        return ast.Tuple(elts=[_load(e) for e in target.elts], ctx=LOAD)
    return target


def _arity(lw: HostLowerer, node: Node, method: str, args: list[Node], n: int) -> None:
    if len(args) != n:
        raise lw.rejects(node, "E0061", f"`{method}` takes {n} argument{'s' * (n != 1)} but {len(args)} were supplied",
                     None)


_MUTATING = frozenset({"push", "insert", "pop", "sort", "sort_unstable", "dedup", "reverse", "extend_from_slice"})


def seq_method(lw: HostLowerer, node: Node, recv: Val, method: str, args: list[Node], turbofish: list[Node]) -> Val:
    el = recv.ty.inner
    receiver = node.child_by_field_name("function")
    receiver = receiver.child_by_field_name("value") if receiver is not None and receiver.type == "field_expression" \
        else None
    if method in _MUTATING and receiver is not None and receiver.type == "identifier":
        b = lw.names.lookup(text(receiver))
        if b is not None and b.decl not in ("mut", "param") and b.expr is None:
            raise lw.rejects(receiver, "E0596", f"cannot borrow `{text(receiver)}` as mutable, as it is not "
                             "declared as mutable", f"declare it `let mut {text(receiver)}`")
    if method in ("iter", "into_iter", "iter_mut", "copied", "cloned"):
        return Val(recv.expr, container(Kind.ITER, el))
    if method in ("to_vec", "clone", "to_owned", "into"):
        return Val(call("list", [recv.expr]), container(Kind.SEQ, el))
    spec = SEQ_METHODS.get(method)
    if spec is None:
        if method in ITER_METHODS:
            return iter_method(lw, node, Val(recv.expr, container(Kind.ITER, el)), method, args, turbofish)
        raise lw.err(node, "E0002", f"`.{method}()` of a slice",
                     "slices have len, is_empty, first, last, get, contains, to_vec, iter...")
    _arity(lw, node, method, args, spec.arity)
    if spec.form == "len":
        return Val(call("len", [recv.expr]), USIZE)
    if spec.form == "is_empty":
        return Val(ast.Compare(left=call("len", [recv.expr]), ops=[ast.Eq()], comparators=[const(0)]), BOOL)
    if spec.form in ("first", "last"):
        return Val(call(lw.helper(spec.form), [recv.expr]), container(Kind.OPTION, el))
    if spec.form == "get":
        lw.hint(args[0], USIZE)
        i = lw.settle(lw.expr(args[0]), USIZE, args[0])
        return Val(call(lw.helper("get"), [recv.expr, i.expr]), container(Kind.OPTION, el))
    if spec.form == "contains":
        lw.hint(args[0], el)
        item = lw.settle(lw.expr(args[0]), el, args[0])
        return Val(ast.Compare(left=item.expr, ops=[ast.In()], comparators=[recv.expr]), BOOL)
    if spec.form in ("sort", "reverse"):
        return Val(call(ast.Attribute(recv.expr, spec.form, LOAD), []), NONE_TY)
    if spec.form in ("dedup", "pop"):
        return Val(call(lw.helper(spec.form), [recv.expr]), NONE_TY if spec.form == "dedup" else
                   container(Kind.OPTION, el))
    if spec.form == "extend":
        other = lw.expr(args[0])
        return Val(call(ast.Attribute(recv.expr, "extend", LOAD), [other.expr]), NONE_TY)
    if spec.form == "insert":
        lw.hint(args[0], USIZE)
        i = lw.settle(lw.expr(args[0]), USIZE, args[0])
        lw.hint(args[1], el)
        item = lw.settle(lw.expr(args[1]), el if el.kind is not Kind.UNKNOWN else None, args[1])
        return Val(call(lw.helper("insert"), [recv.expr, i.expr, item.expr]), NONE_TY)
    if spec.form in ("chunks", "windows"):
        lw.hint(args[0], USIZE)
        n = lw.settle(lw.expr(args[0]), USIZE, args[0])
        return Val(call(lw.helper(spec.form), [recv.expr, n.expr]), container(Kind.ITER, container(Kind.SEQ, el)))
    if spec.form == "append":
        lw.hint(args[0], el)
        item = lw.settle(lw.expr(args[0]), el if el.kind is not Kind.UNKNOWN else None, args[0])
        return Val(call(ast.Attribute(recv.expr, "append", LOAD), [item.expr]), NONE_TY)
    return Val(call("list", [recv.expr]), container(Kind.SEQ, el))


def _sum_type(lw: HostLowerer, node: Node, el: Ty, turbofish: list[Node]) -> Ty:
    if turbofish:
        return rust_type(turbofish[0], lw.module, lw.struct)
    typed = lw.literal_type(node)
    if typed is not None:
        return Ty(Kind.SCALAR, typed)
    return el if el.elem in SCALARS else UNKNOWN


def iter_method(lw: HostLowerer, node: Node, recv: Val, method: str, args: list[Node], turbofish: list[Node]) -> Val:
    el = recv.ty.inner
    value = recv.expr
    if method in ("copied", "cloned", "iter", "into_iter", "by_ref"):
        return recv
    spec = ITER_METHODS.get(method)
    if spec is None:
        raise lw.err(node, "E0002", f"`.{method}()` of an iterator",
                     "iterators have map, filter, all, any, enumerate, zip, rev, take, skip, step_by, sum, "
                     "product, max, min, count, last, collect")
    _arity(lw, node, method, args, spec.arity)
    form = spec.form
    if form == "map":
        clause, body = _closure(lw, args[0], el, value)
        return Val(ast.GeneratorExp(elt=body.expr, generators=[clause]), container(Kind.ITER, body.ty))
    if form == "filter":
        clause, test = _closure(lw, args[0], el, value)
        clause.ifs = [test.expr]
        return Val(ast.GeneratorExp(elt=_load(clause.target), generators=[clause]), recv.ty)
    if form in ("all", "any"):
        clause, test = _closure(lw, args[0], el, value)
        return Val(call(form, [ast.GeneratorExp(elt=test.expr, generators=[clause])]), BOOL)
    if form == "fold":
        init = lw.expr(args[0])
        # an unsuffixed start takes the items' type where they are numbers (as Rust infers it)
        # (else the type Rust's inference gives it from the uses: `(0..3).fold(0, ..)` returned as a usize)
        inferred = lw.literal_type(args[0]) or lw.inferred_literal(args[0], force=True) if init.weak else None
        init = lw.settle(init, el if init.weak and el.elem in SCALARS else
                         Ty(Kind.SCALAR, inferred) if inferred is not None else None, args[0])
        fn, _ = _function(lw, args[1], [init.ty, el])
        return Val(call(ast.Attribute(lw.use("functools"), "reduce", LOAD), [fn, value, init.expr]), init.ty)
    if form in ("position", "find"):
        clause, test = _closure(lw, args[0], el, value)
        clause.ifs = [test.expr]
        if form == "position":
            index = lw.names.fresh("i")
            clause.target = ast.Tuple(elts=[ast.Name(index, ast.Store()), clause.target], ctx=ast.Store())
            clause.iter = call("enumerate", [value])
            found: ast.expr = name(index)
        else:
            found = _load(clause.target)
        return Val(call("next", [ast.GeneratorExp(elt=found, generators=[clause]), const(None)]),
                   container(Kind.OPTION, USIZE if form == "position" else el))
    if form == "flat_map":
        clause, inner = _closure(lw, args[0], el, value)
        item = lw.names.fresh("y")
        return Val(ast.GeneratorExp(elt=name(item), generators=[clause, ast.comprehension(
            target=ast.Name(item, ast.Store()), iter=inner.expr, ifs=[], is_async=0)]), container(Kind.ITER, inner.ty.inner))
    if form in ("max_by_key", "min_by_key"):
        fn, _ = _function(lw, args[0], [el])
        return Val(call(lw.helper(form), [value, fn]), container(Kind.OPTION, el))
    if form == "enumerate":
        return Val(call("enumerate", [value]), container(Kind.ITER, Ty(Kind.TUPLE, None, (USIZE, el))))
    if form == "zip":
        other = lw.expr(args[0])
        return Val(call("zip", [value, other.expr]), container(Kind.ITER, Ty(Kind.TUPLE, None, (el, other.ty.inner))))
    if form == "rev":
        return Val(call("reversed", [_sequence(value)]), recv.ty)
    if form in ("take", "skip", "step_by"):
        lw.hint(args[0], USIZE)
        n = lw.settle(lw.expr(args[0]), USIZE, args[0]).expr
        if form == "step_by" and isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
                value.func.id == "range" and len(value.args) <= 2:
            bounds = value.args if len(value.args) == 2 else [const(0), *value.args]
            return Val(call("range", [*bounds, n]), recv.ty)
        if form == "step_by" and literal_value(n) == 0:
            raise lw.err(args[0], "E0002", "`step_by(0)` panics: assertion failed: step != 0")
        part_of = {"take": ast.Slice(lower=None, upper=n, step=None), "skip": ast.Slice(lower=n, upper=None, step=None),
                   "step_by": ast.Slice(lower=None, upper=None, step=n)}[form]
        return Val(ast.Subscript(value=_sequence(value), slice=part_of, ctx=LOAD), recv.ty)
    if form in ("sum", "product"):
        ty = _sum_type(lw, node, el, turbofish)
        if ty.elem in FLOAT_TYPES:
            return Val(call(ast.Attribute(lw.helper(ty.elem), form, LOAD), [value]), Ty(Kind.SCALAR, ty.elem))
        if form == "product":
            return Val(call(ast.Attribute(lw.use("math"), "prod", LOAD), [value]), Ty(Kind.SCALAR, ty.elem, wide=True))
        return Val(call("sum", [value]), Ty(Kind.SCALAR, ty.elem, wide=True))
    if form in ("max", "min"):
        if el.elem in FLOAT_TYPES:
            at = node.child_by_field_name("function")
            at = at.child_by_field_name("field") if at is not None and at.type == "field_expression" else node
            raise lw.rejects(at or node, "E0277", f"the trait bound `{el.elem}: Ord` is not satisfied",
                             f"fold with `{el.elem}::{form}` instead: `.fold({el.elem}::NEG_INFINITY, {el.elem}::{form})`")
        return Val(call(form, [value], [("default", const(None))]), container(Kind.OPTION, el))
    if form == "count":
        return Val(call("len", [_sequence(value)]), USIZE)
    if form == "last":
        return Val(call(lw.helper("last"), [_sequence(value)]), container(Kind.OPTION, el))
    return Val(call("list", [value]), container(Kind.SEQ, el))  # collect


def _sequence(value: ast.expr) -> ast.expr:
    """An iterator's items as something Python can slice, reverse and measure."""
    if isinstance(value, ast.GeneratorExp) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                               and value.func.id in ("zip", "enumerate", "reversed")):
        return call("list", [value])
    return value


def option_method(lw: HostLowerer, node: Node, recv: Val, method: str, args: list[Node]) -> Val:
    inner = recv.ty.inner
    if method in ("copied", "cloned", "as_ref", "as_mut"):
        return recv
    spec = OPTION_METHODS.get(method)
    if spec is None:
        raise lw.err(node, "E0002", f"`.{method}()` of an `Option`",
                     "Option has unwrap, expect, unwrap_or, unwrap_or_default, is_some, is_none, map, and_then")
    _arity(lw, node, method, args, spec.arity)
    form = spec.form
    if form == "unwrap":
        return Val(call(lw.helper("unwrap"), [recv.expr]), inner)
    if form == "expect":
        message = const_string(lw, args[0])
        if message is None:
            raise lw.err(args[0], "E0002", "an `expect` message that is not a string literal")
        return Val(call(lw.helper("unwrap"), [recv.expr, ast.Constant(message)]), inner)
    if form == "unwrap_or":
        lw.hint(args[0], inner)
        default = lw.settle(lw.expr(args[0]), inner if inner.kind is not Kind.UNKNOWN else None, args[0])
        return Val(call(lw.helper("unwrap_or"), [recv.expr, default.expr]), inner if inner.kind is not Kind.UNKNOWN
                   else default.ty)
    if form == "unwrap_or_default":
        zero: ast.expr = const(0.0 if inner.elem in FLOAT_TYPES else False if inner.elem == "bool" else 0) \
            if inner.kind in (Kind.SCALAR, Kind.CONST) else ast.List(elts=[], ctx=LOAD)
        return Val(call(lw.helper("unwrap_or"), [recv.expr, zero]), inner)
    if form in ("is_some", "is_none"):
        op = ast.IsNot() if form == "is_some" else ast.Is()
        return Val(ast.Compare(left=recv.expr, ops=[op], comparators=[const(None)]), BOOL)
    if form == "or":
        other = lw.expr(args[0])
        return Val(call(lw.helper("or_option"), [recv.expr, other.expr]), recv.ty)
    if form == "zip_option":
        other = lw.expr(args[0])
        return Val(call(lw.helper("zip_option"), [recv.expr, other.expr]),
                   container(Kind.OPTION, Ty(Kind.TUPLE, None, (inner, other.ty.inner))))
    if form == "filter_option":
        fn, _ = _function(lw, args[0], [inner])
        return Val(call(lw.helper("filter_option"), [recv.expr, fn]), recv.ty)
    fn, returns = _function(lw, args[0], [inner])
    out = returns if form == "and_then" else container(Kind.OPTION, returns)
    return Val(call(lw.helper(form), [recv.expr, fn]), out)


# ------------------------------------------------------------------ ranges and paths


@expression("range_expression", target=HOST)
def range_value(lw: HostLowerer, node: Node) -> Val:
    """``a..b`` / ``a..=b`` as an iterator (``for i in 0..n``, ``(0..n).rev()``): ``range(a, b)``, of
    the bounds' type (unsuffixed literals take the other bound's; two of them an integer Rust
    infers from the use)."""
    start, end = range_parts(node)
    if end is None:
        raise lw.err(node, "E0002", "an unbounded range in host code", "give the range an end")
    inclusive = any(c.type == "..=" for c in node.children)
    vals = [lw.expr(b) if b is not None else None for b in (start, end)]
    typed = next((v.ty for v in vals if v is not None and not v.weak), None)
    if typed is None:  # (two unsuffixed literals: the type Rust's inference gives them from the uses, if one does)
        inferred = next((t for b in (start, end) if b is not None and (t := lw.literal_type(b) or lw.inferred_literal(
            b, force=True)) is not None), None)
        typed = Ty(Kind.SCALAR, inferred) if inferred is not None else None
    settled = [lw.settle(v, typed, b) if v is not None and b is not None and (typed is not None or not v.weak) else v
               for v, b in zip(vals, (start, end), strict=True)]
    lo, hi = settled
    assert hi is not None
    upper = ast.BinOp(left=hi.expr, op=ast.Add(), right=const(1)) if inclusive else hi.expr
    args = [upper] if lo is None or literal_value(lo.expr) == 0 else [lo.expr, upper]
    elem = Ty(Kind.SCALAR, typed.elem) if typed is not None else Ty(Kind.SCALAR, None)
    return Val(call("range", args), container(Kind.ITER, elem))


_TURBOFISH = re.compile(r"::<(?:[^<>]|<[^<>]*>)*>")


def _cmp_builtin(lw: HostLowerer, node: Node, fn: str, args: list[Node]) -> Val:
    vals = [lw.narrow(lw.expr(a), a) for a in args]
    return Val(call(fn, [v.expr for v in vals]), vals[0].ty)


def path_call(lw: HostLowerer, node: Node, func: Node, args: list[Node], turbofish: list[Node]) -> Val:
    path = _TURBOFISH.sub("", text(func).replace(" ", ""))  # `Kernel::<D>::new` -> `Kernel::new`
    segments = [s.split("<")[0] for s in path.split("::") if s not in ("std", "core")]
    last = segments[-1]
    owner = segments[-2] if len(segments) >= 2 else ""
    module = lw.module
    if last in ("null_mut", "null") and owner in ("", "ptr"):
        return Val(const(None), PTR)
    if last == "size_of" and owner in ("", "mem") and turbofish:
        t = text(turbofish[0])
        if t in SCALARS:
            return Val(const(max(1, SCALARS[t].bits // 8)), Ty(Kind.CONST, "usize"))
        if t in lw.type_params and not lw.in_classmethod:
            return Val(call(ast.Attribute(name("self"), "size_of", LOAD), [ast.Constant(t)]), USIZE)
        raise lw.err(node, "E0002", f"`size_of::<{t}>()`", "host code knows the size of scalars and of the op's dtypes")
    if path in ("String::from", "String::new", "str::to_string") or (owner == "String" and last in ("from", "new")):
        if not args:
            return Val(ast.Constant(""), STR)
        return Val(lw.expr(args[0]).expr, STR)
    if path in ("Some", "Option::Some"):
        _arity(lw, node, "Some", args, 1)
        v = lw.expr(args[0])
        return Val(v.expr, container(Kind.OPTION, v.ty))
    if owner == "Vec" and last in ("new", "with_capacity"):
        return Val(ast.List(elts=[], ctx=LOAD), container(Kind.SEQ, UNKNOWN))
    if last in ("max", "min") and owner in ("cmp", "") and len(args) == 2 and (owner or lw.names.lookup(last) is None):
        a = lw.expr(args[0])
        b = lw.expr(args[1])
        typed = a.ty if not a.weak else b.ty
        a, b = lw.settle(a, typed, args[0]), lw.settle(b, typed, args[1])
        if typed.elem in FLOAT_TYPES:
            raise lw.rejects(node, "E0277", f"`{typed.elem}` is not `Ord`: `std::cmp::{last}` takes ordered values",
                         f"use `a.{last}(b)`")
        return Val(call(last, [a.expr, b.expr]), a.ty)
    if owner in ("Ord", "PartialOrd", "f32", "f64", *INT_TYPES) and last in ("max", "min", "clamp") and args and \
            owner not in SCALARS:
        recv = lw.expr(args[0])
        return method_call(lw, node, args[0], last, args[1:], []) if recv.ty.elem in SCALARS else \
            _cmp_builtin(lw, node, last, args)
    if owner in SCALARS and last == "from" and len(args) == 1:
        v = lw.narrow(lw.expr(args[0]), args[0])
        return Val(v.expr, Ty(v.ty.kind if v.ty.kind is Kind.CONST else Kind.SCALAR, owner))
    if owner in SCALARS and args:  # `i32::max(a, b)`: the method of the first argument
        lw.hint(args[0], Ty(Kind.SCALAR, owner))
        first = lw.settle(lw.expr(args[0]), Ty(Kind.SCALAR, owner), args[0])
        table = rust_std.INT_METHODS if owner in INT_TYPES else rust_std.FLOAT_METHODS
        return scalar_method(lw, node, first, args[0], last, args[1:], table)
    if last == "new" and owner in module.kernels:
        consts = list(module.kernels[owner].values())
        if len(args) != len(consts):
            raise lw.rejects(node, "E0061", f"`{owner}::new` takes {len(consts)} arguments (its const generics) but "
                         f"{len(args)} were supplied")
        vals = []
        for arg, t in zip(args, consts, strict=True):
            lw.hint(arg, Ty(Kind.SCALAR, t))
            vals.append(lw.settle(lw.expr(arg), Ty(Kind.SCALAR, t), arg).expr)
        return Val(call(ast.Attribute(name(owner), "new", LOAD), vals), Ty(Kind.KERNEL, owner))
    struct = lw.struct if owner == "Self" else owner
    if struct in module.structs and (last == "new" or last in module.inherent.get(struct, {})):
        if last == "new" and last not in module.inherent.get(struct, {}):
            raise lw.rejects(node, "E0599", f"no function `new` for `{struct}`", None)
        target = name("cls") if lw.in_classmethod and struct == lw.struct else (
            call("type", [name("self")]) if struct == lw.struct else name(struct))
        return _struct_call(lw, target, struct, last, args, node)
    if len(segments) == 1 and last not in lw.ctx.functions and last not in lw.module.imported and \
            not lw.module.foreign_globs and lw.names.lookup(last) is None:
        raise lw.rejects(func, "E0425", f"cannot find function `{last}` in this scope")
    raise lw.err(node, "E0002", f"a call of `{path}`", "host code calls methods, `Kernel::new`, `Self::new`, "
                 "`Some`, `size_of::<T>()`, `std::cmp::max/min` and scalar types' functions")


__all__ = ["call_expression", "math", "STR"]
