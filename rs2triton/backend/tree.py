"""The teenygrad ops of a kernel tree, by their Rust struct names, each file loaded when an op of
it is first asked for.

Setting a tree up reads its ``.rs`` files (with the CLI's bounded read: a FIFO, a device, a file
past the size a kernel file has, a dangling symlink or an unreadable file is skipped, with a
warning naming it and why) and notes which op each defines (``impl RuntimeOp for X``); nothing
is transpiled then. ``tree.ops[name]`` (or ``name in tree.ops``) transpiles, through the cache,
and loads the file that defines ``name`` — the first time only. A file whose ops a macro makes
(``impl RuntimeOp for $Fwd``) is loaded where a name is in no other file. A file that does not
transpile is skipped with a warning naming it and its error. The paths are resolved first, so
a tree given as a relative and as an absolute path is one tree.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from rs2triton.runtime import Launcher, RuntimeOp

# An op of a tree: a kernel struct's launcher (configured with its const generics) or a wrapper
# struct's generated RuntimeOp class (built by its ``new``).
Maker: TypeAlias = "Launcher | type[RuntimeOp]"

_SKIP = {"tests", "examples", "benches", "target"}
_OP = re.compile(rb"RuntimeOp\s+for\s+(\$?\w+)")
# a kernel fn (``#[kernel]``, ``#[tiled_kernel]``): its struct is the fn's name in CamelCase
_KERNEL_FN = re.compile(rb"#\[(?:tiled_)?kernel\b[^\]]*\]\s*(?:pub(?:\([^)]*\))?\s+)?fn\s+(\w+)")


def kernel_struct(fn: str) -> str:
    """The kernel struct a kernel fn makes: ``flash_attention2_forward`` -> ``FlashAttention2Forward``."""
    return "".join(part[:1].upper() + part[1:] for part in fn.split("_"))


class TreeWarning(UserWarning):
    """A kernel tree's file was skipped (it could not be read, or did not transpile), or the tree
    has no ops."""


class Ops(Mapping[str, Maker]):
    """A tree's ops by Rust struct name, loading the file that defines one when it is asked for."""

    def __init__(self, tree: Tree, index: dict[str, list[Path]], opaque: list[Path]):
        self._tree = tree
        self._index = index
        self._opaque = opaque  # files whose op names a macro makes: loaded where a name is found in no other
        self._loaded: dict[str, Maker] = {}
        self._all: dict[str, list[tuple[Maker, Path]]] = {}  # every definition of a name, in the tree's order

    def _find(self, name: str) -> Maker | None:
        if name in self._loaded:
            return self._loaded[name]
        for f in [*self._index.get(name, ()), *self._opaque]:
            self._tree._load(f)
            if name in self._loaded:
                return self._loaded[name]
        return None

    def alternatives(self, name: str) -> list[tuple[Maker, Path]]:
        """Every definition of the op ``name`` in the trees (each file that defines it loaded),
        with its file, in the order the trees were given: ``ops[name]`` is the first; a later one
        of the same name (kernels_rs' ``SoftmaxForward`` after teenygrad's) may take a call the
        first does not (a gradient)."""
        if self._find(name) is None:
            return []
        for f in [*self._index.get(name, ()), *self._opaque]:  # (a macro-made definition too)
            self._tree._load(f)
        return list(self._all.get(name, ()))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._find(name) is not None

    def __getitem__(self, name: str) -> Maker:
        found = self._find(name) if isinstance(name, str) else None
        if found is None:
            raise KeyError(name)
        return found

    def _everything(self) -> dict[str, Maker]:
        for files in [*self._index.values(), self._opaque]:
            for f in files:
                self._tree._load(f)
        return self._loaded

    def __iter__(self) -> Iterator[str]:
        return iter(dict(self._everything()))

    def __len__(self) -> int:
        return len(self._everything())


