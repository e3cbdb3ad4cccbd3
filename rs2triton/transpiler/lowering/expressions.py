"""Expressions both targets lower alike: literals, names, paths (DSL enums, scalar constants,
``D::ZERO``), operators, casts, tuples and tuple fields (a target's own are its rules:
:mod:`.kernel.expressions`, :mod:`.host.expressions`; calls are :mod:`.kernel.calls`,
:mod:`.host.calls`)."""

from __future__ import annotations

import ast
import re

from tree_sitter import Node

from rs2triton.diagnostics import TranspileError
from rs2triton.rust import semantics
from rs2triton.rust.types import (
    FLOAT_CONSTANTS,
    FLOAT_INT_CONSTANTS,
    FLOAT_TYPES,
    INT_BITS,
    SCALARS,
    float_limit,
)
from rs2triton.transpiler.dsl.ops import ENUMS
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.lowerer import Lowerer, unparen
from rs2triton.transpiler.lowering.operators import binop, cast_value, unary
from rs2triton.transpiler.lowering.registry import expression
from rs2triton.transpiler.lowering.values import NONE_TY, UNKNOWN, Kind, Ty, Val
from rs2triton.transpiler.pyast import LOAD, const, float_const, name

_RAW = re.compile(r"(?<![A-Za-z0-9_])r#")


@expression("parenthesized_expression")
def parenthesized(lw: Lowerer, node: Node) -> Val:
    return lw.expr(named_children(node)[0])


# ------------------------------------------------------------------------ literals


@expression("integer_literal")
def integer_literal(lw: Lowerer, node: Node, negated: bool = False) -> Val:
    parsed = semantics.parse_int_literal(text(node))
    if parsed is None:
        raise lw.err(node, "E0002", f"unsupported integer literal `{text(node)}`")
    value, suffix = parsed
    if suffix in ("f32", "f64"):
        return Val(const(-float(value) if negated else float(value)), Ty(Kind.CONST, suffix))
    typed = suffix or lw.literal_type(node.parent or node if negated else node)
    if negated and typed in INT_BITS and not INT_BITS[typed][1]:  # `-1u32`, `let x: u8 = -5;`
        raise lw.err(node.parent or node, "E0014", f"cannot apply unary operator `-` to type `{typed}` (rustc's E0600)",
                     "unsigned values cannot be negated; use a signed type")
    with lw.rust_rules(node):
        semantics.check_literal_size(value)
        semantics.check_int_literal(value, suffix, negated)
        up = node.parent
        while up is not None and up.type == "parenthesized_expression":
            up = up.parent
        negated_later = not negated and up is not None and up.type == "unary_expression" and text(up.children[0]) == "-"
        if suffix is None and not negated_later:  # typed by a `let` annotation, if one reaches it
            semantics.check_int_literal(value, lw.literal_type(node.parent or node if negated else node), negated)
    return Val(const(-value if negated else value), Ty(Kind.CONST, suffix or "i32"), weak=suffix is None)


@expression("float_literal")
def float_literal(lw: Lowerer, node: Node) -> Val:
    raw = text(node).replace("_", "")
    suffix = None
    for s in ("f32", "f64", "f16"):
        if raw.endswith(s):
            raw, suffix = raw[: -len(s)], s
    try:
        value = float(raw)
    except ValueError:  # `3.0f30`: rustc's "invalid suffix for float literal"
        m = re.search(r"[a-zA-Z_][a-zA-Z0-9_]*$", raw)
        what = f"invalid suffix `{m.group()}` for float literal" if m else f"invalid float literal `{text(node)}`"
        raise lw.err(node, "E0001", what, "valid suffixes are `f32` and `f64`") from None
    context = lw.literal_type(node) if suffix is None else None
    with lw.rust_rules(node):  # (an unsuffixed float literal is an f64 unless something types it)
        semantics.check_float_literal(value, suffix or (context if context in ("f32", "f64") else "f64"))
    return Val(ast.Constant(value), Ty(Kind.CONST, suffix or "f32"), weak=suffix is None)


@expression("boolean_literal")
def boolean_literal(lw: Lowerer, node: Node) -> Val:
    return Val(ast.Constant(text(node) == "true"), Ty(Kind.CONST, "bool"))


