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


__all__ = ["Diagnostic", "Result", "TranspileError", "__version__", "load", "transpile_file",
           "transpile_source"]
