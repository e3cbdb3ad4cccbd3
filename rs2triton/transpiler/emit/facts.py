"""Kernel facts: what the runtime and the torch backend must know of a kernel's code, found by
the transpiler in the Python it builds and recorded in the kernel's launcher as data
(``Launcher(..., facts={...})``), so that nothing reads generated Python at run time.

Recorded, each only where there is something to record (docs/python-api.md):

- ``uses``: flags, by what the code calls (itself or through the module's helper functions):
  ``"dot"`` (``tl.dot``: Triton's interpreter computes it wrongly in float64),
  ``"descriptor"`` (``tl.make_tensor_descriptor``: the bases' row strides must be 16-byte
  multiples), ``"nan_dropping_max"`` (``tl.maximum``/``tl.minimum`` without ``propagate_nan``:
  NaN is dropped as Rust's ``f32::max`` drops it), ``"unmasked_loads"`` (it loads, and no load
  has a mask: it reads exactly its block).
- ``stores``: the pointer parameters a store or an atomic writes through (:func:`stores_through`).
- ``bounds``: per pointer addressed as a flat buffer under a bound, the count parameters of
  those bounds (:func:`mask_bounds`).
- ``consts``: per const generic, what the kernel does with it (a tile it masks and steps over,
  one it reads whole with or without a mask, a value, a flag: :mod:`.roles`).
"""

from __future__ import annotations

import ast
from typing import Any, TypedDict

from rs2triton.transpiler.emit.roles import const_roles, tl_call

# The Triton functions whose call is a flag, by the flag.
_CALLED = {"dot": "dot", "make_tensor_descriptor": "descriptor"}
# What writes memory in a generated kernel (Triton's stores and atomics, by function or method),
# and what reads it (a load's result is data, not an address).
_STORES = frozenset({"store", "store_tensor_descriptor", "atomic_add", "atomic_and", "atomic_or", "atomic_xor",
                     "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas"})
_LOADS = frozenset({"load", "load_tensor_descriptor"})


class KernelFacts(TypedDict, total=False):
    """The launcher's ``facts=`` literal (see the module's doc): each key only where there is something."""

    uses: list[str]
    stores: list[str]
    bounds: dict[str, list[str]]
    consts: dict[str, dict[str, Any]]  # const generic -> {"role": ..., "bounds": [...]} (roles.py)


def _reached(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]) -> list[ast.FunctionDef]:
    """``fn`` and the module's helper functions (``helpers``, by name) it calls, directly or not."""
    out, todo, seen = [], [fn], {fn.name}
    while todo:
        f = todo.pop()
        out.append(f)
        for node in ast.walk(f):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers \
                    and node.func.id not in seen:
                seen.add(node.func.id)
                todo.append(helpers[node.func.id])
    return out


def kernel_uses(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]) -> list[str]:
    """The flags of the module's ``fn`` (see the module's doc), sorted."""
    found: set[str] = set()
    loads = masked = 0
    for f in _reached(fn, helpers):
        for node in ast.walk(f):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            attr = node.func.attr
            if tl_call(node, _CALLED):
                found.add(_CALLED[attr])
            elif tl_call(node, ("maximum", "minimum")) and not any(k.arg == "propagate_nan" for k in node.keywords):
                found.add("nan_dropping_max")
            if attr == "load":
                loads += 1
                masked += any(k.arg == "mask" for k in node.keywords)
    if loads and not masked:
        found.add("unmasked_loads")
    return sorted(found)


def kernel_facts(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef], pointers: dict[str, str],
                 rust: dict[str, str], consts: dict[str, tuple[str, str]] | None = None) -> KernelFacts:
    """The facts of the generated kernel ``fn`` as the launcher's ``facts=`` literal (only what
    there is), parameters by their Rust names: ``pointers`` maps its pointer parameters' Python
    names to them, ``rust`` its other parameters', ``consts`` its const generics' to their Rust
    names and types (their roles: :mod:`.roles`)."""
    facts: KernelFacts = {}
    uses = kernel_uses(fn, helpers)
    if uses:
        facts["uses"] = uses
    stores = sorted(pointers[p] for p in stores_through(fn) if p in pointers)
    if stores:
        facts["stores"] = stores
    bounds = {pointers[p]: sorted(rust.get(n, pointers.get(n, n)) for n in ns)
              for p, ns in mask_bounds(fn).items() if p in pointers}
    if bounds:
        facts["bounds"] = dict(sorted(bounds.items()))
    roles = const_roles(fn, helpers, consts or {}, {py: r for py, r in rust.items() if py not in pointers})
    if roles:
        facts["consts"] = roles
    return facts