@expression("string_literal")
def string_literal(lw: Lowerer, node: Node) -> Val:
    raw = text(node)
    if raw.startswith(("b\"", "br")) and not raw.isascii():  # a byte string holds ASCII only
        offset = next(i for i, c in enumerate(raw) if not c.isascii())
        d = lw.smap.diag(node, "E0001", "non-ASCII character in byte string literal", "write it as `\\xNN` escapes")
        d.col += offset
        raise TranspileError([d])
    try:
        value = rust_string(text(node))
    except ValueError as e:
        hint = "Rust escapes are \\n \\r \\t \\\\ \\0 \\' \\\" \\x00-\\x7F and \\u{...}"
        err = lw.err(node, "E0001", f"invalid string literal: {e}", hint)
        bad = next((c for c in node.named_children if c.type == "escape_sequence" and not _valid_escape(text(c))), None)
        if bad is not None and not getattr(lw, "anchor", None):  # at the escape, as rustc points (the letter of `\q`)
            d = lw.smap.diag(bad, "E0001", f"invalid string literal: {e}", hint)
            if str(e).startswith("unknown character escape"):
                d.col += 1
            err = TranspileError([d])
        raise err from None
    return Val(ast.Constant(value), Ty(Kind.STR))


def _valid_escape(escape: str) -> bool:
    try:
        rust_string('"' + escape + '"')
    except ValueError:
        return False
    return True


@expression("raw_string_literal")
def raw_string_literal(lw: Lowerer, node: Node) -> Val:
    raw = text(node)
    return Val(ast.Constant(raw[raw.index('"') + 1: raw.rindex('"')]), Ty(Kind.STR))


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "0": "\0", "'": "'", '"': '"'}
_ESCAPE = re.compile(r"\\(?:x(?P<x>[0-9a-fA-F]{2})|u\{(?P<u>[0-9a-fA-F_]{1,8})\}|\r?\n[ \t\r\n]*|(?P<c>.?))", re.S)


