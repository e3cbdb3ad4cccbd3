"""Kernel discovery: which items of a parsed file are translated, and their signatures.

Only ``#[kernel]`` / ``#[kernel(...)]`` functions are kernels. Module-level
``const`` items and plain functions are collected too, because kernels may use
them (constants, combine functions); everything else is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from rs2triton.rust.types import SCALARS, bound
from rs2triton.rust.types import bound as _bound  # (`bound` is a local name in _signature)
from rs2triton.transpiler.frontend.parse import named_children, part, text
from rs2triton.transpiler.frontend.source import SourceMap
from rs2triton.transpiler.frontend.types import read_type

# Access markers around pointer parameters: no meaning in the kernel body, but they say which
# buffers a kernel reads and writes (kept for launchers and torch custom ops).
POINTER_WRAPPERS = {"InPtr": "in", "OutPtr": "out", "InOutPtr": "inout", "In": "in", "Out": "out",
                    "InOut": "inout"}


# What lies between the tokens of an attribute: whitespace and comments.
_GAP = rb"(?:\s|//[^\n]*\n|/\*(?:[^*]|\*(?!/))*\*/)*"
# `#[kernel]`, `#[kernel(...)]`, `#[tiled_kernel]`, `#[teeny_macros::kernel]`: an attribute whose
# path ends in `kernel` or `tiled_kernel`, the ones `collect` looks at (see `_attr_name`).
_PATH_SEGMENT = rb"(?:r#)?[^\s:()\[\]#/\"=,<>]+"  # any identifier (non-ASCII too), raw or not
_KERNEL_ATTR = re.compile(rb"#" + _GAP + rb"\[" + _GAP + rb"(?:::" + _GAP + rb")?(?:" + _PATH_SEGMENT + _GAP
                          + rb"::" + _GAP + rb")*(?:tiled_)?kernel(?![\w])")


def may_define_kernels(source: bytes) -> bool:
    """Whether ``source`` holds a kernel attribute at all; a file without one defines no
    kernel and warns of none, so it is not even parsed (a crate's other files are cargo's)."""
    return b"kernel" in source and _KERNEL_ATTR.search(source) is not None


@dataclass(slots=True)
class DtypeParam:
    name: str
    bound: str  # Float, Num, Int, Dtype (or another trait: any type)

    @property
    def is_float(self) -> bool | None:
        return bound(self.bound).is_float


@dataclass(slots=True)
class ConstParam:
    name: str
    rust_type: str


@dataclass(slots=True)
class KernelParam:
    name: str
    kind: str  # "pointer" | "scalar"
    elem: str  # pointee type (a dtype parameter name or a Rust scalar type) or scalar type
    node: Node | None = field(default=None, compare=False, repr=False)
    access: str | None = None  # "in" | "out" | "inout" from an access marker, else unknown


@dataclass(slots=True)
class Kernel:
    name: str
    doc: str | None
    triton: str  # the name of the Triton-bound type parameter (usually T)
    dtype_params: list[DtypeParam]
    consts: list[ConstParam]
    params: list[KernelParam]
    attr_dtypes: tuple[str, ...] | None
    backward: str | None
    node: Node | None = field(default=None, compare=False, repr=False)

    @property
    def name_node(self) -> Node:
        """The kernel fn's name in the source (where diagnostics about the kernel point)."""
        assert self.node is not None
        return part(self.node, "name")

    def dtype_param(self, name: str) -> DtypeParam | None:
        for d in self.dtype_params:  # (a plain loop: lowering asks this for most operations)
            if d.name == name:
                return d
        return None

    def pointer_for(self, dtype_name: str) -> KernelParam | None:
        """The first pointer parameter whose element type is ``dtype_name``."""
        for p in self.params:
            if p.kind == "pointer" and p.elem == dtype_name:
                return p
        return None

    def accepted_dtypes(self, dtype_name: str) -> tuple[str, ...]:
        """Rust element types a launcher may bind ``dtype_name`` to."""
        if self.attr_dtypes:
            return self.attr_dtypes
        param = self.dtype_param(dtype_name)
        return bound(param.bound).accepts if param else (dtype_name,)


