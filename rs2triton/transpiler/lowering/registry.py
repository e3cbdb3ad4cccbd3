"""Which function lowers which tree-sitter node kind: one table for expressions, one for
statements, filled by the ``@expression(...)`` / ``@statement(...)`` decorators of the rule
modules. A kind registered twice stops the import: one rule per node kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# {node kind: rule(lowerer, node) -> Val} and {node kind: rule(lowerer, node) -> None}
EXPRESSIONS: dict[str, Callable[..., Any]] = {}
STATEMENTS: dict[str, Callable[..., Any]] = {}


def _register(table: dict[str, Any], kinds: tuple[str, ...]) -> Callable[[F], F]:
    def decorate(rule: F) -> F:
        for kind in kinds:
            if kind in table:
                raise RuntimeError(f"two lowering rules for `{kind}` nodes: {table[kind].__qualname__} "
                                   f"and {rule.__qualname__}")
            table[kind] = rule
        return rule
    return decorate


def expression(*kinds: str) -> Callable[[F], F]:
    """Register the rule that lowers these node kinds in expression position."""
    return _register(EXPRESSIONS, kinds)


def statement(*kinds: str) -> Callable[[F], F]:
    """Register the rule that lowers these node kinds in statement position."""
    return _register(STATEMENTS, kinds)


OpRule = Callable[..., Any]  # (lowerer, op row, argument nodes, turbofish nodes, call node) -> Val
OP_RULES: dict[str, OpRule] = {}


def op_rule(name: str) -> Callable[[F], F]:
    """Register the function that builds the calls of the op-table rows naming rule ``name``."""
    return _register(OP_RULES, (name,))


def check_op_table(rows, rules: dict[str, OpRule] = OP_RULES) -> None:
    """Every op-table row names a registered rule: checked when lowering is imported, so a row
    with a misspelt or unimplemented rule stops the program at once instead of being lowered
    by some other rule."""
    bad = [f"{op.name} (rule {op.rule!r})" for op in rows if op.rule not in rules]
    if bad:
        raise RuntimeError("op table rows without an implemented rule: " + ", ".join(bad))
