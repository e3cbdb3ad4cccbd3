"""A file's host side as Python classes: one per ``impl RuntimeOp for S``.

- ``S`` is a kernel struct of the file (``ReluForward``, made by ``#[kernel]``): the class holds
  the translated methods, and the kernel's launcher is built with it (``op=``), so
  ``ReluForward(BLOCK_SIZE=1024)`` has them, with the const generics as lowercased fields;
- ``S`` is a struct of the file (a wrapper holding kernels and runtime values): the class is
  ``S`` itself, with its fields (``FIELDS``), its translated ``new`` as a classmethod, and
  ``forward_kernel``/``backward_kernel`` from its ``forward_source``/``backward_source``
  methods (or, without them, from its fields that hold kernels).

Impls written by a ``macro_rules!`` of the file are expanded first (:mod:`..frontend.macros`).
Items whose ``#[cfg(...)]`` is false are left out, as rustc leaves them out. A method outside
the translated subset becomes one that raises ``NotImplementedError`` saying why, with a
located warning; the rest of the op, and the kernel's launcher, still work.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tree_sitter import Node

from rs2triton.diagnostics import Diagnostic, TranspileError
from rs2triton.runtime.launcher import Configured
from rs2triton.runtime.ops import TRAIT_RUST, RuntimeOp
from rs2triton.rust.cfg import CfgError, evaluate
from rs2triton.transpiler.frontend.items import HostItem, Kernel, ModuleItems, collect, doc_of
from rs2triton.transpiler.frontend.macros import MacroError, MacroSyntaxError, expand, file_macros, root_of
from rs2triton.transpiler.frontend.parse import named_children, parser, text
from rs2triton.transpiler.frontend.source import SourceMap
from rs2triton.transpiler.lowering import rustc, typeck
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.host.lowerer import (
    UNTRANSLATED,
    HostLowerer,
    HostModule,
    discard,
    returning,
    rust_type,
)
from rs2triton.transpiler.lowering.values import NONE_TY, STR, UNKNOWN, Kind, Ty
from rs2triton.transpiler.pyast import LOAD, STORE, call, const, launcher_name, name, python_name

W_HOST = "W0010"  # host logic not translated


@dataclass
class HostOp:
    """One translated op: its class and, for a kernel struct, the launcher it belongs to."""

    struct: str
    class_name: str
    launcher: str | None  # the kernel's launcher name, for a kernel struct's op
    node: ast.ClassDef
    line: int
    summary: dict[str, Any] = field(default_factory=dict)  # for `rs2triton kernels`


@dataclass
class HostSide:
    ops: list[HostOp] = field(default_factory=list)
    consts: list[ast.stmt] = field(default_factory=list)
    helpers: set[str] = field(default_factory=set)
    modules: set[str] = field(default_factory=set)
    warnings: list[Diagnostic] = field(default_factory=list)

    def op_of(self, launcher: str) -> str | None:
        return next((o.class_name for o in self.ops if o.launcher == launcher), None)


def _cfg_ok(attrs: list[Node], features: frozenset[str], smap: SourceMap, warnings: list[Diagnostic]) -> bool:
    for a in attrs:
        attr = next((c for c in a.named_children if c.type == "attribute"), None)
        if attr is None or not attr.named_children or text(attr.named_children[0]) != "cfg":
            continue
        args = attr.child_by_field_name("arguments")
        if args is None:
            continue
        try:
            if not evaluate(text(args)[1:-1], features):
                return False
        except CfgError as e:
            warnings.append(smap.diag(a, W_HOST, f"this `#[cfg]` cannot be read: {e}", severity="warning"))
            return False
    return True


def _type_name(node: Node | None) -> str | None:
    if node is None:
        return None
    inner = node.child_by_field_name("type") if node.type == "generic_type" else node
    return text(inner or node).split("::")[-1].split("<")[0].strip()


class _Items:
    """The host items of the file and of its macro expansions, each with the node a diagnostic
    about it points at (the item, or the invocation that wrote it)."""

    def __init__(self, items: ModuleItems, root_source: bytes, smap: SourceMap, features: frozenset[str],
                 warnings: list[Diagnostic]):
        self.structs: dict[str, tuple[HostItem, Node | None]] = {}
        self.impls: list[tuple[HostItem, Node | None]] = []
        self.consts: dict[str, Node] = dict(items.consts)
        for name_, s in items.structs.items():
            if _cfg_ok(s.attrs, features, smap, warnings):
                self.structs[name_] = (s, None)
        self.impls = [(i, None) for i in items.impls if _cfg_ok(i.attrs, features, smap, warnings)]
        macros: dict[str, Node] | None = None  # (the file's, nested ones too: found once)
        for inv in items.invocations:
            macro = text(inv.node.child_by_field_name("macro") or inv.node).split("::")[-1]
            definition = items.macros.get(macro)
            if definition is None or not _cfg_ok(inv.attrs, features, smap, warnings):
                continue
            try:
                if macros is None:
                    macros = file_macros(root_of(definition))
                expansion = expand(definition, inv.node, root_source, macros=macros)
            except MacroSyntaxError as e:  # rustc rejects the program: where the bad token came from
                hint = "the macro writes this; check the macro body and the invocation"
                d = smap.diag(inv.node, "E0001", str(e), hint) if e.offset is None \
                    else smap.offset_diag(e.offset, "E0001", str(e), hint)
                raise TranspileError([d]) from None
            except MacroError as e:
                warnings.append(smap.diag(inv.node, W_HOST, f"`{macro}!` is not expanded: {e}",
                                          "the items it writes are not translated", severity="warning"))
                continue
            inner = collect(expansion.tree.root_node, SourceMap(smap.path, expansion.source, smap.shown))
            for name_, s in inner.structs.items():
                if _cfg_ok(s.attrs, features, smap, warnings):
                    self.structs[name_] = (s, inv.node)
            self.impls += [(i, inv.node) for i in inner.impls if _cfg_ok(i.attrs, features, smap, warnings)]
            self.consts.update(inner.consts)


def _trait() -> dict[str, TraitMethod]:
    """teenygrad's ``RuntimeOp`` trait, read from its Rust (``runtime/ops.TRAIT_RUST``): each
    method's Python parameters (the trait's names) with their types, what it returns, and whether
    it takes the visitor last."""
    tree = parser().parse(TRAIT_RUST.encode())
    trait = next(c for c in tree.root_node.named_children if c.type == "trait_item")
    out: dict[str, TraitMethod] = {}
    for fn in named_children(trait.child_by_field_name("body")):  # type: ignore[arg-type]
        if fn.type != "function_signature_item":
            continue
        params = [p for p in named_children(fn.child_by_field_name("parameters")) if p.type == "parameter"]  # type: ignore[arg-type]
        typed = [(text(p.child_by_field_name("pattern") or p), rust_type(p.child_by_field_name("type"))) for p in params]
        visitor = bool(typed) and typed[-1][1].kind is Kind.VISITOR
        ret = fn.child_by_field_name("return_type")
        out[text(fn.child_by_field_name("name"))] = TraitMethod(  # type: ignore[arg-type]
            tuple(typed[:-1] if visitor else typed), rust_type(ret) if ret is not None else NONE_TY, visitor)
    return out


class TraitMethod(NamedTuple):
    params: tuple[tuple[str, Ty], ...]
    returns: Ty
    visitor: bool = False


TRAIT: dict[str, TraitMethod] = _trait()


def translate(items: ModuleItems, kernels: list[Kernel], ctx: ModuleContext, features: frozenset[str],
              taken: set[str]) -> HostSide:
    """The host side of a file: a class per ``impl RuntimeOp``."""
    smap, source = ctx.smap, ctx.smap.source
    side = HostSide()
    found = _Items(items, source, smap, features, side.warnings)
    module = HostModule(ctx, taken=set(taken), consts=dict(found.consts))
    _read_uses(module, source)
    for k in kernels:
        lname = launcher_name(k.name)
        module.kernels[lname] = {c.name: c.rust_type for c in k.consts}
        module.const_reads[lname] = {c.name.lower(): c.name for c in k.consts
                                     if c.name.lower() in CONFIGURED_NAMES or python_name(c.name.lower()) != c.name.lower()}
        module.kernel_dtypes[lname] = tuple(d.name for d in k.dtype_params)
        if k.backward:
            module.kernel_backward[lname] = k.backward.split("::")[-1]
    trait_impls: list[tuple[HostItem, Node | None, str]] = []
    inherent: dict[str, list[tuple[HostItem, Node | None]]] = {}
    for item, anchor in found.impls:
        struct = _type_name(item.node.child_by_field_name("type"))
        trait = item.node.child_by_field_name("trait")
        if struct is None:
            continue
        if trait is None:
            inherent.setdefault(struct, []).append((item, anchor))
        elif _type_name(trait) == "RuntimeOp":
            trait_impls.append((item, anchor, struct))
    for struct in found.structs:
        if struct not in module.kernels:
            module.structs[struct] = {}
    for struct, (s, _anchor) in found.structs.items():
        if struct not in module.kernels:
            module.structs[struct] = _struct_fields(s.node, module)
    for struct, impls in inherent.items():
        for inh, _anchor in impls:
            for fn, attrs, _doc in _methods(inh):
                if _cfg_ok(attrs, features, smap, []):
                    params_node = fn.child_by_field_name("parameters")
                    ps = named_children(params_node) if params_node is not None else []
                    module.inherent.setdefault(struct, {})[_fn_name(fn)] = (
                        any(p.type == "self_parameter" for p in ps),
                        [p.child_by_field_name("type") for p in ps if p.type == "parameter"],
                        fn.child_by_field_name("return_type"))
        module.method_names[struct] = class_names(list(module.inherent.get(struct, {})), CLASS_NAMES)
    for item, anchor, struct in trait_impls:
        where = anchor or item.node
        if struct in module.kernels:
            op = _kernel_op(item, anchor, struct, module, smap, side, inherent.get(struct, []))
        elif struct in module.structs:
            op = _wrapper_op(item, anchor, struct, found.structs[struct][0], module, smap, side,
                             inherent.get(struct, []))
        else:
            side.warnings.append(smap.diag(where, W_HOST, f"`impl RuntimeOp for {struct}` is not translated: "
                                           f"`{struct}` is neither a kernel nor a struct of this file",
                                           severity="warning"))
            continue
        side.ops.append(op)
    _check_consts(module, smap)
    side.helpers = module.helpers
    side.modules = module.modules
    side.consts = [stmt for stmt, _ty in module.const_defs.values()]
    return side


_USE = re.compile(rb"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?use[ \t]+([^;]+);", re.M)
# Crates whose globs bring no value, function or number trait that host code would call by name
# (teenygrad's DSL and core types; the standard library's prelude is always there).
_KNOWN_GLOBS = (b"teeny_triton", b"teeny_core", b"teeny_macros", b"std", b"core", b"crate::triton")


def _read_uses(module: HostModule, source: bytes) -> None:
    """What the file's `use` declarations bring into scope: names (and whether a glob of another
    crate could bring any name, or a trait could add methods to numbers)."""
    for m in _USE.finditer(source):
        tree = m.group(1).replace(b" ", b"").replace(b"\n", b"")
        if b"*" in tree and not tree.startswith(_KNOWN_GLOBS):
            module.foreign_globs = True
        if not tree.startswith(_KNOWN_GLOBS):
            module.imports_traits = True
        for name_ in re.findall(rb"([A-Za-z_][A-Za-z0-9_]*)(?:as([A-Za-z_][A-Za-z0-9_]*))?(?=[,}]|$)", tree):
            module.imported.add((name_[1] or name_[0]).decode())


def _check_consts(module: HostModule, smap: SourceMap) -> None:
    """Every module `const` is evaluated, as rustc evaluates them, used or not: one that overflows
    or divides by zero is an error (rustc's E0080); what is outside the translated subset is left
    for rustc (and left out of the module unless host code reads it)."""
    from rs2triton.transpiler.lowering.host.builder import host_const

    kept = dict(module.const_defs)
    helpers, modules = set(module.helpers), set(module.modules)
    for name_, item in module.consts.items():
        lw = HostLowerer(module, item, "", {})
        try:
            host_const(lw, name_, item)
        except TranspileError as e:
            if any(d.code not in UNTRANSLATED for d in e.diagnostics):
                raise
    module.const_defs = kept
    module.helpers, module.modules = helpers, modules


# What a generated op class has of its own (the runtime's machinery, the class tables, what
# `__init__` sets): an inherent method or a field of one of these names is held under another.
# The class body reads `classmethod` (a `new`'s decorator) and `Unsupported` (a method not
# translated) after the methods are defined: a method of either name would stand for them.
CLASS_NAMES = frozenset(dir(RuntimeOp)) | {"type_args", "classmethod", "Unsupported"}
# What a configured kernel has of its own besides: a const generic whose lowercased name is one
# of these (`const LAUNCHER: i32`) is read from the kernel's `consts`.
CONFIGURED_NAMES = frozenset(dir(Configured)) | frozenset(Configured.ATTRIBUTES) | CLASS_NAMES


def class_names(rust: list[str], reserved: frozenset[str] | set[str], suffix: str = "_") -> dict[str, str]:
    """Python names for Rust names that share one namespace of a class (a struct's methods, its
    fields' attributes, its fields' keywords), apart from ``reserved`` (what the class has of its
    own) and from each other, in one pass and for any identifier: a Rust name Python reads as it is
    keeps its name; any other gets its :func:`python_name`, with ``suffix`` and then ``_``
    appended while that is taken (`apply` -> `apply_`; `lambda` and `lambda_` -> `lambda__` and
    `lambda_`). It ends: each try is longer than the last and only finitely many are taken, and
    no try is a dunder, as no :func:`python_name` begins with ``__``."""
    out: dict[str, str] = {}
    taken = set(reserved)
    for r in rust:  # first those Python reads as Rust does: nothing was wrong with them
        if python_name(r) == r and r not in taken:
            out[r] = r
            taken.add(r)
    for r in rust:
        if r in out:
            continue
        py = python_name(r)
        if py in taken:
            py += suffix
        while py in taken:
            py += "_"
        out[r] = py
        taken.add(py)
    return {r: out[r] for r in rust}


def _struct_fields(node: Node, module: HostModule) -> dict[str, Ty]:
    body = node.child_by_field_name("body")
    fields: dict[str, Ty] = {}
    if body is None or body.type != "field_declaration_list":
        return fields
    for f in named_children(body):
        fname, ftype = f.child_by_field_name("name"), f.child_by_field_name("type")
        if f.type == "field_declaration" and fname is not None and ftype is not None:
            fields[text(fname)] = rust_type(ftype, module)
    return fields


# --------------------------------------------------------------------- building classes


def _methods(item: HostItem) -> list[tuple[Node, list[Node], str | None]]:
    """The fn items of an impl block, each with its attributes and doc comment."""
    body = item.node.child_by_field_name("body")
    out = []
    attrs: list[Node] = []
    docs: list[Node] = []

    for c in body.named_children if body is not None else []:
        if c.type == "attribute_item":
            attrs.append(c)
        elif c.type == "line_comment":
            docs.append(c)
        elif c.type == "function_item":
            out.append((c, attrs, doc_of(docs)))
            attrs, docs = [], []
        else:
            attrs, docs = [], []
    return out


def _lower_method(fn: Node, doc: str | None, lw: HostLowerer, py_name: str, smap: SourceMap, side: HostSide,
                  anchor: Node | None, op_name: str, classmethod: bool = False) -> ast.stmt:
    """One Rust method as a Python ``def``; outside the translated subset, an ``Unsupported``
    attribute saying why (with a located warning). What rustc rejects is the file's error. The body is
    typed by Rust's inference before it is lowered (lowering/typing.py: a `let`'s type from all its uses)."""
    spec = TRAIT.get(py_name)
    params_node = fn.child_by_field_name("parameters")
    rust_params = [p for p in named_children(params_node) if p.type not in ("attribute_item", "line_comment",
                                                                             "block_comment", "self_parameter")] \
        if params_node is not None else []
    args: list[ast.arg] = [ast.arg(arg="cls" if classmethod else "self")]
    body: list[ast.stmt] = []
    try:
        with lw.into(body):
            if spec is not None:
                lw.returns = spec.returns
                if len(rust_params) != len(spec.params) + (1 if spec.visitor else 0):
                    raise lw.err(fn, "E0002", f"`{py_name}` has {len(rust_params)} parameters; the trait's (as "
                                 f"release/0.2.1 states it) has {len(spec.params) + spec.visitor}")
                for p in rust_params:
                    typeck.check_pattern_names(lw, p, p.child_by_field_name("type"))
                for p, (py, ty) in zip(rust_params, spec.params, strict=False):
                    lw.names.bind(_param_name(p), py, ty)
                    _param_mutability(lw, p)
                    args.append(ast.arg(arg=py))
                if spec.visitor:
                    lw.visitor = _param_name(rust_params[-1])
            else:
                for p in rust_params:
                    typeck.check_pattern_names(lw, p, p.child_by_field_name("type"))
                    ty = lw.rust_type(p.child_by_field_name("type"))
                    py = lw.names.declare(_param_name(p), ty)
                    _param_mutability(lw, p)
                    args.append(ast.arg(arg=py))
                    if ty.kind is Kind.SCALAR and ty.elem == "f32":  # a Rust f32 argument holds an f32
                        lw.emit(ast.Assign(targets=[ast.Name(py, STORE)], value=call(lw.helper("f32"), [name(py)])),
                                fn)
                lw.returns = lw.rust_type(fn.child_by_field_name("return_type"))
            body_node = fn.child_by_field_name("body")
            if body_node is None:
                raise lw.err(fn, "E0002", "a method without a body")
            for tp in lw.type_params if classmethod else ():
                lw.names.bind(tp, tp, UNKNOWN)
            lw.start_typing(body_node)
            if lw.visitor is not None:
                lw.emit(ast.Assign(targets=[ast.Name("visitor", STORE)], value=call("ArgVisitor")), fn)
                lw.value_into(body_node, discard)
            else:
                lw.hint(body_node, lw.returns)
                lw.value_into(body_node, returning)
    except TranspileError as e:
        if any(d.code not in UNTRANSLATED for d in e.diagnostics):
            raise
        what = e.diagnostics[0].message
        line = (anchor or fn).start_point[0] + 1
        d = e.diagnostics[0]
        side.warnings.append(Diagnostic(W_HOST, f"`{op_name}::{_fn_name(fn)}` is not translated: {what}", d.path,
                                        d.line, d.col, d.length,
                                        "the method raises NotImplementedError; the kernel's launcher still works",
                                        d.source_line, "warning"))
        value = call("Unsupported", [ast.Constant(op_name), ast.Constant(py_name),
                                                ast.Constant(f"not translated from Rust ({what}; {source_name(smap)}:{line})")])
        return ast.Assign(targets=[ast.Name(py_name, STORE)], value=value, lineno=line)
    stmts = body
    if lw.visitor is not None:
        if not stmts or not isinstance(stmts[-1], ast.Return | ast.Raise):
            stmts.append(ast.Return(value=name("visitor")))
        delegated = _delegation(stmts)
        if delegated is not None:  # the whole body hands the visitor on: return what that visits
            stmts = [ast.Return(value=delegated)]
    line = (anchor or fn).start_point[0] + 1
    if doc:
        stmts.insert(0, ast.Expr(value=ast.Constant(doc)))
    if not stmts:
        stmts = [ast.Pass()]
    kwonly: list[ast.arg] = []
    defaults: list[ast.expr | None] = []
    if classmethod:
        for tp in lw.type_params:
            kwonly.append(ast.arg(arg=tp))
            defaults.append(const(None))
    return ast.FunctionDef(name=py_name, args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=kwonly,
                                                            kw_defaults=defaults, defaults=[]),
                           body=stmts, decorator_list=[name("classmethod")] if classmethod else [],
                           returns=None, lineno=line)


def _param_mutability(lw: HostLowerer, p: Node) -> None:
    b = lw.names.lookup(_param_name(p))
    if b is not None:
        b.decl = "mut" if rustc.is_mut(p) else "param"


def _delegation(stmts: list[ast.stmt]) -> ast.expr | None:
    """``visitor = ArgVisitor(); visitor.extend_visited(CALL); return visitor`` -> CALL."""
    if len(stmts) != 3 or not isinstance(stmts[1], ast.Expr):
        return None
    c = stmts[1].value
    if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "extend_visited":
        return c.args[0]
    return None


def _param_name(p: Node) -> str:
    pattern = p.child_by_field_name("pattern")
    if pattern is None:
        return "_"
    if pattern.type == "mut_pattern":
        pattern = pattern.named_children[-1]
    return text(pattern)


def _fn_name(fn: Node) -> str:
    n = fn.child_by_field_name("name")
    return text(n) if n is not None else "?"


def _class(name_: str, base: str, doc: str | None, body: list[ast.stmt], line: int) -> ast.ClassDef:
    stmts: list[ast.stmt] = [ast.Expr(value=ast.Constant(doc))] if doc else []
    stmts += body
    return ast.ClassDef(name=name_, bases=[name(base)], keywords=[], body=stmts or [ast.Pass()], decorator_list=[],
                        lineno=line)


def _assign(target: str, value: ast.expr) -> ast.stmt:
    return ast.Assign(targets=[ast.Name(target, STORE)], value=value)


def source_name(smap: SourceMap) -> str:
    """The source's path as generated text names it: on one line, each character that is no
    printable text (a tab, a line break, a control, U+2028, a direction mark) written as Python
    escapes it (`src\\tdir/k.rs`): nothing of it breaks the docstring's lines or hides in them."""
    shown = smap.shown
    if shown.isprintable():
        return shown
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in shown)