@dataclass(slots=True)
class HostItem:
    """An item of the host side (a struct, an impl, a macro and its invocations), with the
    attributes above it (``#[cfg(...)]``) and the doc comment lines above it."""

    node: Node
    attrs: list[Node]
    doc: str | None = None


@dataclass(slots=True)
class ModuleItems:
    kernels: list[Kernel]
    functions: dict[str, Node]  # plain fns by name (combine-function candidates)
    consts: dict[str, Node]  # module-level const items by name
    doc: str | None
    # The host side: structs, impls, `macro_rules!` definitions and item-level invocations.
    structs: dict[str, HostItem] = field(default_factory=dict)
    impls: list[HostItem] = field(default_factory=list)
    macros: dict[str, Node] = field(default_factory=dict)
    invocations: list[HostItem] = field(default_factory=list)


def _doc_text(comment: Node) -> str | None:
    doc = comment.child_by_field_name("doc")
    outer = comment.child_by_field_name("outer")
    if doc is None or outer is None:
        return None
    line = text(doc).rstrip("\n")
    return line[1:] if line.startswith(" ") else line


def _inner_doc(comment: Node) -> str | None:
    if comment.child_by_field_name("inner") is None:
        return None
    doc = comment.child_by_field_name("doc")
    line = text(doc).rstrip("\n") if doc is not None else ""
    return line[1:] if line.startswith(" ") else line


def _attr_name(attr_item: Node) -> tuple[str, Node | None]:
    attr = next((c for c in attr_item.named_children if c.type == "attribute"), None)
    if attr is None:
        return "", None
    path = attr.named_children[0] if attr.named_children else None
    name = text(path).split("::")[-1] if path is not None else ""
    return name, attr.child_by_field_name("arguments")


def _is_cfg_test(attr_item: Node) -> bool:
    name, args = _attr_name(attr_item)
    return name == "cfg" and args is not None and re.search(r"\btest\b", text(args)) is not None


_KERNEL_ARG = re.compile(r"\s*(?P<key>[A-Za-z_]\w*)\s*=\s*(?P<value>\[[^\[\]]*\]|[^,\[\]]+?)\s*(?:,|$)")


def _parse_kernel_args(args: Node | None, smap: SourceMap) -> tuple[tuple[str, ...] | None, str | None]:
    """``#[kernel(dtypes = [f32, f16], backward = ReluBackward)]``: teenygrad's macro takes those two
    and refuses anything else, and so does rs2triton (E0007 at the argument)."""
    if args is None:
        return None, None
    raw = text(args)[1:-1]  # between the parentheses
    dtypes, backward, pos = None, None, 0
    seen: set[str] = set()
    while pos < len(raw) and raw[pos:].strip():
        m = _KERNEL_ARG.match(raw, pos)
        if m is None:
            raise smap.error(args, "E0007", f"cannot read the `#[kernel]` arguments `{raw.strip()}`",
                             "write `#[kernel(dtypes = [f32, f16], backward = SomeBackward)]`")
        key, value = m.group("key"), m.group("value").strip()
        if key in seen:
            raise smap.error(args, "E0007", f"`{key}` is given twice in `#[kernel(...)]`",
                             "teenygrad's #[kernel] macro takes each argument once: keep one")
        seen.add(key)
        if key == "dtypes":
            names = [v.strip() for v in value.strip("[]").split(",") if v.strip()] if value.startswith("[") else None
            bad = [n for n in names or [value] if n not in SCALARS or SCALARS[n].cls.name == "BOOL"]
            if names is None or bad or not names:
                raise smap.error(args, "E0007", f"`dtypes` must be a list of element types, got `{value}`",
                                 "for example `dtypes = [f32, f16, bf16]`")
            dtypes = tuple(names)
        elif key == "backward":
            if not value.replace("::", "").replace("_", "a").isalnum():
                raise smap.error(args, "E0007", "`backward` must be a kernel struct name",
                                 "for example `backward = ReluBackward`")
            backward = value
        else:
            raise smap.error(args, "E0007", f"unknown `#[kernel]` argument `{key}` (expected `dtypes` or `backward`)",
                             "teenygrad's #[kernel] macro takes `dtypes = [...]` and `backward = ...`")
        pos = m.end()
    return dtypes, backward


