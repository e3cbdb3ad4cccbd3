"""Parsing: Rust source text -> tree-sitter tree, with syntax errors reported."""

from __future__ import annotations

import re
from functools import lru_cache

import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Tree

from rs2triton.diagnostics import Diagnostic, TranspileError
from rs2triton.transpiler.frontend.source import SourceMap


@lru_cache(maxsize=1)
def parser() -> Parser:
    return Parser(Language(tree_sitter_rust.language()))


def written(node: Node) -> str:
    """The Rust of ``node`` as written, `r#` and all (for what tells a raw identifier from a
    keyword: `let r#match` binds a name, `let match` is rustc's error)."""
    raw = node.text
    return raw.decode("utf-8") if raw is not None else ""


_IDENTIFIERS = frozenset({"identifier", "type_identifier", "field_identifier", "shorthand_field_identifier"})


def text(node: Node) -> str:
    """The Rust of ``node`` as rustc reads its names: a raw identifier is the name it spells
    (`r#twice::<T>(x)` is `twice::<T>(x)`, `struct r#Wrap` is `Wrap`, `self.r#n` is `self.n`),
    for every item kind, path and call form; strings, raw strings and comments are as written.
    Every name the transpiler reads goes through here, so `r#` is handled once."""
    raw = node.text
    if raw is None:
        return ""
    if b"r#" not in raw:
        return raw.decode("utf-8")
    if node.type in _IDENTIFIERS:
        return raw.decode("utf-8").removeprefix("r#")
    out: list[bytes] = []
    at = node.start_byte
    stack = [node]
    while stack:  # (the leaves in source order: a raw identifier is one leaf)
        n = stack.pop()
        if n.type in _IDENTIFIERS:
            if (n.text or b"").startswith(b"r#"):
                out.append(raw[at - node.start_byte:n.start_byte - node.start_byte])
                at = n.start_byte + 2
            continue
        if b"r#" in (n.text or b""):
            stack.extend(reversed(n.children))
    out.append(raw[at - node.start_byte:])
    return b"".join(out).decode("utf-8")


def part(node: Node, field: str) -> Node:
    """The child of ``node`` in ``field``, one the grammar requires (a missing one would be a
    syntax error, reported before lowering)."""
    found = node.child_by_field_name(field)
    if found is None:
        raise ValueError(f"a {node.type} node without its `{field}`")
    return found


def named_children(node: Node) -> list[Node]:
    """Named children without comments."""
    return [c for c in node.named_children if c.type not in ("line_comment", "block_comment")]


_TILE_ATTR = re.compile(rb"#\[\s*tile(?:_loop|_pid_swizzle)?\s*\(")


def blank_tile_attributes(source: bytes) -> bytes:
    """Blank out `#[tile(...)]`-style attributes (same length, newlines kept).

    They annotate `#[tiled_kernel]` parameters, which are not translated, and a
    parameter with two of them is valid Rust that tree-sitter-rust cannot parse.
    Blanking keeps every other byte (and so every diagnostic position) in place.
    """
    if b"tile" not in source:  # (most files: no copy)
        return source
    out = bytearray(source)
    for m in _TILE_ATTR.finditer(source):
        if _in_comment(source, m.start()):  # `#[tile(...)]` written in a (doc) comment is text
            continue
        depth, i = 0, m.start() + 1  # at the `[`
        while i < len(source):
            c = source[i:i + 1]
            if c in (b"[", b"("):
                depth += 1
            elif c in (b"]", b")"):
                depth -= 1
                if depth == 0:
                    break
            i += 1
        for j in range(m.start(), min(i + 1, len(source))):
            if out[j] not in (0x0A, 0x0D):
                out[j] = 0x20
    return bytes(out)


def _in_comment(source: bytes, pos: int) -> bool:
    """Whether ``pos`` is inside a `//` comment (doc comments included) or a `/* */` one."""
    line_start = source.rfind(b"\n", 0, pos) + 1
    if source.find(b"//", line_start, pos) >= 0:
        return True
    return source.rfind(b"/*", 0, pos) > source.rfind(b"*/", 0, pos)