def _impl_doc(item: HostItem, struct: str, smap: SourceMap, anchor: Node | None) -> str:
    line = (anchor or item.node).start_point[0] + 1
    head = f"teenygrad's `impl RuntimeOp for {struct}` ({source_name(smap)}, line {line}), translated."
    return f"{item.doc}\n\n{head}" if item.doc else head


def _summary(item: HostItem, module: HostModule, smap: SourceMap) -> dict[str, Any]:
    """What ``rs2triton kernels`` shows of an op: the Rust of its input count, parameter names and
    shapes, launches, grid and backward (each method's last expression, on one line), of the
    methods its ``#[cfg]`` keeps."""
    out: dict[str, Any] = {}
    for fn, attrs, _doc in _methods(item):
        if not _cfg_ok(attrs, module.ctx.features, smap, []):  # (its warnings are the translation's to give)
            continue
        n = _fn_name(fn)
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        if n in ("n_activation_inputs", "grid", "param_names", "param_shapes", "n_launches", "has_backward"):
            inner = [c for c in named_children(body)]
            out[n] = " ".join(text(inner[-1]).split()) if inner else ""
    return out


def _kernel_op(item: HostItem, anchor: Node | None, struct: str, module: HostModule, smap: SourceMap,
               side: HostSide, inherent: list[tuple[HostItem, Node | None]]) -> HostOp:
    consts = module.kernels[struct]
    fields = {c.lower(): Ty(Kind.SCALAR, t) for c, t in consts.items()}
    fields.update({"name": STR, "id": STR})
    class_name = _fresh_class(f"{struct}Op", module)
    type_params = module.kernel_dtypes.get(struct, ())
    body = _trait_methods(item, anchor, struct, fields, type_params, set(), module, smap, side)
    line = (anchor or item.node).start_point[0] + 1
    node = _class(class_name, "RuntimeOp", _impl_doc(item, struct, smap, anchor), body, line)
    return HostOp(struct, class_name, struct, node, line, {"line": line, **_summary(item, module, smap)})


