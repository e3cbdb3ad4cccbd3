"""Printing the lowering's Python AST as text: laid out as ``ruff format`` would lay it out
(``layout=True``, what generated modules use), or plainly, as ``ast.unparse`` prints it,
only faster.

Layout mode writes ruff's string quotes, docstrings and numbers, and the splits ruff makes
of a line longer than :data:`LINE_LENGTH`, for the shapes the lowering writes long: a call
(split at its parentheses, the arguments on one line of their own or one a line), a binary
expression (split at the parentheses ruff would pick, or put in parentheses one operand of
its loosest operators a line), a signature, a launcher literal. Anything else raises
:class:`Unhandled`, and that module is printed plainly and formatted by ruff instead
(``render.module_text``): the printer never guesses a layout.

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

from rs2triton.transpiler.pyast import COMMENT_CALL, TRAILING_CALL

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

    def __init__(self, layout: bool = False) -> None:
        self.lines: list[str] = []
        self.levels: dict[ast.AST, int] = {}
        self.layout = layout
        # The last statement printed: its first line, and its shape: "line" (one line),
        # "split" (laid out over several), "docstring" or "signature" (a commented one).
        self.last = 0
        self.shape = "line"

    def simple(self, indent: str, text: str, node: ast.AST | None = None) -> None:
        """Append one statement's line; in layout mode, one too long is laid out as ruff
        would (see :meth:`laid_out`)."""
        self.last = len(self.lines)
        line = indent + text
        if self.layout and not line.isascii() and display_width(line) != len(line):
            raise Unhandled("a line with characters of another width")
        if self.layout and not fits(line):
            self.laid_out(line, indent, node)
            self.shape = "split"
        else:
            self.lines.append(line)
            self.shape = "line"

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
            if self.layout:  # ruff's blank lines around a nested definition: not done here
                raise Unhandled("a nested function definition")
            self.lines.append("")  # a nested definition gets a blank line first
        for deco in node.decorator_list:
            self.lines.append(f"{indent}@{self.expr(deco)}")
        header = f"{indent}def {node.name}({self.arguments(node.args)})"
        if node.returns:
            header += " -> " + self.expr(node.returns)
        header += ":" + self.type_comment(node)
        self.last = len(self.lines)
        self.shape = "line"
        if commented_signature and not node.returns and not node.type_comment:
            self.lines.extend(signature_with_comments(node, self))
            self.shape = "signature"
        elif self.layout and not fits(header):
            self.lines.extend(self.split_signature(node, indent))
            self.shape = "split"
        else:
            self.lines.append(header)
        self.docstring_and_block(node.body, indent + INDENT)

    def split_signature(self, node: ast.FunctionDef, indent: str) -> list[str]:
        """A ``def`` line too long for one line, as ruff lays it out: the parameters on one
        line of their own if they fit there, else one a line with a trailing comma."""
        if node.returns or node.type_comment or node.args.posonlyargs:
            raise Unhandled("a long signature with a return annotation or positional-only parameters")
        params = self.argument_list(node.args)
        inner = indent + INDENT
        joined = inner + ", ".join(params)
        if fits(joined):
            body = [joined]
        else:
            body = [inner + p + "," for p in params]
            if not all(fits(line) for line in body):
                raise Unhandled("a parameter too long for a line")
        return [f"{indent}def {node.name}(", *body, indent + "):"]

    def docstring_and_block(self, body: list[ast.stmt], indent: str) -> None:
        first = body[0] if body else None
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            self.last = len(self.lines)
            if self.layout:
                if first.value.kind == "u":
                    raise Unhandled("a u-prefixed docstring")
                self.lines.extend(docstring_lines(first.value.value, indent))
            else:
                prefix = "u" if first.value.kind == "u" else ""
                self.lines.extend(f"{indent}{prefix}{docstring_literal(first.value.value)}".split("\n"))
            self.shape = "docstring"
            body = body[1:]
        self.block(body, indent)

    def expression_statement(self, node: ast.Expr, indent: str) -> None:
        """An expression; a comment marker becomes its comment: on a line of its own, or
        (a trailing marker) at the end of the line before it, or just above that line
        when it would grow longer than LINE_LENGTH."""
        marker = comment_marker_text(node.value)
        if marker is None or (marker[0] == TRAILING_CALL and not self.lines):
            self.simple(indent, self.expr(node.value, YIELD), node)
        elif marker[0] == COMMENT_CALL:
            self.last = len(self.lines)
            self.shape = "line"
            self.lines.append(indent + comment(marker[1]))
        elif self.shape == "split":  # a statement too long for one line, so for the comment too:
            first = self.lines[self.last]  # the comment goes above it
            self.lines.insert(self.last, first[: len(first) - len(first.lstrip())] + comment(marker[1]))
            self.last += 1
        elif self.layout and self.shape != "line":
            raise Unhandled(f"a trailing comment after a {self.shape}")
        else:
            note, prev = comment(marker[1]), self.lines[-1]
            if self.layout and not note.isascii() and display_width(note) != len(note):
                raise Unhandled("a comment with characters of another width")
            if len(prev) + 2 + len(note) <= LINE_LENGTH:
                self.lines[-1] = f"{prev}  {note}"
            else:
                self.lines.insert(len(self.lines) - 1, prev[: len(prev) - len(prev.lstrip())] + note)
                self.last += 1

    def assign(self, node: ast.Assign, indent: str) -> None:
        targets = "".join([(t.id if type(t) is Name else self.expr(t, TUPLE)) + " = " for t in node.targets])
        self.simple(indent, targets + self.expr(node.value) + self.type_comment(node), node)

    def aug_assign(self, node: ast.AugAssign, indent: str) -> None:
        target = self.expr(node.target)
        self.simple(indent, f"{target} {BINARY[type(node.op)][0]}= {self.expr(node.value)}", node)

    def ann_assign(self, node: ast.AnnAssign, indent: str) -> None:
        target = self.expr(node.target)
        if not node.simple and isinstance(node.target, ast.Name):
            target = f"({target})"
        line = f"{target}: {self.expr(node.annotation)}"
        if node.value:
            line += " = " + self.expr(node.value)
        self.simple(indent, line)

    def return_(self, node: ast.Return, indent: str) -> None:
        self.simple(indent, f"return {self.expr(node.value)}" if node.value else "return")

    def keyword_statement(self, node: ast.stmt, indent: str) -> None:
        self.simple(indent, type(node).__name__.lower())  # pass, break, continue

    def if_(self, node: ast.If, indent: str) -> None:
        self.simple(indent, f"if {self.expr(node.test)}:")
        self.block(node.body, indent + INDENT)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):  # else: if -> elif
            node = node.orelse[0]
            self.simple(indent, f"elif {self.expr(node.test)}:")
            self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def for_(self, node: ast.For, indent: str) -> None:
        target = self.expr(node.target, TUPLE)
        self.simple(indent, f"for {target} in {self.expr(node.iter)}:{self.type_comment(node)}")
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def while_(self, node: ast.While, indent: str) -> None:
        self.simple(indent, f"while {self.expr(node.test)}:")
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def else_block(self, orelse: list[ast.stmt], indent: str) -> None:
        if orelse:
            self.simple(indent, "else:")
            self.block(orelse, indent + INDENT)

    @staticmethod
    def type_comment(node: ast.stmt) -> str:
        return f" # type: {node.type_comment}" if node.type_comment else ""

    def arguments(self, node: ast.arguments) -> str:
        return ", ".join(self.argument_list(node))

    def argument_list(self, node: ast.arguments) -> list[str]:
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
        return parts

    def arg(self, node: ast.arg) -> str:
        return f"{node.arg}: {self.expr(node.annotation)}" if node.annotation else node.arg

    # ------------------------------------------------------------------ ruff's layout

    def laid_out(self, line: str, indent: str, node: ast.stmt | None) -> None:
        """A statement too long for one line, laid out as ``ruff format`` does; only the
        shapes the lowering writes long (a call, assigned or on its own), else Unhandled."""
        kind = type(node)
        value = getattr(node, "value", None)
        if type(value) not in (ast.Call, ast.BinOp):
            raise Unhandled("a long statement other than a call or arithmetic")
        if kind is ast.Expr:
            prefix = ""
        elif kind is ast.Assign and len(node.targets) == 1 and simple_target(node.targets[0]) and not node.type_comment:
            prefix = self.expr(node.targets[0], TUPLE) + " = "
        elif kind is ast.AugAssign and type(node.target) is Name:
            prefix = f"{node.target.id} {BINARY[type(node.op)][0]}= "
        else:
            raise Unhandled("a long statement other than a call or arithmetic")
        if type(value) is ast.Call:
            self.split_call(prefix, value, indent, "")
        else:
            self.split_arithmetic(prefix, value, indent)

    def split_arithmetic(self, prefix: str, node: ast.BinOp, indent: str) -> None:
        """``prefix`` and a binary expression too long for one line, as ruff lays it out.

        With one operator of the loosest kind and a parenthesised operand at the right end
        (a call, a parenthesised expression) or else at the left end, ruff splits that
        operand's parentheses; otherwise it puts the whole expression in parentheses, on a
        line of its own or one operand of the loosest kind a line.
        """
        flat = self.expr(node)
        inner = indent + INDENT
        precedences = binary_operators(node)
        single = precedences.count(min(precedences)) == 1  # one operator of the loosest kind
        first, first_prec = edge_operand(node, "left")
        last, last_prec = edge_operand(node, "right")
        if ({type(first), type(last)} & {ast.List, ast.Tuple, ast.Subscript, ast.UnaryOp} or flat[0] in "[{"
                or (flat[0] == "(" and not wrapped(first, first_prec))):  # e.g. `(a + b).to(c) * d`
            raise Unhandled("a long binary expression with brackets at an end")
        last_text, first_text = self.expr(last, last_prec), self.expr(first, first_prec)
        if not (flat.endswith(last_text) and flat.startswith(first_text)):  # (a node printed twice, differently)
            raise Unhandled("an operand printed otherwise than in its expression")
        if single and type(last) is ast.Call and last.args + last.keywords:
            self.split_call(prefix + flat[: len(flat) - len(last_text)], last, indent, "")
            return
        if single and wrapped(last, last_prec):
            head, tail = prefix + flat[: len(flat) - len(last_text)] + "(", ")"
            body, body_text = last, last_text[1:-1]
        elif single and wrapped(first, first_prec):
            head, tail = prefix + "(", ")" + flat[len(first_text):]
            if any(c in tail for c in "([{"):  # ruff would split the last of those brackets that fits
                raise Unhandled("a long binary expression with more brackets after the first operand")
            body, body_text = first, first_text[1:-1]
        else:
            head, tail, body, body_text = prefix + "(", ")", node, flat
        if not fits(indent + head) or not fits(indent + tail):
            raise Unhandled("a long head or tail")
        self.lines.append(indent + head)
        self.parenthesized_body(body, body_text, inner)
        self.lines.append(indent + tail)

    def parenthesized_body(self, node: ast.expr, text: str, indent: str) -> None:
        """An expression (printed as ``text``) inside parentheses, at ``indent``: on one line,
        or a binary expression one operand of its loosest operators a line, each line led by
        its operator."""
        line = indent + text
        if fits(line):
            self.lines.append(line)
            return
        if type(node) is not ast.BinOp:
            raise Unhandled("a long parenthesised expression")
        self.operand_block(node, indent, "", "")

    def operand_block(self, node: ast.BinOp, indent: str, key: str, suffix: str) -> None:
        """``key``, the operands of ``node`` one a line (:meth:`operand_lines`), then ``suffix``."""
        lines = self.operand_lines(node)
        lines[0] = key + lines[0]
        lines[-1] += suffix
        lines = [indent + line for line in lines]
        if not all(fits(x) for x in lines):
            raise Unhandled("a long operand")
        self.lines.extend(lines)

    def operand_lines(self, node: ast.BinOp) -> list[str]:
        """``node``'s operands split at its loosest operators: the first alone, each other
        one after its operator."""
        own = BINARY[type(node.op)][1]
        chain: list[tuple[str, ast.expr, int]] = []  # (operator, operand, precedence printed at)
        while type(node) is ast.BinOp and BINARY[type(node.op)][1] == own and own != POWER:
            chain.append((BINARY[type(node.op)][0], node.right, own + 1))
            node = node.left
            if type(node) is ast.BinOp and self.levels.get(node, own) > BINARY[type(node.op)][1]:
                break  # a parenthesised operand
        chain.reverse()
        lines = [self.expr(node, own)]
        for symbol, operand, prec in chain:
            lines.append(f"{symbol} {self.expr(operand, prec)}")
        return lines

    def split_call(self, prefix: str, call: ast.Call, indent: str, suffix: str) -> None:
        """``prefix``, the call split at its parentheses, then ``suffix`` (ruff's right-hand
        split): the arguments on one line if they fit there, else one a line with a trailing
        comma, an argument too long for its line split the same way at its own parentheses."""
        if not simple_callee(call.func) or not (call.args or call.keywords):
            raise Unhandled("a long call of a computed callee")
        head = f"{indent}{prefix}{self.expr(call.func, ATOM)}("
        if not fits(head):
            raise Unhandled("a long callee")
        self.lines.append(head)
        parts = self.call_arguments(call)
        nodes = [(a, "") for a in call.args] + [(k.value, f"{k.arg}=" if k.arg else "**") for k in call.keywords]
        inner = indent + INDENT
        joined = inner + ", ".join(parts)
        if fits(joined):
            self.lines.append(joined)
        elif len(parts) == 1:  # the one argument split, no comma added
            self.split_argument(*nodes[0], inner, "")
        else:
            for text, (arg, key) in zip(parts, nodes, strict=True):
                line = f"{inner}{text},"
                if fits(line):
                    self.lines.append(line)
                else:
                    self.split_argument(arg, key, inner, ",")
        self.lines.append(f"{indent}){suffix}")

    def split_argument(self, arg: ast.expr, key: str, indent: str, suffix: str) -> None:
        """An argument too long for its line: a call split at its parentheses, a binary
        expression one operand of its loosest operators a line."""
        if key == "**" or type(arg) not in (ast.Call, ast.BinOp):
            raise Unhandled("a long argument")
        if type(arg) is ast.Call:
            self.split_call(key, arg, indent, suffix)
        else:
            self.operand_block(arg, indent, key, suffix)

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
        if self.layout:
            return layout_constant(node)
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
        if self.layout and isinstance(value, ast.Constant) and type(value.value) in (int, float, complex):
            raise Unhandled("an attribute of a number")  # ruff writes `(1).real`, `(0.5).to(...)`
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            text += " "  # `1 .real`: `1.real` would read as a float
        return f"{text}.{node.attr}"

    def call(self, node: ast.Call, prec: int | None) -> str:
        return f"{self.expr(node.func, ATOM)}({', '.join(self.call_arguments(node))})"

    def call_arguments(self, node: ast.Call) -> list[str]:
        parts = [a.id if type(a) is Name else self.expr(a) for a in node.args]  # names without a call
        for k in node.keywords:
            value = k.value.id if type(k.value) is Name else self.expr(k.value)
            parts.append(f"{k.arg}={value}" if k.arg is not None else "**" + value)
        return parts

    def subscript(self, node: ast.Subscript, prec: int | None) -> str:
        value = self.expr(node.value, ATOM)
        index = node.slice
        if isinstance(index, ast.Tuple) and index.elts:  # a[i, j]: the tuple without parentheses
            return f"{value}[{self.items(index.elts)}]"
        return f"{value}[{self.expr(index)}]"

    def slice_(self, node: ast.Slice, prec: int | None) -> str:
        if self.layout and not all(b is None or simple_bound(b) for b in (node.lower, node.upper, node.step)):
            raise Unhandled("a slice with a computed bound")  # ruff spaces its colons: `a[i + 1 :]`
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
            if self.layout:  # ruff hugs simple operands: `x**2`
                raise Unhandled("a power")
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


def signature_with_comments(fn: ast.FunctionDef, printer: Printer | None = None) -> list[str]:
    """``def f(`` then one parameter a line with the comments its Rust parameter had
    (``arg.rs_comments``: the lines above it, and the one ending its line), then ``):``."""
    lines = [f"def {fn.name}("]
    for a in fn.args.args:
        above, after = getattr(a, "rs_comments", None) or ([], None)
        lines += [f"{INDENT}{comment(c)}" for c in above]
        lines.append(f"{INDENT}{(printer or Printer()).arg(a)},{'  ' + comment(after) if after is not None else ''}")
    lines.append("):")
    return lines


# ---------------------------------------------------------------------- ruff's layout

def fits(line: str) -> bool:
    """Whether ``line`` fits ruff's line length (lines of other widths never get here)."""
    return len(line) <= LINE_LENGTH


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
    """The operand at the left or right end of a binary expression outside parentheses,
    and the precedence it is printed at."""
    while True:
        own = BINARY[type(node.op)][1]
        child, prec = (node.left, own) if side == "left" else (node.right, own + 1)
        if type(child) is not ast.BinOp or wrapped(child, prec):
            return child, prec
        node = child


