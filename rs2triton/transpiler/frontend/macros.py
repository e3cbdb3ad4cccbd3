"""Declarative macros (``macro_rules!``) of a file, expanded where the file invokes them as items.

teenygrad writes most of its host logic with macros in the kernel file itself
(``impl_float_unary_runtime_op!(ElemwiseExpForward);``), so the items a macro writes are
found by expanding it as rustc would: the first rule whose matcher matches the invocation's
tokens is transcribed, its metavariables replaced by the tokens they matched, and the text
is parsed again as items.

Matching works on tree-sitter's token trees. The fragment kinds are the ones a macro that
writes items needs: ``ident``, ``lifetime``, ``literal``, ``tt``, ``block`` (one token or
tree) and ``expr``, ``ty``, ``path``, ``pat`` (tokens up to the next `,`, `;` or `=>` of
their level, which is where Rust's follow-set rules stop them), with ``$(...) sep *``, ``+``
and ``?`` repetitions, nested. Any other kind, or an invocation no rule matches, is a
:class:`MacroError` that the caller reports at the invocation.

The expansion keeps the layout and comments of the macro body (doc comments in it document
the items it writes), so the expanded text reads like the source it stands for. Each byte of it
keeps where it came from in the file (``Expansion.origins``: the macro body, or the tokens of the
invocation a fragment matched), so what is reported about it can point there. An expansion
that invokes the file's macros as items (at its top level, in a `mod` or an `impl` block) has
them expanded in turn, as rustc does (up to rustc's recursion limit).

Kernels are items a macro may write too: :func:`append_macro_kernels` appends the kernels (and
the plain fns and consts beside them) that the file's item-level invocations write to the
file's text, past its end, where the lowering finds them as any others; the file's own bytes do
not move, and the source map reports what is there at the place it came from.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tree_sitter import Node, Tree

from rs2triton.diagnostics import Diagnostic
from rs2triton.transpiler.frontend.parse import first_error, named_children, parser, text, written
from rs2triton.transpiler.frontend.source import SourceMap

if TYPE_CHECKING:
    import ast

    from rs2triton.transpiler.frontend.items import HostItem

_ONE_TOKEN = {"ident", "lifetime", "literal", "tt", "block", "vis"}
_UP_TO_SEPARATOR = {"expr", "ty", "path", "pat", "pat_param", "stmt", "item", "meta"}
_STOP = {",", ";", "=>"}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_LITERALS = {"integer_literal", "float_literal", "string_literal", "raw_string_literal", "char_literal",
             "boolean_literal", "true", "false"}


RECURSION_LIMIT = 128  # rustc's default `recursion_limit`


class MacroError(Exception):
    """An invocation that cannot be expanded; the message says why (for a located warning)."""


class MacroSyntaxError(MacroError):
    """An expansion that is not valid Rust, which rustc rejects: ``offset`` is where in the file
    the first bad token came from (the macro body, or the invocation), if it came from it."""

    def __init__(self, message: str, offset: int | None):
        super().__init__(message)
        self.offset = offset


@dataclass(slots=True)
class Text:
    """Bytes and where they came from in the file: ``segs`` are (start, end, file offset of
    start), sorted and disjoint; bytes outside every segment (a repetition's separator) came
    from nowhere in it."""

    data: bytes
    segs: list[tuple[int, int, int]] = field(default_factory=list)

    @staticmethod
    def of(source: bytes, start: int = 0, end: int | None = None) -> Text:
        """``source[start:end]``, a slice of the file itself."""
        end = len(source) if end is None else end
        return Text(source[start:end], [(0, end - start, start)] if end > start else [])

    def slice(self, start: int, end: int) -> Text:
        segs = [(max(a, start) - start, min(b, end) - start, o + max(0, start - a))
                for a, b, o in self.segs if a < end and b > start]
        return Text(self.data[start:end], segs)

    @staticmethod
    def join(parts: list[Text]) -> Text:
        """The parts one after another; a segment that goes on where the one before it ends (in the
        text and in the file) is merged into it, so that copied runs stay one segment."""
        data: list[bytes] = []
        segs: list[tuple[int, int, int]] = []
        at = 0
        for p in parts:
            data.append(p.data)
            for a, b, o in p.segs:
                if segs and segs[-1][1] == a + at and segs[-1][2] + segs[-1][1] - segs[-1][0] == o:
                    segs[-1] = (segs[-1][0], b + at, segs[-1][2])
                else:
                    segs.append((a + at, b + at, o))
            at += len(p.data)
        return Text(b"".join(data), segs)

    def origin(self, offset: int) -> int | None:
        """The file offset the byte at ``offset`` came from (the nearest one that came from somewhere)."""
        if not self.segs:
            return None
        i = bisect.bisect_right(self.segs, (offset, float("inf"), 0)) - 1
        if i < 0:
            return self.segs[0][2]
        a, b, o = self.segs[i]
        return o + (offset - a) if offset < b else o + max(0, b - a - 1)


@dataclass(slots=True)
class Fragment:
    """Tokens a metavariable matched: their text, with where it came from."""

    source: Text

    @property
    def text(self) -> str:
        return self.source.data.decode()


Binding = Fragment | list["Bindings"]
Bindings = dict[str, Binding]


@dataclass(slots=True)
class Expansion:
    """A macro invocation expanded: the items' source text, parsed, and where each of its bytes
    came from in the file (see :class:`Text`)."""

    macro: str
    invocation: Node
    source: bytes
    tree: Tree
    origins: list[tuple[int, int, int]] = field(default_factory=list)


def _tokens(tree: Node) -> list[Node]:
    """The tokens between a token tree's delimiters (nested trees are single tokens); comments
    are not tokens."""
    children = tree.children
    inner = children[1:-1] if children and children[0].type in _OPEN else children
    return [c for c in inner if c.type not in ("line_comment", "block_comment")]


def _delimiter(tree: Node) -> str:
    return tree.children[0].type if tree.children else ""


@dataclass(slots=True)
class _Rule:
    matcher: Node
    transcriber: Node


def rules_of(definition: Node) -> list[_Rule]:
    """The rules of a ``macro_rules!`` definition, in order."""
    rules = []
    for rule in named_children(definition):
        left, right = rule.child_by_field_name("left"), rule.child_by_field_name("right")
        if rule.type == "macro_rule" and left is not None and right is not None:
            rules.append(_Rule(left, right))
    return rules


def _separator_and_op(rep: Node) -> tuple[str, str]:
    """A repetition's separator (maybe empty) and operator (`*`, `+`, `?`): tree-sitter keeps the
    separator out of the tree, so it is the text between the closing `)` and the operator."""
    close = next(c for c in reversed(rep.children) if c.type == ")")
    op = rep.children[-1]
    src = rep.text or b""
    start = close.end_byte - rep.start_byte
    end = op.start_byte - rep.start_byte
    return src[start:end].decode().strip(), op.type


class _Matcher:
    def __init__(self, source: Text):
        self.source = source  # the text the invocation is in (the file, or an expansion)

    def span(self, tokens: list[Node]) -> Text:
        return self.source.slice(tokens[0].start_byte, tokens[-1].end_byte)

    def match(self, pattern: list[Node], tokens: list[Node], pos: int, out: Bindings) -> int | None:
        """Match ``pattern`` against ``tokens`` from ``pos``: the position after the match, or None."""
        for p in pattern:
            if p.type == "token_binding_pattern":
                pos_or_none = self.fragment(p, tokens, pos, out)
                if pos_or_none is None:
                    return None
                pos = pos_or_none
            elif p.type == "token_repetition_pattern":
                pos_or_none = self.repetition(p, tokens, pos, out)
                if pos_or_none is None:
                    return None
                pos = pos_or_none
            elif p.type == "token_tree_pattern":
                if pos >= len(tokens) or tokens[pos].type != "token_tree" \
                        or _delimiter(tokens[pos]) != _delimiter(p):
                    return None
                inner = self.match(_tokens(p), _tokens(tokens[pos]), 0, out)
                if inner is None or inner != len(_tokens(tokens[pos])):
                    return None
                pos += 1
            else:  # a literal token (`r#foo` is not `foo` to macro_rules: rawness counts)
                if pos >= len(tokens) or written(tokens[pos]) != written(p):
                    return None
                pos += 1
        return pos

    def fragment(self, p: Node, tokens: list[Node], pos: int, out: Bindings) -> int | None:
        name = text(p.child_by_field_name("name") or p.children[0]).removeprefix("$")
        spec = p.child_by_field_name("type")
        kind = text(spec) if spec is not None else ""
        if pos >= len(tokens):
            return None
        tok = tokens[pos]
        if kind in _ONE_TOKEN:
            ok = {"ident": tok.type in ("identifier", "primitive_type", "self") or text(tok).isidentifier(),
                  "lifetime": tok.type == "lifetime" or text(tok).startswith("'"),
                  "literal": tok.type in _LITERALS,
                  "block": tok.type == "token_tree" and _delimiter(tok) == "{",
                  "tt": True, "vis": text(tok) == "pub"}[kind]
            if not ok:
                return None
            out[name] = Fragment(self.span([tok]))
            return pos + 1
        if kind not in _UP_TO_SEPARATOR:
            raise MacroError(f"macro fragments of kind `{kind}` are not supported")
        end = pos
        while end < len(tokens) and text(tokens[end]) not in _STOP:
            end += 1
        if end == pos:
            return None
        out[name] = Fragment(self.span(tokens[pos:end]))
        return end

    def repetition(self, p: Node, tokens: list[Node], pos: int, out: Bindings) -> int | None:
        sep, op = _separator_and_op(p)
        close = max(i for i, x in enumerate(p.children) if x.type == ")")
        body = [c for c in p.children[2:close] if c.type not in ("line_comment", "block_comment")]
        names = _pattern_names(body)
        rounds: list[Bindings] = []
        while True:
            start = pos
            if rounds and sep:
                if pos >= len(tokens) or text(tokens[pos]) != sep:
                    break
                start = pos + 1
            got: Bindings = {}
            end = self.match(body, tokens, start, got)
            if end is None or end == start:
                break
            rounds.append(got)
            pos = end
            if op == "?":
                break
        if op == "+" and not rounds:
            return None
        for n in names:
            out[n] = rounds
        return pos


def _pattern_names(pattern: list[Node]) -> list[str]:
    names: list[str] = []
    for p in pattern:
        if p.type == "token_binding_pattern":
            names.append(text(p.child_by_field_name("name") or p.children[0]).removeprefix("$"))
        elif p.type in ("token_repetition_pattern", "token_tree_pattern"):
            names += _pattern_names(list(p.children))
    return names


def _render(nodes: list[Node], source: bytes, bindings: Bindings, macro: str) -> Text:
    """Sibling tokens of a transcriber, transcribed, with the gaps between them (whitespace,
    comments) kept as written."""
    if not nodes:
        return Text(b"")
    out: list[Text] = []
    prev = nodes[0].start_byte  # where the text not yet transcribed starts
    for c in nodes:
        if source.find(b"$", c.start_byte, c.end_byte) < 0:
            continue  # (no metavariable or repetition in it: copied as it is, with the gap before it)
        out.append(Text.of(source, prev, c.start_byte))
        out.append(_transcribe_one(c, source, bindings, macro))
        prev = c.end_byte
    out.append(Text.of(source, prev, nodes[-1].end_byte))
    return Text.join(out)


def _transcribe_one(c: Node, source: bytes, bindings: Bindings, macro: str) -> Text:
    if c.type == "metavariable":
        name = text(c).removeprefix("$")
        if name == "crate":
            return Text(b"crate", [(0, 5, c.start_byte)])
        bound = bindings.get(name)
        if bound is None:  # not a metavariable of this rule: Rust rejects it; left for the parser
            return Text.of(source, c.start_byte, c.end_byte)
        if not isinstance(bound, Fragment):
            raise MacroError(f"`${name}` is still repeating at this depth in `{macro}!`")
        return bound.source
    if c.type == "token_repetition":
        sep, _op = _separator_and_op(c)
        close = max(i for i, x in enumerate(c.children) if x.type == ")")
        body = c.children[2:close]  # between `$(` and `)`
        repeated = [n for n in dict.fromkeys(_metavariables(body)) if isinstance(bindings.get(n), list)]
        if not repeated:
            raise MacroError(f"a repetition in `{macro}!` uses no repeating metavariable")
        counts = {len(r) for n in repeated if isinstance(r := bindings[n], list)}
        if len(counts) != 1:
            raise MacroError(f"metavariables repeat different numbers of times in `{macro}!`")
        parts: list[Text] = []
        between = Text((sep + " " if sep == "," else sep).encode())
        for i in range(counts.pop()):
            inner: Bindings = dict(bindings)
            for n in repeated:
                rounds = bindings[n]
                assert isinstance(rounds, list)
                inner.update(rounds[i])
            parts += [between, _render(body, source, inner, macro)] if parts else [_render(body, source, inner, macro)]
        return Text.join(parts)
    if c.type == "token_tree":
        return _render(c.children, source, bindings, macro)
    return Text.of(source, c.start_byte, c.end_byte)


def _metavariables(nodes: list[Node]) -> list[str]:
    names: list[str] = []
    for n in nodes:
        if n.type == "metavariable":
            names.append(text(n).removeprefix("$"))
        else:
            names += _metavariables(list(n.children))
    return names


_EXPANSIONS: dict[tuple[bytes, bytes, int, int], Expansion] = {}


def expand(definition: Node, invocation: Node, file_source: bytes, within: Text | None = None,
           depth: int = 0, macros: dict[str, Node] | None = None) -> Expansion:
    """Expand one item-level invocation of the ``macro_rules!`` ``definition`` (both nodes of the
    file whose bytes are ``file_source``; ``within``: the expansion the invocation is in, if it is
    in one): the first rule that matches, transcribed and parsed, with the file's macros it
    invokes as items expanded in turn. An invocation of the file is expanded once a process,
    however many stages ask (the expansion is a function of the two texts and where they are).
    ``macros``: the file's (:func:`file_macros`), which a caller expanding many invocations finds
    once: found again for each, they made expansion quadratic in the file's size."""
    if macros is None:
        macros = file_macros(root_of(definition))
    if within is not None or depth:
        return _expand(definition, invocation, file_source, macros, within, depth)
    key = (definition.text or b"", invocation.text or b"", definition.start_byte, invocation.start_byte)
    found = _EXPANSIONS.get(key)
    if found is None:
        if len(_EXPANSIONS) > 256:
            _EXPANSIONS.clear()
        found = _EXPANSIONS[key] = _expand(definition, invocation, file_source, macros, within, depth)
    return found


def _expand(definition: Node, invocation: Node, file_source: bytes, macros: dict[str, Node],
            within: Text | None = None, depth: int = 0) -> Expansion:
    name = text(definition.child_by_field_name("name") or definition)
    args = next((c for c in invocation.children if c.type == "token_tree"), None)
    if args is None:
        raise MacroError(f"`{name}!` is invoked without arguments")
    tokens = _tokens(args)
    m = _Matcher(within if within is not None else Text.of(file_source))
    for rule in rules_of(definition):
        bindings: Bindings = {}
        end = m.match(_tokens(rule.matcher), tokens, 0, bindings)
        if end is not None and end == len(tokens):
            children = rule.transcriber.children
            body, tree = _expand_nested(_render(children[1:-1], file_source, bindings, name), macros,
                                        file_source, name, depth)
            if tree.root_node.has_error:
                bad = first_error(tree.root_node)
                near = (bad.text or b"").decode("utf-8", "replace").split("\n")[0][:30]
                what = f"expected `{bad.type}`" if bad.is_missing else f"syntax error near `{near}`"
                raise MacroSyntaxError(f"this expansion of `{name}!` is not valid Rust: {what}",
                                       body.origin(bad.start_byte))
            return Expansion(name, invocation, body.data, tree, body.segs)
    raise MacroError(f"no rule of `{name}!` matches this invocation")


def _expand_nested(body: Text, macros: dict[str, Node], file_source: bytes, name: str,
                   depth: int) -> tuple[Text, Tree]:
    """``body``, the transcription of ``name!``, with the file's macros (``macros``) it invokes as
    items expanded, and that text parsed."""
    tree = parser().parse(body.data)
    found = [(inv, span) for inv, span, _ in item_invocations(tree.root_node)
             if _macro_name(inv) in macros] if macros else []
    if not found:
        return body, tree
    if depth + 1 >= RECURSION_LIMIT:
        raise MacroError(f"recursion limit reached while expanding `{_macro_name(found[0][0])}!` (from `{name}!`)")
    parts, at = [], 0
    for inv, (start, end) in found:
        inner = expand(macros[_macro_name(inv)], inv, file_source, body, depth + 1, macros)
        parts += [body.slice(at, start), Text(inner.source, inner.origins)]
        at = end
    expanded = Text.join([*parts, body.slice(at, len(body.data))])
    return expanded, parser().parse(expanded.data)


def root_of(node: Node) -> Node:
    """The root of ``node``'s tree."""
    while node.parent is not None:
        node = node.parent
    return node


def _macro_name(invocation: Node) -> str:
    return text(invocation.child_by_field_name("macro") or invocation).split("::")[-1]


def file_macros(root: Node) -> dict[str, Node]:
    """The ``macro_rules!`` definitions of a file (in its modules too), by name."""
    out: dict[str, Node] = {}
    stack = [root]
    while stack:
        for c in stack.pop().named_children:
            name = c.child_by_field_name("name") if c.type == "macro_definition" else None
            body = c.child_by_field_name("body") if c.type == "mod_item" else None
            if name is not None:
                out.setdefault(text(name), c)
            elif body is not None:
                stack.append(body)
    return out


def item_invocations(root: Node, impls: bool = True) -> list[tuple[Node, tuple[int, int], bool]]:
    """Each macro invocation in item position under ``root`` (at its top level, in a `mod`, and,
    with ``impls``, in an `impl` block), in order: (the invocation, the byte span it and its `;`
    take, whether it is in an `impl` block)."""
    out: list[tuple[Node, tuple[int, int], bool]] = []

    def walk(container: Node, in_impl: bool) -> None:
        children = container.children
        for i, c in enumerate(children):
            inv = c if c.type == "macro_invocation" else (
                c.named_children[0] if c.type == "expression_statement" and c.named_children
                and c.named_children[0].type == "macro_invocation" else None)
            if inv is not None:
                end = c.end_byte
                after = children[i + 1] if i + 1 < len(children) else None
                if after is not None and after.type in (";", "empty_statement"):
                    end = after.end_byte
                out.append((inv, (c.start_byte, end), in_impl))
                continue
            body = c.child_by_field_name("body") if c.type in ("mod_item", "impl_item") else None
            if body is not None and (c.type == "mod_item" or impls):
                walk(body, c.type == "impl_item")

    walk(root, False)
    return out


# ---------------------------------------------------------------------- kernels written by macros


def _is_kernel_attr(attr_item: Node) -> bool:
    attr = next((c for c in attr_item.named_children if c.type == "attribute"), None)
    path = attr.named_children[0] if attr is not None and attr.named_children else None
    return path is not None and text(path).split("::")[-1] in ("kernel", "tiled_kernel")


def _written_items(tree: Tree) -> tuple[list[tuple[int, int]], bool]:
    """The byte spans of the fns and consts at an expansion's top level (each with the attributes
    and comments just above it), and whether one of them is a kernel."""
    spans: list[tuple[int, int]] = []
    kernel = False
    first: Node | None = None  # the first attribute or comment of the run above the next item
    attrs: list[Node] = []
    for c in tree.root_node.named_children:
        if c.type in ("attribute_item", "line_comment", "block_comment"):
            first = first or c
            attrs += [c] if c.type == "attribute_item" else []
            continue
        if c.type in ("function_item", "const_item") and not c.has_error:
            spans.append(((first or c).start_byte, c.end_byte))
            kernel = kernel or (c.type == "function_item" and any(_is_kernel_attr(a) for a in attrs))
        first, attrs = None, []
    return spans, kernel


def append_macro_kernels(source: bytes, tree: Tree, smap: SourceMap,
                         features: frozenset[str] | None) -> tuple[bytes, SourceMap, Tree] | None:
    """(source, source map, tree) of the file with the kernels its `macro_rules!` write appended
    past its end, with the plain fns and consts the same expansion writes (they may be the
    kernels' helpers); None when no invocation of the file writes one. The source map reports
    what lies there at the place in the file it came from, noting the invocation."""
    from rs2triton.transpiler.frontend.items import cfg_holds
    from rs2triton.transpiler.frontend.parse import parse
    from rs2triton.transpiler.frontend.tiled import edits

    macros = file_macros(tree.root_node)
    if not macros:
        return None
    invocations = [inv for inv, _span, in_impl in item_invocations(tree.root_node, impls=False)
                   if not in_impl and _macro_name(inv) in macros]
    if not any(b"kernel" in (m.text or b"") for m in macros.values()) and \
            not any(b"kernel" in (inv.text or b"") for inv in invocations):
        return None  # (no expansion can write a `#[kernel]`: the usual file, whose macros write impls)
    parts: list[Text] = []
    regions: list[tuple[int, int, str]] = []  # (start, end, note) of what each invocation wrote
    at = len(source) + 2
    for inv, _span, in_impl in item_invocations(tree.root_node, impls=False):
        definition = macros.get(_macro_name(inv))
        if definition is None or in_impl:
            continue
        holder = inv.parent if inv.parent is not None and inv.parent.type == "expression_statement" else inv
        attrs, prev = [], holder.prev_named_sibling
        while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
            attrs += [prev] if prev.type == "attribute_item" else []
            prev = prev.prev_named_sibling
        if features is not None and not cfg_holds(attrs, features):
            continue
        try:
            expansion = expand(definition, inv, source, macros=macros)
        except MacroError:
            continue  # (the host side reports it, at the invocation)
        spans, kernel = _written_items(expansion.tree)
        if not kernel:
            continue
        written = Text(expansion.source, expansion.origins)
        for start, end in spans:
            item = written.slice(start, end)
            parts += [item, Text(b"\n\n")]
            regions.append((at, at + len(item.data), f"in this expansion of `{_macro_name(inv)}!` "
                                                   f"(invoked at {smap.path}:{inv.start_point[0] + 1})"))
            at += len(item.data) + 2
    if not parts:
        return None
    appended = Text.join([Text.of(source), Text(b"\n\n"), *parts])
    new_smap = _mapped(smap, appended, len(source), regions)
    new_tree = parse(appended.data, new_smap, (tree, len(source)))
    if b"tiled_kernel" in appended.data[len(source):]:  # written as the #[kernel]s they expand to
        found = edits(new_tree, new_smap, start=len(source), features=features)
        if found:
            appended, regions = _edited(appended, found), _shifted(regions, found)
            new_smap = _mapped(smap, appended, len(source), regions)
            new_tree = parse(appended.data, new_smap)
    return appended.data, new_smap, new_tree


def _mapped(smap: SourceMap, appended: Text, start: int, regions: list[tuple[int, int, str]]) -> SourceMap:
    new = SourceMap(smap.path, appended.data, smap.shown)
    new.appended = Appended(start, appended, regions)
    return new


def _edited(text_: Text, found: list[tuple[int, int, bytes]]) -> Text:
    """``text_`` with the edits made; an edit's new bytes come from where the bytes it replaced did."""
    parts, at = [], 0
    for start, end, new in sorted(found):
        origin = text_.origin(start)
        parts += [text_.slice(at, start), Text(new, [(0, len(new), origin)] if origin is not None and new else [])]
        at = end
    return Text.join([*parts, text_.slice(at, len(text_.data))])


def _shifted(regions: list[tuple[int, int, str]], found: list[tuple[int, int, bytes]]) -> list[tuple[int, int, str]]:
    """``regions`` where the edits ``found`` (disjoint) move them: by what the edits that end at or
    before each place added (a running sum, bisected: linear in the edits and regions)."""
    edits = sorted(found)
    ends = [end for _start, end, _new in edits]
    added = [0]
    for start, end, new in edits:
        added.append(added[-1] + len(new) - (end - start))

    def moved(p: int) -> int:
        return p + added[bisect.bisect_right(ends, p)]
    return [(moved(a), moved(b), note) for a, b, note in regions]


@dataclass(slots=True)
class Appended:
    """What :func:`append_macro_kernels` appended to a file: from byte ``start`` on, ``text``'s
    bytes came from the file's ``origins``; ``regions`` say which invocation wrote each part."""

    start: int
    text: Text
    regions: list[tuple[int, int, str]]  # (disjoint, in order)

    def place(self, offset: int) -> tuple[int, str | None] | None:
        """The file offset an appended byte came from, and the note naming its invocation (found by
        bisection: a scan of the regions for each line made a file's lowering quadratic in the
        number of kernels its macros write)."""
        origin = self.text.origin(offset)
        if origin is None:
            return None
        i = bisect.bisect_right(self.regions, (offset, float("inf"), "")) - 1
        note = self.regions[i][2] if i >= 0 and self.regions[i][0] <= offset < self.regions[i][1] else None
        return origin, note


def macro_warnings(impls: Iterable[HostItem], macros: dict[str, Node], smap: SourceMap) -> list[Diagnostic]:
    """A located warning at each invocation of the file's macros inside an `impl` block of the
    file (``impls``: its HostItems): the methods it writes are not translated."""
    out = []
    for item in impls:
        body = item.node.child_by_field_name("body")
        for c in body.named_children if body is not None else []:
            if c.type == "macro_invocation" and _macro_name(c) in macros:
                out.append(smap.diag(c, "W0010", f"`{_macro_name(c)}!` inside an `impl` block is not expanded: "
                                     "the methods it writes are not translated",
                                     "invoke the macro at item level, writing the whole `impl`", severity="warning"))
    return out


def relocate_lines(functions: Iterable[ast.AST], smap: SourceMap) -> None:
    """The Rust line of each statement lowered from appended text (``lineno``, see pyast) is the
    line of the file it came from."""
    import ast

    for f in functions:
        for n in ast.walk(f):
            line = getattr(n, "lineno", None)
            if isinstance(line, int):
                setattr(n, "lineno", smap.rust_line(line))  # noqa: B010 - (any node: `ast.AST` declares none)