@dataclass
class Tree:
    """The ops found under ``roots`` (resolved): ``ops`` maps a Rust struct name to its launcher
    (a kernel struct with ``impl RuntimeOp``) or its class (a wrapper struct), loaded when asked
    for; ``kernels`` maps every kernel struct's name to its launcher, whether or not the file
    implements ``RuntimeOp`` for it (teenygrad's ``FlashAttention2Forward``: a row that states its
    launches as data runs it, ``mapping_rules.Launch``); ``files`` where each loaded one is
    defined; ``skipped`` the files that could not be read or did not transpile, with the first
    line of the error."""

    roots: tuple[Path, ...]
    ops: Ops = field(init=False, repr=False)  # (made by load_tree, with what the files define)
    kernels: Ops = field(init=False, repr=False)  # (every kernel struct, whether or not its file has host logic)
    files: dict[str, Path] = field(default_factory=dict)
    skipped: dict[Path, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # rs2triton.load's keywords
    _done: set[Path] = field(default_factory=set)

    def _skip(self, f: Path, why: str) -> None:
        self.skipped[f] = why
        warnings.warn(f"torch_backend: skipped {f}: {why}", TreeWarning, stacklevel=4)

    def _load(self, f: Path) -> None:
        if f in self._done:
            return
        self._done.add(f)
        from rs2triton import TranspileError, load
        from rs2triton.runtime import Launcher, RuntimeOp

        try:
            module = load(f, **self.options)
        except TranspileError as e:
            self._skip(f, str(e).splitlines()[0])
            return
        except ValueError as e:  # a file that defines no kernels
            if "defines no #[kernel]" not in str(e):
                raise
            return
        for attr, value in vars(module).items():
            name: str
            if isinstance(value, Launcher) and attr == value.name and value.name not in self.kernels._loaded:
                self.kernels._loaded[value.name] = value
                self.kernels._all.setdefault(value.name, []).append((value, f))
            if isinstance(value, Launcher) and value.op is not None and attr == value.name:
                name = value.name
            elif (isinstance(value, type) and issubclass(value, RuntimeOp) and value.__module__ == module.__name__
                  and "RUST_NAME" in vars(value) and hasattr(value, "new")):
                name = value.RUST_NAME
            else:
                continue
            self.ops._all.setdefault(name, []).append((value, f))
            if name not in self.ops._loaded:
                self.ops._loaded[name] = value
                self.files[name] = f


def _sources(roots: tuple[Path, ...]) -> Iterator[Path]:
    for root in roots:
        if root.is_file() or (root.suffix == ".rs" and root.exists()):
            yield root
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"torch_backend: no kernel tree at {root}")
        for f in sorted(root.rglob("*.rs")):
            if not _SKIP & set(f.relative_to(root).parts[:-1]):
                yield f


KernelPaths: TypeAlias = "str | os.PathLike[str] | Sequence[str | os.PathLike[str]]"


def load_tree(kernels: KernelPaths, *, features: Iterable[str] | None = None, default_features: bool = True,
              interpret: bool | None = None) -> Tree:
    from rs2triton.diagnostics import TranspileError
    from rs2triton.transpiler.driver.pipeline import read

    given = [kernels] if isinstance(kernels, (str, os.PathLike)) else kernels
    roots = tuple(Path(k).expanduser().absolute() for k in given)
    tree = Tree(roots, options={"interpret": interpret, "features": features, "default_features": default_features})
    index: dict[str, list[Path]] = {}
    opaque: list[Path] = []
    structs: dict[str, list[Path]] = {}  # (every kernel struct, by the files that define it)
    tree.ops = Ops(tree, index, opaque)
    tree.kernels = Ops(tree, structs, [])
    for f in _sources(roots):
        try:
            text = read(f)
        except TranspileError as e:
            tree._skip(f, str(e).splitlines()[0])
            continue
        if b"kernel" not in text:  # (no #[kernel], no op: not worth a transpile)
            continue
        resolved = f.resolve()
        names = _OP.findall(text)
        if any(n.startswith(b"$") for n in names):
            opaque.append(resolved)
        for n in names:
            if not n.startswith(b"$"):
                index.setdefault(n.decode(), []).append(resolved)
        for fn in _KERNEL_FN.findall(text):
            structs.setdefault(kernel_struct(fn.decode()), []).append(resolved)
    if not index and not opaque:
        warnings.warn(f"torch_backend: the kernel tree {', '.join(map(str, roots))} has no ops (no `impl RuntimeOp "
                      f"for ...` in any readable .rs file{', ' + str(len(tree.skipped)) + ' skipped' if tree.skipped else ''}):"
                      " every node will run on torch", TreeWarning, stacklevel=3)
    return tree
