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
from dataclasses import dataclass, field

from tree_sitter import Node

from rs2triton.diagnostics import Diagnostic
from rs2triton.runtime.ops import RuntimeOp
from rs2triton.rust.cfg import CfgError, evaluate
from rs2triton.transpiler.frontend.items import HostItem, Kernel, ModuleItems, collect
from rs2triton.transpiler.frontend.macros import MacroError, expand
from rs2triton.transpiler.frontend.parse import named_children, text
from rs2triton.transpiler.frontend.source import SourceMap
from rs2triton.transpiler.host.context import HostModule, HostUnsupported, discard, returning
from rs2triton.transpiler.host.lower import HostLowerer
from rs2triton.transpiler.host.trait import METHODS
from rs2triton.transpiler.host.types import STR, UNKNOWN, HTy, scalar
from rs2triton.transpiler.pyast import LOAD, STORE, call, const, name, python_name

W_HOST = "W0010"  # host logic not translated


@dataclass
class HostOp:
    """One translated op: its class and, for a kernel struct, the launcher it belongs to."""

    struct: str
    class_name: str
    launcher: str | None  # the kernel's launcher name, for a kernel struct's op
    node: ast.ClassDef
    line: int
    summary: dict = field(default_factory=dict)  # for `rs2triton kernels`


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
        for inv in items.invocations:
            macro = text(inv.node.child_by_field_name("macro") or inv.node).split("::")[-1]
            definition = items.macros.get(macro)
            if definition is None or not _cfg_ok(inv.attrs, features, smap, warnings):
                continue
            try:
                expansion = expand(definition, inv.node, root_source)
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


def translate(items: ModuleItems, kernels: list[Kernel], source: bytes, smap: SourceMap,
              features: frozenset[str], taken: set[str]) -> HostSide:
    """The host side of a file: a class per ``impl RuntimeOp``."""
    from rs2triton.transpiler.emit.launchers import launcher_name

    side = HostSide()
    found = _Items(items, source, smap, features, side.warnings)
    module = HostModule(taken=set(taken), features=features)
    for k in kernels:
        lname = launcher_name(k.name)
        module.kernels[lname] = {c.name: c.rust_type for c in k.consts}
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
    for struct, (s, _anchor) in found.structs.items():
        if struct not in module.kernels:
            module.structs[struct] = _struct_fields(s.node, module)
    _module_consts(found.consts, module, side)
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
    side.helpers = module.helpers
    side.modules = module.modules
    side.consts = [c for n, c in _const_stmts(found.consts, module).items() if n in module.used_consts]
    return side


def _struct_fields(node: Node, module: HostModule) -> dict[str, HTy]:
    body = node.child_by_field_name("body")
    fields: dict[str, HTy] = {}
    if body is None or body.type != "field_declaration_list":
        return fields
    for f in named_children(body):
        if f.type != "field_declaration":
            continue
        fname = f.child_by_field_name("name")
        ftype = f.child_by_field_name("type")
        if fname is None or ftype is None:
            continue
        base = _type_name(ftype) or ""
        if base == "PhantomData":
            fields[text(fname)] = HTy("phantom")
            continue
        if base in module.kernels:
            fields[text(fname)] = HTy("kernel", base)
            continue
        s = scalar(text(ftype))
        fields[text(fname)] = s if s is not None else (STR if "str" in text(ftype) else HTy("named", base))
    return fields


def _module_consts(consts: dict[str, Node], module: HostModule, side: HostSide) -> None:
    for cname, node in consts.items():
        ty_node, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        ty = scalar(text(ty_node)) if ty_node is not None else None
        if ty is None or value is None:
            continue
        lw = HostLowerer(module, {}, (), "")
        try:
            expr, _ = lw.x.expr(value, ty)
        except HostUnsupported:
            continue
        module.consts[cname] = (expr, ty)


