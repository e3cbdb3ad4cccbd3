"""The host lowerer: the state of one host method's lowering, and the sinks its control flow
lowers into.

A :class:`HostLowerer` is a :class:`~rs2triton.transpiler.lowering.lowerer.Lowerer` for the
host target: the same dispatch (with its safety net), names and scopes, bodies and
diagnostics, the host's rules and builder. Rust is expression-oriented: a block, ``if``,
``match`` or ``loop`` whose value is used is lowered *into* a sink — a ``return``, an
assignment, nothing — that each of its branches ends with (:meth:`HostLowerer.value_into`), so
the Python is statements as one would write them.

:class:`HostModule` is what a file's host code can refer to: its kernels, its structs and
their fields, its module constants; and what the generated module must import for it.
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import cast

from tree_sitter import Node

from rs2triton.diagnostics import TranspileError
from rs2triton.runtime import host as runtime_host
from rs2triton.rust.semantics import check_int_literal
from rs2triton.rust.types import INT_TYPES, SCALARS
from rs2triton.transpiler.frontend.parse import text
from rs2triton.transpiler.frontend.types import TypeRef, read_type
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.lowerer import Lowerer, names_in, pass_type
from rs2triton.transpiler.lowering.names import Names, Reserved, rust_key
from rs2triton.transpiler.lowering.registry import BUILDERS, HOST, STATEMENTS, Target
from rs2triton.transpiler.lowering.typing import Type as PassType
from rs2triton.transpiler.lowering.typing import type_of
from rs2triton.transpiler.lowering.values import (
    NONE_TY,
    PTR,
    SHAPE,
    STR,
    UNKNOWN,
    Kind,
    Ty,
    Val,
    container,
)
from rs2triton.transpiler.pyast import literal_value, python_name

# What generated host code imports by name (rs2triton.runtime.host, the runtime's classes, the
# standard library): a host local never takes one of these names.
RUNTIME_NAMES = frozenset(runtime_host.__all__) | {"ArgVisitor", "RuntimeOp", "Unsupported", "Launcher", "math",
                                                  "functools", "triton", "tl"}
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | RUNTIME_NAMES | {
    "self", "cls", "visitor"}

# Diagnostics that mean "outside the translated subset" in host code: the method raises
# NotImplementedError saying so (a warning), and the rest of the file is translated. Any other
# error (what rustc rejects: a bad literal, overflow in a constant) is an error of the file.
UNTRANSLATED = frozenset({"E0002", "E0003", "E0004", "E0005", "E0006", "E0008"})


@dataclass
class HostModule:
    """What the host code of one file can refer to, and what its module must import for it."""

    ctx: ModuleContext
    kernels: dict[str, dict[str, str]] = field(default_factory=dict)  # launcher name -> const generics' types
    kernel_dtypes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    kernel_backward: dict[str, str] = field(default_factory=dict)
    structs: dict[str, dict[str, Ty]] = field(default_factory=dict)  # struct -> field -> type
    consts: dict[str, Node] = field(default_factory=dict)  # module consts (and macro-written ones)
    const_defs: dict[str, tuple[ast.stmt, Ty]] = field(default_factory=dict)  # those lowered, by Python name
    evaluating: set[str] = field(default_factory=set)
    helpers: set[str] = field(default_factory=set)  # names imported from rs2triton.runtime.host
    modules: set[str] = field(default_factory=set)  # `math`
    taken: set[str] = field(default_factory=set)  # module-level names (launchers, classes, jit fns)
    # A wrapper struct's fields whose names its class's methods have (`backward_kernel`): struct
    # -> field -> the attribute that holds it instead
    field_attrs: dict[str, dict[str, str]] = field(default_factory=dict)
    # A wrapper struct's fields' keywords (FIELDS), where a field's python_name is another's: struct -> field -> keyword
    field_keys: dict[str, dict[str, str]] = field(default_factory=dict)
    # A wrapper struct's `String` fields that its `new` gives a kernel's source: struct -> field -> kernel
    source_fields: dict[str, dict[str, str]] = field(default_factory=dict)
    # struct -> inherent method -> (has self, its parameters' type nodes, its return type node)
    inherent: dict[str, dict[str, tuple[bool, list[Node | None], Node | None]]] = field(default_factory=dict)

    # struct -> inherent method -> its Python name (one that a generated class already has, such as
    # `apply` or `type_args`, or a Python keyword, is kept apart: `apply_`)
    method_names: dict[str, dict[str, str]] = field(default_factory=dict)
    # kernel struct -> its fields whose lowercased names a configured kernel has (`launcher`): read
    # from its `consts` instead, by the const generic's name
    const_reads: dict[str, dict[str, str]] = field(default_factory=dict)

    imported: set[str] = field(default_factory=set)  # the names the file's `use`s bring in by name
    foreign_globs: bool = False  # a `use x::*` of a path that could bring any name (not the DSL's or std's)
    imports_traits: bool = False  # a `use` that could bring a trait adding methods to numbers

    def method_name(self, struct: str, method: str) -> str:
        return self.method_names.get(struct, {}).get(method) or python_name(method)

    def field_key(self, struct: str, field_name: str) -> str:
        """The keyword of ``struct``'s class that gives the Rust field ``field_name``."""
        return self.field_keys.get(struct, {}).get(field_name) or python_name(field_name)

    def field_attr(self, struct: str, field_name: str) -> str:
        """The attribute of ``struct``'s class that holds the Rust field ``field_name``."""
        return self.field_attrs.get(struct, {}).get(field_name) or python_name(field_name)


