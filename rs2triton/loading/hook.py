"""An opt-in import hook: ``import kernels_rs.relu`` finds ``kernels_rs/relu.rs``.

After :func:`install`, importing a submodule of a package finds a ``.rs`` file
of that name next to the package's ``__init__.py`` (when no ``.py`` module of
the name exists: Python modules come first). The file is transpiled through
the same content-addressed cache as :func:`rs2triton.load`, so an edited
source is transpiled again on the next import or ``importlib.reload``, and the
interpreter-or-GPU choice is made as ``load`` makes it.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType


class RustKernelFinder(importlib.abc.MetaPathFinder):
    """Finds ``<package>/<name>.rs`` for ``import <package>.<name>``."""

    def __init__(self, packages: tuple[str, ...] = ()):
        self.packages = frozenset(packages)

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if path is None:  # only submodules of packages
            return None
        parent, _, leaf = fullname.rpartition(".")
        if self.packages and not any(parent == p or parent.startswith(p + ".") for p in self.packages):
            return None
        for folder in path:
            rs = Path(folder) / f"{leaf}.rs"
            if rs.is_file():
                return importlib.util.spec_from_loader(fullname, RustKernelLoader(rs), origin=str(rs))
        return None


class RustKernelLoader(importlib.abc.Loader):
    def __init__(self, source: Path):
        self.source = source

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        from rs2triton.loading.loader import (
            annotate,
            cached,
            ensure_mode,
            exec_verified,
            require_run_extra,
            text_of,
            use_interpreter,
        )

        require_run_extra("the rs2triton import hook")
        interp = use_interpreter(None)
        ensure_mode(interp)
        result, py = cached(self.source)
        annotate(module, self.source, result, interp)
        # (Triton reads kernel source through inspect: a real file)
        exec_verified(module, py, text_of(result, self.source))


def install(*packages: str) -> RustKernelFinder:
    """Enable the hook (for every package, or only the named ones); returns the finder."""
    remove()
    finder = RustKernelFinder(packages)
    sys.meta_path.append(finder)  # after the standard finders: a .py module of the same name wins
    return finder


def remove() -> None:
    """Disable the hook (modules already imported stay imported)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, RustKernelFinder)]