def _trait_methods(item: HostItem, anchor: Node | None, struct: str, fields: dict[str, Ty],
                   type_params: tuple[str, ...], inherent: set[str], module: HostModule, smap: SourceMap,
                   side: HostSide) -> list[ast.stmt]:
    """The methods of an ``impl RuntimeOp`` block (those its ``#[cfg]`` keeps), lowered."""
    methods = _methods(item)
    own = inherent | {_fn_name(f) for f, _, _ in methods}
    out: list[ast.stmt] = []
    for fn, attrs, doc in methods:
        if _cfg_ok(attrs, module.ctx.features, smap, side.warnings):
            lw = HostLowerer(module, fn, struct, fields, type_params, methods=frozenset(own), anchor=anchor)
            out.append(_lower_method(fn, doc, lw, _fn_name(fn), smap, side, anchor, struct))
    return out


def _fresh_class(base: str, module: HostModule) -> str:
    py = base
    while py in module.taken:
        py += "_"
    module.taken.add(py)
    return py


def _wrapper_op(item: HostItem, anchor: Node | None, struct: str, struct_item: HostItem, module: HostModule,
                smap: SourceMap, side: HostSide, inherent: list[tuple[HostItem, Node | None]]) -> HostOp:
    fields = {k: v for k, v in module.structs[struct].items() if v.kind is not Kind.PHANTOM}
    tparams_node = struct_item.node.child_by_field_name("type_parameters")
    type_params = tuple(text(tp.child_by_field_name("name") or tp) for tp in named_children(tparams_node)
                        if tp.type == "type_parameter") if tparams_node is not None else ()
    field_types = {k: _field_type(v) for k, v in fields.items()}
    body: list[ast.stmt] = [_assign("RUST_NAME", ast.Constant(struct))]  # (FIELDS once `new` is lowered)
    if type_params:
        body.append(_assign("TYPE_PARAMS", ast.Tuple(elts=[ast.Constant(t) for t in type_params], ctx=LOAD)))
    own: set[str] = set()
    inherent_methods = []
    for inh, inh_anchor in inherent:
        for fn, attrs, doc in _methods(inh):
            if _cfg_ok(attrs, module.ctx.features, smap, side.warnings):
                inherent_methods.append((fn, doc, inh_anchor))
                own.add(_fn_name(fn))
    # A field named as a method of the class (Rust keeps fields and methods apart: a
    # `backward_kernel` field beside the `backward_kernel()` the class has) is held under another
    # attribute; its keyword stays the Rust name.
    methods = set(CLASS_NAMES) | {module.method_name(struct, m) for m in own} | {"forward_kernel", "backward_kernel",
                                                                                  "new"}
    keys = module.field_keys[struct] = class_names(list(fields), frozenset())  # (each a keyword of the class)
    attrs_ = {keys[k]: attr for k, attr in class_names(list(fields), methods, "_field").items() if attr != keys[k]}
    if attrs_:
        module.field_attrs[struct] = {k: attrs_[keys[k]] for k in fields if keys[k] in attrs_}
        body.append(_dict_assign("FIELD_ATTRS", attrs_, module))
    has_forward = has_backward = False
    for fn, doc, inh_anchor in inherent_methods:
        n = _fn_name(fn)
        params_node = fn.child_by_field_name("parameters")
        has_self = params_node is not None and any(p.type == "self_parameter" for p in named_children(params_node))
        lw = HostLowerer(module, fn, struct, fields, type_params, classmethod=not has_self, methods=frozenset(own),
                         anchor=inh_anchor)
        if n in ("forward_source", "backward_source"):
            py = "forward_kernel" if n == "forward_source" else "backward_kernel"
            has_forward |= n == "forward_source"
            has_backward |= n == "backward_source"
            body.append(_lower_method(fn, doc, lw, py, smap, side, inh_anchor, struct))
            continue
        if n in ("kernel_name",):
            continue  # teenygrad's own bookkeeping: `name` of the forward kernel
        body.append(_lower_method(fn, doc, lw, module.method_name(struct, n), smap, side, inh_anchor, struct,
                                  classmethod=not has_self))
    for k, kernel in module.source_fields.get(struct, {}).items():  # (known once `new` is lowered)
        field_types[k] = f"kernel:{kernel}"
    body.insert(1, _dict_assign("FIELDS", {keys[k]: t for k, t in field_types.items()}, module))
    kernel_fields = [(k, v.elem) for k, v in fields.items() if v.kind is Kind.KERNEL]
    fwd = None
    if not has_forward and kernel_fields:
        fwd = _pick(kernel_fields, ("fwd", "forward", "kernel", "fwd_kernel", "forward_kernel"),
                    exclude=frozenset(module.kernel_backward.values()))
        if fwd is not None:
            body.append(_getter("forward_kernel", module.field_attr(struct, fwd)))
        has_forward = fwd is not None
    if not has_backward and kernel_fields:
        bwd = _pick(kernel_fields, ("bwd", "backward", "backward_kernel", "bwd_kernel"), prefix=("bwd", "backward"))
        if bwd is not None:
            body.append(_getter("backward_kernel", module.field_attr(struct, bwd)))
            has_backward = True
    base = struct.removesuffix("RuntimeOp")
    for missing, suffix, method in ((not has_forward, "Forward", "forward_kernel"),
                                    (not has_backward, "Backward", "backward_kernel")):
        built = _by_name(base + suffix, fields, module, struct) if missing and base != struct else None
        if built is not None:
            body.append(_method(method, built))
    body += _trait_methods(item, anchor, struct, fields, type_params, own, module, smap, side)
    line = (anchor or item.node).start_point[0] + 1
    doc = struct_item.doc
    impl_doc = _impl_doc(item, struct, smap, anchor)
    py_struct = python_name(struct)
    node = _class(_fresh_class(py_struct, module) if py_struct in module.taken else py_struct, "RuntimeOp",
                  f"{doc}\n\n{impl_doc}" if doc else impl_doc, body, line)
    module.taken.add(py_struct)
    summary = {"line": line, "wrapper": True, **_summary(item, module, smap)}
    for fn, _doc, _anchor in inherent_methods:  # how it is built: `new(block_size, n_inputs)`
        params_node = fn.child_by_field_name("parameters")
        if _fn_name(fn) == "new" and params_node is not None:
            summary["new"] = "new(" + ", ".join(text(p.child_by_field_name("pattern") or p)
                                                for p in named_children(params_node) if p.type == "parameter") + ")"
    return HostOp(struct, node.name, None, node, line, summary)