def _const_stmts(consts: dict[str, Node], module: HostModule) -> dict[str, ast.stmt]:
    out: dict[str, ast.stmt] = {}
    for cname, (expr, _ty) in module.consts.items():
        node = consts[cname]
        out[cname] = ast.Assign(targets=[ast.Name(cname, STORE)], value=expr, lineno=node.start_point[0] + 1)
    return out


# --------------------------------------------------------------------- building classes


def _methods(item: HostItem) -> list[tuple[Node, list[Node], str | None]]:
    """The fn items of an impl block, each with its attributes and doc comment."""
    body = item.node.child_by_field_name("body")
    out = []
    attrs: list[Node] = []
    docs: list[Node] = []
    from rs2triton.transpiler.frontend.items import doc_of

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
    """One Rust method as a Python ``def`` (or, outside the subset, an ``Unsupported`` attribute)."""
    spec = METHODS.get(py_name)
    params_node = fn.child_by_field_name("parameters")
    rust_params = [p for p in named_children(params_node) if p.type != "attribute_item"] if params_node else []
    args: list[ast.arg] = [ast.arg(arg="cls" if classmethod else "self")]
    prologue: list[ast.stmt] = []
    try:
        rust_params = [p for p in rust_params if p.type != "self_parameter"]
        if spec is not None:
            lw.returns = spec.returns
            names = [n for n, _ in spec.params]
            if len(rust_params) != len(spec.params) + (1 if spec.visitor else 0):
                raise HostUnsupported(fn, f"`{py_name}` has {len(rust_params)} parameters; the trait's has "
                                          f"{len(spec.params) + (1 if spec.visitor else 0)}")
            for p, (py, ty) in zip(rust_params, spec.params, strict=False):
                rust = _param_name(p)
                lw.param(rust, py, ty)
                args.append(ast.arg(arg=py))
            if spec.visitor:
                lw.visitor = _param_name(rust_params[-1])
            del names
        else:
            for p in rust_params:
                rust = _param_name(p)
                ty_node = p.child_by_field_name("type")
                ty = lw.rust_type(ty_node) if ty_node is not None else UNKNOWN
                py = lw.fresh(rust)
                lw.param(rust, py, ty)
                args.append(ast.arg(arg=py))
                if ty.kind == "float" and ty.elem == "f32":  # a Rust f32 argument holds an f32
                    prologue.append(ast.Assign(targets=[ast.Name(py, STORE)], value=call(lw.helper("f32"), [name(py)])))
            ret = fn.child_by_field_name("return_type")
            lw.returns = lw.rust_type(ret) if ret is not None else UNKNOWN
        body_node = fn.child_by_field_name("body")
        if body_node is None:
            raise HostUnsupported(fn, "a method without a body")
        if lw.visitor is not None:
            stmts: list[ast.stmt] = [ast.Assign(targets=[ast.Name("visitor", STORE)], value=call("ArgVisitor"))]
            stmts += lw.block(body_node, discard)
            if not stmts or not isinstance(stmts[-1], ast.Return | ast.Raise):
                stmts.append(ast.Return(value=name("visitor")))
            delegated = _delegation(stmts)
            if delegated is not None:  # the whole body hands the visitor on: return what that visits
                stmts = [ast.Return(value=delegated)]
        else:
            stmts = prologue + lw.block(body_node, returning)
    except HostUnsupported as e:
        at = anchor or e.node or fn
        line = (anchor or fn).start_point[0] + 1
        side.warnings.append(smap.diag(at, W_HOST, f"`{op_name}::{_fn_name(fn)}` is not translated: {e.what}",
                                       "the method raises NotImplementedError; the kernel's launcher still works",
                                       severity="warning"))
        value = call("Unsupported", [ast.Constant(op_name), ast.Constant(py_name),
                                     ast.Constant(f"not translated from Rust ({e.what}; {smap.shown}:{line})")])
        return ast.Assign(targets=[ast.Name(py_name, STORE)], value=value, lineno=line)
    line = (anchor or fn).start_point[0] + 1
    if anchor is not None:  # written by a macro: every line of it is the invocation's
        for n in ast.walk(ast.Module(body=stmts, type_ignores=[])):
            if isinstance(n, ast.stmt):
                n.lineno = line
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
    fdef = ast.FunctionDef(name=py_name, args=ast.arguments(posonlyargs=[], args=args, kwonlyargs=kwonly,
                                                            kw_defaults=defaults, defaults=[]),
                           body=stmts, decorator_list=[name("classmethod")] if classmethod else [],
                           returns=None, lineno=line)
    return fdef


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


