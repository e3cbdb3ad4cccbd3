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
the items it writes), so the expanded text reads like the source it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, Tree

from rs2triton.transpiler.frontend.parse import named_children, parser, text

_ONE_TOKEN = {"ident", "lifetime", "literal", "tt", "block", "vis"}
_UP_TO_SEPARATOR = {"expr", "ty", "path", "pat", "pat_param", "stmt", "item", "meta"}
_STOP = {",", ";", "=>"}
_OPEN = {"(": ")", "[": "]", "{": "}"}
_LITERALS = {"integer_literal", "float_literal", "string_literal", "raw_string_literal", "char_literal",
             "boolean_literal", "true", "false"}


class MacroError(Exception):
    """An invocation that cannot be expanded; the message says why (for a located warning)."""


@dataclass(slots=True)
class Fragment:
    """Tokens a metavariable matched: their source text."""

    text: str


Binding = Fragment | list["Bindings"]
Bindings = dict[str, Binding]


@dataclass(slots=True)
class Expansion:
    """A macro invocation expanded: the items' source text, parsed."""

    macro: str
    invocation: Node
    source: bytes
    tree: Tree


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
    def __init__(self, source: bytes):
        self.source = source  # the invocation's file

    def span(self, tokens: list[Node]) -> str:
        return self.source[tokens[0].start_byte:tokens[-1].end_byte].decode()

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
            else:  # a literal token
                if pos >= len(tokens) or text(tokens[pos]) != text(p):
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


def _render(nodes: list[Node], source: bytes, bindings: Bindings, macro: str) -> str:
    """Sibling tokens of a transcriber, transcribed, with the gaps between them (whitespace,
    comments) kept as written."""
    if not nodes:
        return ""
    out: list[str] = []
    prev = nodes[0].start_byte
    for c in nodes:
        out.append(source[prev:c.start_byte].decode())
        out.append(_transcribe_one(c, source, bindings, macro))
        prev = c.end_byte
    return "".join(out)


def _transcribe_one(c: Node, source: bytes, bindings: Bindings, macro: str) -> str:
    if c.type == "metavariable":
        name = text(c).removeprefix("$")
        if name == "crate":
            return "crate"
        bound = bindings.get(name)
        if bound is None:
            return text(c)  # not a metavariable of this rule: Rust rejects it; left for the parser
        if not isinstance(bound, Fragment):
            raise MacroError(f"`${name}` is still repeating at this depth in `{macro}!`")
        return bound.text
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
        parts = []
        for i in range(counts.pop()):
            inner: Bindings = dict(bindings)
            for n in repeated:
                rounds = bindings[n]
                assert isinstance(rounds, list)
                inner.update(rounds[i])
            parts.append(_render(body, source, inner, macro))
        return (sep + " " if sep == "," else sep).join(parts)
    if c.type == "token_tree":
        return _render(c.children, source, bindings, macro)
    return source[c.start_byte:c.end_byte].decode()


def _metavariables(nodes: list[Node]) -> list[str]:
    names: list[str] = []
    for n in nodes:
        if n.type == "metavariable":
            names.append(text(n).removeprefix("$"))
        else:
            names += _metavariables(list(n.children))
    return names


def expand(definition: Node, invocation: Node, file_source: bytes) -> Expansion:
    """Expand one item-level invocation of the ``macro_rules!`` ``definition`` (both nodes of the
    file whose bytes are ``file_source``): the first rule that matches, transcribed and parsed."""
    name = text(definition.child_by_field_name("name") or definition)
    args = next((c for c in invocation.children if c.type == "token_tree"), None)
    if args is None:
        raise MacroError(f"`{name}!` is invoked without arguments")
    tokens = _tokens(args)
    m = _Matcher(file_source)
    for rule in rules_of(definition):
        bindings: Bindings = {}
        end = m.match(_tokens(rule.matcher), tokens, 0, bindings)
        if end is not None and end == len(tokens):
            children = rule.transcriber.children
            body = _render(children[1:-1], file_source, bindings, name)
            source = body.encode()
            return Expansion(name, invocation, source, parser().parse(source))
    raise MacroError(f"no rule of `{name}!` matches this invocation")