def wrapped(node: ast.expr, prec: int) -> bool:
    """Whether ``node`` printed at ``prec`` gets parentheses of its own."""
    kind = type(node)
    if kind is ast.BinOp:
        return prec > BINARY[type(node.op)][1]
    if kind is ast.UnaryOp:
        return prec > UNARY[type(node.op)][1]
    if kind is ast.BoolOp:
        return prec > BOOLEAN[type(node.op)][1]
    if kind is ast.Compare:
        return prec > CMP
    if kind is ast.IfExp:
        return prec > TEST
    return False


def display_width(text: str) -> int:
    """Columns ``text`` takes: wide East Asian characters two, combining marks none."""
    import unicodedata

    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def simple_callee(node: ast.expr) -> bool:
    """A name or a chain of attributes of a name (``tl.load``): what ruff splits a call of
    at the call's own parentheses."""
    while type(node) is ast.Attribute:
        node = node.value
    return type(node) is Name


def simple_target(node: ast.expr) -> bool:
    """A name, or several (``a, b = ...``): a target ruff leaves on the first line."""
    if type(node) is ast.Tuple:
        return len(node.elts) > 1 and all(type(e) is Name for e in node.elts)
    return type(node) is Name


def simple_bound(node: ast.expr) -> bool:
    """A slice bound ruff prints without spaces around the colons: a name or a number."""
    if type(node) is ast.UnaryOp and type(node.op) is ast.USub:
        node = node.operand
    return type(node) is Name or (type(node) is ast.Constant and type(node.value) in (int, float))


