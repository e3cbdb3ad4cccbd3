"""Printing the lowering's Python AST as text: what ``ast.unparse`` prints, only faster.

``ast.unparse`` is a general printer (a visitor, context managers, a list of fragments)
and printing was a large share of a cold transpile. This one knows the node types the
lowering builds (see :data:`STATEMENTS` and :data:`EXPRESSIONS`), one small function
each, and prints them exactly as ``ast.unparse`` does: the same precedence rules and
parentheses, the same constants (``1e-05``, ``1e309`` for an infinity), the same
docstrings. It also prints the comment markers of ``pyast.comment_marker`` as comments
as it goes (see :meth:`Printer.expression_statement`).

Any node it does not know raises :class:`Unhandled`, and the caller prints that tree
with the reference printer instead (``render.unparse_reference``: ``ast.unparse`` plus
text passes), so an unknown node is printed slowly, never wrongly. The tests hold the
two to the same bytes on every kernel the suite knows and on random trees. Differences
by design: the reference finds markers in the printed text, so marker-shaped text inside
a docstring would become a comment there (here only marker statements do); and this
printer follows Python 3.11's ``ast.unparse`` on every Python, where 3.10's wrote tuple
targets in parentheses (``(a, b) = f()``), so the output no longer depends on the version.
"""

from __future__ import annotations

import ast

from .pyast import COMMENT_CALL, TRAILING_CALL

# ast.unparse's precedence levels (``ast._Precedence``): a node is parenthesised when its
# context asks for more than its own level. BOR shares EXPR's level.
(NAMED_EXPR, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, EXPR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT,
 ATOM) = range(1, 19)
BOR = EXPR

BINARY = {  # operator type: (symbol, precedence)
    ast.Add: ("+", ARITH), ast.Sub: ("-", ARITH), ast.Mult: ("*", TERM), ast.MatMult: ("@", TERM),
    ast.Div: ("/", TERM), ast.Mod: ("%", TERM), ast.FloorDiv: ("//", TERM), ast.Pow: ("**", POWER),
    ast.LShift: ("<<", SHIFT), ast.RShift: (">>", SHIFT),
    ast.BitOr: ("|", BOR), ast.BitXor: ("^", BXOR), ast.BitAnd: ("&", BAND),
}
UNARY = {ast.Invert: ("~", FACTOR), ast.UAdd: ("+", FACTOR), ast.USub: ("-", FACTOR), ast.Not: ("not ", NOT)}
BOOLEAN = {ast.And: (" and ", AND), ast.Or: (" or ", OR)}
COMPARISON = {
    ast.Eq: " == ", ast.NotEq: " != ", ast.Lt: " < ", ast.LtE: " <= ", ast.Gt: " > ", ast.GtE: " >= ",
    ast.Is: " is ", ast.IsNot: " is not ", ast.In: " in ", ast.NotIn: " not in ",
}

Name = ast.Name  # looked up for every expression printed

INDENT = "    "
LINE_LENGTH = 88  # ruff format's default, which lays the module out
INFINITY = "1e309"  # what ast.unparse prints for a float infinity: 1e(max_10_exp + 1)


class Unhandled(Exception):
    """A node this printer does not know; the tree goes to the reference printer."""


class Dispatch(dict):
    """{node type: printer function}; a type not in it raises :class:`Unhandled`."""

    def __missing__(self, key):
        raise Unhandled(key.__name__)


def comment(text: str) -> str:
    """``text`` as a ``#`` comment (no trailing blanks)."""
    return f"# {text}".rstrip() if text else "#"


def docstring_literal(text: str) -> str:
    """The string literal ``ast.unparse`` writes for a docstring: triple quotes, raw
    newlines and tabs, other unprintable characters and backslashes escaped."""
    if "\\" not in text and text.replace("\n", "").replace("\t", "").isprintable():
        escaped = text  # the usual case, without a look at each character
    else:
        escaped = "".join(c if c in "\n\t" or (c != "\\" and c.isprintable())
                          else c.encode("unicode_escape").decode("ascii") for c in text)
    quotes = [q for q in ('"""', "'''") if q not in escaped]
    if not quotes:  # both triple quotes occur: repr's escapes, in its own quotes
        literal = repr(text)
        quote = '"""' if literal[0] == '"' else "'''"
        return quote + literal[1:-1] + quote
    if escaped:
        quotes.sort(key=lambda q: q[0] == escaped[-1])  # prefer a quote the text does not end with
        if quotes[0][0] == escaped[-1]:
            escaped = escaped[:-1] + "\\" + escaped[-1]
    return quotes[0] + escaped + quotes[0]


