"""Const-generic roles: what a kernel does with each of its const generics, found by the
transpiler in the jit function it builds (helpers followed) and recorded in the launcher's
``facts={"consts": ...}`` (docs/python-api.md, "Kernel facts"), so that the torch backend
chooses a const's value from what the kernel does with it, not from its name.

A const generic is

- a tile extent where the kernel makes a tile of it (``T::arange(0, C)``, ``T::zeros(&[C])``,
  a tile's shape: Triton wants a power of two). Such a tile is *masked* where offsets made of
  ``arange(0, C)`` are compared below a runtime bound (``offsets.lt(n)``: the scalar parameters
  the bound is made of are recorded), or where ``C`` is an extent of a tensor descriptor's block
  (its accesses stay within the descriptor's ``shape``, whose item's parameters are the bound;
  a block pointer's likewise, where the kernel checks its accesses' bounds), and *stepped* where ``C`` is also a number of the
  kernel's arithmetic (``pid * C``, ``start += C``, a loop over tiles ``range(0, k, C)``).
  Its role: ``"block"`` (masked and stepped: any power of two is correct), ``"cover"`` (masked,
  not stepped: the one tile must hold the size), ``"exact"`` (never masked: the tile is read
  whole, so it must be the size);
- ``"value"``: a number only (a stride, a kernel size);
- ``"flag"``: a ``bool`` const generic, or one only tested (``if USE_BIAS``);
- ``"unused"``: none of these.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

MadeOf = Callable[[ast.AST | None], tuple[set[str], set[str]]]  # a node -> (its tiles, its parameters)
# Triton's functions whose result is data, not offsets: what a load reads.
_DATA = frozenset({"load", "load_tensor_descriptor"})


@dataclass
class _Found:
    """What the walk learns of each const generic (by Rust name)."""

    tile: set[str] = field(default_factory=set)
    scalar: set[str] = field(default_factory=set)
    tested: set[str] = field(default_factory=set)
    bounds: dict[str, set[str]] = field(default_factory=dict)


def _is_tl(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name \
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "tl"


def _names(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``node`` an offset may come from: not inside what a load reads, nor a
    comparison (a mask is no offset)."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                                         and node.func.attr in _DATA):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _names(child)


class _Walk:
    def __init__(self, helpers: dict[str, ast.FunctionDef], found: _Found):
        self.helpers = helpers
        self.found = found
        self.active: set[str] = set()

    def function(self, fn: ast.FunctionDef, consts: dict[str, str], params: dict[str, str],
                 tiles0: dict[str, set[str]], pdeps0: dict[str, set[str]]) -> None:
        """Walk ``fn``: ``consts`` maps its names for const generics to their Rust names, ``params``
        its names for the kernel's scalar parameters to theirs; ``tiles0``/``pdeps0`` what its
        parameters' values are made of (tiles' offsets, the kernel's scalar parameters)."""
        if fn.name in self.active:  # (recursion: nothing more to learn)
            return
        self.active.add(fn.name)
        tiles: dict[str, set[str]] = {n: set(v) for n, v in tiles0.items()}
        pdeps: dict[str, set[str]] = {n: set(v) for n, v in pdeps0.items()}
        for n, rust in params.items():
            pdeps.setdefault(n, set()).add(rust)

        def made_of(node: ast.AST | None) -> tuple[set[str], set[str]]:
            t: set[str] = set()
            p: set[str] = set()
            if node is None:
                return t, p
            for sub in _names(node):
                if _is_tl(sub, "arange") and isinstance(sub, ast.Call) and len(sub.args) == 2 \
                        and isinstance(sub.args[1], ast.Name) and sub.args[1].id in consts:
                    t.add(consts[sub.args[1].id])
                elif isinstance(sub, ast.Name):
                    t |= tiles.get(sub.id, set())
                    p |= pdeps.get(sub.id, set())
            return t, p

        assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign | ast.AugAssign | ast.AnnAssign)]
        for _ in range(8):  # (assignments in loops: until nothing new is learnt)
            before = sum(map(len, tiles.values())) + sum(map(len, pdeps.values()))
            for node in assigns:
                t, p = made_of(node.value)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                        tiles.setdefault(name, set()).update(t)
                        pdeps.setdefault(name, set()).update(p)
            if sum(map(len, tiles.values())) + sum(map(len, pdeps.values())) == before:
                break
        self._uses(fn, consts, params, tiles, pdeps, made_of)
        self.active.discard(fn.name)

    def _uses(self, fn: ast.FunctionDef, consts: dict[str, str], params: dict[str, str],
              tiles: dict[str, set[str]], pdeps: dict[str, set[str]], made_of: MadeOf) -> None:
        found = self.found
        checked = any(k.arg == "boundary_check" for n in ast.walk(fn) if isinstance(n, ast.Call) for k in n.keywords)
        parents = {child: node for node in ast.walk(fn) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Compare) and len(node.ops) == 1:
                self._mask(node, made_of)
            elif isinstance(node, ast.Call) and (_is_tl(node, "make_tensor_descriptor")
                                                 or (_is_tl(node, "make_block_ptr") and checked)):
                self._described(node, consts, made_of)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.helpers:
                self._helper(self.helpers[node.func.id], node, consts, made_of)
            elif isinstance(node, ast.Name) and node.id in consts and isinstance(node.ctx, ast.Load):
                rust, parent = consts[node.id], parents.get(node)
                if isinstance(parent, ast.Call) and _is_tl(parent, "arange") and parent.args[1:2] == [node]:
                    found.tile.add(rust)
                elif isinstance(parent, ast.List | ast.Tuple) and isinstance(parents.get(parent), ast.Call | ast.keyword):
                    found.tile.add(rust)  # (a shape: `tl.zeros([C, ...])`, `tl.broadcast_to(x, [C])`)
                elif isinstance(parent, ast.If | ast.IfExp | ast.While | ast.BoolOp | ast.UnaryOp) \
                        and not isinstance(getattr(parent, "op", None), ast.USub | ast.UAdd | ast.Invert):
                    found.tested.add(rust)
                elif isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in self.helpers:
                    pass  # (what the helper does with it: walked there)
                else:
                    found.scalar.add(rust)

    def _mask(self, node: ast.Compare, made_of: MadeOf) -> None:
        """``offsets < bound`` (or ``bound > offsets``): the tiles of the offsets are masked
        against the kernel's scalar parameters the bound is made of."""
        op = node.ops[0]
        if isinstance(op, ast.Lt | ast.LtE):
            offsets, bound = node.left, node.comparators[0]
        elif isinstance(op, ast.Gt | ast.GtE):
            offsets, bound = node.comparators[0], node.left
        else:
            return
        tiles, _ = made_of(offsets)
        bound_tiles, params = made_of(bound)
        if not tiles or bound_tiles or not params:
            return
        for c in tiles:
            self.found.bounds.setdefault(c, set()).update(params)

    def _described(self, call: ast.Call, consts: dict[str, str], made_of: MadeOf) -> None:
        """A tensor descriptor (or a block pointer whose accesses are checked): the accesses stay
        within ``shape``, so each tile extent of ``block_shape`` is masked against the scalar
        parameters of the same item of ``shape``."""
        given = {k.arg: k.value for k in call.keywords}
        shape, block = given.get("shape"), given.get("block_shape")
        if not isinstance(shape, ast.List | ast.Tuple) or not isinstance(block, ast.List | ast.Tuple):
            return
        for extent, bound in zip(block.elts, shape.elts, strict=False):
            params = made_of(bound)[1]
            if isinstance(extent, ast.Name) and extent.id in consts and params:
                self.found.bounds.setdefault(consts[extent.id], set()).update(params)

    def _helper(self, helper: ast.FunctionDef, call: ast.Call, consts: dict[str, str], made_of: MadeOf) -> None:
        """A call of one of the module's helpers: walked with what its arguments are."""
        names = [a.arg for a in helper.args.args]
        given = dict(zip(names, call.args, strict=False))
        given.update({k.arg: k.value for k in call.keywords if k.arg in names})
        h_consts = {n: consts[v.id] for n, v in given.items() if isinstance(v, ast.Name) and v.id in consts}
        h_tiles: dict[str, set[str]] = {}
        h_pdeps: dict[str, set[str]] = {}
        for n, v in given.items():
            if n not in h_consts:
                h_tiles[n], h_pdeps[n] = made_of(v)
        self.function(helper, h_consts, {}, h_tiles, h_pdeps)


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
    _Walk(helpers, found).function(fn, {py: rust for py, (rust, _) in consts.items()}, params, {}, {})
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
