"""Python AST building blocks and the static types lowering attaches to values.

Shared by the lowering pass (``lower.py``) and the op rules (``rules.py``).
"""

from __future__ import annotations

import ast
from typing import NamedTuple

from rs2triton.transpiler.dsl.ops import REQUIRED, Param
from rs2triton.transpiler.record import Record

PY_RESERVED = frozenset(
    """False None True and as assert async await break class continue def del elif else except
    finally for from global if import in is lambda nonlocal not or pass raise return try while with
    yield tl triton libdevice range float int min max len print""".split()
)

# One shared load context for every name and attribute built here (an AST node's `ctx` is
# a marker; nothing mutates it), rather than a new object for each.
LOAD = ast.Load()

class Comment(ast.stmt):
    """A ``# text`` comment among the statements: on a line of its own, or (``trailing``) at
    the end of the line before it. Only the printer reads it (it is no Python statement)."""

    _fields = ("text", "trailing")
    text: str
    trailing: bool


def is_comment_marker(stmt: ast.stmt) -> bool:
    return type(stmt) is Comment


def comment_marker(line: str, trailing: bool = False) -> Comment:
    return Comment(text=line, trailing=trailing)


def without_positions(tree: ast.stmt) -> ast.stmt:
    """``tree`` (parsed from Python, not lowered from Rust) with no source positions, so no
    line of it is taken for a Rust line."""
    for node in ast.walk(tree):
        for attr in node._attributes:
            if hasattr(node, attr):
                delattr(node, attr)
    return tree


def comment_lines(raw: str) -> list[str]:
    """The text lines of a Rust comment (`// x`, `/// x`, `/* x */`), markers stripped."""
    if raw.startswith("///") or raw.startswith("//!"):
        raw = raw[3:]
    elif raw.startswith("//"):
        raw = raw[2:]
    elif raw.startswith("/*"):
        raw = raw[2:-2]
    out = []
    for line in raw.strip("\n").split("\n"):
        line = line.rstrip()
        out.append(line[1:] if line.startswith(" ") else line)
    return out

class _Omit:
    """An argument left out of the generated call (`None`, or a Triton default)."""


OMIT = _Omit()


class Ty(NamedTuple):
    """Static type of a lowered value (an immutable tuple: lowering makes one or more per node).

    ``kind``: ``const`` (known when Triton compiles: literals, const generics),
    ``scalar``/``tensor`` (runtime values), ``ptr`` (a pointer parameter),
    ``ptrs`` (a block of pointers), ``desc``, ``tuple``, ``dtype``, ``none`` or
    ``unknown``. ``elem`` is a Rust element type (``i32``, ``f32``, ``bool``) or
    a dtype parameter's name, or None when unknown. ``wide``: a half-precision value
    (``elem`` f16/bf16 or a dtype parameter) still held in f32 after f32-only math;
    lowering rounds it to ``elem`` where it meets ``elem`` again (see ``FunctionLowerer.narrow``).
    """

    kind: str
    elem: str | None = None
    items: tuple[Ty, ...] = ()
    wide: bool = False

    @property
    def runtime(self) -> bool:
        return self.kind in ("scalar", "tensor", "ptr", "ptrs", "index")


UNKNOWN = Ty("unknown")
NONE_TY = Ty("none")


class BlockPtr(Record):
    """A DSL block pointer, kept apart at translation time (Triton 3.9 has none).

    ``offsets`` are runtime values (variables once the pointer is bound); the rest
    are expressions fixed when the pointer is made. Loads and stores through it
    become pointer arithmetic plus a boundary mask (see ``rules.rule_load_store``).
    """

    __slots__ = _fields = ("base", "shape", "strides", "offsets", "block", "label")

    def __init__(self, base: ast.expr, shape: list[ast.expr], strides: list[ast.expr], offsets: list[ast.expr],
                 block: list[ast.expr], label: str = "block"):
        self.base = base
        self.shape = shape
        self.strides = strides
        self.offsets = offsets
        self.block = block
        self.label = label  # names the index temporaries of loads/stores (`{label}_idx0`)


class Val(Record):
    __slots__ = _fields = ("expr", "ty", "static_choice", "weak", "block_ptr")

    def __init__(self, expr: ast.expr, ty: Ty = UNKNOWN, static_choice: bool = False, weak: bool = False,
                 block_ptr: BlockPtr | None = None):
        self.expr = expr
        self.ty = ty
        self.static_choice = static_choice  # `if CONST { a } else { b }` with a compile-time branch
        self.weak = weak  # an unsuffixed literal (or arithmetic on them): Rust infers its type from the use
        self.block_ptr = block_ptr


def python_name(rust: str) -> str:
    """A Rust identifier as a Python name: `r#type` -> `type_`, `lambda` -> `lambda_`."""
    base = rust.removeprefix("r#")
    return base + "_" if base in PY_RESERVED else base


# The helpers below build nodes with positional fields (`ast.Name(id, ctx)`): lowering makes
# many of them, and keyword construction costs about twice as much.


def name(id_: str) -> ast.Name:
    return ast.Name(id_, LOAD)


def attr_path(dotted: str) -> ast.expr:
    parts = dotted.split(".")
    node: ast.expr = ast.Name(parts[0], LOAD)
    for p in parts[1:]:
        node = ast.Attribute(node, p, LOAD)  # value, attr, ctx
    return node


def const(v) -> ast.expr:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-v))
    return ast.Constant(v)


def float_const(v: float) -> ast.expr:
    """A float constant; an infinity or NaN as ``float("inf")`` (what a Triton programmer writes)."""
    if v != v or v in (float("inf"), float("-inf")):
        return ast.Call(ast.Name("float", LOAD), [ast.Constant(repr(v))], [])
    return const(v)


def call(func: str | ast.expr, args=(), keywords=()) -> ast.Call:
    f = attr_path(func) if isinstance(func, str) else func
    return ast.Call(f, list(args), [ast.keyword(k, v) for k, v in keywords])  # func, args, keywords


def literal_value(e: ast.expr):
    if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = literal_value(e.operand)
        return None if inner is None else -inner
    return None


def f32_round(v: float) -> float:
    """``v`` rounded to the nearest f32 (to nearest even; out of range is an infinity)."""
    import struct

    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def exact_in_f32(e: ast.expr) -> bool:
    """A numeric literal that f32 holds exactly (so rounding it to f32 first changes nothing)."""
    v = literal_value(e)
    if isinstance(v, int):
        return abs(v) <= 2 ** 24
    return isinstance(v, float) and f32_round(v) == v


def shape_form(lst: ast.List, form: str) -> ast.expr:
    if form == "tuple":
        return ast.Tuple(elts=lst.elts, ctx=LOAD)
    if form == "scalar_or_list" and len(lst.elts) == 1:
        return lst.elts[0]
    return lst


def is_default(v: Val, p: Param) -> bool:
    if p.default is REQUIRED:
        return False
    e = v.expr
    if isinstance(e, (ast.List, ast.Tuple)):
        return not e.elts and p.default == ()
    if isinstance(e, ast.Constant):
        return type(e.value) is type(p.default) and e.value == p.default
    return False