def _impl_doc(item: HostItem, struct: str, smap: SourceMap, anchor: Node | None) -> str:
    line = (anchor or item.node).start_point[0] + 1
    head = f"teenygrad's `impl RuntimeOp for {struct}` ({smap.shown}, line {line}), translated."
    return f"{item.doc}\n\n{head}" if item.doc else head


def _summary(item: HostItem, module: HostModule, smap: SourceMap) -> dict:
    """What ``rs2triton kernels`` shows of an op: the Rust of its input count, parameter names and
    shapes, launches, grid and backward (each method's last expression, on one line), of the
    methods its ``#[cfg]`` keeps."""
    out: dict = {}
    for fn, attrs, _doc in _methods(item):
        if not _cfg_ok(attrs, module.features, smap, []):  # (its warnings are the translation's to give)
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
    fields = {c.lower(): scalar(t) or UNKNOWN for c, t in consts.items()}
    fields.update({"name": STR, "id": STR})
    class_name = _fresh_class(f"{struct}Op", module)
    type_params = module.kernel_dtypes.get(struct, ())
    body = _trait_methods(item, anchor, struct, fields, type_params, set(), module, smap, side)
    line = (anchor or item.node).start_point[0] + 1
    node = _class(class_name, "RuntimeOp", _impl_doc(item, struct, smap, anchor), body, line)
    return HostOp(struct, class_name, struct, node, line, {"line": line, **_summary(item, module, smap)})


def _trait_methods(item: HostItem, anchor: Node | None, struct: str, fields: dict[str, HTy],
                   type_params: tuple[str, ...], inherent: set[str], module: HostModule, smap: SourceMap,
                   side: HostSide) -> list[ast.stmt]:
    """The methods of an ``impl RuntimeOp`` block (those its ``#[cfg]`` keeps), lowered."""
    methods = _methods(item)
    own = inherent | {_fn_name(f) for f, _, _ in methods}
    out: list[ast.stmt] = []
    for fn, attrs, doc in methods:
        if _cfg_ok(attrs, module.features, smap, side.warnings):
            lw = HostLowerer(module, fields, type_params, struct)
            lw.methods = own
            out.append(_lower_method(fn, doc, lw, _fn_name(fn), smap, side, anchor, struct))
    return out


def _features_of(module: HostModule) -> frozenset[str]:
    return module.features


def _fresh_class(base: str, module: HostModule) -> str:
    py = base
    while py in module.taken:
        py += "_"
    module.taken.add(py)
    return py


