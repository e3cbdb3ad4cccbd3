"""Host loops: ``for``, ``while`` and ``loop`` (``break`` with a value), and labelled ``break`` and
``continue``, which Python has not: a jump out of an inner loop sets its label's flag and breaks,
and the flag is read after each inner loop on the way out."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import part, text
from rs2triton.transpiler.lowering.host.expressions import condition, iterable
from rs2triton.transpiler.lowering.host.lowerer import HostLowerer, Sink, assign_to, discard
from rs2triton.transpiler.lowering.host.statements import pattern_target
from rs2triton.transpiler.lowering.lowerer import COMMENTS
from rs2triton.transpiler.lowering.registry import HOST, statement
from rs2triton.transpiler.lowering.values import UNKNOWN, Ty, Val
from rs2triton.transpiler.pyast import STORE, const, name


def _label(node: Node) -> str | None:
    """The label of a loop, or of a `break`/`continue` (`'outer`), if it has one."""
    return next((text(c) for c in node.children if c.type == "label"), None)


@contextmanager
def _loop_body(lw: HostLowerer, node: Node, sink: Sink | None) -> Iterator[None]:
    """While a loop's body is lowered: its `break value` sink and its label are the innermost."""
    lw.loop_sinks.append(sink)
    lw.loop_labels.append(_label(node))
    lw.jumps.append(set())
    try:
        yield
    finally:
        lw.loop_sinks.pop()
        lw.loop_labels.pop()


def _emit_loop(lw: HostLowerer, node: Node, loop_stmt: ast.stmt) -> None:
    """The loop statement, with what labelled jumps through it need: its own flag cleared before it
    (a jump to it from an inner loop sets the flag and breaks out), and after it, where a jump
    inside it targets an outer loop, the flag's test: that loop's `break`/`continue` when it is the
    enclosing one, else a `break` on outward (Python has no labelled jumps)."""
    label, jumped = _label(node), lw.jumps.pop()
    if label is not None and label in lw.label_flags:
        lw.emit(ast.Assign(targets=[ast.Name(lw.label_flags[label], STORE)], value=const(None)), node)
    lw.emit(loop_stmt, node)
    if label is not None:
        lw.label_flags.pop(label, None)
    for target in sorted(jumped - {label} if label is not None else jumped):
        flag = name(lw.label_flags[target])
        if lw.loop_labels and lw.loop_labels[-1] == target:  # the loop this one is in: jump there now
            reset = ast.Assign(targets=[ast.Name(lw.label_flags[target], STORE)], value=const(None))
            jumps: list[tuple[str, list[ast.stmt]]] = [("break", [ast.Break()]), ("continue", [reset, ast.Continue()])]
            for how, jump in jumps:
                lw.emit(ast.If(test=ast.Compare(left=flag, ops=[ast.Eq()], comparators=[const(how)]), body=jump,
                               orelse=[]), node)
        else:  # further out: leave the enclosing loop too
            lw.jumps[-1].add(target)
            lw.emit(ast.If(test=ast.Compare(left=flag, ops=[ast.IsNot()], comparators=[const(None)]),
                           body=[ast.Break()], orelse=[]), node)


@statement("for_expression", target=HOST)
def for_(lw: HostLowerer, node: Node) -> None:
    pattern, value, body = part(node, "pattern"), part(node, "value"), part(node, "body")
    it = iterable(lw, value)
    stmts: list[ast.stmt] = []
    with lw.names.scope(), lw.into(stmts):
        target = pattern_target(lw, pattern, it.ty.inner)
        with _loop_body(lw, node, None):
            lw.value_into(body, discard)
    _emit_loop(lw, node, ast.For(target=target, iter=it.expr, body=stmts or [ast.Pass()], orelse=[]))


@statement("while_expression", target=HOST)
def while_(lw: HostLowerer, node: Node) -> None:
    test = condition(lw, part(node, "condition"))
    with _loop_body(lw, node, None):
        body = lw.body_of(part(node, "body"), discard)
    _emit_loop(lw, node, ast.While(test=test, body=body, orelse=[]))


@statement("loop_expression", target=HOST)
def loop(lw: HostLowerer, node: Node) -> None:
    """`loop { .. }` is `while True:`; its value, given by `break value`, goes to the sink."""
    sink = lw.sink
    py = lw.names.fresh("value") if sink is not discard else None
    bound: list[Ty] = []
    with _loop_body(lw, node, assign_to(py, None, bound) if py is not None else None):
        body = lw.body_of(part(node, "body"), discard)
    _emit_loop(lw, node, ast.While(test=const(True), body=body, orelse=[]))
    if py is not None:
        sink(lw, Val(name(py), bound[0] if bound else UNKNOWN), node)


@statement("break_expression", "continue_expression", target=HOST)
def break_(lw: HostLowerer, node: Node) -> None:
    what = node.type.split("_")[0]
    if not lw.loop_sinks:
        raise lw.rejects(node, "E0268", f"`{what}` outside of a loop", None)
    label = _label(node)
    if label is not None and label not in lw.loop_labels:
        raise lw.rejects(node, "E0426", f"use of undeclared label `{label}`", None)
    depth = len(lw.loop_labels) - 1 - lw.loop_labels[::-1].index(label) if label is not None else len(lw.loop_labels) - 1
    value = next((c for c in node.named_children if c.type not in ("label", *COMMENTS)), None)
    if node.type == "break_expression" and value is not None:
        loop_sink = lw.loop_sinks[depth]
        if loop_sink is None:
            raise lw.rejects(node, "E0571", "`break` with value from a `for` or `while` loop", None)
        if depth != len(lw.loop_labels) - 1:
            raise lw.err(node, "E0002", "a `break` with a value out of an inner loop", "assign the value and break")
        lw.value_into(value, loop_sink)
    if depth == len(lw.loop_labels) - 1:  # the innermost loop: Python's own jump
        lw.emit(ast.Break() if what == "break" else ast.Continue(), node)
        return
    assert label is not None
    flag = lw.label_flags.setdefault(label, lw.names.fresh(label.lstrip("'") + "_jump"))
    lw.emit(ast.Assign(targets=[ast.Name(flag, STORE)], value=const(what)), node)
    lw.jumps[-1].add(label)
    lw.emit(ast.Break(), node)