Sink = Callable[["HostLowerer", Val, Node], None]


def discard(lw: HostLowerer, v: Val, node: Node) -> None:
    """A value not used: a call stays (for what it does), anything else goes."""
    if isinstance(v.expr, ast.Call):
        lw.emit(ast.Expr(v.expr), node)


def returning(lw: HostLowerer, v: Val, node: Node) -> None:
    if lw.visitor is not None:  # a `pack_*` method returns what it visited
        discard(lw, v, node)
        lw.emit(ast.Return(value=ast.Name("visitor", ast.Load())), node)
        return
    lw.emit(ast.Return(value=lw.settle(v, lw.returns, node).expr if v.ty.kind is not Kind.NONE else None), node)


def assign_to(py: str, declared: Ty | None, bound: list[Ty], infer: bool = False,
              values: list[Val] | None = None) -> Sink:
    """A sink assigning the value to ``py`` (the type each branch gives is appended to ``bound``,
    the value to ``values``): an integer is wrapped to its type when it is bound to a name.
    ``infer``: an unsuffixed literal bound without an annotation (`let mut n = 0;`) is a number
    whose type Rust infers from its later uses (`n += len`): it stays untyped here, and the uses
    type it."""

    def assign(lw: HostLowerer, v: Val, node: Node) -> None:
        if values is not None:
            values.append(v)
        lit = literal_value(v.expr)
        if infer and v.weak and v.ty.elem not in ("bool", None) and not isinstance(lit, float):
            if isinstance(lit, int):  # (unless something else types it, Rust's fallback is i32)
                with lw.rust_rules(node):
                    check_int_literal(lit, "i32")
            bound.append(Ty(Kind.SCALAR, None))
            lw.emit(ast.Assign(targets=[ast.Name(py, ast.Store())], value=v.expr), node)
            return
        v = lw.settle(v, declared, node)
        bound.append(v.ty)
        lw.emit(ast.Assign(targets=[ast.Name(py, ast.Store())], value=v.expr), node)

    return assign


