"""The printer: the lowering's Python AST as text, laid out as ``ruff format`` lays it out.

It is the only printer, and nothing formats its output afterwards. It knows the node types
the lowering builds (:data:`STATEMENTS`, :data:`EXPRESSIONS`, and :class:`~rs2triton.
transpiler.pyast.Comment`), one small function each; any other node is a bug in rs2triton
(:class:`PrinterError`). Parentheses follow Python's precedence rules exactly as
``ast.unparse`` places them; strings, numbers and docstrings are written as ruff writes
them; a line longer than :data:`LINE_LENGTH` is split where ruff splits it, for the shapes
the lowering writes long (a call, at its parentheses, arguments on one line or one a line;
a binary expression, at the parentheses ruff picks or one operand of its loosest operators
a line; a signature; a launcher literal). A long line of any other shape stays on one line,
valid Python that ruff would lay out otherwise: :attr:`Printer.exact` then says so (the
tests hold every module of the suite's corpora to ruff's bytes, and none needs that).

As it writes, the printer records which lines each statement took (:attr:`Printer.spans`):
with the Rust line that ``lineno`` of a statement holds (see ``pyast``), that is the
generated-line -> Rust-line map.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from rs2triton.transpiler.emit.literals import (
    INDENT,
    LINE_LENGTH,
    PrinterError,
    comment,
    constant_text,
    docstring_lines,
    fits,
    width,
)
from rs2triton.transpiler.emit.shapes import (
    ATOM,
    BINARY,
    BOOLEAN,
    CMP,
    COMPARISON,
    TEST,
    TUPLE,
    UNARY,
    YIELD,
    binary_operators,
    edge_operand,
    elements,
    simple_bound,
    simple_callee,
    simple_power_operand,
    simple_target,
    spaced_slice,
    wrapped,
)
from rs2triton.transpiler.pyast import Comment

Name = ast.Name  # looked up for most expressions printed
R = TypeVar("R")


class Dispatch(dict[type[ast.AST], Callable[..., R]]):
    """{node type: printer function (the printer, a node of the type, ...) returning ``R``};
    another type is a :class:`PrinterError`."""

    def __missing__(self, key: type[ast.AST]) -> Callable[..., R]:
        raise PrinterError(f"the printer has no rule for {key.__name__} nodes")


class _Span:
    """The lines one statement took (from 0) and its Rust line. A compound statement's
    header ends where its body's first statement starts (``body``), so comment lines between
    belong to the header, as a parser sees it."""

    __slots__ = ("first", "last", "rust", "body")

    def __init__(self, first: int, last: int, rust: int, body: list[int] | None = None):
        self.first, self.last, self.rust, self.body = first, last, rust, body

    def shift(self, at: int) -> None:
        """A line was inserted at ``at``."""
        self.first += self.first >= at
        self.last += self.last >= at
        if self.body is not None and self.body[0] >= at:
            self.body[0] += 1


class Printer:
    """Prints statements into :attr:`lines`, recording each statement's lines and Rust line
    (:meth:`line_map`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.spans: list[_Span] = []
        self.exact = True  # False once a long line was left as it is (see the module's docstring)
        # The last statement printed: its first line and shape: "line" (one line), "split"
        # (laid out over several), "docstring" or "signature" (a commented one).
        self.last = 0
        self.shape = "line"
        self._open: list[list[int]] = []  # where the bodies of headers not yet followed by a statement start

    def line_map(self, offset: int = 0) -> dict[int, int]:
        """{line (from 1, plus ``offset``): Rust line} for every line of every statement that has one."""
        out: dict[int, int] = {}
        for span in self.spans:
            last = span.body[0] - 1 if span.body is not None else span.last
            for line in range(span.first, max(span.first, last) + 1):
                out.setdefault(line + 1 + offset, span.rust)
        return out

    # ------------------------------------------------------------------ bookkeeping

    def _started(self, node: ast.stmt) -> None:
        """A statement starts at the next line: the headers waiting for their body end before it."""
        start = len(self.lines)
        while self._open:
            self._open.pop()[0] = start

    def _record(self, first: int, rust: int | None) -> None:
        if rust:
            self.spans.append(_Span(first, len(self.lines) - 1, rust))

    def _header(self, first: int, rust: int | None) -> None:
        body = [len(self.lines)]  # until a statement starts: see _started
        self._open.append(body)
        if rust:
            self.spans.append(_Span(first, first, rust, body))

    def simple(self, indent: str, text: str, node: ast.stmt) -> None:
        """One simple statement's line; one too long is laid out as ruff would (:meth:`laid_out`)."""
        self._started(node)
        self.last = first = len(self.lines)
        line = indent + text
        if fits(line):
            self.lines.append(line)
            self.shape = "line"
        else:
            self.laid_out(line, indent, node)
        self._record(first, getattr(node, "lineno", None))

    def header(self, indent: str, text: str, node: ast.stmt) -> None:
        """A compound statement's header line (``if c:``, ``for ...:``); its span closes when its
        body's first statement starts (comments between belong to the header, as a parser sees it)."""
        self._started(node)
        self.last = first = len(self.lines)
        self.lines.append(indent + text)
        self.shape = "line" if fits(indent + text) else self._inexact("split")
        self._header(first, getattr(node, "lineno", None))

    def _inexact(self, shape: str) -> str:
        self.exact = False
        return shape

    # ------------------------------------------------------------------ statements

    def block(self, body: list[ast.stmt], indent: str) -> None:
        previous: ast.stmt | None = None
        for stmt in body:
            if previous is not None and ast.FunctionDef in (type(stmt), type(previous)):
                self.lines.append("")  # (a nested def stands apart, as ruff sets it: a closure with statements)
            STATEMENTS[type(stmt)](self, stmt, indent)
            previous = stmt

    def function_def(self, node: ast.FunctionDef, indent: str,
                     comments: dict[str, tuple[list[str], str | None]] | None = None) -> None:
        """A ``def`` with its decorators; ``comments``: the Rust comments of each parameter
        (the lines above it, the one ending its line), printed one parameter a line."""
        self._started(node)
        first = len(self.lines)
        for deco in node.decorator_list:
            self.lines.append(f"{indent}@{self.expr(deco)}")
        self.last = len(self.lines)
        self.shape = "line"
        params = [self.arg(a) for a in node.args.args]
        if node.args.kwonlyargs:  # `*, D=None`
            params.append("*")
            params += [self.arg(a) + (f"={self.expr(d)}" if d is not None else "")
                       for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True)]
        header = f"{indent}def {node.name}({', '.join(params)}):"
        if comments:
            self.lines.append(f"{indent}def {node.name}(")
            for a, text in zip(node.args.args, params, strict=True):
                above, after = comments.get(a.arg, ([], None))
                self.lines += [f"{indent}{INDENT}{comment(c)}" for c in above]
                self.lines.append(f"{indent}{INDENT}{text},{'  ' + comment(after) if after is not None else ''}")
            self.lines.append(f"{indent}):")
            self.shape = "signature"
        elif fits(header):
            self.lines.append(header)
        else:
            self.lines.extend(self.split_signature(node.name, params, indent))
            self.shape = "split"
        self._header(first, getattr(node, "lineno", None))
        self.docstring_and_block(node.body, indent + INDENT)

    def class_def(self, node: ast.ClassDef, indent: str) -> None:
        """A ``class`` with its docstring and body; methods separated by one blank line, as ruff
        separates them (and a blank line after the docstring, before the first method)."""
        self._started(node)
        first = len(self.lines)
        for deco in node.decorator_list:
            self.lines.append(f"{indent}@{self.expr(deco)}")
        bases = ", ".join(self.expr(b) for b in node.bases)
        self.lines.append(f"{indent}class {node.name}({bases}):" if bases else f"{indent}class {node.name}:")
        self.last, self.shape = len(self.lines) - 1, "line"
        self._header(first, getattr(node, "lineno", None))
        inner = indent + INDENT
        body = node.body
        doc = body[0] if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else None
        if doc is not None:
            self.docstring_and_block([doc], inner)
            body = body[1:]
        previous: ast.stmt | None = doc
        for stmt in body:
            is_def = isinstance(stmt, ast.FunctionDef | ast.ClassDef)
            if previous is not None and (is_def or isinstance(previous, ast.FunctionDef | ast.ClassDef)
                                         or previous is doc):
                self.lines.append("")
            STATEMENTS[type(stmt)](self, stmt, inner)
            previous = stmt

    def raise_(self, node: ast.Raise, indent: str) -> None:
        text = "raise" + (f" {self.expr(node.exc)}" if node.exc is not None else "")
        if node.cause is not None:
            text += f" from {self.expr(node.cause)}"
        self.simple(indent, text, node)

    def break_(self, node: ast.Break, indent: str) -> None:
        self.simple(indent, "break", node)

    def continue_(self, node: ast.Continue, indent: str) -> None:
        self.simple(indent, "continue", node)

    def nonlocal_(self, node: ast.Nonlocal, indent: str) -> None:
        self.simple(indent, "nonlocal " + ", ".join(node.names), node)

    def split_signature(self, name: str, params: list[str], indent: str) -> list[str]:
        """A ``def`` line too long for one line: the parameters on a line of their own if they
        fit there, else one a line with a trailing comma."""
        inner = indent + INDENT
        joined = inner + ", ".join(params)
        body = [joined] if fits(joined) else [inner + p + "," for p in params]
        return [f"{indent}def {name}(", *body, indent + "):"]

    def docstring_and_block(self, body: list[ast.stmt], indent: str) -> None:
        first = body[0] if body else None
        if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)):
            self._started(first)
            self.last = start = len(self.lines)
            self.lines.extend(docstring_lines(first.value.value, indent))
            self.shape = "docstring"
            self._record(start, getattr(first, "lineno", None))
            body = body[1:]
        self.block(body, indent)

    def comment_(self, node: Comment, indent: str) -> None:
        """A comment on a line of its own or (``trailing``) at the end of the line before it;
        above that line instead when it would grow longer than LINE_LENGTH, or when the line
        before ends a statement laid out over several lines."""
        note = comment(node.text)
        if not node.trailing or not self.lines:
            self.last = len(self.lines)
            self.shape = "line"
            self.lines.append(indent + note)
        elif self.shape == "split":  # the comment goes above the statement it follows
            first = self.lines[self.last]
            self.lines.insert(self.last, first[: len(first) - len(first.lstrip())] + note)
            self._shift(self.last)
            self.last += 1
        elif self.shape != "line":  # after a docstring or a commented signature: on a line of its own
            self.exact = False
            self.lines.append(indent + note)
        else:
            prev = self.lines[-1]
            if width(prev) + 2 + width(note) <= LINE_LENGTH:
                self.lines[-1] = f"{prev}  {note}"
            else:
                self.lines.insert(len(self.lines) - 1, prev[: len(prev) - len(prev.lstrip())] + note)
                self._shift(len(self.lines) - 2)
                self.last += 1

    def _shift(self, at: int) -> None:
        """A line was inserted at ``at``: what lies from there on moves down one."""
        for span in self.spans:
            span.shift(at)
        for body in self._open:
            body[0] += body[0] >= at

    def expression_statement(self, node: ast.Expr, indent: str) -> None:
        self.simple(indent, self.expr(node.value, YIELD), node)

    def assign(self, node: ast.Assign, indent: str) -> None:
        targets = "".join((t.id if type(t) is Name else self.expr(t, TUPLE)) + " = " for t in node.targets)
        self.simple(indent, targets + self.expr(node.value), node)

    def aug_assign(self, node: ast.AugAssign, indent: str) -> None:
        self.simple(indent, f"{self.expr(node.target)} {BINARY[type(node.op)][0]}= {self.expr(node.value)}", node)

    def ann_assign(self, node: ast.AnnAssign, indent: str) -> None:
        line = f"{self.expr(node.target)}: {self.expr(node.annotation)}"
        if node.value:
            line += " = " + self.expr(node.value)
        self.simple(indent, line, node)

    def return_(self, node: ast.Return, indent: str) -> None:
        self.simple(indent, f"return {self.expr(node.value)}" if node.value else "return", node)

    def pass_(self, node: ast.Pass, indent: str) -> None:
        self.simple(indent, "pass", node)

    def if_(self, node: ast.If, indent: str) -> None:
        self.header(indent, f"if {self.expr(node.test)}:", node)
        self.block(node.body, indent + INDENT)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):  # else: if -> elif
            node = node.orelse[0]
            self.header(indent, f"elif {self.expr(node.test)}:", node)
            self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def for_(self, node: ast.For, indent: str) -> None:
        self.header(indent, f"for {self.expr(node.target, TUPLE)} in {self.expr(node.iter)}:", node)
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def while_(self, node: ast.While, indent: str) -> None:
        self.header(indent, f"while {self.expr(node.test)}:", node)
        self.block(node.body, indent + INDENT)
        self.else_block(node.orelse, indent)

    def else_block(self, orelse: list[ast.stmt], indent: str) -> None:
        if orelse:
            self.lines.append(indent + "else:")
            self.last, self.shape = len(self.lines) - 1, "line"
            self.block(orelse, indent + INDENT)

    def arg(self, node: ast.arg) -> str:
        return f"{node.arg}: {self.expr(node.annotation)}" if node.annotation else node.arg

    # ------------------------------------------------------------------ ruff's line splits

    def laid_out(self, line: str, indent: str, node: ast.stmt) -> None:
        """A simple statement too long for one line, laid out as ``ruff format`` does: a call
        or arithmetic, assigned or on its own. Any other one stays on its line (inexact)."""
        value = getattr(node, "value", None)
        prefix = None
        if isinstance(node, ast.Expr):
            prefix = ""
        elif isinstance(node, ast.Return) and value is not None:
            prefix = "return "
        elif isinstance(node, ast.Raise) and node.exc is not None and node.cause is None:
            prefix, value = "raise ", node.exc
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and simple_target(node.targets[0]):
            prefix = self.expr(node.targets[0], TUPLE) + " = "
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, Name):
            prefix = f"{node.target.id} {BINARY[type(node.op)][0]}= "
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, Name) and value is not None:
            prefix = f"{node.target.id}: {self.expr(node.annotation)} = "
        mark = len(self.lines)
        split = _SPLITS.get(type(value)) if prefix is not None else None
        collection = type(value) in (ast.Tuple, ast.List, ast.Dict)
        if split is not None and value is not None and (not collection or elements(value)):
            try:
                split(self, prefix, value, indent)
                self.shape = "split"
                return
            except _NoSplit:
                del self.lines[mark:]
        self.lines.append(line)
        self.shape = self._inexact("line")

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
        if ({type(first), type(last)} & {ast.List, ast.Tuple, ast.Dict, ast.Subscript, ast.UnaryOp} or flat[0] in "[{"
                or (flat[0] == "(" and not wrapped(first, first_prec))):  # e.g. `(a + b).to(c) * d`
            raise _NoSplit
        last_text, first_text = self.expr(last, last_prec), self.expr(first, first_prec)
        if single and type(last) is ast.Call and last.args + last.keywords:
            self.split_call(prefix + flat[: len(flat) - len(last_text)], last, indent, "")
            return
        if single and wrapped(last, last_prec):
            head, tail = prefix + flat[: len(flat) - len(last_text)] + "(", ")"
            body, body_text = last, last_text[1:-1]
        elif single and wrapped(first, first_prec):
            head, tail = prefix + "(", ")" + flat[len(first_text):]
            if any(c in tail for c in "([{"):  # ruff would split the last of those brackets that fits
                raise _NoSplit
            body, body_text = first, first_text[1:-1]
        else:
            head, tail, body, body_text = prefix + "(", ")", node, flat
        if not fits(indent + head) or not fits(indent + tail):
            raise _NoSplit
        self.lines.append(indent + head)
        self.parenthesized_body(body, body_text, inner)
        self.lines.append(indent + tail)

    def parenthesized_body(self, node: ast.expr, text: str, indent: str) -> None:
        """An expression (printed as ``text``) inside parentheses: on one line, or a binary
        expression one operand of its loosest operators a line, each led by its operator."""
        if fits(indent + text):
            self.lines.append(indent + text)
        elif type(node) is ast.BinOp:
            self.operand_block(node, indent, "", "")
        else:
            raise _NoSplit

    def operand_block(self, node: ast.BinOp, indent: str, key: str, suffix: str) -> None:
        """``key``, the operands of ``node`` split at its loosest operators (the first alone, each
        other one after its operator), one a line, then ``suffix``."""
        lines = self._chain_lines(key, node, indent)
        lines[-1] += suffix
        if not fits(lines[-1]):
            raise _NoSplit
        self.lines.extend(lines)

    def _chain_lines(self, lead: str, node: ast.BinOp, indent: str) -> list[str]:
        """The operands of ``node``'s chain of its loosest operators, a line each, the first led
        by ``lead`` and each other one by its operator."""
        own = BINARY[type(node.op)][1]
        chain: list[tuple[str, ast.expr]] = []
        first: ast.expr = node
        while isinstance(first, ast.BinOp) and BINARY[type(first.op)][1] == own:
            chain.append((BINARY[type(first.op)][0], first.right))
            first = first.left
        chain.reverse()
        lines = self._operand_lines(lead, first, own, indent)
        for symbol, operand in chain:
            lines += self._operand_lines(f"{symbol} ", operand, own + 1, indent)
        return lines

    def _operand_lines(self, lead: str, operand: ast.expr, prec: int, indent: str) -> list[str]:
        """One operand of a split chain on its line, led by ``lead``; one too long for its line that
        is a chain of tighter operators is split too, its operands on lines of their own at the
        same indent (as ruff flattens ``a // b + 1``)."""
        line = indent + lead + self.expr(operand, prec)
        if fits(line):
            return [line]
        if type(operand) is not ast.BinOp or BINARY[type(operand.op)][1] < prec:
            raise _NoSplit
        return self._chain_lines(lead, operand, indent)

    def split_call(self, prefix: str, call: ast.Call, indent: str, suffix: str) -> None:
        """``prefix``, the call split at its parentheses, then ``suffix`` (ruff's right-hand
        split): the arguments on one line if they fit there, else one a line with a trailing
        comma, an argument too long for its line split the same way at its own parentheses."""
        if not simple_callee(call.func) or not (call.args or call.keywords):
            raise _NoSplit
        head = f"{indent}{prefix}{self.expr(call.func, ATOM)}("
        if not fits(head):
            raise _NoSplit
        self.lines.append(head)
        parts = self.call_arguments(call)
        nodes = [(a, "") for a in call.args] + [(k.value, f"{k.arg}=") for k in call.keywords]
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
        expression one operand of its loosest operators a line, a collection one item a line."""
        if type(arg) is ast.Call:
            self.split_call(key, arg, indent, suffix)
        elif type(arg) is ast.BinOp:
            self.operand_block(arg, indent, key, suffix)
        elif type(arg) in (ast.Tuple, ast.List, ast.Dict) and elements(arg):
            self.split_collection(key, arg, indent, suffix)
        elif type(arg) is ast.Constant and isinstance(arg.value, str):
            self.lines.append(f"{indent}{key}{self.expr(arg)}{suffix}")  # a long string stays long, as in ruff
        else:
            raise _NoSplit

    def split_collection(self, prefix: str, node: ast.expr, indent: str, suffix: str) -> None:
        """A tuple, list or dict display too long for its line, as ruff splits one: each item on a
        line of its own with a trailing comma (an item too long for its line split in turn)."""
        opening, closing = {ast.Tuple: ("(", ")"), ast.List: ("[", "]"), ast.Dict: ("{", "}")}[type(node)]
        head = f"{indent}{prefix}{opening}"
        if not fits(head):
            raise _NoSplit
        self.lines.append(head)
        inner = indent + INDENT
        items = elements(node)
        # One item of a list or dict is no comma-separated body: ruff adds no comma after it
        # (a one-item tuple keeps the comma that makes it a tuple).
        comma = "," if len(items) > 1 or type(node) is ast.Tuple else ""
        for item, key in items:
            line = f"{inner}{key}{self.expr(item)}{comma}"
            if fits(line):
                self.lines.append(line)
            else:
                self.split_argument(item, key, inner, comma)
        self.lines.append(f"{indent}{closing}{suffix}")

    def split_conditional(self, prefix: str, node: ast.IfExp, indent: str) -> None:
        """``a if c else b`` too long for its line: in parentheses, a part a line."""
        inner = indent + INDENT
        flat = inner + self.expr(node)
        if fits(flat) and fits(f"{indent}{prefix}("):  # first: on one line of its own, in parentheses
            self.lines.extend([f"{indent}{prefix}(", flat, f"{indent})"])
            return
        lines = [f"{indent}{prefix}(", f"{inner}{self.expr(node.body, TEST + 1)}"]
        while True:  # `a if b else c if d else e`: ruff gives each part of the chain a line
            lines.append(f"{inner}if {self.expr(node.test, TEST + 1)}")
            if type(node.orelse) is not ast.IfExp:
                break
            node = node.orelse
            lines.append(f"{inner}else {self.expr(node.body, TEST + 1)}")
        lines += [f"{inner}else {self.expr(node.orelse, TEST)}", f"{indent})"]
        if not all(fits(x) for x in lines):
            raise _NoSplit
        self.lines.extend(lines)

    # ------------------------------------------------------------------ expressions

    def expr(self, node: ast.expr, prec: int = TEST) -> str:
        """``node`` as text, in a context that asks for precedence ``prec``."""
        if type(node) is Name:  # most nodes are names: no dispatch for them
            return node.id
        return EXPRESSIONS[type(node)](self, node, prec)

    def constant(self, node: ast.Constant, prec: int) -> str:
        return constant_text(node.value)

    def attribute(self, node: ast.Attribute, prec: int) -> str:
        value = node.value
        if type(value) is Name:  # `tl.x`, the usual case
            return f"{value.id}.{node.attr}"
        if type(value) is ast.Constant and type(value.value) in (int, float):
            return f"({constant_text(value.value)}).{node.attr}"  # as ruff writes `(1).real`
        return f"{self.expr(value, ATOM)}.{node.attr}"

    def call(self, node: ast.Call, prec: int) -> str:
        return f"{self.expr(node.func, ATOM)}({', '.join(self.call_arguments(node))})"

    def call_arguments(self, node: ast.Call) -> list[str]:
        if len(node.args) == 1 and not node.keywords and type(node.args[0]) is ast.GeneratorExp:
            return [self.expr(node.args[0])[1:-1]]  # a lone generator argument needs no parentheses of its own
        parts = [a.id if type(a) is Name else self.expr(a) for a in node.args]
        parts += [f"{k.arg}={self.expr(k.value)}" for k in node.keywords]
        return parts

    def subscript(self, node: ast.Subscript, prec: int) -> str:
        value = self.expr(node.value, ATOM)
        index = node.slice
        if type(index) is ast.Tuple and index.elts:  # a[i, j]: the tuple without parentheses
            return f"{value}[{self.items(index.elts)}]"
        return f"{value}[{self.expr(index)}]"

    def slice_(self, node: ast.Slice, prec: int) -> str:
        bounds = [node.lower, node.upper] + ([node.step] if node.step else [])
        texts = [self.expr(b) if b is not None else "" for b in bounds]
        if all(b is None or simple_bound(b) for b in bounds):
            return ":".join(texts)
        return spaced_slice(texts)  # ruff spaces the colons of a computed bound: `a[i + 1 :]`

    def items(self, elts: list[ast.expr]) -> str:
        """Comma-separated, with a trailing comma after a single item (a tuple's items)."""
        if len(elts) == 1:
            return self.expr(elts[0]) + ","
        return ", ".join(self.expr(e) for e in elts)

    def tuple_(self, node: ast.Tuple, prec: int) -> str:
        text = self.items(node.elts)
        return f"({text})" if not node.elts or prec > TUPLE else text

    def list_(self, node: ast.List, prec: int) -> str:
        return "[" + ", ".join(self.expr(e) for e in node.elts) + "]"

    def binary(self, node: ast.BinOp, prec: int) -> str:
        symbol, own = BINARY[type(node.op)]
        a, b = node.left, node.right
        if type(node.op) is ast.Pow:  # right-associative; ruff hugs `**` between simple operands
            sep = "**" if simple_power_operand(a) and simple_power_operand(b) else " ** "
            text = f"{self.expr(a, own + 1)}{sep}{self.expr(b, own)}"
            return f"({text})" if prec > own else text
        text = f"{a.id if type(a) is Name else self.expr(a, own)} {symbol} {b.id if type(b) is Name else self.expr(b, own + 1)}"
        return f"({text})" if prec > own else text

    def unary(self, node: ast.UnaryOp, prec: int) -> str:
        symbol, own = UNARY[type(node.op)]
        operand = node.operand
        if type(operand) is ast.BinOp and type(operand.op) is ast.Pow:  # ruff: `-(a**b)`, `not (a**b)`
            text = f"{symbol}({self.expr(operand)})"
        else:
            text = symbol + self.expr(operand, own)
        return f"({text})" if prec > own else text

    def boolean(self, node: ast.BoolOp, prec: int) -> str:
        """``a and b``: each operand asks for one level more than the one before (as ast.unparse)."""
        symbol, own = BOOLEAN[type(node.op)]
        text = symbol.join(self.expr(v, min(own + 1 + i, ATOM)) for i, v in enumerate(node.values))
        return f"({text})" if prec > own else text

    def compare(self, node: ast.Compare, prec: int) -> str:
        text = self.expr(node.left, CMP + 1)
        for op, right in zip(node.ops, node.comparators, strict=True):
            text += COMPARISON[type(op)] + self.expr(right, CMP + 1)
        return f"({text})" if prec > CMP else text

    def lambda_(self, node: ast.Lambda, prec: int) -> str:
        params = ", ".join(a.arg for a in node.args.args)
        text = f"lambda {params}: {self.expr(node.body, TEST)}" if params else f"lambda: {self.expr(node.body, TEST)}"
        return f"({text})" if prec > TEST else text

    def comprehension(self, generators: list[ast.comprehension]) -> str:
        out = []
        for g in generators:
            out.append(f" for {self.expr(g.target, TUPLE)} in {self.expr(g.iter, TEST + 1)}")
            out += [f" if {self.expr(cond, TEST + 1)}" for cond in g.ifs]
        return "".join(out)

    def generator(self, node: ast.GeneratorExp, prec: int) -> str:
        return f"({self.expr(node.elt)}{self.comprehension(node.generators)})"

    def list_comprehension(self, node: ast.ListComp, prec: int) -> str:
        return f"[{self.expr(node.elt)}{self.comprehension(node.generators)}]"

    def dict_(self, node: ast.Dict, prec: int) -> str:
        items = ", ".join(f"{self.expr(k)}: {self.expr(v)}" for k, v in zip(node.keys, node.values, strict=True)
                          if k is not None)
        return "{" + items + "}"

    def conditional(self, node: ast.IfExp, prec: int) -> str:
        text = f"{self.expr(node.body, TEST + 1)} if {self.expr(node.test, TEST + 1)} else {self.expr(node.orelse, TEST)}"
        return f"({text})" if prec > TEST else text


class _NoSplit(Exception):
    """A long line of a shape whose split :meth:`Printer.laid_out` does not know."""


# How a simple statement's value too long for its line is split: (printer, prefix, value, indent).
_SPLITS = {
    ast.Call: lambda p, prefix, v, indent: p.split_call(prefix, v, indent, ""),
    ast.BinOp: Printer.split_arithmetic,
    ast.Tuple: lambda p, prefix, v, indent: p.split_collection(prefix, v, indent, ""),
    ast.List: lambda p, prefix, v, indent: p.split_collection(prefix, v, indent, ""),
    ast.Dict: lambda p, prefix, v, indent: p.split_collection(prefix, v, indent, ""),
    ast.IfExp: Printer.split_conditional,
}

STATEMENTS: Dispatch[None] = Dispatch({
    ast.FunctionDef: Printer.function_def, ast.Expr: Printer.expression_statement, ast.Assign: Printer.assign,
    ast.AugAssign: Printer.aug_assign, ast.AnnAssign: Printer.ann_assign, ast.Return: Printer.return_,
    ast.Pass: Printer.pass_, ast.If: Printer.if_, ast.For: Printer.for_, ast.While: Printer.while_,
    Comment: Printer.comment_, ast.ClassDef: Printer.class_def, ast.Raise: Printer.raise_, ast.Break: Printer.break_,
    ast.Continue: Printer.continue_, ast.Nonlocal: Printer.nonlocal_,
})
EXPRESSIONS: Dispatch[str] = Dispatch({
    ast.Constant: Printer.constant, ast.Attribute: Printer.attribute, ast.Call: Printer.call,
    ast.Subscript: Printer.subscript, ast.Slice: Printer.slice_, ast.Tuple: Printer.tuple_, ast.List: Printer.list_,
    ast.BinOp: Printer.binary, ast.UnaryOp: Printer.unary, ast.BoolOp: Printer.boolean, ast.Compare: Printer.compare,
    ast.IfExp: Printer.conditional, ast.Lambda: Printer.lambda_, ast.GeneratorExp: Printer.generator,
    ast.ListComp: Printer.list_comprehension, ast.Dict: Printer.dict_,
})
