"""What the host lowering's modules share: the error for constructs outside the subset, the
bindings, the file's names, and the sinks control flow lowers into."""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import parser
from rs2triton.transpiler.host.types import HTy
from rs2triton.transpiler.pyast import name, python_name

# Python names a host local must not take: keywords, builtins the generated code calls, and
# the names generated modules import.
RESERVED = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {
    "math", "triton", "tl", "self", "cls", "visitor", "ArgVisitor", "RuntimeOp", "Launcher", "Unsupported"}


class HostUnsupported(Exception):
    """A construct outside the host subset: where, and what."""

    def __init__(self, node: Node | None, what: str):
        super().__init__(what)
        self.node = node
        self.what = what


@dataclass(slots=True)
class Local:
    """A Rust binding: its Python name, or the expression it stands for (``s`` of ``|(_, s)|``
    is ``t.shape``), and its type."""

    py: str | None
    ty: HTy
    expr: ast.expr | None = None

    def load(self) -> ast.expr:
        return self.expr if self.expr is not None else name(self.py or "_")


Sink = Callable[[ast.expr, HTy], list[ast.stmt]]


@dataclass
class HostModule:
    """What the host code of one file can refer to: its kernels (launcher name -> const generics
    with their Rust types), wrapper structs (name -> field types), module constants."""

    kernels: dict[str, dict[str, str]] = field(default_factory=dict)
    kernel_dtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    kernel_backward: dict[str, str] = field(default_factory=dict)
    features: frozenset[str] = frozenset()
    structs: dict[str, dict[str, HTy]] = field(default_factory=dict)
    consts: dict[str, tuple[ast.expr, HTy]] = field(default_factory=dict)
    used_consts: set[str] = field(default_factory=set)
    helpers: set[str] = field(default_factory=set)  # names imported from rs2triton.runtime.host
    modules: set[str] = field(default_factory=set)  # `math`, `triton`
    taken: set[str] = field(default_factory=set)  # module-level names (launchers, classes, jit fns)
    # A wrapper struct's fields whose names its class's methods have (`backward_kernel`): struct
    # -> field -> the attribute that holds it instead
    field_attrs: dict[str, dict[str, str]] = field(default_factory=dict)
    # A wrapper struct's `String` fields that its `new` gives a kernel's source: struct -> field -> kernel
    source_fields: dict[str, dict[str, str]] = field(default_factory=dict)

    def field_attr(self, struct: str, field_name: str) -> str:
        """The attribute of ``struct``'s class that holds the Rust field ``field_name``."""
        return self.field_attrs.get(struct, {}).get(field_name) or python_name(field_name)


def discard(expr: ast.expr, ty: HTy) -> list[ast.stmt]:
    """A value not used: a call stays (for what it does), anything else goes."""
    if isinstance(expr, ast.Call):
        return [ast.Expr(value=expr)]
    return []


def returning(expr: ast.expr, ty: HTy) -> list[ast.stmt]:
    return [ast.Return(value=expr)]


def sink_end(sink: Sink) -> list[ast.stmt]:
    """A block without a tail value: unit, which only a `return` sink says anything about."""
    if sink is returning:
        return []
    return []


def reparse(source: str, wrap: str) -> Node:
    """Tokens of a macro's arguments parsed as Rust: ``wrap`` puts them where an expression list
    is expected (``f({})``, ``[{}]``); the node of that expression."""
    tree = parser().parse(("fn __rs2triton() { " + wrap.format(source) + "; }").encode())
    body = tree.root_node.named_children[0].child_by_field_name("body")
    assert body is not None
    stmt = body.named_children[0]
    node = stmt.named_children[0] if stmt.type == "expression_statement" else stmt
    if tree.root_node.has_error:
        raise HostUnsupported(None, "macro arguments that do not parse as expressions")
    return node