def doc_of(comments: list[Node]) -> str | None:
    """The ``///`` lines of the comments above an item, joined (None if there are none)."""
    lines = (_doc_text(c) for c in comments)
    return "\n".join(line for line in lines if line is not None).strip("\n") or None


def cfg_holds(attrs: list[Node], features: frozenset[str]) -> bool:
    """Whether every ``#[cfg(...)]`` among ``attrs`` holds, as rustc evaluates it
    (:mod:`rs2triton.rust.cfg`); an item whose cfg is false does not exist for rustc."""
    from rs2triton.rust.cfg import CfgError, evaluate

    for a in attrs:
        name, args = _attr_name(a)
        if name == "cfg" and args is not None:
            try:
                if not evaluate(text(args)[1:-1], features):
                    return False
            except CfgError:
                return False  # (a predicate rustc cannot read is an error there; here the item goes)
    return True


def collect(root: Node, smap: SourceMap, features: frozenset[str] | None = None) -> ModuleItems:
    """The items of a parsed file. ``features``: the crate features ``#[cfg]`` sees (None: keep
    every item, whatever its cfg)."""
    kernels: list[Kernel] = []
    functions: dict[str, Node] = {}
    consts: dict[str, Node] = {}
    module_doc: list[str] = []
    structs: dict[str, HostItem] = {}
    impls: list[HostItem] = []
    macros: dict[str, Node] = {}
    invocations: list[HostItem] = []

    def walk(container: Node) -> None:
        pending_attrs: list[Node] = []
        pending_doc: list[Node] = []  # the comments just above the next item
        for child in container.named_children:
            if child.type == "line_comment":
                if container is root and not kernels and not functions:
                    inner = _inner_doc(child)
                    if inner is not None:
                        module_doc.append(inner)
                        continue
                pending_doc.append(child)  # its text is only read if a kernel follows
                continue
            if child.type == "block_comment":
                continue
            if child.type == "attribute_item":
                pending_attrs.append(child)
                continue
            if features is not None and not cfg_holds(pending_attrs, features):
                pending_attrs, pending_doc = [], []
                continue  # configured out: rustc never sees it
            if child.type == "function_item":
                name = text(part(child, "name"))
                kernel_attr = None
                for a in pending_attrs:
                    aname, aargs = _attr_name(a)
                    if aname == "kernel":
                        kernel_attr = (a, aargs)
                if kernel_attr is not None:  # a `#[tiled_kernel]` is one by now (frontend/tiled.py)
                    lines = (_doc_text(c) for c in pending_doc)
                    doc = "\n".join(line for line in lines if line is not None).strip("\n") or None
                    kernels.append(_signature(child, doc, kernel_attr[1], smap))
                else:
                    functions.setdefault(name, child)
            elif child.type == "const_item":  # (`r#N` and `N` are one name to rustc)
                consts[text(part(child, "name"))] = child
            elif child.type == "struct_item":
                structs[text(part(child, "name"))] = HostItem(child, pending_attrs, doc_of(pending_doc))
            elif child.type == "impl_item":
                impls.append(HostItem(child, pending_attrs, doc_of(pending_doc)))
            elif child.type == "macro_definition":
                macros[text(part(child, "name"))] = child
            elif child.type in ("macro_invocation", "expression_statement"):
                call = child if child.type == "macro_invocation" else next(
                    (c for c in child.named_children if c.type == "macro_invocation"), None)
                if call is not None:
                    invocations.append(HostItem(call, pending_attrs, doc_of(pending_doc)))
            elif child.type == "mod_item" and not any(_is_cfg_test(a) for a in pending_attrs):
                body = child.child_by_field_name("body")
                if body is not None:
                    walk(body)
            pending_attrs, pending_doc = [], []

    walk(root)
    doc = "\n".join(module_doc).strip("\n") or None
    return ModuleItems(kernels, functions, consts, doc, structs, impls, macros, invocations)


def _bound_name(bounds: Node | None) -> str | None:
    if bounds is None:
        return None
    for b in named_children(bounds):
        return text(b).split("::")[-1].split("<")[0].strip()
    return None


