"""The host target's builder: the Python that computes what the shared rules decided, with Rust's
meaning (rustc's release profile, as for kernels).

:mod:`..operators` decides, for both targets, the result's type, what is folded now and what
rustc rejects; this builder writes the rest as Python over ints and floats:

- **integers wrap where they are observed.** ``+``, ``-``, ``*``, ``<<``, ``-x`` and bit
  operations give Python ints congruent to Rust's result (``Ty.wide``: not yet wrapped); the
  value is wrapped to its type (``as_usize(a * b)``) where it is compared, divided, shifted
  right, passed, stored in a ``let mut``, returned or printed, and an ``as`` cast to a type no
  wider wraps it anyway (``as_i32(a * b)``), so most host code reads as it did;
- ``/`` and ``%`` of signed types are Rust's (``i32.div(a, b)``: truncating, panicking on a
  zero divisor or ``MIN / -1``); of unsigned ones Python's (``a // b``: the same on values in
  range; a zero divisor is Rust's panic through :func:`rs2triton.runtime.host.rust_panics`);
  shift amounts are masked to the width;
- f32 arithmetic is rounded to f32 after each operation (``f32(a * b)``), and an unsuffixed
  float literal that is an f32 is the f32 value; float ``/`` and ``%`` follow IEEE
  (``f64.div(a, b)`` where the divisor may be zero);
- ``as`` casts wrap, truncate and saturate (``as_u8(x)``), and are left out where they cannot
  change the value (``u32 as usize``).
"""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.std import RUST_FLOAT_CONSTS, RUST_INT_CONSTS
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.frontend.types import read_type
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.host.lowerer import HostLowerer
from rs2triton.transpiler.lowering.operators import ARITHMETIC
from rs2triton.transpiler.lowering.registry import HOST, builder
from rs2triton.transpiler.lowering.values import PTR, SHAPE, STR, UNKNOWN, Kind, Ty, Val, container
from rs2triton.transpiler.pyast import LOAD, call, const, float_const, literal_value, name, python_name

RING = frozenset({"+", "-", "*", "&", "|", "^", "<<"})  # results congruent mod 2^bits to Rust's


def is_int(elem: str | None) -> bool:
    return elem in INT_TYPES


def fits_in(src: str | None, dst: str | None) -> bool:
    """Whether every value of integer type ``src`` is one of ``dst`` (a cast that changes nothing)."""
    a, b = SCALARS.get(src or ""), SCALARS.get(dst or "")
    if a is None or b is None or not a.is_int or not b.is_int:
        return False
    return b.min <= a.min and a.max <= b.max


def _f32_literal(v: Val, elem: str | None) -> Val:
    """A float literal that is an f32 (``1.1f32``, or unsuffixed where Rust types it so): its f32 value."""
    lit = literal_value(v.expr)
    if elem in ("f32", "f16", "bf16") and (v.weak or v.ty.elem == elem) and isinstance(lit, float):
        return Val(float_const(semantics.round_float(lit, elem)), Ty(v.ty.kind, elem))
    return v


