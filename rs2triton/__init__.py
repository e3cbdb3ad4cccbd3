"""rs2triton: transpile teeny-triton Rust DSL kernels to Python Triton."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rs2triton.version import __version__

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable
    from types import ModuleType

    from rs2triton.loading.hook import RustKernelFinder

# The public names, imported on first use (PEP 562): importing rs2triton (as every generated
# module does, for its launchers) loads nothing of the transpiler.
_LAZY = {"Diagnostic": "diagnostics", "TranspileError": "diagnostics", "Result": "transpiler.driver.pipeline",
         "transpile_file": "transpiler.driver.pipeline",
         "transpile_source": "transpiler.driver.pipeline", "register_op": "runtime.torch_ops",
         "register_ops": "runtime.torch_ops", "torch_backend": "backend", "trace": "runtime.locations"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


def load(path: str | os.PathLike[str], *, interpret: bool | None = None, features: Iterable[str] | None = None,
         default_features: bool = True, debug: bool | None = None) -> ModuleType:
    """Import a ``.rs`` kernel file (or a generated ``.py``) as a Python module.

    The Triton backend is chosen before the kernels are decorated: a GPU when
    torch sees one, else Triton's CPU interpreter (``interpret=True`` forces it).
    ``features`` (and the crate's default features, unless ``default_features=False``) are
    what ``#[cfg(feature = ...)]`` sees, as cargo's ``--features``. ``debug=True`` (by default,
    ``RS2TRITON_DEBUG=1``) gives kernels Rust's debug-build checks (docs/translation.md).
    """
    from rs2triton.loading.loader import load as _load

    return _load(path, interpret=interpret, features=features, default_features=default_features, debug=debug)


def install_import_hook(*packages: str) -> RustKernelFinder:
    """Let ``import pkg.name`` find ``pkg/name.rs`` (for every package, or only the named ones).

    Opt-in; see :mod:`rs2triton.loading.hook`. :func:`remove_import_hook` turns it off.
    """
    from rs2triton.loading.hook import install

    return install(*packages)


def remove_import_hook() -> None:
    """Turn the import hook off (modules already imported stay imported)."""
    from rs2triton.loading.hook import remove

    remove()


__all__ = ["Diagnostic", "Result", "TranspileError", "__version__", "install_import_hook", "load", "register_op",
           "register_ops", "remove_import_hook", "torch_backend", "trace", "transpile_file", "transpile_source"]