def rust_string(literal: str) -> str:
    """The value of a Rust string literal (`"a\\tb\\u{e9}"`), by Rust's escape rules.

    Raises ValueError for what rustc rejects: an unknown escape, `\\x` above 0x7F, a `\\u{..}`
    that is not a Unicode scalar value.
    """
    def unescape(m: re.Match[str]) -> str:
        if m.group("x") is not None:
            code = int(m.group("x"), 16)
            if code > 0x7F:
                raise ValueError(f"`\\x{m.group('x')}` is out of range (at most `\\x7F` in a string)")
            return chr(code)
        if m.group("u") is not None:
            code = int(m.group("u").replace("_", ""), 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError(f"`\\u{{{m.group('u')}}}` is not a Unicode scalar value")
            return chr(code)
        c = m.group("c")
        if c is None:  # `\` at the end of a line: the line break and the next line's indent vanish
            return ""
        if c not in _ESCAPES:
            raise ValueError(f"unknown character escape `\\{c}`")
        return _ESCAPES[c]

    return _ESCAPE.sub(unescape, literal[literal.index('"') + 1:literal.rindex('"')])


# ------------------------------------------------------------------------ names and paths


@expression("identifier")
def identifier(lw: Lowerer, node: Node) -> Val:
    ident = text(node)
    b = lw.names.lookup(ident)
    if b is not None:
        if b.expr is not None:  # a name that stands for an expression (`s` of `|(_, s)|`: `t.shape`)
            return Val(b.expr, b.ty)
        if lw.tile_moves and id(b) in lw.tile_moves:
            rustc.tile_use(lw, b, node)  # (a Tile, a host Vec: not after it was moved)
        return Val(name(b.py), b.ty, block_ptr=lw.block_ptrs.get(b.py), tile=lw.tiles.get(b.py), known=b.known)
    return lw.build.free_name(lw, ident, node)


@expression("scoped_identifier")
def scoped_identifier(lw: Lowerer, node: Node) -> Val:
    """A path: a DSL enum variant, a scalar type's constant (``f32::MAX``, ``i32::MIN``,
    ``u64::BITS``, ``f32::consts::PI``), or what the target knows (a dtype's ``D::ZERO``, a
    module constant, ``Self::N``)."""
    path = _RAW.sub("", text(node).replace(" ", ""))  # (`Self::r#N` is `Self::N` to rustc)
    for prefix in ("std::", "core::"):
        path = path.removeprefix(prefix)
    head, _, rest = path.partition("::")
    if head in ENUMS:
        if rest not in ENUMS[head]:
            raise lw.err(node, "E0006", f"`{path}` is not a variant of `{head}`",
                         "variants: " + ", ".join(f"{head}::{k}" for k in ENUMS[head]))
        value = ENUMS[head][rest]
        if value is None:
            known = ", ".join(f"{head}::{k}" for k, v in ENUMS[head].items() if v is not None)
            raise lw.err(node, "E0008", f"`{path}` has no Triton equivalent", f"Triton takes {known}")
        return Val(ast.Constant(value), Ty(Kind.ENUM))
    if head in FLOAT_TYPES and rest in FLOAT_CONSTANTS:
        return Val(float_const(FLOAT_CONSTANTS[rest]), Ty(Kind.CONST, head))
    limit = float_limit(head, rest)
    if limit is not None:
        return Val(float_const(limit), Ty(Kind.CONST, head))
    if head in INT_BITS and rest in ("MAX", "MIN"):
        lo, hi = semantics.int_limits(head)
        return Val(const(hi if rest == "MAX" else lo), Ty(Kind.CONST, head))
    if head in INT_BITS and rest == "BITS":
        return Val(const(INT_BITS[head][0]), Ty(Kind.CONST, "u32"))
    if rest in FLOAT_INT_CONSTANTS.get(head, {}):
        elem, n = FLOAT_INT_CONSTANTS[head][rest]
        return Val(const(n), Ty(Kind.CONST, elem))
    return lw.build.path_value(lw, head, rest, node)


# ------------------------------------------------------------------------ operators


@expression("unary_expression")
def unary_expression(lw: Lowerer, node: Node) -> Val:
    op = text(node.children[0])
    operand = named_children(node)[0]
    if op == "-" and operand.type == "integer_literal":
        return integer_literal(lw, operand, negated=True)  # `-128i8` is in range
    v = lw.expr(operand)
    typeck.check_unary(lw, op, v, node)
    return unary(lw, op, v, node)


@expression("binary_expression")
def binary_expression(lw: Lowerer, node: Node) -> Val:
    left = lw.expr(part(node, "left"))
    op = text(part(node, "operator"))
    right = lw.branch_value(part(node, "right"), f"the right of `{op}`") if op in ("&&", "||") \
        else lw.expr(part(node, "right"))
    types = typeck.check_operands(lw, op, left, right, node)
    return typeck.typed(lw, op, types, binop(lw, op, left, right, node))


@expression("type_cast_expression")
def type_cast(lw: Lowerer, node: Node) -> Val:
    target = text(part(node, "type"))
    value = unparen(part(node, "value"))
    if target in INT_BITS and not INT_BITS[target][1] and typeck.negated_literal(value):
        # `-1 as u32`: the cast types the unsuffixed literal, which is then negated
        raise lw.rejects(value, "E0600", f"cannot apply unary operator `-` to type `{target}`",
                         f"unsigned values cannot be negated; `{target}::MAX` is the maximum value")
    v = lw.expr(part(node, "value"))
    if target not in SCALARS:
        return lw.build.cast_to_type(lw, v, part(node, "type"), node)
    typeck.check_cast(lw, v, target, node)
    return typeck.cast(lw, cast_value(lw, v, target, node), target)


# ------------------------------------------------------------------------ compound values


@expression("tuple_expression")
def tuple_expression(lw: Lowerer, node: Node) -> Val:
    vals = [lw.narrow(lw.expr(c), c) for c in named_children(node)]
    return Val(ast.Tuple(elts=[v.expr for v in vals], ctx=LOAD), Ty(Kind.TUPLE, None, tuple(v.ty for v in vals)))


@expression("field_expression")
def field_expression(lw: Lowerer, node: Node) -> Val:
    """A Tile's ``.tensor``/``.mask``, a tuple's ``.0``; the rest is the target's (``self.n``)."""
    field_node = part(node, "field")
    base = lw.expr(part(node, "value"))
    if base.tile is not None:
        field = text(field_node)
        if field == "tensor":
            return base.tile.tensor
        if field == "mask":  # an Option: `None` where the tile has no mask (see calls.arg)
            return base.tile.mask if base.tile.mask is not None else Val(ast.Constant(None), NONE_TY)
        raise lw.err(field_node, "E0006", f"no field `{field}` on type `Tile`", "a Tile has `tensor` and `mask`")
    if field_node.type == "integer_literal" and base.ty.kind is not Kind.INPUT:
        digits = text(field_node)
        if not (digits.isascii() and digits.isdigit()):  # `t.0f32`, `1\n.0f32` (rustc: a syntax error)
            plain = digits[:len(digits) - len(digits.lstrip("0123456789"))]
            raise lw.err(field_node, "E0001", "suffixes on a tuple index are invalid" if plain else "invalid tuple index",
                         f"a tuple's fields are `.0`, `.1`, ...{f': write `.{int(plain)}`' if plain else ''}")
        i = int(digits)
        if base.ty.kind is Kind.TUPLE and base.ty.items and i >= len(base.ty.items):
            raise lw.err(field_node, "E0014", f"no field `{i}` on a tuple of {len(base.ty.items)} (rustc's E0609)",
                         f"its fields are .0 to .{len(base.ty.items) - 1}")
        ty = base.ty.items[i] if base.ty.kind is Kind.TUPLE and i < len(base.ty.items) else UNKNOWN
        return Val(ast.Subscript(value=base.expr, slice=ast.Constant(i), ctx=LOAD), ty)
    return lw.build.field_value(lw, base, field_node, node)


