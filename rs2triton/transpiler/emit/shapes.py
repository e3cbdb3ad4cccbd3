"""The shapes of Python expressions the printer asks about: precedence (as ``ast.unparse``
places parentheses) and which nodes ruff splits where."""

from __future__ import annotations

import ast

from rs2triton.transpiler.emit.literals import constant_text

# ast.unparse's precedence levels (``ast._Precedence``): a node is parenthesised when its
# context asks for more than its own level. BOR shares EXPR's level.
(NAMED_EXPR, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, EXPR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT,
 ATOM) = range(1, 19)
BOR = EXPR

BINARY = {  # operator type: (symbol, precedence)
    ast.Add: ("+", ARITH), ast.Sub: ("-", ARITH), ast.Mult: ("*", TERM), ast.MatMult: ("@", TERM),
    ast.Div: ("/", TERM), ast.Mod: ("%", TERM), ast.FloorDiv: ("//", TERM),
    ast.LShift: ("<<", SHIFT), ast.RShift: (">>", SHIFT),
    ast.BitOr: ("|", BOR), ast.BitXor: ("^", BXOR), ast.BitAnd: ("&", BAND), ast.Pow: ("**", POWER),
}
UNARY = {ast.Invert: ("~", FACTOR), ast.UAdd: ("+", FACTOR), ast.USub: ("-", FACTOR), ast.Not: ("not ", NOT)}
BOOLEAN = {ast.And: (" and ", AND), ast.Or: (" or ", OR)}
COMPARISON = {ast.Eq: " == ", ast.NotEq: " != ", ast.Lt: " < ", ast.LtE: " <= ", ast.Gt: " > ", ast.GtE: " >= ",
              ast.Is: " is ", ast.IsNot: " is not ", ast.In: " in ", ast.NotIn: " not in "}

Name = ast.Name


def elements(node: ast.expr) -> list[tuple[ast.expr, str]]:
    """The items of a tuple, list or dict display, each with what precedes it on its line
    (``"key: "`` in a dict); none for a dict with ``**`` (not split)."""
    if type(node) is ast.Dict:
        if not all(type(k) is ast.Constant for k in node.keys):
            return []  # (the printer writes only dicts of constant keys long)
        return [(v, f"{constant_text(k.value)}: ") for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant)]
    return [(e, "") for e in getattr(node, "elts", [])]


def spaced_slice(texts: list[str]) -> str:
    """ruff's colons in a slice with a computed bound: spaced, with no space on an empty side
    (``a[i + 1 :]``, ``a[: n - 1]``)."""
    out = texts[0]
    for t in texts[1:]:
        out = (out + " :" if out else ":") + (" " + t if t else "")
    return out


# ---------------------------------------------------------------------- shapes and text


def binary_operators(node: ast.BinOp) -> list[int]:
    """The precedence of every binary operator in ``node`` outside parentheses."""
    out = []
    stack: list[tuple[ast.expr, int | None]] = [(node, None)]
    while stack:
        n, prec = stack.pop()
        if type(n) is not ast.BinOp or (prec is not None and wrapped(n, prec)):
            continue
        own = BINARY[type(n.op)][1]
        out.append(own)
        stack.append((n.left, own))
        stack.append((n.right, own + 1))
    return out


def edge_operand(node: ast.BinOp, side: str) -> tuple[ast.expr, int]:
    """The operand at one end of a binary expression outside parentheses, and the precedence
    it is printed at."""
    while True:
        own = BINARY[type(node.op)][1]
        child, prec = (node.left, own) if side == "left" else (node.right, own + 1)
        if type(child) is not ast.BinOp or wrapped(child, prec):
            return child, prec
        node = child


def simple_power_operand(node: ast.expr) -> bool:
    """An operand ruff prints next to ``**`` without spaces: a name, a number, an attribute
    chain of a name (a negated one is printed in parentheses, which ruff keeps spaced)."""
    if type(node) is ast.Constant:
        return type(node.value) in (int, float)
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is Name


def wrapped(node: ast.expr, prec: int) -> bool:
    """Whether ``node`` printed at ``prec`` gets parentheses of its own."""
    if isinstance(node, ast.BinOp):
        return prec > BINARY[type(node.op)][1]
    if isinstance(node, ast.UnaryOp):
        return prec > UNARY[type(node.op)][1]
    if isinstance(node, ast.BoolOp):
        return prec > BOOLEAN[type(node.op)][1]
    if isinstance(node, ast.Compare):
        return prec > CMP
    if isinstance(node, ast.IfExp):
        return prec > TEST
    return False


def simple_callee(node: ast.expr) -> bool:
    """A name or a chain of attributes of a name (``tl.load``): a call ruff splits at its parentheses."""
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is Name


def simple_target(node: ast.expr) -> bool:
    """A name, or several (``a, b = ...``): a target ruff leaves on the first line."""
    if type(node) is ast.Tuple:
        return len(node.elts) > 1 and all(type(e) is Name for e in node.elts)
    return type(node) is Name


def simple_bound(node: ast.expr) -> bool:
    """A slice bound ruff prints without spaces around the colons: a name or a constant, or
    ``-``, ``+`` or ``~`` of one."""
    while type(node) is ast.UnaryOp and type(node.op) is not ast.Not:
        node = node.operand
    return type(node) in (Name, ast.Constant)


