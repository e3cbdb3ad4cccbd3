"""Which function lowers which tree-sitter node kind, for each target.

Lowering has two targets, as Triton's one ``semantic`` has a compiler and an interpreter
builder: a ``#[kernel]`` fn (and the ``@triton.jit`` helpers it calls) becomes Triton; host
code (``impl RuntimeOp``, ``new``, the methods of the structs around kernels) becomes plain
Python with Rust's meaning. A rule is registered for the node kinds it lowers and the
targets it serves: a literal, a name, a path, an operator or a cast is lowered by one rule for
both (``@expression("binary_expression")``), what only one target has by a rule of that target
(``@statement("match_expression", target=HOST)``). A kind registered twice for a target stops
the import: one rule per node kind and target.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Target(enum.Enum):
    """What a function is lowered to."""

    KERNEL = "kernel"  # Triton: a `@triton.jit` function
    HOST = "host"  # Python with Rust's meaning: a method of an op's class

    __hash__ = object.__hash__


KERNEL, HOST = Target.KERNEL, Target.HOST
BOTH = (KERNEL, HOST)

# {target: {node kind: rule(lowerer, node) -> Val}} and the same for statements (-> None)
EXPRESSIONS: dict[Target, dict[str, Callable[..., Any]]] = {t: {} for t in Target}
STATEMENTS: dict[Target, dict[str, Callable[..., Any]]] = {t: {} for t in Target}


def _register(tables: dict[Target, dict[str, Any]], kinds: tuple[str, ...],
              targets: Target | tuple[Target, ...]) -> Callable[[F], F]:
    def decorate(rule: F) -> F:
        for target in (targets,) if isinstance(targets, Target) else targets:
            table = tables[target]
            for kind in kinds:
                if kind in table:
                    raise RuntimeError(f"two {target.value} lowering rules for `{kind}` nodes: "
                                       f"{table[kind].__qualname__} and {rule.__qualname__}")
                table[kind] = rule
        return rule
    return decorate


def expression(*kinds: str, target: Target | tuple[Target, ...] = BOTH) -> Callable[[F], F]:
    """Register the rule that lowers these node kinds in expression position (for both targets
    unless ``target`` says which)."""
    return _register(EXPRESSIONS, kinds, target)


def statement(*kinds: str, target: Target | tuple[Target, ...] = BOTH) -> Callable[[F], F]:
    """Register the rule that lowers these node kinds in statement position."""
    return _register(STATEMENTS, kinds, target)


# {target: its builder}: the object that writes the Python for what the shared rules decide (an
# operator's arithmetic, a cast, a value wrapped to its type) and says what names, paths and fields
# mean for that target; registered by the target's own module (kernel/builder.py, host/builder.py).
BUILDERS: dict[Target, Any] = {}


def builder(target: Target) -> Callable[[type], type]:
    """Register an instance of the decorated class as ``target``'s builder."""
    def decorate(cls: type) -> type:
        if target in BUILDERS:
            raise RuntimeError(f"two builders for the {target.value} target")
        BUILDERS[target] = cls()
        return cls
    return decorate


OpRule = Callable[..., Any]  # (lowerer, op row, argument nodes, turbofish nodes, call node) -> Val
OP_RULES: dict[str, OpRule] = {}


def op_rule(name: str) -> Callable[[F], F]:
    """Register the function that builds the calls of the op-table rows naming rule ``name``."""
    def decorate(rule: F) -> F:
        if name in OP_RULES:
            raise RuntimeError(f"two rules for op-table rule `{name}`: {OP_RULES[name].__qualname__} and "
                               f"{rule.__qualname__}")
        OP_RULES[name] = rule
        return rule
    return decorate


def check_op_table(rows: Iterable[Any], rules: dict[str, OpRule] = OP_RULES) -> None:
    """Every op-table row names a registered rule: checked when lowering is imported, so a row
    with a misspelt or unimplemented rule stops the program at once instead of being lowered
    by some other rule."""
    bad = [f"{op.name} (rule {op.rule!r})" for op in rows if op.rule not in rules]
    if bad:
        raise RuntimeError("op table rows without an implemented rule: " + ", ".join(bad))
