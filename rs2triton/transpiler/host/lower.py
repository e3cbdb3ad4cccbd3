"""Host Rust function bodies lowered to Python: statements, patterns, blocks and control flow.

A :class:`HostLowerer` lowers one host function (a trait method, ``new``, an inherent method).
Expressions are in :mod:`.expressions`, method calls of the standard library in :mod:`.std`.
Rust is expression-oriented: a block, ``if`` or ``match`` in value position is lowered *into*
a sink — a ``return``, an assignment or nothing — that each branch ends with, so the Python
is statements as one would write them, never a nested conditional expression.

What lies outside the supported subset raises :class:`HostUnsupported` at the construct; the
caller turns the whole method into one that raises ``NotImplementedError`` saying so, with a
located warning.
"""

from __future__ import annotations

import ast

from tree_sitter import Node

from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.host.context import (
    RESERVED,
    HostModule,
    HostUnsupported,
    Local,
    Sink,
    discard,
    returning,
    sink_end,
)
from rs2triton.transpiler.host.expressions import Expressions
from rs2triton.transpiler.host.types import UNIT, UNKNOWN, HTy, element, scalar
from rs2triton.transpiler.pyast import LOAD, STORE, name, python_name


class HostLowerer:
    """Lowers one host function. ``self_ty``: the type of ``self`` (an op or a kernel struct), or
    None in a function without ``self`` (``new``)."""

    def __init__(self, module: HostModule, self_fields: dict[str, HTy], type_params: tuple[str, ...],
                 struct: str, in_classmethod: bool = False):
        self.module = module
        self.fields = self_fields
        self.type_params = type_params
        self.struct = struct
        self.in_classmethod = in_classmethod
        self.scopes: list[dict[str, Local]] = [{}]
        self.used: set[str] = set(RESERVED) | module.taken
        self.visitor: str | None = None  # the Rust name of the visitor parameter
        self.returns: HTy = UNKNOWN
        self.methods: set[str] = set()  # the struct's own (inherent) methods
        self.x = Expressions(self)

    # ----------------------------------------------------------------- names
    def fresh(self, rust: str) -> str:
        base = python_name(rust) or "v"  # (NFKC-safe, as every name)
        base = base + "_" if base in RESERVED else base
        py, i = base, 0
        while py in self.used:
            i += 1
            py = f"{base}_{i}"
        self.used.add(py)
        return py

    def bind(self, rust: str, ty: HTy, expr: ast.expr | None = None) -> Local:
        """A new Rust binding (shadowing any before it, as `let` does)."""
        local = Local(None, ty, expr) if expr is not None else Local(self.fresh(rust), ty)
        self.scopes[-1][rust] = local
        return local

    def param(self, rust: str, py: str, ty: HTy) -> None:
        self.used.add(py)
        self.scopes[-1][rust] = Local(py, ty)

    def lookup(self, rust: str) -> Local | None:
        for scope in reversed(self.scopes):
            if rust in scope:
                return scope[rust]
        return None

    def helper(self, fn: str) -> ast.expr:
        """A function of ``rs2triton.runtime.host`` (imported by name)."""
        self.module.helpers.add(fn)
        return name(fn)

    def use(self, module: str) -> None:
        self.module.modules.add(module)

    # ----------------------------------------------------------------- blocks and statements
    def block(self, node: Node, sink: Sink) -> list[ast.stmt]:
        """The statements of a ``{ ... }`` block, its tail expression (if any) into ``sink``."""
        self.scopes.append({})
        try:
            children = [c for c in named_children(node) if c.type not in ("line_comment", "block_comment")]
            if node.type == "unsafe_block":
                inner = next((c for c in children if c.type == "block"), None)
                return self.block(inner, sink) if inner is not None else []
            out: list[ast.stmt] = []
            tail = children[-1] if children and not _is_statement(node, children[-1]) else None
            if tail is None and children and _block_like_tail(children[-1]):
                tail = children[-1].named_children[0]  # `if c { a } else { b }` ending a block: its value
            for child in children[:-1] if tail is not None else children:
                out += self.statement(child)
            if tail is not None:
                out += self.into(tail, sink)
            else:
                out += sink_end(sink)
            return out
        finally:
            self.scopes.pop()

    def statement(self, node: Node) -> list[ast.stmt]:
        kind = node.type
        if kind == "let_declaration":
            return self.let(node)
        if kind == "expression_statement":
            inner = node.named_children[0] if node.named_children else None
            return self.into(inner, discard) if inner is not None else []
        if kind in ("empty_statement", "attribute_item", "use_declaration"):
            return []
        if kind in ("function_item", "const_item", "struct_item", "impl_item", "macro_definition"):
            raise HostUnsupported(node, f"a nested `{kind.replace('_item', '')}` item")
        return self.into(node, discard)

    def let(self, node: Node) -> list[ast.stmt]:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        ty_node = node.child_by_field_name("type")
        if node.child_by_field_name("alternative") is not None:
            raise HostUnsupported(node, "`let ... else`")
        declared = self.rust_type(ty_node) if ty_node is not None else None
        if value is None:
            raise HostUnsupported(node, "a `let` without a value")
        if pattern is not None and pattern.type == "identifier" and text(pattern) == "_" or \
                pattern is not None and text(pattern) == "_":
            return []  # `let _ = ...;`: the value only silences a lint (host code has no effects to keep)
        target_rust = text(pattern) if pattern is not None and pattern.type == "identifier" else None
        if pattern is not None and pattern.type == "mut_pattern":
            inner = pattern.named_children[-1]
            target_rust = text(inner) if inner.type == "identifier" else None
        if target_rust is not None:
            py = self.fresh(target_rust)

            def assign(expr: ast.expr, ty: HTy) -> list[ast.stmt]:
                ty = _settle(declared or ty)
                self.scopes[-1][target_rust] = Local(py, ty)
                return [ast.Assign(targets=[ast.Name(py, STORE)], value=expr, lineno=node.start_point[0] + 1)]

            stmts = self.into(value, assign, expected=declared)
            if self.lookup(target_rust) is None or self.lookup(target_rust).py != py:  # type: ignore[union-attr]
                self.scopes[-1][target_rust] = Local(py, declared or UNKNOWN)
            return stmts
        if pattern is not None and pattern.type == "tuple_pattern":
            expr, ty = self.x.expr(value, declared)
            target = self.pattern_target(pattern, ty)
            return [ast.Assign(targets=[target], value=expr, lineno=node.start_point[0] + 1)]
        raise HostUnsupported(pattern or node, f"this `let` pattern (`{text(pattern) if pattern else ''}`)")

    def pattern_target(self, pattern: Node, ty: HTy) -> ast.expr:
        """A Python assignment/loop target for a Rust pattern over a value of type ``ty``, binding
        its names. A `(ptr, shape)` pair is one tensor in Python: its names stand for the tensor
        and the tensor's shape."""
        kind = pattern.type
        if kind in ("reference_pattern", "ref_pattern"):
            return self.pattern_target(pattern.named_children[-1], ty)
        if kind == "mut_pattern":
            return self.pattern_target(pattern.named_children[-1], ty)
        if kind == "identifier":
            return ast.Name(self.bind(text(pattern), ty).py or "_", STORE)
        if text(pattern) == "_":
            return ast.Name("_", STORE)
        if kind == "tuple_pattern":
            subs = [c for c in pattern.children if c.type not in ("(", ")", ",", "line_comment", "block_comment")]
            if ty.kind == "input" and len(subs) == 2:
                py = self.fresh("t")
                tensor = name(py)
                for i, sub in enumerate(subs):
                    if text(sub) == "_":
                        continue
                    sub_name = text(sub.named_children[-1] if sub.type in ("reference_pattern", "mut_pattern")
                                    else sub)
                    if sub.type not in ("identifier", "reference_pattern", "mut_pattern"):
                        raise HostUnsupported(sub, "a nested pattern in a (pointer, shape) pair")
                    from rs2triton.transpiler.host.types import PTR, SHAPE

                    self.bind(sub_name, PTR if i == 0 else SHAPE,
                              tensor if i == 0 else ast.Attribute(value=name(py), attr="shape", ctx=LOAD))
                return ast.Name(py, STORE)
            items = ty.items if ty.kind == "tuple" and len(ty.items) == len(subs) else (UNKNOWN,) * len(subs)
            return ast.Tuple(elts=[self.pattern_target(s, t) for s, t in zip(subs, items, strict=True)], ctx=STORE)
        raise HostUnsupported(pattern, f"this pattern (`{text(pattern)}`)")

    # ----------------------------------------------------------------- expressions into sinks
    def into(self, node: Node, sink: Sink, expected: HTy | None = None) -> list[ast.stmt]:
        """``node`` evaluated, its value given to ``sink``; control flow lowered to statements."""
        kind = node.type
        if kind in ("block", "unsafe_block"):
            return self.block(node, sink)
        if kind == "if_expression":
            return self.if_(node, sink, expected)
        if kind == "match_expression":
            return self.match(node, sink, expected)
        if kind == "return_expression":
            value = node.named_children[0] if node.named_children else None
            return self.return_(value)
        if kind == "for_expression":
            return self.for_(node) + sink_end(sink)
        if kind == "while_expression":
            return self.while_(node) + sink_end(sink)
        if kind == "macro_invocation":
            stmts = self.x.macro_statement(node)
            if stmts is not None:
                return stmts + sink_end(sink)
        if kind in ("assignment_expression", "compound_assignment_expr"):
            return self.x.assignment(node) + sink_end(sink)
        if kind == "parenthesized_expression" and node.named_children:
            return self.into(node.named_children[0], sink, expected)
        if kind in ("break_expression", "continue_expression"):
            if node.named_children:
                raise HostUnsupported(node, "a `break` with a value or label")
            return [ast.Break() if kind == "break_expression" else ast.Continue()]
        if kind == "call_expression":
            visited = self.x.visitor_call(node)
            if visited is not None:
                return visited + sink_end(sink)
        expr, ty = self.x.expr(node, expected)
        return sink(expr, ty)

    def return_(self, value: Node | None) -> list[ast.stmt]:
        if self.visitor is not None:
            stmts = self.into(value, discard) if value is not None else []
            return stmts + [ast.Return(value=name("visitor"))]
        if value is None:
            return [ast.Return(value=None)]
        return self.into(value, returning, self.returns)

    def if_(self, node: Node, sink: Sink, expected: HTy | None) -> list[ast.stmt]:
        cond_node = node.child_by_field_name("condition")
        if cond_node is None or cond_node.type == "let_condition" or cond_node.type == "let_chain":
            raise HostUnsupported(node, "`if let`")
        cond, _ = self.x.expr(cond_node)
        body = self.block(node.child_by_field_name("consequence"), sink)  # type: ignore[arg-type]
        alt = node.child_by_field_name("alternative")
        orelse: list[ast.stmt] = []
        if alt is not None:
            inner = alt.named_children[-1] if alt.type == "else_clause" else alt
            orelse = self.into(inner, sink, expected)
        else:
            orelse = sink_end(sink)
        return [ast.If(test=cond, body=body or [ast.Pass()], orelse=orelse, lineno=node.start_point[0] + 1)]

    def match(self, node: Node, sink: Sink, expected: HTy | None) -> list[ast.stmt]:
        """An integer (or bool) ``match`` as an ``if``/``elif`` chain: literal and range patterns,
        ``|`` alternatives, ``_`` and a bound name last."""
        value = node.child_by_field_name("value")
        body = node.child_by_field_name("body")
        if value is None or body is None:
            raise HostUnsupported(node, "this `match`")
        subject, ty = self.x.expr(value)
        stmts: list[ast.stmt] = []
        if not isinstance(subject, ast.Name | ast.Constant):
            tmp = self.fresh("value")
            stmts.append(ast.Assign(targets=[ast.Name(tmp, STORE)], value=subject))
            subject = name(tmp)
        arms = [a for a in named_children(body) if a.type == "match_arm"]
        chain: list[tuple[ast.expr | None, list[ast.stmt]]] = []
        for arm in arms:
            pattern = arm.child_by_field_name("pattern")
            arm_value = arm.child_by_field_name("value")
            if pattern is None or arm_value is None:
                raise HostUnsupported(arm, "this match arm")
            if pattern.child_by_field_name("condition") is not None:
                raise HostUnsupported(arm, "a match guard")
            test = self.x.pattern_test(pattern.named_children[0] if pattern.named_children else pattern, subject, ty)
            chain.append((test, self.into(arm_value, sink, expected)))
        out: list[ast.stmt] = []
        for test, arm_body in reversed(chain):
            if test is None:
                out = arm_body
            else:
                out = [ast.If(test=test, body=arm_body or [ast.Pass()], orelse=out or [ast.Pass()])]
        if not chain or chain[-1][0] is not None:
            # Rust's match is exhaustive; for ints that needs a `_` arm, which rustc insists on
            raise HostUnsupported(node, "a `match` without a catch-all arm")
        return stmts + out

    def for_(self, node: Node) -> list[ast.stmt]:
        pattern = node.child_by_field_name("pattern")
        value = node.child_by_field_name("value")
        body = node.child_by_field_name("body")
        if pattern is None or value is None or body is None:
            raise HostUnsupported(node, "this `for` loop")
        iterable, ty = self.x.iterable(value)
        self.scopes.append({})
        try:
            target = self.pattern_target(pattern, element(ty))
            stmts = self.block(body, discard)
        finally:
            self.scopes.pop()
        return [ast.For(target=target, iter=iterable, body=stmts or [ast.Pass()], orelse=[],
                        lineno=node.start_point[0] + 1)]

    def while_(self, node: Node) -> list[ast.stmt]:
        cond_node = node.child_by_field_name("condition")
        body = node.child_by_field_name("body")
        if cond_node is None or body is None or cond_node.type in ("let_condition", "let_chain"):
            raise HostUnsupported(node, "this `while` loop")
        cond, _ = self.x.expr(cond_node)
        return [ast.While(test=cond, body=self.block(body, discard) or [ast.Pass()], orelse=[],
                          lineno=node.start_point[0] + 1)]

    # ----------------------------------------------------------------- types
    def rust_type(self, node: Node) -> HTy:
        """The host type of a Rust type node (the kinds host code declares)."""
        from rs2triton.transpiler.host.types import PTR, SHAPE, STR, array, option, seq

        kind = node.type
        t = text(node)
        if kind == "primitive_type":
            s = scalar(t)
            return s if s is not None else (STR if t == "str" else UNKNOWN)
        if kind in ("reference_type", "pointer_type"):
            inner = node.child_by_field_name("type")
            if kind == "pointer_type":
                return PTR
            return self.rust_type(inner) if inner is not None else UNKNOWN
        if kind == "array_type":
            el = node.child_by_field_name("element")
            return array(self.rust_type(el) if el is not None else UNKNOWN)
        if kind == "tuple_type":
            items = tuple(self.rust_type(c) for c in named_children(node))
            if len(items) == 2 and items[0].kind == "ptr":
                from rs2triton.transpiler.host.types import INPUT

                return INPUT
            return HTy("tuple", items=items)
        if kind in ("generic_type", "type_identifier", "scoped_type_identifier"):
            base = text(node.child_by_field_name("type") or node).split("::")[-1].split("<")[0]
            args = node.child_by_field_name("type_arguments")
            inner_nodes = [c for c in named_children(args)] if args is not None else []
            arg_ty = self.rust_type(inner_nodes[0]) if inner_nodes else UNKNOWN
            if base == "Vec":
                return seq(arg_ty)
            if base == "Option":
                return option(arg_ty)
            if base in ("RawPtr",):
                return PTR
            if base in self.module.kernels:
                return HTy("kernel", base)
            if base in ("String", "str"):
                return STR
            if base == "usize" or base in ("Shape",):
                return SHAPE
            s = scalar(base)
            if s is not None:
                return s
            if base == "Self":
                return HTy("op", self.struct)
            return HTy("named", base)
        if kind == "unit_type":
            return UNIT
        return UNKNOWN


def _is_statement(block: Node, child: Node) -> bool:
    """Whether the block's last child is a statement (ends with `;`) rather than its value."""
    if child.type in ("let_declaration", "expression_statement", "empty_statement", "function_item",
                      "const_item", "use_declaration", "attribute_item", "struct_item", "impl_item",
                      "macro_definition"):
        return True
    return False


def _block_like_tail(child: Node) -> bool:
    """An ``if``/``match``/block ending a block without a `;`: tree-sitter makes it an expression
    statement, but it is the block's value."""
    return (child.type == "expression_statement" and not any(c.type == ";" for c in child.children)
            and bool(child.named_children)
            and child.named_children[0].type in ("if_expression", "match_expression", "block", "unsafe_block"))


def _settle(ty: HTy) -> HTy:
    """A literal's type once bound (Rust's fallback: i32, f64)."""
    if ty.elem == "{integer}":
        return HTy("int", "i32")
    if ty.elem == "{float}":
        return HTy("float", "f64")
    return ty