class HostLowerer(Lowerer):
    """Lowers one host function. ``struct``: the struct whose method it is; ``fields``: the types
    of ``self``'s fields; ``classmethod``: a function without ``self`` (``new``)."""

    target: Target = HOST

    def __init__(self, module: HostModule, fn: Node, struct: str, fields: dict[str, Ty],
                 type_params: tuple[str, ...] = (), classmethod: bool = False, methods: frozenset[str] = frozenset(),
                 anchor: Node | None = None):
        super().__init__(module.ctx, None, fn, "T")
        self.module = module
        self.struct = struct
        self.fields = fields
        self.type_params = type_params
        self.in_classmethod = classmethod
        self.methods = methods  # the struct's own methods (`self.helper(..)`)
        self.anchor = anchor  # the macro invocation that wrote this method, if one did
        self.names = Names(Reserved(RESERVED, module.taken))
        self.visitor: str | None = None  # the Rust name of a `pack_*` method's visitor parameter
        self.returns: Ty = UNKNOWN
        self.sink: Sink = discard
        self.hints: dict[int, str] = {}  # node id -> the scalar type its context gives it
        self.loop_sinks: list[Sink | None] = []  # the sinks of the enclosing `loop`s (`break value`)
        # the enclosing loops' labels (`'outer`, or None), and per loop the outer labels a `break 'l`
        # or `continue 'l` inside it jumps to (statements/loops: a flag per label, set, then `break`)
        self.loop_labels: list[str | None] = []
        self.jumps: list[set[str]] = []
        self.label_flags: dict[str, str] = {}  # label -> the Python name of its jump flag
        # integer `let`s without a type (`let n = 0;`): Python name -> the `let`'s node id; `let`s
        # that share a type (`let m = n * 2;`) are joined (``int_joined``: id -> id it joined), and
        # ``int_types`` holds the type the first typed use gave each group (None: none yet), as
        # Rust's inference settles it
        self.int_lets: dict[str, int] = {}
        self.int_joined: dict[int, int] = {}
        self.int_types: dict[int, str | None] = {}

    def name_type(self, params: dict[str, Ty], rust: str) -> PassType:
        """A parameter's type, or a constant's of the file (its annotation)."""
        if rust_key(rust) in params:
            return super().name_type(params, rust)
        const = self.module.consts.get(rust)
        annotation = const.child_by_field_name("type") if const is not None else None
        return type_of(read_type(annotation)) if annotation is not None else None

    def field_type(self, field: str) -> PassType:
        return pass_type(self.fields.get(field))

    def return_type(self) -> PassType:
        return pass_type(self.returns)

    def inferred_int(self, v: Val) -> bool:
        """Whether ``v`` is an integer whose type Rust still infers (`n` of `let n = 0;`, `n * 2`):
        no float, whatever it meets (rustc's E0277 for `f * n`)."""
        return v.ty.elem is None and v.ty.kind is Kind.SCALAR and bool(self.int_lets) and any(
            n in self.int_lets for n in names_in(v.expr))

    def int_let(self, py: str, let_id: int, joined: list[str]) -> None:
        """``py`` is bound by the `let` ``let_id`` to an integer whose type Rust infers from the uses,
        the same type as the integer `let`s ``joined`` (`let m = n * 2;`)."""
        self.int_lets[py] = let_id
        self.int_types[let_id] = None
        for other in joined:
            a, b = self._int_group(let_id), self._int_group(self.int_lets[other])
            if a != b:
                self.int_joined[b] = a
                self.int_types[a] = self.int_types[a] or self.int_types[b]

    def _int_group(self, let_id: int) -> int:
        while let_id in self.int_joined:
            let_id = self.int_joined[let_id]
        return let_id

    def int_let_type(self, v: Val) -> str | None:
        """The type a use gave the integer `let`s in ``v`` (None: none yet, or none in it)."""
        if not self.inferred_int(v):
            return None
        return next((t for n in names_in(v.expr) if n in self.int_lets
                     and (t := self.int_types[self._int_group(self.int_lets[n])]) is not None), None)

    def int_let_met(self, v: Val, elem: str | None, node: Node) -> None:
        """The integer ``v`` (an integer `let` without a type, or arithmetic on such) is used as an
        ``elem`` (`b | n` with `b: i32`, `let y: i64 = n - 1;`): the `let`s in it take that type,
        as Rust's inference does at their first such use; one that took another type before is
        rustc's E0308 here."""
        if elem not in INT_TYPES or not self.inferred_int(v):
            return
        for n in names_in(v.expr):
            if n in self.int_lets:
                group = self._int_group(self.int_lets[n])
                had = self.int_types[group]
                if had is not None and had != elem:
                    raise self.rejects(node, "E0308", f"mismatched types: expected `{elem}`, found `{had}`",
                                       f"`{text(node)}` is an `{had}` from an earlier use")
                self.int_types[group] = elem

    # ------------------------------------------------------------------ diagnostics
    def err(self, node: Node, code: str, msg: str, hint: str | None = None) -> TranspileError:
        """A diagnostic at ``node`` (at the macro invocation, for a method a macro wrote)."""
        return self.smap.error(self.anchor if self.anchor is not None else node, code, msg, hint)

    def emit(self, stmt: ast.stmt, node: Node | None = None) -> None:
        if node is not None:
            stmt.lineno = (self.anchor or node).start_point[0] + 1
        self.bodies[-1].append(stmt)

    @contextmanager
    def anchored(self, node: Node) -> Iterator[None]:
        """Nodes parsed from a macro's tokens have no place in the file: inside, diagnostics and
        lines are the invocation's (``node``)."""
        saved = self.anchor
        self.anchor = saved or node
        try:
            yield
        finally:
            self.anchor = saved

    def emit_comment(self, node: Node, trailing: bool = False) -> None:
        return None  # (host classes carry the Rust's doc comments, not its line comments)

    def emit_inner_comments(self, node: Node) -> None:
        return None

    # ------------------------------------------------------------------ imports
    def helper(self, fn: str) -> ast.expr:
        """A name of ``rs2triton.runtime.host``, imported by the module."""
        self.module.helpers.add(fn)
        return ast.Name(fn, ast.Load())

    def use(self, module: str) -> ast.expr:
        self.module.modules.add(module)
        return ast.Name(module, ast.Load())

    # ------------------------------------------------------------------ types from context
    def hint(self, node: Node, ty: Ty | None) -> None:
        """``node``'s context gives it the scalar type ``ty`` (a `let` annotation, a parameter, a
        return type): an unsuffixed literal in it takes that type, as Rust's inference does."""
        if ty is not None and ty.elem in SCALARS and ty.kind in (Kind.SCALAR, Kind.CONST):
            self.hints[node.id] = ty.elem

    def literal_type(self, node: Node) -> str | None:
        """The type an unsuffixed literal at ``node`` gets: its context's (a hint), else the one the
        typing pass inferred from its uses (``(0..3).fold(0, ..)`` returned as a `usize`)."""
        at = node
        while True:
            if at.id in self.hints:
                return self.hints[at.id]
            parent = at.parent
            if parent is None:
                return self.inferred_literal(node)
            if parent.type == "binary_expression":
                op = text(parent.child_by_field_name("operator") or parent)
                if op not in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>") or (
                        op in ("<<", ">>") and parent.child_by_field_name("right") == at):
                    return self.inferred_literal(node)
            elif parent.type not in ("unary_expression", "parenthesized_expression"):
                return self.inferred_literal(node)
            at = parent

    def settle(self, v: Val, ty: Ty | None, node: Node) -> Val:
        """``v`` where a value of type ``ty`` (None: its own) is stored, passed or returned:
        wrapped to its type, an unsuffixed literal given the type (and held to its range), an
        f32 literal rounded; a literal with no type from anywhere is an i32 or an f64, as Rust's
        fallback has it."""
        return cast(Val, BUILDERS[HOST].settle(self, v, ty, node))

    # ------------------------------------------------------------------ values into sinks
    def value_into(self, node: Node, sink: Sink) -> None:
        """``node`` evaluated, its value given to ``sink``; a block, ``if``, ``match``, ``loop`` or
        ``return`` lowered to statements whose branches each end in the sink."""
        saved, self.sink = self.sink, sink
        try:
            rule = STATEMENTS[HOST].get(node.type)
            if rule is not None:
                self.dispatch(rule, node)
            else:
                sink(self, self.expr(node), node)
        finally:
            self.sink = saved

    def as_statement(self, node: Node) -> None:
        saved, self.sink = self.sink, discard
        try:
            super().as_statement(node)
        finally:
            self.sink = saved

    def body_of(self, node: Node, sink: Sink, scope: bool = True) -> list[ast.stmt]:
        """The statements of ``node`` (a block or an expression) into ``sink``, as a Python block of
        their own."""
        body: list[ast.stmt] = []
        with self.names.scope() if scope else nullcontext(), self.into(body):
            self.value_into(node, sink)
        return body or [ast.Pass()]

    # ------------------------------------------------------------------ types
    def rust_type(self, node: Node | None) -> Ty:
        """The type a Rust type node names, as host code holds it."""
        return rust_type(node, self.module, self.struct)