def layout_constant(node: ast.Constant) -> str:
    """A constant as ruff writes it: strings in double quotes, no ``+`` in an exponent."""
    value = node.value
    kind = type(value)
    if node.kind == "u" or kind in (bytes, complex, tuple) or (kind is float and value != value):
        raise Unhandled(f"a {kind.__name__} constant")
    if kind is str:
        return string_literal(value)
    if value is ...:
        return "..."
    text = constant_repr(value)
    return text.replace("e+", "e") if kind is float else text


def string_literal(value: str) -> str:
    """``value`` in ruff's quotes: double, the escapes ``repr`` writes."""
    if '"' in value:
        raise Unhandled("a string with a double quote")
    text = repr(value)
    return f'"{text[1:-1]}"' if text[0] == "'" else text


def docstring_lines(text: str, indent: str) -> list[str]:
    """A docstring as ruff lays it out at ``indent``: triple double quotes, the first line
    stripped, the others re-indented (their common indentation removed) and stripped at
    the end, blank ones empty, and the closing quotes on a line of their own when the
    text ends with a line break. Text ruff would treat otherwise raises Unhandled."""
    if ('"""' in text or "\t" in text or not text.replace("\n", "").isprintable() or not text.strip()
            or text.endswith("\n\n") or text.strip()[0] == '"' or text.rstrip()[-1] in '"\\'
            or any(line.rstrip().endswith("\\") for line in text.split("\n"))):  # ruff keeps those as they are
        raise Unhandled("a docstring with triple quotes, tabs, blank ends, or a quote or backslash at an end")
    lines = text.replace("\\", "\\\\").split("\n")  # a backslash escaped, as docstring_literal does
    first = lines[0].strip()
    if not first:
        raise Unhandled("a docstring starting with a blank line")
    rest = lines[1:]
    margin = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
    if any(line[:margin].strip() for line in rest):
        raise Unhandled("a docstring indented with other blanks")
    out = [f'{indent}"""{first}'] + [indent + line[margin:].rstrip() if line.strip() else "" for line in rest]
    if len(out) > 1 and not out[-1]:  # ends with a blank line:
        if len(out) > 2 and not out[-2]:
            raise Unhandled("a docstring ending with blank lines")
        if len(out) == 2:  # one line of text: the quotes close on it
            return [out[0] + '"""']
        out[-1] = f'{indent}"""'  # else on a line of their own
    else:
        out[-1] += '"""'
    return out


