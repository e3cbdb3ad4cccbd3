"""A Rust type as written, read once (issue 34): what a type annotation, a parameter's type or a
field's type says, as a small tree (:class:`TypeRef`) that each reader interprets for its own end
(a kernel parameter: frontend/items.py; a kernel `let`'s element type and a DSL type in a condition:
lowering; host code's values: lowering/host/lowerer.rust_type). Only the syntax is read here: no
meaning is given to a name."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from rs2triton.rust.types import SCALARS
from rs2triton.transpiler.frontend.parse import named_children, text


@dataclass(frozen=True)
class TypeRef:
    """``kind``: the tree-sitter node kind (``primitive_type``, ``generic_type``, ``reference_type``,
    ``array_type``, ``tuple_type``, ...); ``head``: the type's path without its generic arguments
    and spaces (``i32``, ``T::Pointer``, ``Vec``; ``&``, ``*``, ``[]``, ``()`` for references,
    pointers, arrays and slices, tuples); ``args``: its generic arguments (lifetimes left out), a
    reference's or pointer's type, an array's element, a tuple's items; ``length``: an array's
    length as written (None: a slice); ``node``: where; :attr:`source`: its text, spaces removed."""

    kind: str
    head: str
    args: tuple[TypeRef, ...]
    node: Node
    length: str | None = None

    @cached_property
    def source(self) -> str:
        return text(self.node).replace(" ", "")

    @property
    def scalar(self) -> str | None:
        """The Rust scalar type it is (``i32``), if it is one."""
        return self.head if not self.args and self.head in SCALARS else None

    def generic(self, head: str) -> TypeRef | None:
        """Its one generic argument where it is ``head<X>`` (``T::Tensor<f32>``: ``f32``)."""
        return self.args[0] if self.kind == "generic_type" and self.head == head and len(self.args) == 1 else None


def read_type(node: Node) -> TypeRef:
    """The type ``node`` (a type node of tree-sitter-rust) writes."""
    kind = node.type
    if kind == "generic_type":
        base = node.child_by_field_name("type")
        arguments = node.child_by_field_name("type_arguments")
        args = tuple(read_type(c) for c in (named_children(arguments) if arguments is not None else [])
                     if c.type != "lifetime")
        return TypeRef(kind, text(base or node).replace(" ", ""), args, node)
    if kind in ("reference_type", "pointer_type"):
        inner = node.child_by_field_name("type")
        return TypeRef(kind, "&" if kind == "reference_type" else "*", (read_type(inner),) if inner else (), node)
    if kind == "array_type":
        element = node.child_by_field_name("element")
        length = node.child_by_field_name("length")
        return TypeRef(kind, "[]", (read_type(element),) if element else (), node,
                       text(length) if length is not None else None)
    if kind in ("tuple_type", "unit_type"):
        return TypeRef(kind, "()", tuple(read_type(c) for c in named_children(node)), node)
    return TypeRef(kind, text(node).replace(" ", ""), (), node)