def constant_repr(value) -> str:
    """A constant as ``ast.unparse`` writes it: ``repr``, with infinities as ``1e309`` and
    NaN as ``(1e309-1e309)`` (for floats and complex numbers)."""
    text = repr(value)
    if isinstance(value, (float, complex)) and "n" in text:
        text = text.replace("inf", INFINITY).replace("nan", f"({INFINITY}-{INFINITY})")
    return text


def comment_marker_text(node: ast.expr) -> tuple[str, str] | None:
    """(marker name, comment text) for a ``pyast.comment_marker`` call, else None."""
    if type(node) is not ast.Call or type(node.func) is not ast.Name or node.keywords or len(node.args) != 1:
        return None
    arg = node.args[0]
    if node.func.id not in (COMMENT_CALL, TRAILING_CALL) or type(arg) is not ast.Constant or type(arg.value) is not str:
        return None
    return node.func.id, arg.value


class Printer:
    """Prints one tree into ``lines`` (the physical lines of the text).

    Precedence: an expression function gets ``prec``, the precedence its context asks for,
    or None where ``ast.unparse`` sets none (call arguments, assigned values, list items...).
    There ``ast.unparse`` uses the level last set for that very node object during this
    print (a node the lowering placed in two spots keeps what the first spot set), or TEST.
    ``levels`` keeps those, for the node types that read a precedence.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.levels: dict[ast.AST, int] = {}

    # ------------------------------------------------------------------ statements

    def statement(self, node: ast.stmt, indent: str) -> None:
        STATEMENTS[type(node)](self, node, indent)

    def block(self, body: list[ast.stmt], indent: str) -> None:
        for stmt in body:
            STATEMENTS[type(stmt)](self, stmt, indent)

    def function_def(self, node: ast.FunctionDef, indent: str, commented_signature: bool = False) -> None:
        if getattr(node, "type_params", None):  # `def f[T]()` (Python 3.12+)
            raise Unhandled("type parameters")
        if self.lines:
            self.lines.append("")  # a nested definition gets a blank line first
        for deco in node.decorator_list:
            self.lines.append(f"{indent}@{self.expr(deco)}")
        header = f"{indent}def {node.name}({self.arguments(node.args)})"
        if node.returns:
            header += " -> " + self.expr(node.returns)
        header += ":" + self.type_comment(node)
        if commented_signature and not node.returns and not node.type_comment:
            self.lines.extend(signature_with_comments(node))
        else:
            self.lines.append(header)
        self.docstring_and_block(node.body, indent + INDENT)

    def docstring_and_block(self, body: list[ast.stmt], indent: str) -> None:
        first = body[0] if body else None
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            prefix = "u" if first.value.kind == "u" else ""
            self.lines.extend(f"{indent}{prefix}{docstring_literal(first.value.value)}".split("\n"))
            body = body[1:]
        self.block(body, indent)

    def expression_statement(self, node: ast.Expr, indent: str) -> None:
        """An expression; a comment marker becomes its comment: on a line of its own, or
        (a trailing marker) at the end of the line before it, or just above that line
        when it would grow longer than LINE_LENGTH."""
        marker = comment_marker_text(node.value)
        if marker is None or (marker[0] == TRAILING_CALL and not self.lines):
            self.lines.append(indent + self.expr(node.value, YIELD))
        elif marker[0] == COMMENT_CALL:
            self.lines.append(indent + comment(marker[1]))
        else:
            note, prev = comment(marker[1]), self.lines[-1]
            if len(prev) + 2 + len(note) <= LINE_LENGTH:
                self.lines[-1] = f"{prev}  {note}"
            else:
                self.lines.insert(len(self.lines) - 1, prev[: len(prev) - len(prev.lstrip())] + note)

    def assign(self, node: ast.Assign, indent: str) -> None:
        targets = "".join([(t.id if type(t) is Name else self.expr(t, TUPLE)) + " = " for t in node.targets])
        self.lines.append(indent + targets + self.expr(node.value) + self.type_comment(node))

    def aug_assign(self, node: ast.AugAssign, indent: str) -> None:
        target = self.expr(node.target)
        self.lines.append(f"{indent}{target} {BINARY[type(node.op)][0]}= {self.expr(node.value)}")

    def ann_assign(self, node: ast.AnnAssign, indent: str) -> None:
        target = self.expr(node.target)
        if not node.simple and isinstance(node.target, ast.Name):
            target = f"({target})"
        line = f"{indent}{target}: {self.expr(node.annotation)}"
        if node.value:
            line += " = " + self.expr(node.value)
        self.lines.append(line)

    def return_(self, node: ast.Return, indent: str) -> None:
        self.lines.append(f"{indent}return {self.expr(node.value)}" if node.value else indent + "return")

    def keyword_statement(self, node: ast.stmt, indent: str) -> None:
        self.lines.append(indent + type(node).__name__.lower())  # pass, break, continue

    def if_(self, node: ast.If, indent: str) -> None:
        self.lines.append(f"{indent}if {self.expr(node.test)}:")
        self.block(node.body, indent + INDENT)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):  # else: if -> elif
            node = node.orelse[0]
            self.lines.append(f"{indent}elif {self.expr(node.test)}:")
            self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def for_(self, node: ast.For, indent: str) -> None:
        target = self.expr(node.target, TUPLE)
        self.lines.append(f"{indent}for {target} in {self.expr(node.iter)}:{self.type_comment(node)}")
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def while_(self, node: ast.While, indent: str) -> None:
        self.lines.append(f"{indent}while {self.expr(node.test)}:")
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def else_block(self, orelse: list[ast.stmt], indent: str) -> None:
        if orelse:
            self.lines.append(indent + "else:")
            self.block(orelse, indent + INDENT)

    @staticmethod
    def type_comment(node: ast.stmt) -> str:
        return f" # type: {node.type_comment}" if node.type_comment else ""

    def arguments(self, node: ast.arguments) -> str:
        if node.vararg or node.kwonlyargs or node.kwarg:
            raise Unhandled("arguments with *args, keyword-only arguments or **kwargs")
        every = node.posonlyargs + node.args
        defaults = [None] * (len(every) - len(node.defaults)) + node.defaults
        parts = []
        for index, (a, default) in enumerate(zip(every, defaults, strict=True), 1):
            text = self.arg(a)
            if default:
                text += "=" + self.expr(default)
            if index == len(node.posonlyargs):
                text += ", /"
            parts.append(text)
        return ", ".join(parts)

    def arg(self, node: ast.arg) -> str:
        return f"{node.arg}: {self.expr(node.annotation)}" if node.annotation else node.arg

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.expr, prec: int | None = None) -> str:
        """``node`` as text, in a context asking for precedence ``prec`` (see the class)."""
        if type(node) is Name:  # most nodes are names: no dispatch for them
            return node.id
        return EXPRESSIONS[type(node)](self, node, prec)

    def level(self, node: ast.expr, prec: int | None) -> int:
        """The precedence ``node`` is printed at, remembered as ast.unparse does."""
        if prec is None:
            return self.levels.get(node, TEST)
        self.levels[node] = prec
        return prec

    def set_levels(self, prec: int, nodes) -> None:
        """Set several operands' level before printing any (as ast.unparse does for a
        comparison's operands and a conditional's body and test)."""
        for n in nodes:
            self.levels[n] = prec

    def items(self, elts: list[ast.expr]) -> str:
        """Comma-separated, with a trailing comma after a single item (a tuple's items)."""
        if len(elts) == 1:
            return self.expr(elts[0]) + ","
        return ", ".join([self.expr(e) for e in elts])

    def constant(self, node: ast.Constant, prec: int | None) -> str:
        value = node.value
        if isinstance(value, tuple):
            return "(" + (constant_repr(value[0]) + "," if len(value) == 1
                          else ", ".join(map(constant_repr, value))) + ")"
        if value is ...:
            return "..."
        return ("u" if node.kind == "u" else "") + constant_repr(value)

    def attribute(self, node: ast.Attribute, prec: int | None) -> str:
        value = node.value
        if type(value) is Name:  # `tl.x`, the usual case, without a call
            return f"{value.id}.{node.attr}"
        text = self.expr(value, ATOM)
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            text += " "  # `1 .real`: `1.real` would read as a float
        return f"{text}.{node.attr}"

    def call(self, node: ast.Call, prec: int | None) -> str:
        func = self.expr(node.func, ATOM)
        parts = [a.id if type(a) is Name else self.expr(a) for a in node.args]  # names without a call
        for k in node.keywords:
            value = k.value.id if type(k.value) is Name else self.expr(k.value)
            parts.append(f"{k.arg}={value}" if k.arg is not None else "**" + value)
        return f"{func}({', '.join(parts)})"

    def subscript(self, node: ast.Subscript, prec: int | None) -> str:
        value = self.expr(node.value, ATOM)
        index = node.slice
        if isinstance(index, ast.Tuple) and index.elts:  # a[i, j]: the tuple without parentheses
            return f"{value}[{self.items(index.elts)}]"
        return f"{value}[{self.expr(index)}]"

    def slice_(self, node: ast.Slice, prec: int | None) -> str:
        text = self.expr(node.lower) if node.lower else ""
        text += ":"
        if node.upper:
            text += self.expr(node.upper)
        if node.step:
            text += ":" + self.expr(node.step)
        return text

    def tuple_(self, node: ast.Tuple, prec: int | None) -> str:
        prec = self.level(node, prec)
        text = self.items(node.elts)
        return f"({text})" if not node.elts or prec > TUPLE else text

    def list_(self, node: ast.List, prec: int | None) -> str:
        return "[" + ", ".join([self.expr(e) for e in node.elts]) + "]"

    def binary(self, node: ast.BinOp, prec: int | None) -> str:
        prec = self.level(node, prec)
        symbol, own = BINARY[type(node.op)]
        if own == POWER:  # right-associative: `a ** b ** c` is `a ** (b ** c)`
            left, right = own + 1, own
        else:
            left, right = own, own + 1
        a, b = node.left, node.right
        text = f"{a.id if type(a) is Name else self.expr(a, left)} {symbol} "
        text += b.id if type(b) is Name else self.expr(b, right)
        return f"({text})" if prec > own else text

    def unary(self, node: ast.UnaryOp, prec: int | None) -> str:
        prec = self.level(node, prec)
        symbol, own = UNARY[type(node.op)]
        text = symbol + self.expr(node.operand, own)
        return f"({text})" if prec > own else text

    def boolean(self, node: ast.BoolOp, prec: int | None) -> str:
        """``a and b``: ast.unparse asks each operand for one level more than the one before."""
        prec = self.level(node, prec)
        symbol, own = BOOLEAN[type(node.op)]
        text = symbol.join([self.expr(v, min(own + 1 + i, ATOM)) for i, v in enumerate(node.values)])
        return f"({text})" if prec > own else text

    def compare(self, node: ast.Compare, prec: int | None) -> str:
        prec = self.level(node, prec)
        self.set_levels(CMP + 1, [node.left, *node.comparators])
        text = self.expr(node.left)
        for op, right in zip(node.ops, node.comparators, strict=False):
            text += COMPARISON[type(op)] + self.expr(right)
        return f"({text})" if prec > CMP else text

    def conditional(self, node: ast.IfExp, prec: int | None) -> str:
        prec = self.level(node, prec)
        self.set_levels(TEST + 1, [node.body, node.test])
        text = f"{self.expr(node.body)} if "
        text += f"{self.expr(node.test)} else "
        text += self.expr(node.orelse, TEST)
        return f"({text})" if prec > TEST else text


def signature_with_comments(fn: ast.FunctionDef) -> list[str]:
    """``def f(`` then one parameter a line with the comments its Rust parameter had
    (``arg.rs_comments``: the lines above it, and the one ending its line), then ``):``."""
    lines = [f"def {fn.name}("]
    for a in fn.args.args:
        above, after = getattr(a, "rs_comments", None) or ([], None)
        lines += [f"{INDENT}{comment(c)}" for c in above]
        lines.append(f"{INDENT}{Printer().arg(a)},{'  ' + comment(after) if after is not None else ''}")
    lines.append("):")
    return lines


STATEMENTS = Dispatch({
    ast.FunctionDef: Printer.function_def, ast.Expr: Printer.expression_statement, ast.Assign: Printer.assign,
    ast.AugAssign: Printer.aug_assign, ast.AnnAssign: Printer.ann_assign, ast.Return: Printer.return_,
    ast.Pass: Printer.keyword_statement, ast.Break: Printer.keyword_statement,
    ast.Continue: Printer.keyword_statement, ast.If: Printer.if_, ast.For: Printer.for_, ast.While: Printer.while_,
})
EXPRESSIONS = Dispatch({
    ast.Constant: Printer.constant, ast.Attribute: Printer.attribute, ast.Call: Printer.call,
    ast.Subscript: Printer.subscript, ast.Slice: Printer.slice_, ast.Tuple: Printer.tuple_, ast.List: Printer.list_,
    ast.BinOp: Printer.binary, ast.UnaryOp: Printer.unary, ast.BoolOp: Printer.boolean, ast.Compare: Printer.compare,
    ast.IfExp: Printer.conditional,
})


def print_tree(node: ast.AST) -> str:
    """``node`` (a statement: a function definition, a module constant) as text, its
    comment markers printed as comments and a function's commented parameters one a line.

    Raises :class:`Unhandled` for a node type this printer does not know.
    """
    p = Printer()
    if isinstance(node, ast.FunctionDef):
        p.function_def(node, "", any(getattr(a, "rs_comments", None) for a in node.args.args))
    elif isinstance(node, ast.stmt):
        p.statement(node, "")
    else:
        raise Unhandled(type(node).__name__)
    return "\n".join(p.lines)
