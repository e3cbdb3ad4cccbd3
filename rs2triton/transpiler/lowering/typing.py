"""Rust's type inference over one fn body, before it is lowered (as rustc's typeck runs before
codegen): the Rust type each `let` without an annotation gets from all its uses, and each unsuffixed
literal's, so that lowering reads the answer instead of discovering it half way (and lowering the
function again).

Rust gives an unsuffixed literal a type variable of its class (``{integer}``, ``{float}``); an
operator's operands, a `let`'s value and its annotation, an assignment's sides, a branch and the
function's return type, a method's receiver and its argument (``b.max(z)``), a fold's start and its
result are one type: the variables are unified with each other and with the concrete types that
meet them (a parameter, a field, a constant, a cast, a suffixed literal, an annotation). The first
concrete type a variable meets is its type; a later one of another type is a mismatch that lowering
reports at its place (rustc's E0308), so it changes nothing here. A variable that meets none is
``i32`` or ``f64`` (Rust's fallback): :meth:`Typing.let_type` and :meth:`Typing.literal_type` say
None for it, and lowering keeps its own default.

Where rustc's verdict depends on what is known at a point, the pass, which goes in rustc's order,
records it: a ``-x`` whose operand a later use types (:meth:`Typing.negated_before_known`: rustc's
E0277, ``u8: Neg``), and the types of a `let`'s branches (:meth:`Typing.tail_type`, for
``typeck.check_branches``). Both targets run it (``Lowerer.start_typing``) and read it: host code
binds a `let` a use types as that type, a kernel's ``Lowerer.let_types`` starts from it, and an
unsuffixed literal's type for rustc's lints is its (``Lowerer.literal_type``).

What the pass does not know (a call's result, a tensor's element) is no type: it unifies nothing,
and lowering still meets such types as it goes. It reads syntax alone and imports no target; what
the names bound before the body are (parameters, the file's constants, ``self``'s fields) the
target's lowerer says through :class:`Env`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tree_sitter import Node

from rs2triton.rust import semantics
from rs2triton.rust.types import FLOAT_TYPES, INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.frontend.types import TypeRef, read_type


class Var:
    """A type variable: an unsuffixed literal's (``cls``: "int" or "float"), joined with the others
    it met (union-find); ``ty``: the concrete type it took, None until one meets it."""

    __slots__ = ("cls", "parent", "ty")

    def __init__(self, cls: str) -> None:
        self.cls = cls
        self.parent: Var | None = None
        self.ty: str | None = None

    def root(self) -> Var:
        v = self
        while v.parent is not None:
            v = v.parent
        return v


@dataclass(frozen=True)
class Seq:
    """A slice, array, `Vec`, range or iterator of ``elem`` (what indexing, `for` and a closure over
    its items see)."""

    elem: Type


Type = str | Var | Seq | None  # a concrete Rust scalar type, a variable, a sequence, or not known


@dataclass
class Env:
    """What the names bound before the body are, as the target's lowerer knows them: ``name`` (a
    parameter, a constant), ``field`` (``self.x``), and the function's return type."""

    name: Callable[[str], Type] = lambda _: None
    field: Callable[[str], Type] = lambda _: None
    returns: Type = None


def type_of(ref: TypeRef | None) -> Type:
    """A type as written, as the pass models it: a scalar, or a sequence of one."""
    if ref is None:
        return None
    if ref.scalar is not None:
        return ref.scalar
    if ref.head == "&" and ref.args:
        return type_of(ref.args[0])
    if ref.head in ("[]", "Vec") and len(ref.args) == 1:
        inner = type_of(ref.args[0])
        return Seq(inner) if inner is not None else None
    return None


