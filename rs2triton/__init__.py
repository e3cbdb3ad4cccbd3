"""rs2triton: transpile teeny-triton Rust DSL kernels to Python Triton."""

from .diagnostics import Diagnostic, TranspileError
from .pipeline import Result, transpile_file, transpile_source

__version__ = "0.1.0"


def load(path, *, interpret=None):
    """Import a ``.rs`` kernel file (or a generated ``.py``) as a Python module.

    The Triton backend is chosen before the kernels are decorated: a GPU when
    torch sees one, else Triton's CPU interpreter (``interpret=True`` forces it).
    """
    from .loader import load as _load

    return _load(path, interpret=interpret)


def install_import_hook(*packages):
    """Let ``import pkg.name`` find ``pkg/name.rs`` (for every package, or only the named ones).

    Opt-in; see :mod:`rs2triton.hook`. ``rs2triton.hook.remove()`` turns it off.
    """
    from .hook import install

    return install(*packages)


__all__ = ["Diagnostic", "Result", "TranspileError", "__version__", "install_import_hook", "load",
           "transpile_file", "transpile_source"]
