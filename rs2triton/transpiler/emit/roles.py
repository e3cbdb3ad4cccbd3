"""Const-generic roles: what a kernel does with each of its const generics, found by the
transpiler in the jit function it builds (helpers followed) and recorded in the launcher's
``facts={"consts": ...}`` (docs/python-api.md, "Kernel facts"), so that the torch backend
chooses a const's value from what the kernel does with it, not from its name.

A const generic is

- a tile extent where the kernel makes a tile of it (``T::arange(0, C)``, ``T::zeros(&[C])``,
  a tile's shape: Triton wants a power of two). Such a tile is *masked* where offsets made of
  ``arange(0, C)`` are compared below a runtime bound (``offsets.lt(n)``: the scalar parameters
  the bound is made of are recorded) and that comparison masks a load, a store or an atomic
  (``mask=``, directly, through names, or through a helper's parameter), or where ``C`` is an
  extent of a tensor descriptor's block (its accesses stay within the descriptor's ``shape``,
  whose item's parameters are the bound; a block pointer's likewise, where the kernel checks
  its accesses' bounds); and *stepped* where ``C`` is also a number of the kernel's arithmetic
  (``pid * C``, ``start += C``, a loop over tiles ``range(0, k, C)``).
  Its role: ``"block"`` (masked and stepped: any power of two is correct), ``"cover"`` (masked,
  not stepped: the one tile must hold the size), ``"exact"`` (never masked: the tile is read
  whole, so it must be the size);
- ``"value"``: a number only (a stride, a kernel size);
- ``"flag"``: a ``bool`` const generic, or one only tested (``if USE_BIAS``);
- ``"unused"``: none of these.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass, field

# Triton's functions whose result is data, not offsets: what a load reads.
_DATA = frozenset({"load", "load_tensor_descriptor"})

# What an expression is made of: the extents of the ``tl.arange(0, X)`` in it (``X`` names), the
# names it reads and the comparisons it holds (their indices in :attr:`_Scan.compares`); the
# aranges and names not inside what a load reads nor inside a comparison (a mask is no offset).
Refs = tuple[tuple[str, ...], frozenset[str], tuple[int, ...]]
_Acc = tuple[list[str], list[str], list[int]]
_NONE: Refs = ((), frozenset(), ())
Compare = tuple[str, int]  # a comparison: its function's name, its index there


@dataclass
class _Found:
    """What the walk learns of each const generic (by Rust name)."""

    tile: set[str] = field(default_factory=set)
    scalar: set[str] = field(default_factory=set)
    tested: set[str] = field(default_factory=set)
    bounds: dict[str, set[str]] = field(default_factory=dict)
    # a comparison of a tile's offsets below a bound: the tiles and the bound's parameters
    candidates: dict[Compare, list[tuple[set[str], set[str]]]] = field(default_factory=dict)
    masking: set[Compare] = field(default_factory=set)  # comparisons that mask an access


def tl_call(node: ast.AST, names: Collection[str]) -> bool:
    """Whether ``node`` calls ``tl.<one of names>`` (also read by :mod:`.facts`)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "tl"


@dataclass
class _Scan:
    """One function's parse tree, read once (:func:`_scan`): what the roles are computed from."""

    assigns: list[tuple[list[str], Refs]] = field(default_factory=list)  # target names, value
    compares: list[tuple[Refs, Refs]] = field(default_factory=list)  # offsets < bound
    masks: list[Refs] = field(default_factory=list)  # the `mask=` of a load, a store, an atomic
    described: list[list[tuple[str | None, frozenset[str]]]] = field(default_factory=list)  # extent, shape item
    calls: list[tuple[str, list[tuple[str, str | None, Refs]]]] = field(default_factory=list)  # helper, args
    uses: list[tuple[str, str]] = field(default_factory=list)  # a parameter's name, how it is used