_CLASS = {**dict.fromkeys(INT_TYPES, "int"), **dict.fromkeys(FLOAT_TYPES, "float")}
_SAME_TYPE_OPS = frozenset({"+", "-", "*", "/", "%", "&", "|", "^"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})
# methods of a number whose result is the receiver's type, and those whose argument is too
_SELF_METHODS = frozenset({
    "abs", "sqrt", "exp", "exp2", "ln", "log2", "log10", "floor", "ceil", "round", "trunc", "fract", "signum",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "recip", "to_degrees", "to_radians",
    "powi", "pow", "cbrt", "exp_m1", "ln_1p", "clone", "wrapping_neg", "wrapping_abs", "min", "max", "clamp", "powf",
    "mul_add", "atan2", "hypot", "copysign", "wrapping_add", "wrapping_sub", "wrapping_mul", "saturating_add",
    "saturating_sub", "saturating_mul", "div_euclid", "rem_euclid"})
_SAME_ARG_METHODS = frozenset({
    "min", "max", "clamp", "powf", "mul_add", "atan2", "hypot", "copysign", "wrapping_add", "wrapping_sub",
    "wrapping_mul", "saturating_add", "saturating_sub", "saturating_mul", "div_euclid", "rem_euclid"})
_SEQ_METHODS = frozenset({"iter", "into_iter", "copied", "cloned", "rev", "skip", "take", "step_by", "by_ref",
                          "filter", "to_vec"})
_ITEM_CLOSURES = frozenset({"map", "filter", "all", "any", "for_each", "position", "find"})
_COMMENTS = frozenset({"line_comment", "block_comment"})


@dataclass
class Typing:
    """The answer for one body: per `let` node id the variable of its binding, per unsuffixed
    literal node id its variable."""

    lets: dict[int, Var] = field(default_factory=dict)
    literals: dict[int, Var] = field(default_factory=dict)
    # `-x` where `x`'s type was not known yet in rustc's order (a `{integer}` a later use types):
    # unary node id -> the operand's variable (rustc checks `T: Neg` once it is known: E0277)
    negations: dict[int, Var] = field(default_factory=dict)
    # the tails of the branches of a `let`'s value (`let x: u8 = if c { a } else { b };`): node id -> type
    tails: dict[int, Type] = field(default_factory=dict)

    def tail_type(self, node_id: int) -> str | None:
        """The Rust type of the branch tail ``node_id`` of a `let`'s value (``{integer}``,
        ``{float}``: an unsuffixed literal's no use typed), None where the pass does not know it."""
        t = self.tails.get(node_id)
        if isinstance(t, Var):
            r = t.root()
            return r.ty or ("{integer}" if r.cls == "int" else "{float}")
        return t if isinstance(t, str) else None

    def negated_before_known(self, node_id: int) -> str | None:
        """The type the operand of the `-` ``node_id`` was given only after it was negated (None:
        it was known there, or it never was)."""
        v = self.negations.get(node_id)
        return v.root().ty if v is not None else None

    def let_type(self, let_id: int) -> str | None:
        """The type the uses gave the `let` ``let_id`` (whose value is an unsuffixed literal, or
        arithmetic on such), or None where none did (Rust's fallback, or no such `let`)."""
        v = self.lets.get(let_id)
        return v.root().ty if v is not None else None

    def let_class(self, let_id: int) -> str | None:
        """``{integer}`` or ``{float}`` for a `let` of an unsuffixed literal's value (or of branches
        of such), whatever type its uses give it; None for another `let`."""
        v = self.lets.get(let_id)
        return None if v is None else "{integer}" if v.root().cls == "int" else "{float}"

    def literal_type(self, literal_id: int) -> str | None:
        """The type Rust infers for the unsuffixed literal ``literal_id`` from its context (None:
        none, Rust's fallback)."""
        v = self.literals.get(literal_id)
        return v.root().ty if v is not None else None