@builder(HOST)
class HostBuilder:
    """Python with Rust's meaning for the shared rules' decisions (see the module's docstring)."""

    def bool_kind(self, kind: Kind) -> Kind:
        return Kind.CONST if kind is Kind.CONST else Kind.SCALAR

    def block_entered(self, lw: HostLowerer, block: Node, children: list[Node]) -> None:
        return None  # (host loops are Python's own: host/loops.py)

    # ------------------------------------------------------------------ operators
    def pointer_arith(self, lw: HostLowerer, op: str, left: Val, right: Val, node: Node) -> Val:
        raise lw.err(node, "E0002", f"`{op}` on a pointer", "offset a pointer with `.add(n)`")

    def arith(self, lw: HostLowerer, op: str, left: Val, right: Val, ty: Ty, node: Node) -> Val:
        out = self._arith(lw, op, left, right, ty, node)
        weak = left.weak if op in ("<<", ">>") else left.weak and right.weak  # (its type is still inferred)
        return Val(out.expr, out.ty, weak=weak) if weak else out

    def _arith(self, lw: HostLowerer, op: str, left: Val, right: Val, ty: Ty, node: Node) -> Val:
        elem = ty.elem
        kind = Kind.CONST if ty.kind is Kind.CONST else Kind.SCALAR
        if elem in FLOAT_TYPES or (elem is None and (isinstance(literal_value(left.expr), float)
                                                     or isinstance(literal_value(right.expr), float))):
            return self._float_arith(lw, op, _f32_literal(left, elem), _f32_literal(right, elem), elem, kind, node)
        if elem == "bool":
            if op not in ("&", "|", "^"):
                raise lw.rejects(node, "E0369", f"no implementation for `bool {op} bool`")
            return Val(ast.BinOp(left=left.expr, op=ARITHMETIC[op](), right=right.expr), Ty(kind, "bool"))
        if not is_int(elem):
            pyop = ast.FloorDiv() if op == "/" else ARITHMETIC[op]()
            return Val(ast.BinOp(left=left.expr, op=pyop, right=right.expr), Ty(kind, elem))
        assert elem is not None
        s = SCALARS[elem]
        if op in ("/", "%"):
            a, b = lw.narrow(left, node), lw.narrow(right, node)
            if s.signed:
                return Val(call(ast.Attribute(lw.helper(elem), "div" if op == "/" else "rem", LOAD), [a.expr, b.expr]),
                           Ty(kind, elem))
            return Val(ast.BinOp(left=a.expr, op=ast.FloorDiv() if op == "/" else ast.Mod(), right=b.expr),
                       Ty(kind, elem))
        if op in ("<<", ">>"):
            amount = lw.narrow(right, node).expr
            lit = literal_value(amount)
            if not (type(lit) is int and 0 <= lit < s.bits):
                amount = ast.BinOp(left=amount, op=ast.BitAnd(), right=const(s.bits - 1))
            if op == ">>":
                base = lw.narrow(left, node)
                return Val(ast.BinOp(left=base.expr, op=ast.RShift(), right=amount), Ty(kind, elem))
            return Val(ast.BinOp(left=left.expr, op=ast.LShift(), right=amount), Ty(kind, elem, wide=True))
        out = ast.BinOp(left=left.expr, op=ARITHMETIC[op](), right=right.expr)
        if op in ("&", "|", "^") and not (left.ty.wide or right.ty.wide):
            return Val(out, Ty(kind, elem))  # (in range already: Python's bit operations are two's complement)
        return Val(out, Ty(kind, elem, wide=kind is not Kind.CONST))

    def _float_arith(self, lw: HostLowerer, op: str, left: Val, right: Val, elem: str | None, kind: Kind,
                     node: Node) -> Val:
        ty = Ty(kind, elem)
        if elem not in ("f32", "f64", None):
            raise lw.err(node, "E0002", f"`{elem}` arithmetic in host code", "compute in `f32` and convert")
        f = elem if elem in ("f32", "f64") else "f64"
        if op in ("&", "|", "^", "<<", ">>"):
            raise lw.rejects(node, "E0369", f"no implementation for `{f} {op} {f}`")
        if op == "%" or (op == "/" and not _nonzero(right.expr)):
            method = "rem" if op == "%" else "div"
            return Val(call(ast.Attribute(lw.helper(f), method, LOAD), [left.expr, right.expr]), ty)
        pyop = ast.Div() if op == "/" else ARITHMETIC[op]()
        out: ast.expr = ast.BinOp(left=left.expr, op=pyop, right=right.expr)
        if f == "f32":
            out = call(lw.helper("f32"), [out])
        return Val(out, ty)

    def negate(self, lw: HostLowerer, v: Val, node: Node) -> Val:
        out = ast.UnaryOp(op=ast.USub(), operand=v.expr)
        return Val(out, Ty(v.ty.kind, v.ty.elem, wide=is_int(v.ty.elem) and v.ty.kind is not Kind.CONST), weak=v.weak)

    def invert(self, lw: HostLowerer, v: Val, node: Node) -> Val:
        if v.ty.elem == "bool" or v.ty.elem is None and v.ty.kind is not Kind.SCALAR:
            return Val(ast.UnaryOp(op=ast.Not(), operand=v.expr), Ty(v.ty.kind, "bool"))
        unsigned = is_int(v.ty.elem) and not SCALARS[v.ty.elem or ""].signed
        return Val(ast.UnaryOp(op=ast.Invert(), operand=v.expr), Ty(v.ty.kind, v.ty.elem, wide=v.ty.wide or unsigned))

    def deref(self, lw: HostLowerer, v: Val, node: Node) -> Val:
        return v  # a dereference: the same value in Python

    def narrow(self, lw: HostLowerer, v: Val, node: Node) -> Val:
        """An integer not yet wrapped (``Ty.wide``), wrapped to its type: ``as_usize(a * b)``."""
        if not v.ty.wide or not is_int(v.ty.elem):
            return v
        return Val(call(lw.helper(f"as_{v.ty.elem}"), [v.expr]), Ty(v.ty.kind, v.ty.elem, v.ty.items))

    def cast(self, lw: HostLowerer, v: Val, target: str, node: Node) -> Val:
        src = v.ty.elem
        kind = Kind.CONST if v.ty.compile_time else Kind.SCALAR
        out = Ty(kind, target)
        if src == "bool":  # (to an integer: typeck.check_cast refuses the rest, as rustc does)
            return Val(call("int", [v.expr]), out)
        if target in FLOAT_TYPES:
            if src in FLOAT_TYPES:
                v = _f32_literal(v, src)  # (`0.1f32 as f64` is the f32 value, widened)
                if target == "f64" or src == "f32":
                    return Val(v.expr, out)
                return Val(call(lw.helper("f32"), [v.expr]), out)
            v = lw.narrow(v, node)
            if target == "f64" and src in INT_TYPES and fits_in(src, "i64") and SCALARS[src].bits <= 32:
                return Val(call("float", [v.expr]), out)
            return Val(call(lw.helper(f"as_{target}"), [v.expr]), out)
        if src in INT_TYPES:
            if v.ty.wide:
                if SCALARS[target].bits <= SCALARS[src].bits:
                    return Val(call(lw.helper(f"as_{target}"), [v.expr]), out)  # wraps it, whatever it held
                v = lw.narrow(v, node)
            if fits_in(src, target):
                return Val(v.expr, out)
            return Val(call(lw.helper(f"as_{target}"), [v.expr]), out)
        if src in FLOAT_TYPES or src is None:
            return Val(call(lw.helper(f"as_{target}"), [v.expr]), out)
        raise lw.rejects(node, "E0605", f"non-primitive cast: `{src}` as `{target}`")

    def cast_to_type(self, lw: HostLowerer, v: Val, type_node: Node, node: Node) -> Val:
        """``p as *mut D`` / ``p as RawPtr``: the same tensor (a byte pointer would change what
        ``.add(n)`` counts, which is not translated)."""
        target = lw.rust_type(type_node)
        if target.kind is Kind.PTR and v.ty.kind in (Kind.PTR, Kind.UNKNOWN):
            pointee = type_node.child_by_field_name("type") if type_node.type == "pointer_type" else None
            if pointee is not None and text(pointee) in ("u8", "i8", "c_void"):
                raise lw.err(node, "E0002", "byte pointer arithmetic", "offset the element pointer instead")
            return Val(v.expr, PTR)
        raise lw.rejects(node, "E0605", f"non-primitive cast: `{text(node.child_by_field_name('value') or node)}` "
                         f"as `{text(type_node)}`")

    def settle(self, lw: HostLowerer, v: Val, ty: Ty | None, node: Node) -> Val:
        if ty is not None and ty.length is not None and v.ty.length is not None and ty.length != v.ty.length:
            raise lw.rejects(node, "E0308", f"mismatched types: expected an array with a size of {ty.length}, found "
                             f"one with a size of {v.ty.length}", None)
        lit = literal_value(v.expr)
        want = ty.elem if ty is not None and ty.kind in (Kind.SCALAR, Kind.CONST) else None
        if v.weak and type(lit) is int:
            elem = want if want in SCALARS else "i32"
            typeck.check_expected(lw, want, v, node, f"write a float literal (`{lit}.0`)")
            with lw.rust_rules(node):
                semantics.check_int_literal(lit, elem)
            return Val(v.expr, Ty(Kind.CONST, elem))
        if v.weak and isinstance(lit, float):
            elem = want if want in FLOAT_TYPES else "f64"
            typeck.check_expected(lw, want, v, node)
            return _f32_literal(Val(v.expr, Ty(Kind.CONST, elem), weak=True), elem) if elem == "f32" else \
                Val(v.expr, Ty(Kind.CONST, elem))
        if want in SCALARS and v.ty.elem in SCALARS and v.ty.elem != want and v.ty.kind in (Kind.SCALAR, Kind.CONST):
            typeck.check_expected(lw, want, v, node, f"convert it: `{text(node)} as {want}`" if node.type != "block"
                                  else "convert it with `as`")
        if want in FLOAT_TYPES and lw.inferred_int(v):  # (`let n = 2;` is an integer: no f32 for it)
            raise lw.rejects(node, "E0308", f"mismatched types: expected `{want}`, found integer", None)
        lw.int_let_met(v, want, node)  # (`let y: i64 = n - 1;`: `n` is an i64)
        if want in INT_TYPES and v.ty.elem is None and v.ty.kind is Kind.SCALAR and isinstance(v.expr, ast.BinOp):
            return Val(call(lw.helper(f"as_{want}"), [v.expr]), Ty(Kind.SCALAR, want))  # (an inferred integer, typed here)
        v = _f32_literal(self.narrow(lw, v, node), v.ty.elem)
        if ty is not None and ty.kind in (Kind.SCALAR, Kind.CONST) and ty.elem in SCALARS and v.ty.elem is None:
            return Val(v.expr, Ty(v.ty.kind, ty.elem))
        return v

    # ------------------------------------------------------------------ names, paths, fields
    def free_name(self, lw: HostLowerer, ident: str, node: Node) -> Val:
        if ident == "None":
            return Val(const(None), container(Kind.OPTION, UNKNOWN))
        if ident in lw.module.consts:
            return host_const(lw, ident, node)
        if ident not in lw.module.imported and not lw.module.foreign_globs and ident not in lw.ctx.functions:
            raise lw.rejects(node, "E0425", f"cannot find value `{ident}` in this scope")
        raise lw.err(node, "E0006", f"cannot find value `{ident}` in this scope",
                     "host code can use its parameters, its `let`s, `self` and the file's `const`s")

    def path_value(self, lw: HostLowerer, head: str, rest: str, node: Node) -> Val:
        if (head, rest) in (("Option", "None"),):
            return Val(const(None), container(Kind.OPTION, UNKNOWN))
        if head in ("Self", "self", "crate", "super") and rest in lw.module.consts:
            return host_const(lw, rest, node)
        if head in SCALARS and "::" not in rest and rest not in (RUST_FLOAT_CONSTS if head in FLOAT_TYPES
                                                                 else RUST_INT_CONSTS):
            raise lw.rejects(node.child_by_field_name("name") or node, "E0599",
                             f"no associated item named `{rest}` found for type `{head}`")
        raise lw.err(node, "E0006", f"unknown path `{text(node)}`",
                     "paths in host code are scalar constants (`usize::MAX`, `f32::EPSILON`), `Option::None` and "
                     "the file's constants")

    def field_value(self, lw: HostLowerer, base: Val, field_node: Node, node: Node) -> Val:
        field = text(field_node)
        kind = base.ty.kind
        if kind is Kind.INPUT and field in ("0", "1"):
            if field == "0":
                return Val(base.expr, PTR)
            return Val(ast.Attribute(value=base.expr, attr="shape", ctx=LOAD), SHAPE)
        if kind is Kind.STRUCT and base.ty.elem == lw.struct:
            fty = lw.fields.get(field)
            if fty is None:
                raise lw.err(node, "E0006", f"no field `{field}` on type `{lw.struct}`",
                             f"`{lw.struct}` has the fields {', '.join(lw.fields) or '(none)'}")
            const_name = lw.module.const_reads.get(lw.struct, {}).get(field)
            if const_name is not None:  # a const generic whose field name the configured kernel has
                return Val(ast.Subscript(value=ast.Attribute(base.expr, "consts", LOAD), slice=ast.Constant(const_name),
                                         ctx=LOAD), fty)
            return Val(ast.Attribute(value=base.expr, attr=lw.module.field_attr(lw.struct, field), ctx=LOAD), fty)
        if kind is Kind.KERNEL:
            consts = lw.module.kernels.get(base.ty.elem or "", {})
            if field in ("source", "kernel_source"):
                return base  # a kernel's source stands for the kernel it compiles to
            if field == "name":
                return Val(ast.Attribute(value=base.expr, attr="name", ctx=LOAD), STR)
            const_name = next((c for c in consts if c.lower() == field), None)
            if const_name is not None:
                if const_name in lw.module.const_reads.get(base.ty.elem or "", {}).values() or \
                        python_name(field) != field:
                    return Val(ast.Subscript(value=ast.Attribute(base.expr, "consts", LOAD),
                                             slice=ast.Constant(const_name), ctx=LOAD), Ty(Kind.SCALAR, consts[const_name]))
                return Val(ast.Attribute(value=base.expr, attr=field, ctx=LOAD), Ty(Kind.SCALAR, consts[const_name]))
            raise lw.err(node, "E0006", f"no field `{field}` on kernel struct `{base.ty.elem}`",
                         "a kernel struct has its const generics (lowercased), `name` and `source`")
        raise lw.err(node, "E0002", f"field `{field}` of a value rs2triton does not know the type of",
                     "host code reads fields of `self`, of kernel structs and of `(pointer, shape)` pairs")