def _signature(fn: Node, doc: str | None, attr_args: Node | None, smap: SourceMap) -> Kernel:
    name = text(part(fn, "name"))
    triton = None
    dtype_params: list[DtypeParam] = []
    consts: list[ConstParam] = []
    tparams = fn.child_by_field_name("type_parameters")
    generic_names: set[str] = set()
    for tp in named_children(tparams) if tparams is not None else []:
        gname = tp.child_by_field_name("name")
        if tp.type in ("type_parameter", "const_parameter") and gname is not None:
            if text(gname) in generic_names:
                raise smap.error(gname, "E0007", f"the name `{text(gname)}` is already used for a generic "
                                 "parameter of this kernel", "rename one of them")
            generic_names.add(text(gname))
        if tp.type == "type_parameter":
            pname = text(part(tp, "name"))
            bound = _bound_name(tp.child_by_field_name("bounds"))
            if bound == "Triton":
                if triton is not None:
                    raise smap.error(tp, "E0007", "a kernel has exactly one `Triton` type parameter",
                                     "remove the second `Triton` bound")
                triton = pname
            else:
                dtype_params.append(DtypeParam(pname, bound or "Dtype"))
        elif tp.type == "const_parameter":
            consts.append(ConstParam(text(part(tp, "name")),
                                     text(part(tp, "type"))))
        elif tp.type == "lifetime_parameter":
            continue
        else:
            raise smap.error(tp, "E0007", "unsupported generic parameter",
                             "kernels take `T: Triton`, dtype parameters and `const N: i32`")
    if triton is None:
        raise smap.error(part(fn, "name"), "E0007",
                         f"kernel `{name}` has no `Triton`-bound type parameter",
                         "declare it as `fn " + name + "<T: Triton, ...>(...)`")
    dtype_names = {d.name for d in dtype_params}
    params: list[KernelParam] = []
    seen_params: set[str] = set()
    for p in named_children(part(fn, "parameters")):
        if p.type == "attribute_item":  # `#[allow(unused)] x: ...`: no runtime meaning
            continue
        if p.type != "parameter":
            raise smap.error(p, "E0007", "unsupported kernel parameter",
                             "kernel parameters are `name: T::Pointer<D>` or scalars such as `n: i32`")
        pattern = part(p, "pattern")
        pname = param_name(pattern, smap)
        if pname in seen_params:
            raise smap.error(pattern, "E0007", f"identifier `{pname}` is bound more than once in this "
                             "parameter list", "rename one of the parameters")
        if pname in generic_names:
            raise smap.error(pattern, "E0007", f"parameter `{pname}` has the name of a generic parameter "
                             "of this kernel", "rename the parameter")
        if pname != "_":
            seen_params.add(pname)
        params.append(_param(pname, part(p, "type"), triton, dtype_names, smap))
    # `_: i32` is valid Rust, any number of times; in Python each needs a name of its own.
    taken = seen_params | generic_names
    for i, prm in enumerate(params):
        if prm.name == "_":
            prm.name = next(n for n in (f"_{i}", *(f"_{i}_{j}" for j in range(1, len(params) + 2)))
                            if n not in taken)
            taken.add(prm.name)
    attr_dtypes, backward = _parse_kernel_args(attr_args, smap)
    for d in dtype_params if attr_dtypes else ():  # each listed type must satisfy each dtype parameter's bound
        refused = [t for t in attr_dtypes or () if t not in _bound(d.bound).accepts]
        if refused and attr_args is not None:  # (types are listed only in `attr_args`)
            raise smap.error(attr_args, "E0007", f"the trait bound `{refused[0]}: {d.bound}` is not satisfied: "
                             f"`dtypes` lists `{refused[0]}` for `{d.name}: {d.bound}` (rustc's E0277)",
                             f"list only types `{d.bound}` has: {', '.join(_bound(d.bound).accepts)}")
    return Kernel(name, doc, triton, dtype_params, consts, params, attr_dtypes, backward, fn)