def rust_type(node: Node | None, module: HostModule | None = None, struct: str = "") -> Ty:
    """The host type a Rust type node names: scalars, ``&[T]``/``Vec<T>`` (a sequence), ``[T; N]``
    (a tuple), ``Option<T>``, tuples (a ``(RawPtr, &[usize])`` pair is the tensor), ``RawPtr``,
    ``String``/``&str``, a kernel struct, a struct of the file, ``Self``."""
    return UNKNOWN if node is None else _host_type(read_type(node), module, struct)


def _host_type(t: TypeRef, module: HostModule | None, struct: str) -> Ty:
    """:func:`rust_type` of the type as read (:func:`~rs2triton.transpiler.frontend.types.read_type`)."""
    kind = t.kind
    if kind == "primitive_type":
        if t.head in SCALARS:
            return Ty(Kind.SCALAR, t.head)
        return STR if t.head in ("str", "char") else UNKNOWN
    if kind == "pointer_type":
        return PTR
    if kind == "reference_type":
        return _host_type(t.args[0], module, struct) if t.args else UNKNOWN
    if kind == "array_type":
        inner = _host_type(t.args[0], module, struct) if t.args else UNKNOWN
        if t.length is None:
            return container(Kind.SEQ, inner)
        digits = t.length.removesuffix("usize").replace("_", "")
        return Ty(Kind.ARRAY, None, (inner,), length=int(digits) if digits.isdigit() else None)
    if kind == "tuple_type":
        items = tuple(_host_type(c, module, struct) for c in t.args)
        if len(items) == 2 and items[0].kind is Kind.PTR and items[1] == SHAPE:
            return Ty(Kind.INPUT)
        return Ty(Kind.TUPLE, None, items)
    if kind == "unit_type":
        return NONE_TY
    if kind == "dynamic_type" or kind == "abstract_type":
        return Ty(Kind.VISITOR) if "ArgVisitor" in t.source else UNKNOWN
    if kind in ("generic_type", "type_identifier", "scoped_type_identifier"):
        base = t.head.split("::")[-1]
        inner = _host_type(t.args[0], module, struct) if t.args else UNKNOWN
        if base == "Vec":
            return container(Kind.SEQ, inner)
        if base == "Option":
            return container(Kind.OPTION, inner)
        if base == "Box":
            return inner
        if base == "RawPtr":
            return PTR
        if base in ("String", "str"):
            return STR
        if base == "PhantomData":
            return Ty(Kind.PHANTOM)
        if base in SCALARS:
            return Ty(Kind.SCALAR, base)
        if module is not None and base in module.kernels:
            return Ty(Kind.KERNEL, base)
        if base == "Self":
            return Ty(Kind.STRUCT, struct)
        if module is not None and base in module.structs:
            return Ty(Kind.STRUCT, base)
        return Ty(Kind.UNKNOWN, base)
    return UNKNOWN