def _wrapper_op(item: HostItem, anchor: Node | None, struct: str, struct_item: HostItem, module: HostModule,
                smap: SourceMap, side: HostSide, inherent: list[tuple[HostItem, Node | None]]) -> HostOp:
    fields = {k: v for k, v in module.structs[struct].items() if v.kind != "phantom"}
    tparams_node = struct_item.node.child_by_field_name("type_parameters")
    type_params = tuple(text(tp.child_by_field_name("name") or tp) for tp in named_children(tparams_node)
                        if tp.type == "type_parameter") if tparams_node is not None else ()
    field_types = {k: (f"kernel:{v.elem}" if v.kind == "kernel" else v.elem or v.kind) for k, v in fields.items()}
    body: list[ast.stmt] = [_assign("RUST_NAME", ast.Constant(struct))]  # (FIELDS once `new` is lowered)
    if type_params:
        body.append(_assign("TYPE_PARAMS", ast.Tuple(elts=[ast.Constant(t) for t in type_params], ctx=LOAD)))
    own: set[str] = set()
    inherent_methods = []
    for inh, inh_anchor in inherent:
        for fn, attrs, doc in _methods(inh):
            if _cfg_ok(attrs, _features_of(module), smap, side.warnings):
                inherent_methods.append((fn, doc, inh_anchor))
                own.add(_fn_name(fn))
    # A field named as a method of the class (Rust keeps fields and methods apart: a
    # `backward_kernel` field beside the `backward_kernel()` the class has) is held under another
    # attribute; its keyword stays the Rust name.
    methods = set(dir(RuntimeOp)) | own | {"forward_kernel", "backward_kernel", "new"}
    taken = methods | {python_name(k) for k in fields}
    attrs_: dict[str, str] = {}
    for k in fields:
        if python_name(k) in methods:
            attr = python_name(k) + "_field"
            while attr in taken:
                attr += "_"
            taken.add(attr)
            attrs_[k] = attr
    if attrs_:
        module.field_attrs[struct] = attrs_
        body.append(_dict_assign("FIELD_ATTRS", attrs_))
    has_forward = has_backward = False
    for fn, doc, inh_anchor in inherent_methods:
        n = _fn_name(fn)
        params_node = fn.child_by_field_name("parameters")
        has_self = params_node is not None and any(p.type == "self_parameter" for p in named_children(params_node))
        lw = HostLowerer(module, fields, type_params, struct, in_classmethod=not has_self)
        lw.methods = own
        if n in ("forward_source", "backward_source"):
            py = "forward_kernel" if n == "forward_source" else "backward_kernel"
            has_forward |= n == "forward_source"
            has_backward |= n == "backward_source"
            body.append(_lower_method(fn, doc, lw, py, smap, side, inh_anchor, struct))
            continue
        if n in ("kernel_name",):
            continue  # teenygrad's own bookkeeping: `name` of the forward kernel
        body.append(_lower_method(fn, doc, lw, n, smap, side, inh_anchor, struct, classmethod=not has_self))
    for k, kernel in module.source_fields.get(struct, {}).items():  # (known once `new` is lowered)
        field_types[k] = f"kernel:{kernel}"
    body.insert(1, _dict_assign("FIELDS", field_types))
    kernel_fields = [(k, v.elem) for k, v in fields.items() if v.kind == "kernel"]
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


def _dict_assign(target: str, mapping: dict[str, str]) -> ast.stmt:
    """``target = {...}``: a class's table by the Rust fields' Python names."""
    return _assign(target, ast.Dict(keys=[ast.Constant(python_name(k)) for k in mapping],
                                    values=[ast.Constant(v) for v in mapping.values()]))


def _getter(py_name: str, attr: str) -> ast.stmt:
    return _method(py_name, ast.Attribute(value=name("self"), attr=attr, ctx=LOAD))


def _method(py_name: str, value: ast.expr) -> ast.stmt:
    """``def py_name(self): return value``."""
    return ast.FunctionDef(name=py_name, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg="self")], kwonlyargs=[],
                                                            kw_defaults=[], defaults=[]),
                           body=[ast.Return(value=value)], decorator_list=[], returns=None)


def _by_name(kernel: str, fields: dict[str, HTy], module: HostModule, struct: str) -> ast.expr | None:
    """``XForward(BLOCK_N=self.block_n)`` for a wrapper ``XRuntimeOp`` that holds no kernel: the
    kernel teenygrad's graph pairs it with by name, its const generics from the fields of the same
    (lowercased) names; None unless the file has that kernel and the wrapper every such field."""
    consts = module.kernels.get(kernel)
    if consts is None or not all(c.lower() in fields for c in consts):
        return None
    return call(kernel, [], [(c, ast.Attribute(value=name("self"), attr=module.field_attr(struct, c.lower()), ctx=LOAD))
                             for c in consts])