def param_name(pattern: Node, smap: SourceMap) -> str:
    """The name a parameter binds: `x`, `mut x` or `_`; destructuring is not supported."""
    node = pattern
    if node.type == "mut_pattern":
        node = named_children(node)[-1]
    if node.type == "identifier" or (node.type == "_" or text(node) == "_"):
        return text(node)
    raise smap.error(pattern, "E0007", f"unsupported parameter pattern `{text(pattern)}`",
                     "kernel parameters are plain names: `x: T::Pointer<f32>`, `n: i32` or `mut n: i32`")


# How many generic arguments the DSL's types take: the `Triton` trait's associated types
# (`T::Tensor<D>`, `T::BoolTensor`), teenygrad's `Tile<T, D>` and its access markers (`In<P>`).
ASSOCIATED_TYPE_GENERICS = {"Tensor": 1, "Pointer": 1, "SharedMem": 1, "BoolTensor": 0, "I32Tensor": 0}
STRUCT_GENERICS = {"Tile": 2, **dict.fromkeys(POINTER_WRAPPERS, 1)}


def check_generic_arity(ty: Node, triton: str, smap: SourceMap) -> None:
    """Every DSL type in the type ``ty`` has as many generic arguments as it takes: rustc's E0107
    otherwise (``T::Tensor<f32, i32>``, ``Tile<T>``), reported as E0014 at the type's name."""
    stack = [ty]
    while stack:
        n = stack.pop()
        stack.extend(n.named_children)
        if n.type != "generic_type":
            continue
        head, targs = n.child_by_field_name("type"), n.child_by_field_name("type_arguments")
        if head is None or targs is None:
            continue
        given = len([a for a in named_children(targs) if a.type not in ("lifetime", "line_comment", "block_comment")])
        last = head.child_by_field_name("name") if head.type == "scoped_type_identifier" else head
        path = head.child_by_field_name("path") if head.type == "scoped_type_identifier" else None
        if last is None:
            continue
        if path is not None and text(path) == triton and text(last) in ASSOCIATED_TYPE_GENERICS:
            what, takes = "associated type", ASSOCIATED_TYPE_GENERICS[text(last)]
        elif text(last) == "Tile" or (path is None and text(last) in STRUCT_GENERICS):
            what, takes = "struct", STRUCT_GENERICS[text(last)]
        else:
            continue
        if given != takes:
            s = "" if takes == 1 else "s"
            raise smap.error(last, "E0014", f"{what} takes {takes} generic argument{s} but {given} generic "
                             f"argument{'' if given == 1 else 's'} {'was' if given == 1 else 'were'} supplied "
                             "(rustc's E0107)", f"write `{text(head)}{_ARGS.get(text(last), '<D>')}`" if takes
                             else f"write `{text(head)}`, without generic arguments")


_ARGS = {"Tile": "<T, D>", **dict.fromkeys(POINTER_WRAPPERS, "<T::Pointer<D>>")}


def _param(name: str, ty: Node, triton: str, dtype_names: set[str], smap: SourceMap) -> KernelParam:
    check_generic_arity(ty, triton, smap)
    t = read_type(ty)
    access = None
    # InPtr<T::Pointer<D>> / OutPtr<...>: access markers; the innermost type is the parameter's.
    while t.kind == "generic_type" and t.head in POINTER_WRAPPERS and t.args:
        access = access or POINTER_WRAPPERS[t.head]
        t = t.args[0]
    if t.kind == "primitive_type":
        if t.scalar is None or t.head in ("u128", "i128"):
            raise smap.error(ty, "E0007", f"unsupported type `{text(ty)}` for kernel parameter `{name}`",
                             "kernel scalars are bool, i8..i64, u8..u64, isize, usize, f16, bf16, f32 or f64")
        return KernelParam(name, "scalar", t.head, ty)
    if t.kind == "type_identifier" and t.head in dtype_names:  # `alpha: D`
        return KernelParam(name, "scalar", t.head, ty)
    pointee = t.generic(f"{triton}::Pointer")
    if pointee is not None and (pointee.head in SCALARS or pointee.head in dtype_names) and not pointee.args:
        return KernelParam(name, "pointer", pointee.head, ty, access)
    raise smap.error(ty, "E0007", f"unsupported type `{text(ty)}` for kernel parameter `{name}`",
                     f"use `{triton}::Pointer<D>` for tensors or a scalar type such as `i32`, `f32`")