def _use(node: ast.Name, parent: ast.AST | None, grand: ast.AST | None, helpers: dict[str, ast.FunctionDef]) -> str:
    """How a parameter is read: ``"tile"`` (an arange's extent, an item of a shape), ``"tested"``
    (a condition), ``"helper"`` (an argument of a helper: seen there), else ``"scalar"``."""
    if isinstance(parent, ast.Call):
        if tl_call(parent, ("arange",)) and parent.args[1:2] == [node]:
            return "tile"
        if isinstance(parent.func, ast.Name) and parent.func.id in helpers:
            return "helper"
    if isinstance(parent, ast.List | ast.Tuple) and isinstance(grand, ast.Call | ast.keyword):
        return "tile"  # (a shape: `tl.zeros([C, ...])`, `tl.broadcast_to(x, [C])`)
    if isinstance(parent, ast.If | ast.IfExp | ast.While | ast.BoolOp) or (
            isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        return "tested"
    return "scalar"


class _Scanner:
    """One walk over a function's parse tree that gathers a :class:`_Scan`, each expression's
    :data:`Refs` collected on the way (``acc``: those of the expression being read; its aranges
    and names are not collected inside a load, a comparison)."""

    def __init__(self, fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]):
        self.helpers = helpers
        self.params = {a.arg for a in fn.args.args}
        self.out = _Scan()
        self.checked = False
        self.pending: list[ast.Call] = []  # (block pointers: counted only where the kernel checks bounds)

    def refs(self, node: ast.AST | None, parent: ast.AST, grand: ast.AST | None) -> Refs:
        if node is None:
            return _NONE
        acc: _Acc = ([], [], [])
        self.visit(node, parent, grand, acc, acc)
        return tuple(acc[0]), frozenset(acc[1]), tuple(acc[2])

    def visit(self, node: ast.AST, parent: ast.AST | None, grand: ast.AST | None,
              acc: _Acc | None, masks: _Acc | None) -> None:
        """``acc``: where the aranges and names read go (None: nowhere); ``masks``: where the
        comparisons go, which may be a mask (None: nowhere)."""
        out = self.out
        if isinstance(node, ast.Name):
            if acc is not None:
                acc[1].append(node.id)
            if node.id in self.params and isinstance(node.ctx, ast.Load):
                out.uses.append((node.id, _use(node, parent, grand, self.helpers)))
            return
        if isinstance(node, ast.Constant):
            return
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            out.assigns.append((names, self.refs(node.value, node, parent)))
            return
        if isinstance(node, ast.Compare):
            op = node.ops[0]
            if len(node.ops) == 1 and isinstance(op, ast.Lt | ast.LtE | ast.Gt | ast.GtE):
                left, right = self.refs(node.left, node, parent), self.refs(node.comparators[0], node, parent)
                if masks is not None:
                    masks[2].append(len(out.compares))
                out.compares.append((left, right) if isinstance(op, ast.Lt | ast.LtE) else (right, left))
                return
            acc = None  # (a mask is no offset)
        elif isinstance(node, ast.Call):
            func = node.func
            for k in node.keywords:
                if k.arg == "mask":
                    out.masks.append(self.refs(k.value, node, parent))
                self.checked = self.checked or k.arg == "boundary_check"
            if isinstance(func, ast.Attribute):
                if func.attr in _DATA:
                    acc = None  # (what a load reads is data)
                elif func.attr == "arange" and acc is not None and len(node.args) == 2 \
                        and isinstance(node.args[1], ast.Name):
                    acc[0].append(node.args[1].id)
                elif tl_call(node, ("make_tensor_descriptor",)):
                    _described(node, out)
                elif tl_call(node, ("make_block_ptr",)):
                    self.pending.append(node)
            elif isinstance(func, ast.Name) and func.id in self.helpers:
                names = [a.arg for a in self.helpers[func.id].args.args]
                given = [*zip(names, node.args, strict=False),
                         *((k.arg, k.value) for k in node.keywords if k.arg in names)]
                out.calls.append((func.id, [(n, v.id if isinstance(v, ast.Name) else None, self.refs(v, node, parent))
                                            for n, v in given if n is not None]))
                return
            if any(k.arg == "mask" for k in node.keywords):
                for child in [func, *node.args, *(k for k in node.keywords if k.arg != "mask")]:
                    self.visit(child, node, parent, acc, masks)
                return
        for child in ast.iter_child_nodes(node):
            self.visit(child, node, parent, acc, masks)


def _scan(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]) -> _Scan:
    scanner = _Scanner(fn, helpers)
    for stmt in fn.body:
        scanner.visit(stmt, fn, None, None, None)
    if scanner.checked:
        for call in scanner.pending:
            _described(call, scanner.out)
    return scanner.out


def _described(call: ast.Call, out: _Scan) -> None:
    """A tensor descriptor (or a block pointer whose accesses are checked): the accesses stay
    within ``shape``, so each tile extent of ``block_shape`` is masked against the scalar
    parameters of the same item of ``shape``."""
    given = {k.arg: k.value for k in call.keywords}
    shape, block = given.get("shape"), given.get("block_shape")
    if isinstance(shape, ast.List | ast.Tuple) and isinstance(block, ast.List | ast.Tuple):
        out.described.append([(e.id if isinstance(e, ast.Name) else None,
                               frozenset(n.id for n in ast.walk(b) if isinstance(n, ast.Name)))
                              for e, b in zip(block.elts, shape.elts, strict=False)])


