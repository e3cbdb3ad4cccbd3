"""Counted `while` loops that are ranges, found on the Rust tree before lowering.

Triton's software pipeliner works on ``scf.for`` only; a ``while`` becomes
``scf.while`` and is never pipelined. A Rust loop of the shape

    let mut i = START;            // in the same block, before the loop
    while i < STOP { ...; i += STEP; }

is a range when (all checked here, on the syntax alone):

- the condition compares the counter with a bound: ``i < E``, ``i <= E``, ``i > E``,
  ``i >= E`` (or mirrored, ``E > i``), and the direction agrees with the step
  (``<``/``<=`` with ``+=``, ``>``/``>=`` with ``-=``);
- the step is added once, as the body's last statement, and is a literal or a name
  (a compile-time value is checked by lowering: a runtime step's sign is unknown);
- nothing else in the body writes the counter or re-binds it, and nothing writes a
  name the bound or the step reads (Rust re-evaluates them every iteration, a
  ``range`` once), and the bound has no calls (a load could see the body's stores);
- the counter is declared by a ``let mut`` of the same block and started by it or by a
  plain ``counter = start;`` (a counter reused by several loops), not used between that
  statement and the loop, and not read after the loop before it is overwritten (a
  Python ``for`` leaves the last value, Rust the first failing one).

Everything else stays a ``while``. A non-terminating Rust loop (a step of the wrong
sign or zero) has no meaning to preserve.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import named_children, part, text

_ASCENDING = {"<": False, "<=": True}  # operator -> inclusive
_DESCENDING = {">": False, ">=": True}
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# Node kinds a loop bound may be built from: no calls, no blocks.
_PURE = frozenset({"identifier", "integer_literal", "binary_expression", "unary_expression",
                   "parenthesized_expression", "type_cast_expression", "primitive_type",
                   "scoped_identifier", "field_expression", "field_identifier"})


@dataclass(frozen=True, slots=True)
class CountedLoop:
    """A `while` that is `for counter in range(start, stop[+-1], +-step)`.

    ``let``: the statement that starts the counter, absorbed by the loop (its
    `let mut counter = start;` or a later `counter = start;`); ``step_stmt``: the
    `counter += step;` statement, dropped from the body.
    """

    counter: str
    let: Node
    start: Node
    bound: Node
    step: Node
    descending: bool
    inclusive: bool
    step_stmt: Node


def counted_loops(stmts: list[Node]) -> dict[int, CountedLoop]:
    """The range loops among one block's statements, keyed by the `while` node's id."""
    found: dict[int, CountedLoop] = {}
    real = [s for s in stmts if s.type not in ("line_comment", "block_comment")]
    for i, stmt in enumerate(real):
        loop = _while_of(stmt)
        if loop is None:
            continue
        info = _analyse(loop, real[:i], real[i + 1:])
        if info is not None:
            found[loop.id] = info
    return found


def _while_of(stmt: Node) -> Node | None:
    if stmt.type == "while_expression":
        return stmt
    if stmt.type == "expression_statement":
        inner = named_children(stmt)
        if len(inner) == 1 and inner[0].type == "while_expression":
            return inner[0]
    return None


def _analyse(loop: Node, before: list[Node], after: list[Node]) -> CountedLoop | None:
    cond = _unparen(part(loop, "condition"))
    if cond.type != "binary_expression":
        return None
    op = text(part(cond, "operator"))
    if op not in _MIRROR:
        return None
    body = named_children(part(loop, "body"))
    if not body:
        return None
    step_stmt = body[-1]
    counter = _assigned_name(step_stmt)
    left, right = _unparen(part(cond, "left")), _unparen(part(cond, "right"))
    if left.type == "identifier" and text(left) == counter:
        bound = right
    elif right.type == "identifier" and text(right) == counter:
        bound, op = left, _MIRROR[op]
    else:
        return None
    if not _pure(bound) or counter in _identifiers(bound):
        return None
    step = _step_of(step_stmt, counter)
    if step is None:
        return None
    step_node, sign = step
    descending = sign < 0
    if (op in _ASCENDING) == descending:
        return None
    if step_node.type not in ("integer_literal", "identifier", "scoped_identifier"):
        return None
    if step_node.type == "integer_literal" and _int_value(step_node) in (None, 0):
        return None
    # The body may not write the counter, nor anything the bound or the step reads.
    watched = {counter} | _identifiers(bound) | _identifiers(step_node)
    for stmt in body[:-1]:
        if _writes(stmt) & watched or counter in _lets(stmt):
            return None
    body_lets = _lets_in_blocks(body[:-1])
    if _lets(step_stmt) or counter in body_lets or _identifiers(step_node) & body_lets:
        return None  # the step must mean the same before the loop as at its end
    let = _declaring_let(before, counter)
    if let is None:
        return None
    init = _initializer(before, counter)
    if init is None or (init.type == "let_declaration" and init is not let):
        return None  # e.g. an immutable `let` shadowing the counter
    start = part(init, "value") if init is let else part(named_children(init)[0], "right")
    annotated = let.child_by_field_name("type")
    if start.type == "float_literal" or (annotated is not None and text(annotated) in ("f16", "bf16", "f32", "f64")):
        return None
    between = before[before.index(init) + 1:]
    if any((_writes(s) | _lets(s)) & _identifiers(start) for s in between):
        return None
    if not _dead_after(after, counter):
        return None
    inclusive = _DESCENDING[op] if op in _DESCENDING else _ASCENDING[op]
    return CountedLoop(counter, init, start, bound, step_node, descending, inclusive, step_stmt)


def _initializer(before: list[Node], counter: str) -> Node | None:
    """The statement that gives the counter its start value: the last one of the block that
    mentions it, either its `let mut` or a plain `counter = start;` (a reused counter)."""
    for stmt in reversed(before):
        if counter not in _identifiers(stmt):
            continue
        if stmt.type == "let_declaration":  # its own `let`; a `let` that only reads it is no start
            return stmt if counter in _identifiers(part(stmt, "pattern")) else None
        if _assigned_name(stmt) == counter and named_children(stmt)[0].type == "assignment_expression" \
                and counter not in _identifiers(part(named_children(stmt)[0], "right")):
            return stmt
        return None
    return None


def _dead_after(after: list[Node], counter: str) -> bool:
    """The counter's value after the loop is never read: the block's next mention of it
    (if any) overwrites it (`counter = ..;` not reading it, or a new `let`)."""
    for stmt in after:
        if counter not in _identifiers(stmt):
            continue
        if stmt.type == "let_declaration":
            value = stmt.child_by_field_name("value")
            return value is None or counter not in _identifiers(value)
        return _assigned_name(stmt) == counter and named_children(stmt)[0].type == "assignment_expression" \
            and counter not in _identifiers(part(named_children(stmt)[0], "right"))
    return True


def _int_value(node: Node) -> int | None:
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+|[0-9]+)(?:[iu](?:8|16|32|64|size))?",
                     text(node).replace("_", ""))
    return int(m.group(1), 0) if m else None


def _unparen(node: Node) -> Node:
    while node.type == "parenthesized_expression":
        node = named_children(node)[0]
    return node


def _pure(node: Node) -> bool:
    return node.type in _PURE and all(_pure(c) for c in named_children(node))


def _identifiers(node: Node) -> set[str]:
    out = {text(node)} if node.type == "identifier" else set()
    for c in node.named_children:
        out |= _identifiers(c)
    return out


def _assigned_name(stmt: Node) -> str | None:
    if stmt.type != "expression_statement":
        return None
    left = named_children(stmt)[0].child_by_field_name("left")
    return text(left) if left is not None and left.type == "identifier" else None


def _step_of(stmt: Node, counter: str) -> tuple[Node, int] | None:
    """`counter += s` / `counter -= s` / `counter = counter + s` -> (s, sign)."""
    if stmt.type != "expression_statement":
        return None
    expr = named_children(stmt)[0]
    left = expr.child_by_field_name("left")
    if left is None or left.type != "identifier" or text(left) != counter:
        return None
    right = _unparen(part(expr, "right"))
    if expr.type == "compound_assignment_expr":
        op = text(part(expr, "operator"))
        if op not in ("+=", "-="):
            return None
        return right, 1 if op == "+=" else -1
    if expr.type == "assignment_expression" and right.type == "binary_expression":
        op = text(part(right, "operator"))
        a, b = _unparen(part(right, "left")), _unparen(part(right, "right"))
        if op in ("+", "-") and a.type == "identifier" and text(a) == counter:
            return b, 1 if op == "+" else -1
        if op == "+" and b.type == "identifier" and text(b) == counter:
            return a, 1
    return None


def _writes(node: Node) -> set[str]:
    """Names assigned anywhere inside ``node``."""
    out: set[str] = set()
    if node.type in ("assignment_expression", "compound_assignment_expr"):
        left = node.child_by_field_name("left")
        if left is not None and left.type == "identifier":
            out.add(text(left))
    for c in node.named_children:
        out |= _writes(c)
    return out


def _lets(node: Node) -> set[str]:
    """Names bound by `let` anywhere inside ``node`` (including ``node`` itself)."""
    out: set[str] = set()
    if node.type == "let_declaration":
        out |= _identifiers(part(node, "pattern"))
    for c in node.named_children:
        out |= _lets(c)
    return out


def _lets_in_blocks(stmts: list[Node]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        out |= _lets(s)
    return out


def _declaring_let(before: list[Node], counter: str) -> Node | None:
    """The last `let mut counter = ..;` of the block (a later `let` shadows it)."""
    for stmt in reversed(before):
        if stmt.type != "let_declaration":
            continue
        pattern = part(stmt, "pattern")
        if counter not in _identifiers(pattern):
            continue
        mutable = any(c.type == "mutable_specifier" for c in stmt.children) or pattern.type == "mut_pattern"
        if pattern.type not in ("identifier", "mut_pattern") or not mutable:
            return None
        if stmt.child_by_field_name("value") is None or stmt.child_by_field_name("alternative") is not None:
            return None
        return stmt
    return None
