"""Parsing: Rust source text -> tree-sitter tree, with syntax errors reported."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Tree

from .diagnostics import SourceMap, TranspileError


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_rust.language()))


def text(node: Node) -> str:
    return node.text.decode("utf-8")


def named_children(node: Node) -> list[Node]:
    """Named children without comments."""
    return [c for c in node.named_children if c.type not in ("line_comment", "block_comment")]


def parse(source: bytes, smap: SourceMap) -> Tree:
    tree = _parser().parse(source)
    if tree.root_node.has_error:
        bad = _first_error(tree.root_node)
        if bad.is_missing:
            msg = f"expected `{bad.type}`"
            hint = f"insert `{bad.type}` here"
        else:
            snippet = text(bad).split("\n")[0][:30]
            msg = f"syntax error near `{snippet}`" if snippet else "syntax error"
            hint = "this is not valid Rust; check for a missing `;`, `)` or `}` just before it"
        raise TranspileError([smap.diag(bad, "E0001", msg, hint)])
    return tree


def _first_error(node: Node) -> Node:
    for child in node.children:
        if child.is_missing or child.type == "ERROR":
            # Prefer the innermost, earliest problem.
            inner = _first_error(child) if child.has_error and child.child_count else None
            return inner or child
        if child.has_error:
            return _first_error(child)
    return node
