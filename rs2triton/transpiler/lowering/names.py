"""The names of one function being lowered: Rust bindings and the Python names they get.

One :class:`Names` object per lowered function owns everything about names, so
nothing has to be kept in step by hand:

- the Rust scopes (a ``{`` block opens one) mapping each Rust name to its
  :class:`Binding` (Python name, static type, whether it is a ``tl.constexpr``);
- the Python names *live* in the current Python block (a binding must not
  overwrite one of them, or the outer value would be lost when the inner Rust
  block ends);
- every Python name ever handed out (``fresh`` reserves the name it returns, so
  two temporaries can never collide);
- the Python aliases of dtype parameters (``D = x_ptr.dtype.element_ty``);
- the names the then-branch of an ``if`` bound, which the else-branch may reuse
  only with the same type (Triton merges a name bound in both branches).
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Container, Iterator, Set
from contextlib import contextmanager
from dataclasses import dataclass

from rs2triton.transpiler.lowering.values import Kind, Known, Ty
from rs2triton.transpiler.pyast import PY_RESERVED, python_name


@dataclass(slots=True)
class Binding:
    """A Rust name's Python name and type; ``constexpr``: bound with ``name: tl.constexpr = ...``
    (Triton forbids rebinding it); ``decl``: what Rust bound it as, for what it may be assigned
    (``"mut"``: `let mut` or `mut x` parameter; ``"param"``, ``"const"`` generic; ``""``: an
    immutable `let` or loop variable)."""

    py: str
    ty: Ty
    constexpr: bool = False
    expr: ast.expr | None = None  # a name that stands for an expression (host: `s` of `|(_, s)|` is `t.shape`)
    decl: str = ""
    known: Known | None = None  # the value rustc's lints know it holds (see values.Known)


def rust_key(rust: str) -> str:
    """The name rustc sees: without a raw identifier's ``r#``, in Unicode's NFC (rustc normalizes
    identifiers so: a composed and a decomposed ``é`` are one name, the Angstrom sign is ``Å``)."""
    rust = rust.removeprefix("r#")
    return rust if rust.isascii() else unicodedata.normalize("NFC", rust)


def _same_known(a: Ty, b: Ty) -> bool:
    return a == b and a.elem is not None and a.kind in (Kind.SCALAR, Kind.TENSOR, Kind.PTRS, Kind.CONST)


class Reserved:
    """The names of several sets, looked up where they are: a function's :class:`Names` takes the
    names its module has without copying them (a copy per method made a file's host lowering
    quadratic in the number of its ops)."""

    __slots__ = ("sets",)

    def __init__(self, *sets: Set[str]) -> None:
        self.sets = sets

    def __contains__(self, name: object) -> bool:
        return any(name in s for s in self.sets)


class Names:
    """Rust scopes, live Python names and reserved Python names of one function."""

    def __init__(self, reserved: Container[str] = PY_RESERVED) -> None:
        self._scopes: list[dict[str, Binding]] = [{}]
        self._live: list[set[str]] = [set()]
        self._reserved = reserved  # (never handed out)
        self._used: set[str] = set()  # the names handed out
        self._aliases: dict[str, str] = {}  # dtype parameter -> Python alias
        self._sibling: dict[str, Ty] = {}  # Python names the then-branch bound -> their types
        # Python names a Tile's fields still read (`Tile { tensor: x, .. }` keeps `x`): never
        # rebound, so shadowing `x` later cannot change the Tile
        self.pinned: set[str] = set()
        self.mutable: set[str] = set()  # Python names of `let mut` bindings (assigned again later)

    # ----------------------------------------------------------------- names
    def fresh(self, base: str) -> str:
        """A Python name not handed out before (``base``, ``base_1``...), reserved now."""
        while base in self._reserved:
            base += "_"
        py = base
        i = 0
        while py in self._used or py in self._reserved:
            i += 1
            py = f"{base}_{i}"
        self._used.add(py)
        return py

    def fresh_local(self, base: str) -> str:
        """A fresh name that is also live in the current Python block (a variable of it)."""
        py = self.fresh(base)
        self._live[-1].add(py)
        return py

    def dtype_alias(self, dtype: str) -> str:
        """The Python name standing for a dtype parameter, made on first use."""
        alias = self._aliases.get(dtype)
        if alias is None:
            alias = self._aliases[dtype] = self.fresh(dtype)
        return alias

    def dtype_aliases(self) -> list[tuple[str, str]]:
        """(dtype parameter, Python alias) pairs, in order of first use."""
        return list(self._aliases.items())

    # -------------------------------------------------------------- bindings
    def lookup(self, rust: str) -> Binding | None:
        rust = rust_key(rust)  # (a raw identifier, an identifier not in NFC: the same name to rustc)
        for scope in reversed(self._scopes):
            if rust in scope:
                return scope[rust]
        return None

    def visible(self) -> dict[str, Ty]:
        """Every Rust name bound now (the innermost binding of each) with its type."""
        return {rust: b.ty for scope in self._scopes for rust, b in scope.items()}

    def declare(self, rust: str, ty: Ty, constexpr: bool = False) -> str:
        """Bind a Rust `let` name in the current scope and return its Python name.

        Shadowing in the same scope reuses the name (``let x = x + 1`` -> ``x = x + 1``);
        a binding that would clobber a name live in an enclosing block is renamed, so
        the outer value is intact once the inner block ends, as in Rust.
        """
        rust = rust_key(rust)
        current = self._scopes[-1].get(rust)
        if current is not None and not current.constexpr and not constexpr and current.py not in self.pinned:
            py = current.py
        else:
            base = python_name(rust)  # (never a dunder, never one Python mangles in a class body)
            while base in self._reserved:  # (a name the generated code has: host code's `visitor`, `i32`)
                base += "_"
            sibling = self._sibling.get(base)
            clash = (base in self._live[-1] or base in self._aliases.values() or base in self.pinned
                     or (sibling is not None and (constexpr or not _same_known(sibling, ty))))
            py = self.fresh(base) if clash else base
        self.bind(rust, py, ty, constexpr)
        return py

    def declare_pending(self, rust: str) -> str:
        """The Python name a `let` will get, for a binding visible only after its initializer."""
        rust = rust_key(rust)
        previous = self._scopes[-1].get(rust)  # (`let a = a - b;`: the initializer still reads the old `a`)
        py = self.declare(rust, Ty(Kind.UNKNOWN))
        if previous is not None:
            self._scopes[-1][rust] = previous
        else:
            del self._scopes[-1][rust]
        if previous is None or previous.py != py:
            self._live[-1].discard(py)
        return py

    def bind(self, rust: str, py: str, ty: Ty, constexpr: bool = False) -> None:
        """Bind ``rust`` to the Python name ``py`` (from ``declare_pending``) in the current scope."""
        rust = rust_key(rust)
        self._scopes[-1][rust] = Binding(py, ty, constexpr)
        self._live[-1].add(py)
        self._used.add(py)

    def bindings(self) -> dict[str, Ty]:
        """The Python names the current scope bound, with their types."""
        return {b.py: b.ty for b in self._scopes[-1].values()}

    # ---------------------------------------------------------------- blocks
    @contextmanager
    def scope(self, python_block: bool = True) -> Iterator[None]:
        """A Rust block; ``python_block``: it is also a Python block (an ``if``/loop body)."""
        self._scopes.append({})
        if python_block:
            self._live.append(set(self._live[-1]))
        try:
            yield
        finally:
            self._scopes.pop()
            if python_block:
                self._live.pop()

    @contextmanager
    def else_branch(self, then_bound: dict[str, Ty]) -> Iterator[None]:
        """The else-branch of an ``if`` whose then-branch bound ``then_bound``."""
        saved = self._sibling
        self._sibling = {**saved, **then_bound}
        try:
            yield
        finally:
            self._sibling = saved
