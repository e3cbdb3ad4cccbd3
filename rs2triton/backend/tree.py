"""The teenygrad ops of a kernel tree: every ``.rs`` file with kernels, transpiled (through the
cache) and loaded, and the ops they define by their Rust struct names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_SKIP = {"tests", "examples", "benches", "target"}


@dataclass
class Tree:
    """The ops found under ``roots``: ``ops`` maps a Rust struct name to its launcher (a kernel
    struct with ``impl RuntimeOp``) or its class (a wrapper struct); ``files`` where each is
    defined; ``skipped`` the files that did not transpile, with the first line of the error."""

    roots: tuple[Path, ...]
    ops: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    skipped: dict[Path, str] = field(default_factory=dict)


def _sources(roots: tuple[Path, ...]):
    for root in roots:
        if root.is_file():
            yield root
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"torch_backend: no kernel tree at {root}")
        for f in sorted(root.rglob("*.rs")):
            if not _SKIP & set(f.relative_to(root).parts[:-1]):
                yield f


def load_tree(kernels, *, features=None, default_features: bool = True, interpret=None) -> Tree:
    from rs2triton import TranspileError, load
    from rs2triton.runtime import Launcher, RuntimeOp

    roots = tuple(Path(k) for k in (kernels if isinstance(kernels, (list, tuple)) else [kernels]))
    tree = Tree(roots)
    for f in _sources(roots):
        if b"kernel" not in f.read_bytes():  # (no #[kernel], no op: not worth a transpile)
            continue
        try:
            module = load(f, interpret=interpret, features=features, default_features=default_features)
        except TranspileError as e:
            tree.skipped[f] = str(e).splitlines()[0]
            continue
        except ValueError as e:  # a file that defines no kernels
            if "defines no #[kernel]" not in str(e):
                raise
            continue
        for attr, value in vars(module).items():
            if isinstance(value, Launcher) and value.op is not None and attr == value.name:
                name = value.name
            elif (isinstance(value, type) and issubclass(value, RuntimeOp) and value.__module__ == module.__name__
                  and "RUST_NAME" in vars(value) and hasattr(value, "new")):
                name = value.RUST_NAME
            else:
                continue
            if name not in tree.ops:
                tree.ops[name] = value
                tree.files[name] = f
    return tree