def stores_through(func: ast.FunctionDef) -> set[str]:
    """The parameters of a generated ``@triton.jit`` function that a store or an atomic writes
    through: the names its pointer (or a tensor descriptor's, a block pointer's) derives from,
    through the assignments that build it. (W0012 warns with it of a store through an ``InPtr``;
    the runtime reads the recorded fact for what an op mutates.)"""
    params = {a.arg for a in func.args.args}
    derives: dict[str, set[str]] = {p: {p} for p in params}

    def names(node: ast.AST) -> set[str]:  # the names an address is made of: what a load reads is data
        out: set[str] = set()
        todo = [node]
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Name):
                out.add(n.id)
            elif not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _LOADS):
                todo.extend(ast.iter_child_nodes(n))
        return out

    # (one walk: each assignment's targets and the names its value is made of, each store's address)
    assigns: list[tuple[list[str], set[str]]] = []
    targets_stored: list[set[str]] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            assigns.append(([n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)],
                            names(node.value)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STORES:
            target = node.args[0] if isinstance(node.func.value, ast.Name) and node.func.value.id == "tl" \
                and node.args else node.func.value  # tl.store(ptr, ..) / desc.store(offsets, ..)
            targets_stored.append(names(target))

    def roots(found: set[str]) -> set[str]:
        return set().union(*(derives.get(n, set()) for n in found))

    for _ in range(8):  # (assignments in loops: until nothing new is learnt)
        before = sum(len(v) for v in derives.values())
        for assigned, value in assigns:
            found = roots(value)
            for name in assigned:
                derives.setdefault(name, set()).update(found)
        if sum(len(v) for v in derives.values()) == before:
            break
    stored: set[str] = set()
    for address in targets_stored:
        stored |= roots(address)
    return stored & params


def mask_bounds(func: ast.FunctionDef) -> dict[str, frozenset[str]]:
    """For each pointer parameter of a generated ``@triton.jit`` function that it loads or stores
    through as a flat buffer under a bound, ``tl.load(p + offs, mask=offs < n)`` (the mask written
    there or bound to a name first), the scalar parameters ``n`` of those bounds: the kernel
    addresses ``p`` at offsets up to ``n - 1``, so a tensor handed to ``p`` holds at least ``n``
    elements (what ``apply`` checks; teenygrad's flat kernels, whose ``pack_args`` passes the
    element count)."""
    params = {a.arg for a in func.args.args}
    bounds: dict[str, set[str]] = {}
    masks: dict[str, tuple[str, str] | None] = {}  # name -> (offsets, bound) of `name = offsets < bound`

    def bound_of(mask: ast.AST | None) -> tuple[str, str] | None:
        if isinstance(mask, ast.Name):
            return masks.get(mask.id)
        if (isinstance(mask, ast.Compare) and len(mask.ops) == 1 and isinstance(mask.ops[0], ast.Lt)
                and isinstance(mask.left, ast.Name) and isinstance(mask.comparators[0], ast.Name)
                and mask.comparators[0].id in params):
            return mask.left.id, mask.comparators[0].id
        return None

    accesses: list[ast.Call] = []
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            masks[name] = bound_of(node.value) if name not in masks else None  # (assigned twice: no bound)
        elif isinstance(node, ast.Call) and tl_call(node, ("load", "store")) and node.args:
            accesses.append(node)
    for node in accesses:
        address = node.args[0]
        mask = next((k.value for k in node.keywords if k.arg == "mask"), None)
        if not (isinstance(address, ast.BinOp) and isinstance(address.op, ast.Add)
                and isinstance(address.left, ast.Name) and address.left.id in params
                and isinstance(address.right, ast.Name)) or mask is None:
            continue
        found = bound_of(mask)
        if found is not None and found[0] == address.right.id:
            bounds.setdefault(address.left.id, set()).add(found[1])
    return {p: frozenset(ns) for p, ns in bounds.items()}
