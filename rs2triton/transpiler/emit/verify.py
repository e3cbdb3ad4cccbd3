"""The printed module read back: its code must be exactly the code the lowering built.

As black does with its own output, every module is parsed again before anything is written,
and each function and class in it is compared with the tree the lowering built: the same
nodes, the same fields, the same constants. Comments (which the lowering keeps as
:class:`~rs2triton.transpiler.pyast.Comment` statements) are no code and are left out, a
docstring is compared as ``inspect.cleandoc`` reads it (the printer indents its lines), and
a name's load/store context is not compared (the lowering does not always set it). Any other
difference means text of the source became code, or code was lost: the caller refuses the
module.

The comparison runs on every module (see ``driver/pipeline.finish``), so it is written to be
cheap: one recursive call per node, the fields to compare looked up once per node type, and
the path to a difference put together only when there is one.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from typing import cast

from rs2triton.transpiler.pyast import Comment

_SKIP = {"ctx", "type_comment", "kind", "type_params", "lineno", "col_offset", "end_lineno", "end_col_offset"}
_AST, _Name = ast.AST, ast.Name

_fields: dict[type[ast.AST], tuple[str, ...]] = {}  # {node type: its fields that hold code}


def _compared(kind: type[ast.AST]) -> tuple[str, ...]:
    found = _fields[kind] = tuple(f for f in kind._fields if f not in _SKIP)
    return found


def difference(printed: ast.AST, lowered: ast.AST, where: str = "") -> str | None:
    """Where the two trees differ (a path of fields), or None when they hold the same code."""
    found = _difference(printed, lowered)
    if found is None:
        return None
    path, message = found
    return f"{where}{''.join(reversed(path))}: {message}"


def _difference(printed: ast.AST, lowered: ast.AST) -> tuple[list[str], str] | None:
    """None, or (the path to the first difference, innermost part first; what differs)."""
    kind = type(printed)
    if kind is not type(lowered):
        return [], f"{kind.__name__} printed, {type(lowered).__name__} lowered"
    fields = _fields.get(kind)
    for field in _compared(kind) if fields is None else fields:
        a = getattr(printed, field, None)
        b = getattr(lowered, field, None)
        if isinstance(b, list):
            for s in b:
                if isinstance(s, Comment):
                    b = [s for s in b if not isinstance(s, Comment)]
                    break
            if field == "body":
                a, b = _docstrings(a), _docstrings(b)
        elif not isinstance(a, list):
            found = _value(a, b)
            if found is not None:
                found[0].append(f".{field}")
                return found
            continue
        a, b = a or [], b or []
        if len(a) != len(b):
            return [f".{field}"], f"{len(a)} printed, {len(b)} lowered"
        for i, x in enumerate(a):
            found = _value(x, b[i])
            if found is not None:
                found[0].append(f".{field}[{i}]")
                return found
    return None


def _value(a: object, b: object) -> tuple[list[str], str] | None:
    """The difference between two values of a field: nodes compared as above, anything else the
    same when of one type and equal (NaN is NaN). (Names, a fifth of all nodes, are compared here.)"""
    kind = type(a)
    if kind is type(b):
        if kind is _Name:
            if cast(ast.Name, a).id == cast(ast.Name, b).id:
                return None
        elif isinstance(a, _AST):
            return _difference(a, cast(ast.AST, b))  # (b is of a's type)
        elif a == b or a != a and b != b:
            return None
    if isinstance(a, _AST) and isinstance(b, _AST):
        return _difference(a, b)
    return [], f"{a!r} printed, {b!r} lowered"


def _docstrings(body: Sequence[ast.stmt] | None) -> Sequence[ast.stmt] | None:
    """A body whose first statement is a docstring, that docstring as ``cleandoc`` reads it."""
    if not body or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Constant) \
            or not isinstance(body[0].value.value, str):
        return body
    first = ast.Expr(value=ast.Constant(_cleandoc(body[0].value.value)))
    return [first, *body[1:]]


def _cleandoc(doc: str) -> str:
    """``inspect.cleandoc`` with a tab kept as text: it would expand one to the next multiple of 8
    columns, which the printer's indentation moves (a tab in a docstring, from a doc comment or a
    source path, read back otherwise than lowered: an internal error)."""
    if "\t" not in doc:
        return inspect.cleandoc(doc)
    stand_in = next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in doc)  # (private use: no whitespace)
    return inspect.cleandoc(doc.replace("\t", stand_in)).replace(stand_in, "\t")


def check_module(tree: ast.Module, lowered: list[ast.stmt]) -> str | None:
    """The first difference between the lowered functions and classes and the printed module's
    (``tree``: the module's text parsed again), or None. The module defines them in the order
    given, and no other function or class."""
    printed = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    for i, node in enumerate(lowered):
        name = getattr(node, "name", "")
        if i >= len(printed):
            return f"`{name}` is not in the printed module"
        d = difference(printed[i], node, name)
        if d is not None:
            return d
    if len(printed) > len(lowered):
        return f"the printed module defines `{printed[len(lowered)].name}`, which was not lowered"
    return None
