"""The printed module read back: its code must be exactly the code the lowering built.

As black does with its own output, every module is parsed again before anything is written,
and each function and class in it is compared with the tree the lowering built: the same
nodes, the same fields, the same constants. Comments (which the lowering keeps as
:class:`~rs2triton.transpiler.pyast.Comment` statements) are no code and are left out, a
docstring is compared as ``inspect.cleandoc`` reads it (the printer indents its lines), and
a name's load/store context is not compared (the lowering does not always set it). Any other
difference means text of the source became code, or code was lost: the caller refuses the
module.
"""

from __future__ import annotations

import ast
import inspect

from rs2triton.transpiler.pyast import Comment

_SKIP = {"ctx", "type_comment", "kind", "type_params", "lineno", "col_offset", "end_lineno", "end_col_offset"}


def difference(printed: ast.AST, lowered: ast.AST, where: str = "") -> str | None:
    """Where the two trees differ (a path of fields), or None when they hold the same code."""
    if type(printed) is not type(lowered):
        return f"{where}: {type(printed).__name__} printed, {type(lowered).__name__} lowered"
    for field in printed._fields:
        if field in _SKIP:
            continue
        a = getattr(printed, field, None)
        b = getattr(lowered, field, None)
        if isinstance(b, list):
            b = [s for s in b if not isinstance(s, Comment)]
            if field == "body":
                a, b = _docstrings(a), _docstrings(b)
        if isinstance(a, list) or isinstance(b, list):
            a, b = a or [], b or []
            if len(a) != len(b):
                return f"{where}.{field}: {len(a)} printed, {len(b)} lowered"
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                d = _one(x, y, f"{where}.{field}[{i}]")
                if d is not None:
                    return d
            continue
        d = _one(a, b, f"{where}.{field}")
        if d is not None:
            return d
    return None


def _one(a, b, where: str) -> str | None:
    if isinstance(a, ast.AST) and isinstance(b, ast.AST):
        return difference(a, b, where)
    if isinstance(a, ast.AST) or isinstance(b, ast.AST):
        return f"{where}: {a!r} printed, {b!r} lowered"
    if type(a) is not type(b) or a != b and not (a != a and b != b):  # (NaN is NaN)
        return f"{where}: {a!r} printed, {b!r} lowered"
    return None


def _docstrings(body):
    """A body whose first statement is a docstring, that docstring as ``cleandoc`` reads it."""
    if not body or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Constant) \
            or not isinstance(body[0].value.value, str):
        return body
    first = ast.Expr(value=ast.Constant(inspect.cleandoc(body[0].value.value)))
    return [first, *body[1:]]


def check_module(text: str, tree: ast.Module, lowered: list[ast.stmt]) -> str | None:
    """The first difference between each lowered function or class and the printed module's
    definition of that name, or None."""
    printed = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
    for node in lowered:
        name = getattr(node, "name", "")
        found = printed.get(name)
        if found is None:
            return f"`{name}` is not in the printed module"
        d = difference(found, node, name)
        if d is not None:
            return d
    return None