def _nonzero(e: ast.expr) -> bool:
    lit = literal_value(e)
    return lit is not None and lit != 0


def host_const(lw: HostLowerer, ident: str, node: Node) -> Val:
    """A module-level `const` read by host code: a module variable of the generated module, lowered
    (once) by the same rules; a const a kernel uses too is the kernel's ``tl.constexpr``
    (``.value`` here)."""
    module = lw.module
    py = python_name(ident)
    defined = module.const_defs.get(py)
    if defined is not None:
        return Val(name(py), defined[1], known=lw.ctx.known_consts.get(ident))
    if ident in lw.ctx.used_consts:  # the kernel's tl.constexpr
        item = lw.ctx.consts.get(ident)
        ty_node = item.child_by_field_name("type") if item is not None else None
        elem = read_type(ty_node).scalar if ty_node is not None else None
        return Val(ast.Attribute(value=name(py), attr="value", ctx=LOAD), Ty(Kind.CONST, elem),
                   known=lw.ctx.known_consts.get(ident))
    item = module.consts[ident]
    value = item.child_by_field_name("value")
    if value is None:
        raise lw.err(item, "E0002", f"module constant `{ident}` has no value", "give it one: `const NAME: usize = 4;`")
    if ident in module.evaluating:  # rustc's E0391
        raise lw.err(node, "E0002", f"cycle detected when evaluating module constant `{ident}`",
                     "a constant cannot be defined in terms of itself")
    sub = HostLowerer(module, item, "", {})
    sub.in_const_item = True
    declared = sub.rust_type(item.child_by_field_name("type"))
    sub.hint(value, declared)
    module.evaluating.add(ident)
    try:
        v = sub.settle(sub.expr(value), declared, value)
    finally:
        module.evaluating.discard(ident)
    if sub.bodies[0]:
        raise lw.err(item, "E0002", f"module constant `{ident}` needs statements of its own",
                     "host code's constants are expressions")
    ty = Ty(Kind.CONST, declared.elem) if declared.elem in SCALARS else v.ty
    stmt = ast.Assign(targets=[ast.Name(py, ast.Store())], value=v.expr, lineno=item.start_point[0] + 1)
    module.const_defs[py] = (stmt, ty)
    return Val(name(py), ty, known=rustc.const_known(lw, ident, v))