def unify(a: Type, b: Type) -> None:
    """``a`` and ``b`` are one type: a variable takes the other's (the first that meets it is
    kept: a later one is a mismatch lowering reports)."""
    if isinstance(a, Seq) and isinstance(b, Seq):
        unify(a.elem, b.elem)
        return
    if isinstance(b, Var) and not isinstance(a, Var):
        a, b = b, a
    if not isinstance(a, Var):
        return
    ra = a.root()
    if isinstance(b, Var):
        rb = b.root()
        if ra is rb or ra.cls != rb.cls or (ra.ty is not None and rb.ty is not None):
            return
        rb.parent = ra
        ra.ty = ra.ty or rb.ty
    elif isinstance(b, str) and ra.ty is None and _CLASS.get(b) == ra.cls:
        ra.ty = b


class _Pass:
    def __init__(self, env: Env) -> None:
        self.env = env
        self.scopes: list[dict[str, Type]] = [{}]
        self.out = Typing()
        self.tail_types: dict[int, Type] = {}  # a block's tail expression -> its type

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.scopes.append({})
        try:
            yield
        finally:
            self.scopes.pop()

    def lookup(self, name: str) -> Type:
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return self.env.name(name)

    def bind(self, pattern: Node | None, ty: Type) -> None:
        """The names ``pattern`` binds, of type ``ty`` (a name's; those in a larger pattern are not
        known)."""
        if pattern is None:
            return
        if pattern.type == "identifier":
            self.scopes[-1][text(pattern)] = ty
            return
        if pattern.type in ("mut_pattern", "reference_pattern", "ref_pattern") and pattern.named_children:
            self.bind(pattern.named_children[-1], ty)
            return
        for n in _identifiers(pattern):
            self.scopes[-1][text(n)] = None

    # ------------------------------------------------------------------ statements
    def block(self, node: Node) -> Type:
        with self.scope():
            last: Type = None
            for c in node.named_children:
                if c.type in _COMMENTS or c.type == "attribute_item":
                    continue
                last = self.stmt(c)
            real = [c for c in node.named_children if c.type not in _COMMENTS]
            tail = _tail(node)
            if tail is not None:
                self.tail_types[tail.id] = last
            return last if real and real[-1].type != "let_declaration" else None

    def stmt(self, node: Node) -> Type:
        kind = node.type
        if kind == "let_declaration":
            self.let(node)
            return None
        if kind == "expression_statement":  # (a block-like expression without `;` is the block's value)
            result: Type = None
            for c in node.named_children:
                if c.type not in _COMMENTS:
                    result = self.expr(c)
            return result if node.children and node.children[-1].type != ";" else None
        if kind in ("function_item", "use_declaration", "struct_item", "enum_item", "impl_item", "macro_definition"):
            return None
        if kind in ("const_item", "static_item"):
            ty = type_of(_read(node.child_by_field_name("type")))
            value = node.child_by_field_name("value")
            if value is not None:
                unify(self.expr(value), ty)
            name_node = node.child_by_field_name("name")
            if name_node is not None:
                self.scopes[-1][text(name_node)] = ty
            return None
        return self.expr(node)

    def let(self, node: Node) -> None:
        annotated = type_of(_read(node.child_by_field_name("type")))
        value = node.child_by_field_name("value")
        ty = self.expr(value) if value is not None else None
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            self.expr(alternative)
        if value is not None and value.type == "if_expression":
            for tail in branch_tails(value):
                self.out.tails[tail.id] = self.tail_types.get(tail.id)
        if annotated is not None:
            unify(ty, annotated)
            ty = annotated
        elif isinstance(ty, Var):
            self.out.lets[node.id] = ty
        self.bind(node.child_by_field_name("pattern"), ty)

    # ------------------------------------------------------------------ expressions
    def expr(self, node: Node) -> Type:  # noqa: C901 - one case per node kind
        kind = node.type
        if kind == "integer_literal":
            return self.literal(node, "int")
        if kind == "float_literal":
            return self.literal(node, "float")
        if kind == "boolean_literal":
            return "bool"
        if kind == "identifier":
            return self.lookup(text(node))
        if kind == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type not in _COMMENTS]
            return self.expr(inner[0]) if inner else None
        if kind == "unary_expression":
            operand = [c for c in node.named_children if c.type not in _COMMENTS]
            t = self.expr(operand[0]) if operand else None
            operand_node = operand[0] if operand else node
            while operand_node.type == "parenthesized_expression" and operand_node.named_children:
                operand_node = operand_node.named_children[0]
            if isinstance(t, Var) and t.root().ty is None and text(node.children[0]) == "-" and \
                    operand_node.type not in ("integer_literal", "float_literal"):  # (a literal takes the expected type)
                self.out.negations[node.id] = t
            return t if text(node.children[0]) in ("-", "!", "*") else None
        if kind == "reference_expression":
            value = node.child_by_field_name("value")
            return self.expr(value) if value is not None else None
        if kind == "binary_expression":
            return self.binary(node)
        if kind in ("assignment_expression", "compound_assignment_expr"):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            lt = self.expr(left) if left is not None else None
            rt = self.expr(right) if right is not None else None
            op = node.child_by_field_name("operator")
            if op is None or text(op) not in ("<<=", ">>="):
                unify(lt, rt)
            return None
        if kind == "type_cast_expression":
            value = node.child_by_field_name("value")
            if value is not None:
                self.expr(value)
            return type_of(_read(node.child_by_field_name("type")))
        if kind == "field_expression":
            base, name_node = node.child_by_field_name("value"), node.child_by_field_name("field")
            if base is not None and base.type == "self" and name_node is not None:
                return self.env.field(text(name_node))
            if base is not None:
                self.expr(base)
            return None
        if kind == "index_expression":
            parts = [c for c in node.named_children if c.type not in _COMMENTS]
            indexed = self.expr(parts[0]) if parts else None
            for p in parts[1:]:
                self.expr(p)
            return indexed.elem if isinstance(indexed, Seq) and len(parts) == 2 and parts[1].type != "range_expression" \
                else None
        if kind == "range_expression":
            ends = [self.expr(c) for c in node.named_children if c.type not in _COMMENTS]
            for t in ends[1:]:
                unify(ends[0], t)
            return Seq(ends[0]) if ends else None
        if kind == "call_expression":
            return self.call(node)
        if kind == "block":
            return self.block(node)
        if kind in ("unsafe_block", "const_block"):
            blocks = [c for c in node.named_children if c.type == "block"]
            return self.block(blocks[0]) if blocks else None
        if kind == "if_expression":
            return self.if_(node)
        if kind == "return_expression":
            for c in node.named_children:
                unify(self.expr(c), self.env.returns)
            return None
        if kind == "for_expression":
            items = self.expr(node.child_by_field_name("value") or node)
            with self.scope():
                self.bind(node.child_by_field_name("pattern"), items.elem if isinstance(items, Seq) else None)
                body = node.child_by_field_name("body")
                if body is not None:
                    self.block(body)
            return None
        if kind == "closure_expression":
            self.closure(node, [])
            return None
        if kind == "match_expression":
            value = node.child_by_field_name("value")
            if value is not None:
                self.expr(value)
            body = node.child_by_field_name("body")
            arms: list[Type] = []
            for arm in (body.named_children if body is not None else []):
                if arm.type != "match_arm":
                    continue
                with self.scope():
                    pattern = arm.child_by_field_name("pattern")
                    self.bind(pattern, None)
                    if pattern is not None:
                        for c in pattern.named_children:
                            if c.type not in ("identifier",) and c.type.endswith("expression"):
                                self.expr(c)
                    v = arm.child_by_field_name("value")
                    arms.append(self.expr(v) if v is not None else None)
            return self.join(arms)
        if kind == "let_condition":
            value = node.child_by_field_name("value")
            if value is not None:
                self.expr(value)
            self.bind(node.child_by_field_name("pattern"), None)
            return "bool"
        if kind == "scoped_identifier":  # (`i32::MAX`, `f32::EPSILON`: a constant of that type; `u32::BITS`: a u32)
            path, item = node.child_by_field_name("path"), node.child_by_field_name("name")
            head = text(path) if path is not None else ""
            if head in SCALARS and item is not None and text(item).isupper():
                return "u32" if text(item) == "BITS" else head
            return None
        if kind in ("macro_invocation", "string_literal", "raw_string_literal", "char_literal",
                    "self", "break_expression", "continue_expression"):
            if kind == "break_expression":
                for c in node.named_children:
                    if c.type not in ("label", *_COMMENTS):
                        self.expr(c)
            return None
        for c in node.named_children:  # (anything else: what is inside, for the `let`s and literals there)
            if c.type not in _COMMENTS:
                if c.type == "block":
                    self.block(c)
                elif c.type == "let_declaration":
                    self.let(c)
                else:
                    self.expr(c)
        return None

    def literal(self, node: Node, cls: str) -> Type:
        suffix = _suffix(text(node), cls)
        if suffix is not None:
            return suffix
        v = Var(cls)
        self.out.literals[node.id] = v
        return v

    def binary(self, node: Node) -> Type:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        op = text(node.child_by_field_name("operator") or node)
        lt = self.expr(left) if left is not None else None
        rt = self.expr(right) if right is not None else None
        if op in ("&&", "||"):
            return "bool"
        if op in ("<<", ">>"):
            return lt
        unify(lt, rt)
        if op in _COMPARISONS:
            return "bool"
        return (lt if lt is not None else rt) if op in _SAME_TYPE_OPS else None

    def if_(self, node: Node) -> Type:
        with self.scope():  # (an `if let`'s names are the consequence's)
            condition = node.child_by_field_name("condition")
            if condition is not None:
                self.expr(condition)
            consequence = node.child_by_field_name("consequence")
            branches = [self.block(consequence) if consequence is not None else None]
        alternative = node.child_by_field_name("alternative")
        if alternative is not None:
            inner = [c for c in alternative.named_children if c.type not in _COMMENTS]
            branches.append(self.expr(inner[0]) if inner else None)
        else:
            return None
        return self.join(branches)

    def join(self, branches: list[Type]) -> Type:
        known = [b for b in branches if b is not None]
        for b in known[1:]:
            unify(known[0], b)
        return known[0] if known else None

    def closure(self, node: Node, params: list[Type]) -> Type:
        with self.scope():
            ps = node.child_by_field_name("parameters")
            found = [c for c in (ps.named_children if ps is not None else []) if c.type not in _COMMENTS]
            for i, p in enumerate(found):
                pattern = p.child_by_field_name("pattern") if p.type == "parameter" else p
                annotated = type_of(_read(p.child_by_field_name("type"))) if p.type == "parameter" else None
                ty = annotated if annotated is not None else params[i] if i < len(params) else None
                if annotated is not None and i < len(params):
                    unify(params[i], annotated)
                self.bind(pattern, ty)
            body = node.child_by_field_name("body")
            return self.expr(body) if body is not None else None

    def call(self, node: Node) -> Type:
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        args = [c for c in (arguments.named_children if arguments is not None else []) if c.type not in _COMMENTS]
        if function is None or function.type != "field_expression":
            if function is not None and function.type == "scoped_identifier":
                return self.path_call(function, args)
            for a in args:
                self.expr(a)
            if function is not None and function.type not in ("identifier", "scoped_identifier"):
                self.expr(function)
            return None
        receiver, method_node = function.child_by_field_name("value"), function.child_by_field_name("field")
        method = text(method_node) if method_node is not None else ""
        recv = self.expr(receiver) if receiver is not None else None
        if isinstance(recv, Seq):
            return self.seq_method(method, recv, args)
        types = [self.expr(a) for a in args if a.type != "closure_expression"]
        for a in args:
            if a.type == "closure_expression":
                self.closure(a, [])
        if method in _SAME_ARG_METHODS and recv is not None and not (isinstance(recv, Var) and recv.root().ty is None):
            for t in types:
                unify(recv, t)
        if method == "len":
            return "usize"
        if isinstance(recv, Var) and recv.root().ty is None:
            return None  # (a method of `{float}` is rustc's E0689: the type must be known by then)
        return recv if method in _SELF_METHODS else None

    def path_call(self, function: Node, args: list[Node]) -> Type:
        """``f32::max(a, b)``: a number's method called by its type's path."""
        path, method = function.child_by_field_name("path"), function.child_by_field_name("name")
        head = text(path) if path is not None else ""
        name_ = text(method) if method is not None else ""
        types = [self.expr(a) for a in args]
        if head in SCALARS and name_ in _SELF_METHODS and types:
            unify(types[0], head)
            if name_ in _SAME_ARG_METHODS:
                for t in types[1:]:
                    unify(t, head)
            return head
        return None

    def seq_method(self, method: str, recv: Seq, args: list[Node]) -> Type:
        """An iterator's (or a slice's) method: what its closure's parameters are, what it gives."""
        closures = [a for a in args if a.type == "closure_expression"]
        others = [a for a in args if a.type != "closure_expression"]
        if method == "fold" and len(args) == 2:
            start = self.expr(args[0])
            if args[1].type == "closure_expression":
                unify(self.closure(args[1], [start, recv.elem]), start)
            else:
                self.expr(args[1])
            return start
        for a in others:
            self.expr(a)
        for c in closures:
            self.closure(c, [recv.elem] if method in _ITEM_CLOSURES else [])
        if method in _SEQ_METHODS:
            return recv
        if method == "len" or method == "count":
            return "usize"
        return None