class _Walk:
    def __init__(self, helpers: dict[str, ast.FunctionDef], found: _Found):
        self.helpers = helpers
        self.found = found
        self.active: set[str] = set()
        self.scans: dict[str, _Scan] = {}

    def function(self, fn: ast.FunctionDef, consts: dict[str, str], params: dict[str, str],
                 given: dict[str, tuple[set[str], set[str], set[Compare]]]) -> None:
        """Walk ``fn``: ``consts`` maps its names for const generics to their Rust names, ``params``
        its names for the kernel's scalar parameters to theirs; ``given``, what its other
        parameters' values are made of (tiles' offsets, the kernel's scalar parameters, comparisons)."""
        if fn.name in self.active:  # (recursion: nothing more to learn)
            return
        self.active.add(fn.name)
        scan = self.scans.get(fn.name)
        if scan is None:
            scan = self.scans[fn.name] = _scan(fn, self.helpers)
        tiles: dict[str, set[str]] = {n: set(v[0]) for n, v in given.items()}
        pdeps: dict[str, set[str]] = {n: set(v[1]) for n, v in given.items()}
        cmps: dict[str, set[Compare]] = {n: set(v[2]) for n, v in given.items()}
        for n, rust in params.items():
            pdeps.setdefault(n, set()).add(rust)

        def made_of(refs: Refs) -> tuple[set[str], set[str], set[Compare]]:
            t = {consts[a] for a in refs[0] if a in consts}
            p: set[str] = set()
            c = {(fn.name, i) for i in refs[2]}
            for name in refs[1]:
                if name in tiles:
                    t |= tiles[name]
                if name in pdeps:
                    p |= pdeps[name]
                if name in cmps:
                    c |= cmps[name]
            return t, p, c

        for _ in range(8):  # (assignments in loops: until nothing new is learnt)
            grew = False
            for names, refs in scan.assigns:
                t, p, c = made_of(refs)
                for name in names:
                    old_t, old_p, old_c = (tiles.setdefault(name, set()), pdeps.setdefault(name, set()),
                                           cmps.setdefault(name, set()))
                    if not (t <= old_t and p <= old_p and c <= old_c):
                        old_t |= t
                        old_p |= p
                        old_c |= c
                        grew = True
            if not grew:
                break
        found = self.found
        for i, (offsets, bound) in enumerate(scan.compares):  # `offsets < bound`, a mask where one masks
            tiles_of = made_of(offsets)[0]
            bound_tiles, bound_params, _ = made_of(bound)
            if tiles_of and bound_params and not bound_tiles:
                found.candidates.setdefault((fn.name, i), []).append((tiles_of, bound_params))
        for mask in scan.masks:
            found.masking |= made_of(mask)[2]
        for items in scan.described:
            for extent, shape in items:
                bound_params = made_of(((), shape, ()))[1]
                if extent in consts and bound_params:
                    found.bounds.setdefault(consts[extent], set()).update(bound_params)
        for name, use in scan.uses:
            if name in consts and use != "helper":
                {"tile": found.tile, "tested": found.tested, "scalar": found.scalar}[use].add(consts[name])
        for helper, args in scan.calls:
            h_consts = {n: consts[v] for n, v, _ in args if v is not None and v in consts}
            self.function(self.helpers[helper], h_consts, {},
                          {n: made_of(refs) for n, _, refs in args if n not in h_consts})
        self.active.discard(fn.name)


def const_roles(fn: ast.FunctionDef, helpers: dict[str, ast.FunctionDef], consts: dict[str, tuple[str, str]],
                params: dict[str, str]) -> dict[str, dict[str, object]]:
    """Each const generic's role (see the module's doc) in the generated kernel ``fn``, by Rust
    name: ``{"role": ..., "bounds": [...]}`` (``bounds``: for a masked tile, the scalar parameters
    its mask's bound is made of, by Rust name). ``consts``: the jit function's name of each const
    generic -> its Rust name and type; ``params``: of each scalar parameter -> its Rust name;
    ``helpers``: the module's helper functions, by name (followed where the kernel calls them)."""
    if not consts:
        return {}
    found = _Found()
    _Walk(helpers, found).function(fn, {py: rust for py, (rust, _) in consts.items()}, params, {})
    for compare in found.masking:
        for tiles, bound in found.candidates.get(compare, ()):
            for c in tiles:
                found.bounds.setdefault(c, set()).update(bound)
    out: dict[str, dict[str, object]] = {}
    for rust, ty in consts.values():
        role: dict[str, object]
        bounds = sorted(found.bounds.get(rust, ()))
        if ty == "bool":
            role = {"role": "flag"}
        elif rust in found.tile:
            kind = "exact" if not bounds else "block" if rust in found.scalar else "cover"
            role = {"role": kind, **({"bounds": bounds} if bounds else {})}
        elif rust in found.scalar:
            role = {"role": "value"}
        elif rust in found.tested:
            role = {"role": "flag"}
        else:
            role = {"role": "unused"}
        out[rust] = role
    return out
