"""The Python side of the translation: the AST vocabulary lowering builds and the printer prints.

Lowering builds standard :mod:`ast` nodes (so the output always parses) plus one statement of
its own, :class:`Comment`. Every statement lowered from Rust carries its Rust source position
in the standard location fields (``lineno``: the Rust line): the printer turns them into the
generated-line -> Rust-line map. A tree parsed from Python text has positions that are not
Rust's; :func:`without_positions` drops them.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Iterable

PY_RESERVED = frozenset(
    """False None True and as assert async await break class continue def del elif else except
    finally for from global if import in is lambda nonlocal not or pass raise return try while with
    yield tl triton libdevice range float int min max len print""".split()
)

# One shared load context for every name and attribute built here (an AST node's `ctx` is
# a marker; nothing mutates it), rather than a new object for each.
LOAD = ast.Load()
STORE = ast.Store()


class Comment(ast.stmt):
    """A ``# text`` comment among the statements: on a line of its own, or (``trailing``) at
    the end of the line before it. Only the printer reads it (it is no Python statement)."""

    _fields = ("text", "trailing")

    def __init__(self, text: str, trailing: bool = False):
        super().__init__()
        self.text = text
        self.trailing = trailing


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

def python_name(rust: str) -> str:
    """A Rust identifier as a Python name: `r#type` -> `type_`, `lambda` -> `lambda_`.

    Python folds identifiers by NFKC (`𝐱` is `x` to it, `ﬁ` is `fi`, fullwidth `ｔｌ` is `tl`),
    rustc does not: a name NFKC would change has each non-ASCII character written as
    `_u<hex>_` (`𝐱` -> `_u1d431_`), so names distinct in Rust stay distinct in Python.

    A name that begins with two underscores has its first one written so (`__x` -> `_u5f__x`,
    `__init__` -> `_u5f__init__`): Python mangles such a name inside a class body (`self.__x` reads
    `_P__x`) and a `__dunder__` is Python's own (a method `__init__` would be the constructor, a
    module `__getattr__` the module's attribute hook). The result never begins with `__`, so no
    step of a renaming that appends `_` to it can leave it a dunder.
    """
    base = rust.removeprefix("r#")
    if not base.isascii():
        base = unicodedata.normalize("NFC", base)  # (rustc's own normalization of identifiers)
    if not base.isascii() and unicodedata.normalize("NFKC", base) != base:
        base = "".join(c if c.isascii() else f"_u{ord(c):x}_" for c in base)
    if base.startswith("__"):
        base = "_u5f_" + base[1:]
    return base + "_" if base in PY_RESERVED else base


def launcher_name(kernel_name: str) -> str:
    """teenygrad's struct name for a kernel fn: PascalCase (``conv2d_bn_silu`` -> ``Conv2dBnSilu``).

    A raw identifier loses its ``r#``; ``none`` -> ``NoneKernel`` (``None``, ``True`` and ``False``
    are Python keywords, and a kernel fn ``None`` is already ``None_``); ``__`` -> ``Kernel``.
    """
    name = "".join(part[:1].upper() + part[1:] for part in kernel_name.removeprefix("r#").split("_") if part)
    if not name.isascii():  # a name Python would fold together with another (NFKC): see python_name
        name = python_name(name)
    return name + "Kernel" if name in ("None", "True", "False", "") else name


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


def const(v: int | float | bool | str | None) -> ast.expr:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-v))
    return ast.Constant(v)


def float_const(v: float) -> ast.expr:
    """A float constant; an infinity or NaN as ``float("inf")`` (what a Triton programmer writes)."""
    if v != v or v in (float("inf"), float("-inf")):
        return ast.Call(ast.Name("float", LOAD), [ast.Constant(repr(v))], [])
    return const(v)


def call(func: str | ast.expr, args: Iterable[ast.expr] = (),
         keywords: Iterable[tuple[str | None, ast.expr]] = ()) -> ast.Call:
    f = attr_path(func) if isinstance(func, str) else func
    return ast.Call(f, list(args), [ast.keyword(k, v) for k, v in keywords])  # func, args, keywords


def literal_value(e: ast.expr) -> int | float | None:
    if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = literal_value(e.operand)
        return None if inner is None else -inner
    return None