def _tail(block: Node) -> Node | None:
    """A block's tail expression (its value), if it has one."""
    real = [c for c in block.named_children if c.type not in _COMMENTS]
    if not real or real[-1].type == "let_declaration":
        return None
    last = real[-1]
    if last.type == "expression_statement":
        if last.children and last.children[-1].type == ";":
            return None
        inner = [c for c in last.named_children if c.type not in _COMMENTS]
        return inner[0] if inner else None
    return last


def branch_tails(node: Node) -> list[Node]:
    """The tail expressions of an `if` / `else if` / `else` chain's blocks (each branch's value)."""
    tails: list[Node] = []
    at: Node | None = node
    while at is not None and at.type == "if_expression":
        consequence = at.child_by_field_name("consequence")
        tail = _tail(consequence) if consequence is not None else None
        if tail is not None:
            tails.append(tail)
        alternative = at.child_by_field_name("alternative")
        inner = [c for c in alternative.named_children if c.type not in _COMMENTS] if alternative is not None else []
        at = None
        if inner and inner[0].type == "block":
            tail = _tail(inner[0])
            if tail is not None:
                tails.append(tail)
        elif inner:
            at = inner[0]
    return tails


def _identifiers(pattern: Node) -> list[Node]:
    """The names a pattern binds (not a path's, a struct's field name's or a literal's)."""
    found: list[Node] = []
    stack = [pattern]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            found.append(n)
        elif n.type not in ("scoped_identifier", "type_identifier", *_COMMENTS):
            stack.extend(n.named_children)
    return found


def _read(node: Node | None) -> TypeRef | None:
    return read_type(node) if node is not None else None


def _suffix(literal: str, cls: str) -> str | None:
    """A suffixed literal's type (``7u8``: u8; ``1e-3f32``: f32), None for an unsuffixed one."""
    if cls == "int":
        parsed = semantics.parse_int_literal(literal)
        return parsed[1] if parsed is not None else None
    for t in FLOAT_TYPES:
        if literal.endswith(t):
            return t
    return None


def infer(body: Node, env: Env) -> Typing:
    """The types Rust infers in ``body`` (a fn's block), what ``env`` says of the names bound before
    it; the body's value meets the function's return type."""
    p = _Pass(env)
    unify(p.expr(body), env.returns)
    return p.out


__all__ = ["Env", "Seq", "Type", "Typing", "Var", "infer", "type_of", "unify"]