def literal_text(value) -> str:
    """Plain data (dicts, lists, tuples, strings, numbers, booleans, None) as ruff writes it on one line."""
    kind = type(value)
    if kind is dict:
        return "{" + ", ".join(f"{literal_text(k)}: {literal_text(v)}" for k, v in value.items()) + "}"
    if kind is list:
        return "[" + ", ".join(map(literal_text, value)) + "]"
    if kind is tuple:
        return "(" + (literal_text(value[0]) + "," if len(value) == 1 else ", ".join(map(literal_text, value))) + ")"
    if kind is str:
        return string_literal(value)
    if kind in (int, bool) or value is None:
        return repr(value)
    if kind is float and value - value == 0:  # finite
        return repr(value).replace("e+", "e")
    raise Unhandled(f"a {kind.__name__} literal")


def literal_lines(prefix: str, value, indent: str, suffix: str) -> list[str]:
    """``prefix``, plain data and ``suffix`` laid out as ruff would: on one line if it fits,
    else a dict or list of several items one item a line, each with a trailing comma."""
    line = f"{indent}{prefix}{literal_text(value)}{suffix}"
    if fits(line):
        return [line]
    kind = type(value)
    if kind not in (dict, list) or len(value) < 2:
        raise Unhandled("a long literal")
    inner = indent + INDENT
    if kind is dict:
        body = [lines for k, v in value.items() for lines in literal_lines(f"{literal_text(k)}: ", v, inner, ",")]
    else:
        body = [lines for v in value for lines in literal_lines("", v, inner, ",")]
    opening, closing = ("{", "}") if kind is dict else ("[", "]")
    return [f"{indent}{prefix}{opening}", *body, f"{indent}{closing}{suffix}"]


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


def print_tree(node: ast.AST, layout: bool = False) -> str:
    """``node`` (a statement: a function definition, a module constant) as text, its
    comment markers printed as comments and a function's commented parameters one a line.
    With ``layout``, the text is laid out as ``ruff format`` would lay it out.

    Raises :class:`Unhandled` for a node type this printer does not know (with ``layout``,
    also for a construct whose layout it does not know).
    """
    p = Printer(layout)
    if isinstance(node, ast.FunctionDef):
        p.function_def(node, "", any(getattr(a, "rs_comments", None) for a in node.args.args))
    elif isinstance(node, ast.stmt):
        p.statement(node, "")
    else:
        raise Unhandled(type(node).__name__)
    return "\n".join(p.lines)
