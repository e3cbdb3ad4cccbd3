"""Statements both targets lower alike: items and attributes that are no statement (`use`, `;`,
an attribute). A target's own statements are its rules: :mod:`.kernel.statements` (`let`,
assignments, `return;`, nested blocks and fn items, `if` for Triton), :mod:`.host.statements`."""

from __future__ import annotations

from tree_sitter import Node

from rs2triton.transpiler.lowering.lowerer import Lowerer
from rs2triton.transpiler.lowering.registry import statement


@statement("use_declaration", "empty_statement", "attribute_item")
def nothing(lw: Lowerer, node: Node) -> None:
    return None