def check_utf8(source: bytes, smap: SourceMap) -> None:
    """Rust source must be UTF-8: report the first bad byte where it is, as rustc does."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TranspileError([smap.offset_diag(
            e.start, "E0010",
            f"stream did not contain valid UTF-8 (byte 0x{source[e.start]:02x} at offset {e.start})",
            "Rust source files are UTF-8; re-save this file as UTF-8")]) from None


# Codepoints that change the visible direction of text ("Trojan Source"): rustc refuses them in
# comments and literals (deny-by-default lints), and anywhere else they are no token at all. Their
# UTF-8 bytes (a class of the str pattern's bytes would match most non-ASCII text: a dash, a `×`).
_BIDI = re.compile(rb"\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]")


def check_bidi(source: bytes, smap: SourceMap) -> None:
    """A codepoint that changes the visible direction of text is an error where it is, as in rustc:
    it can make code read otherwise than it runs."""
    for m in _BIDI.finditer(source):
        char = ord(m.group().decode("utf-8"))
        d = smap.offset_diag(
            m.start(), "E0001", f"unicode codepoint changing visible direction of text present in source: "
            f"U+{char:04X}",
            "these codepoints make text read otherwise than it runs; rustc refuses them (remove it, or "
            f"write it as an escape, `\\u{{{char:x}}}`, in a string)")
        raise TranspileError([d])  # (its line is shown with the codepoint escaped: Diagnostic.render)


def deepest(root: Node) -> tuple[Node, int]:
    """The first of the most deeply nested nodes under ``root``, and its depth (an iterative walk).

    Only run when lowering has run out of Python stack (a RecursionError): deeply nested
    source is then reported there as unsupported (E0002, see driver/pipeline.py), so the
    common case never pays for a walk of the whole tree.
    """
    cursor = root.walk()
    depth, best, best_depth = 1, root, 1
    while True:
        if depth > best_depth and cursor.node is not None:
            best, best_depth = cursor.node, depth
        if cursor.goto_first_child():
            depth += 1
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return best, best_depth
            depth -= 1


def parse(source: bytes, smap: SourceMap, prefix: tuple[Tree, int] | None = None) -> Tree:
    """``source`` parsed (its syntax errors are a TranspileError). ``prefix``: the tree of
    ``source[:n]`` and ``n``, for a file that text was appended to; tree-sitter then parses
    only what the new text changes (incremental parsing) and gives the tree a whole parse would."""
    check_utf8(source, smap)
    if _BIDI.search(source) is not None:
        check_bidi(source, smap)
    blanked = blank_tile_attributes(source)
    if prefix is None:
        tree = parser().parse(blanked)
    else:
        old, n = prefix[0].copy(), prefix[1]
        at = _point(source, n)
        old.edit(n, n, len(source), at, at, _point(source, len(source)))
        tree = parser().parse(blanked, old)
    if tree.root_node.has_error:
        delimiter = _delimiter_error(tree.root_node, smap)  # (rustc's lexer checks these before it parses)
        if delimiter is not None:
            raise TranspileError([delimiter])
        keyword = _keyword_after_let(tree.root_node, bad := first_error(tree.root_node), smap)
        if keyword is not None:
            raise TranspileError([keyword])
        emoji = _emoji_in_identifier(bad, smap)
        if emoji is not None:
            raise TranspileError([emoji])
        operand = _missing_operand(bad, smap)
        if operand is not None:
            raise TranspileError([operand])
        if bad.is_missing:
            msg = f"expected `{bad.type}`"
            hint = f"insert `{bad.type}` here"
        else:
            snippet = text(bad).split("\n")[0][:30]
            prev = _previous_leaf(bad)
            if (prev is not None and prev.end_point[0] < bad.start_point[0]
                    and (text(prev) in (")", "]") or prev.type.endswith(("identifier", "literal")))):
                # A statement that runs into the next line: rustc's "expected `;`, found ...".
                d = smap.diag(prev, "E0001", f"expected `;`, found `{snippet.split()[0]}`",
                              "add `;` at the end of this line")
                col = d.col + d.length
                raise TranspileError([type(d)(d.code, d.message, d.path, d.line, col, 1, d.hint, d.source_line)])
            msg = f"syntax error near `{snippet}`" if snippet else "syntax error"
            hint = "this is not valid Rust; check for a missing `;`, `)` or `}` just before it"
        raise TranspileError([smap.diag(bad, "E0001", msg, hint)])
    dangling = _dangling_attribute(tree.root_node)
    if dangling is not None:
        raise TranspileError([smap.diag(dangling, "E0001", "expected item after attributes",
                                        "an attribute such as `#[kernel]` goes on the item that follows it")])
    return tree


def _dangling_attribute(root: Node) -> Node | None:
    """The outer attribute that ends the file with no item after it (`#[kernel]` alone: rustc's
    "expected item after attributes" at it), if one does; tree-sitter parses it as an item."""
    last = next((c for c in reversed(root.named_children) if c.type not in ("line_comment", "block_comment")), None)
    return last if last is not None and last.type == "attribute_item" else None  # (rustc points at the last)


_OPENS = {"(": ")", "[": "]", "{": "}"}
_CLOSES = frozenset(_OPENS.values())


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """The (row, byte column) of a byte offset, as tree-sitter counts them."""
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def _delimiter_error(root: Node, smap: SourceMap) -> Diagnostic | None:
    """rustc's first delimiter error, if the file's brackets do not pair up (a closing one that
    closes nothing or another kind, or one left open), at the token rustc names; None if they do.
    Delimiters inside literals and comments are no tokens of their own, so they are not seen."""
    stack: list[Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        assert node is not None
        if node.child_count == 0 and not node.is_missing:
            kind = node.type
            if kind in _OPENS:
                stack.append(node)
            elif kind in _CLOSES:
                if not stack:
                    return smap.diag(node, "E0001", f"unexpected closing delimiter: `{kind}`",
                                     "remove it, or open what it closes")
                if _OPENS[stack[-1].type] != kind:
                    opened = stack[-1]
                    return smap.diag(node, "E0001", f"mismatched closing delimiter: `{kind}`",
                                     f"the `{opened.type}` at line {opened.start_point[0] + 1} is unclosed")
                stack.pop()
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                if stack:
                    return smap.diag(stack[-1], "E0001", "this file contains an unclosed delimiter",
                                     f"close this `{stack[-1].type}`")
                return None


_KEYWORDS = frozenset("""as async await break const continue crate dyn else enum extern false fn for if impl in let
loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while""".split())


def _keyword_after_let(root: Node, bad: Node, smap: SourceMap) -> Diagnostic | None:
    """rustc's "expected identifier, found keyword" for a `let` that binds a keyword, which
    tree-sitter may read as something else (`let async = 1;` as an async block): the first such
    `let` at or before the line tree-sitter stopped at, at the keyword; None if there is none."""
    cursor = root.walk()
    previous: Node | None = None
    while True:
        node = cursor.node
        assert node is not None
        if node.child_count == 0 and not node.is_missing:
            if node.start_point[0] > bad.start_point[0]:
                return None
            word = written(node)
            if previous is not None and previous.type == "let" and word in _KEYWORDS and node.type in ("identifier", word):
                return smap.diag(node, "E0001", f"expected identifier, found keyword `{word}`",
                                 f"write `r#{word}`, or choose another name")
            previous = node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return None


def _emoji_in_identifier(bad: Node, smap: SourceMap) -> Diagnostic | None:
    """rustc's "identifiers cannot contain emoji" where tree-sitter stopped at an emoji that
    continues an identifier (`let a😀 = 1;`), at the identifier; None otherwise."""
    import unicodedata

    leaf = _previous_leaf(bad)
    rest = text(bad)
    if leaf is None or leaf.end_byte != bad.start_byte or not leaf.type.endswith("identifier") or not rest:
        return None
    run = ""
    for ch in rest:
        if unicodedata.category(ch) == "So" or ch in "\u200d\ufe0f" or ch.isidentifier() or ch.isdigit():
            run += ch
        else:
            break
    if not run or unicodedata.category(run[0]) != "So":
        return None
    return smap.diag(leaf, "E0001", f"identifiers cannot contain emoji: `{text(leaf)}{run}`",
                     "use letters, digits and `_` in names")


def first_error(node: Node) -> Node:
    """The innermost, earliest error or missing node (iterative: error trees may be deep)."""
    found = node
    while True:
        for child in found.children:
            if child.is_missing or child.type == "ERROR":
                if not (child.has_error and child.child_count):
                    return child
                found = child
                break
            if child.has_error:
                found = child
                break
        else:
            return found


# What may stand before an operand, and what closes where one was due (rustc's "expected
# expression, found `;`").
_TAKES_OPERAND = frozenset({"=", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "&&", "||", "==", "!=", "<",
                            ">", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "!"})
_CLOSES_BEFORE_OPERAND = frozenset({";", ")", "]", "}", ","})


def _missing_operand(bad: Node, smap: SourceMap) -> Diagnostic | None:
    """rustc's "expected expression, found `;`" at the token found, where an operator (or a
    `let`'s `=`) is followed by a closing token with no operand between (`1 +;`, `(1 + )`,
    `let y = ;`); tree-sitter reports those as a missing identifier or an error node ending in
    the operator. None for any other error."""
    if bad.is_missing:
        if bad.type != "identifier":
            return None
        before = _previous_leaf(bad)
    else:
        before = bad
        while before.child_count:
            before = before.children[-1]
    after = _next_leaf(bad)
    if before is None or after is None or text(before) not in _TAKES_OPERAND \
            or text(after) not in _CLOSES_BEFORE_OPERAND:
        return None
    return smap.diag(after, "E0001", f"expected expression, found `{text(after)}`",
                     f"write the operand of `{text(before)}` before this `{text(after)}`")


def _next_leaf(node: Node) -> Node | None:
    cur: Node | None = node
    while cur is not None and cur.next_sibling is None:
        cur = cur.parent
    if cur is None:
        return None
    leaf = cur.next_sibling
    while leaf is not None and leaf.child_count:
        leaf = leaf.children[0]
    return leaf


def _previous_leaf(node: Node) -> Node | None:
    cur: Node | None = node
    while cur is not None and cur.prev_sibling is None:
        cur = cur.parent
    if cur is None:
        return None
    leaf = cur.prev_sibling
    while leaf is not None and leaf.child_count:
        leaf = leaf.children[-1]
    return leaf