def _field_type(t: Ty) -> str:
    """How a class's FIELDS names a field's Rust type (runtime/values.check_field reads it)."""
    if t.kind is Kind.KERNEL:
        return f"kernel:{t.elem}"
    if t.kind in (Kind.SCALAR, Kind.CONST, Kind.STRUCT, Kind.UNKNOWN) and t.elem:
        return t.elem
    return {Kind.STR: "str", Kind.SEQ: "Vec", Kind.ARRAY: "array", Kind.OPTION: "Option", Kind.PTR: "RawPtr",
            Kind.TUPLE: "tuple"}.get(t.kind, "unknown")


def _pick(kernel_fields: list[tuple[str, str | None]], names: tuple[str, ...], exclude: frozenset[str] = frozenset(),
          prefix: tuple[str, ...] = ()) -> str | None:
    for f, _k in kernel_fields:
        if f in names:
            return f
    for f, _k in kernel_fields:
        if prefix and f.startswith(prefix):
            return f
    if not prefix:
        for f, k in kernel_fields:
            if k not in exclude and not f.startswith(("bwd", "backward")):
                return f
    return None


def _dict_assign(target: str, mapping: dict[str, str], module: HostModule) -> ast.stmt:
    """``target: typing.ClassVar[dict[str, str]] = {...}``: a class's table by the Rust fields'
    keywords (a class attribute, and said to be one: a mutable one is otherwise a lint)."""
    module.modules.add("typing")
    dict_str = ast.Subscript(value=name("dict"), slice=ast.Tuple(elts=[name("str"), name("str")], ctx=LOAD), ctx=LOAD)
    annotation = ast.Subscript(value=ast.Attribute(value=name("typing"), attr="ClassVar", ctx=LOAD), slice=dict_str,
                               ctx=LOAD)
    return ast.AnnAssign(target=ast.Name(id=target, ctx=ast.Store()), annotation=annotation,
                         value=ast.Dict(keys=[ast.Constant(k) for k in mapping],
                                        values=[ast.Constant(v) for v in mapping.values()]), simple=1)


def _getter(py_name: str, attr: str) -> ast.stmt:
    return _method(py_name, ast.Attribute(value=name("self"), attr=attr, ctx=LOAD))


def _method(py_name: str, value: ast.expr) -> ast.stmt:
    """``def py_name(self): return value``."""
    return ast.FunctionDef(name=py_name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="self")], kwonlyargs=[],
                                                            kw_defaults=[], defaults=[]),
                           body=[ast.Return(value=value)], decorator_list=[], returns=None)


def _by_name(kernel: str, fields: dict[str, Ty], module: HostModule, struct: str) -> ast.expr | None:
    """``XForward(BLOCK_N=self.block_n)`` for a wrapper ``XRuntimeOp`` that holds no kernel: the
    kernel teenygrad's graph pairs it with by name, its const generics from the fields of the same
    (lowercased) names; None unless the file has that kernel and the wrapper every such field."""
    consts = module.kernels.get(kernel)
    if consts is None or not all(c.lower() in fields for c in consts):
        return None
    return call(kernel, [], [(c, ast.Attribute(value=name("self"), attr=module.field_attr(struct, c.lower()), ctx=LOAD))
                             for c in consts])
