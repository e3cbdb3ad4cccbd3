"""teenygrad's PyTorch backend: ``torch.compile(model, backend="teenygrad")`` on a kernel tree's ops.

:func:`torch_backend` loads the ops of a teenygrad kernel tree (``kernels/teeny-kernels/src``,
or any tree of ``.rs`` files with ``impl RuntimeOp``) and registers a torch.compile backend
that runs every node it can of AOTAutograd's forward and backward graphs on them: ``compiler.py``
hands Dynamo's graph to AOTAutograd, ``aten.py`` rewrites its ATen graphs, ``wrapper.py`` writes
each graph as one Python function per shape set, ``plan.py`` plans one call (op, const
generics, views, pads, or why not), ``runtime/torch_mapping.py`` is the mapping (data, one row
per operation, with the ATen operators it computes), ``tree.py`` finds a tree's ops and loads
them when asked, ``report.py`` counts what ran, ``functional.py`` is the same ops with torch's
signatures, ``protocols.py`` is the backend as the modules it imports type it. See
``docs/torch-backend.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rs2triton.backend.compiler import Backend
    from rs2triton.backend.tree import KernelPaths


def torch_backend(kernels: KernelPaths, *, name: str = "teenygrad", strict: bool = False, register: bool = True,
                  features: Iterable[str] | None = None, default_features: bool = True,
                  interpret: bool | None = None) -> Backend:
    """The teenygrad backend over the ops of ``kernels`` (a folder of ``.rs`` files, one file, or a
    list of them), transpiled through the cache and loaded (``features``/``default_features``:
    what ``#[cfg(feature = ...)]`` sees, as for :func:`rs2triton.load`; teeny-kernels' defaults
    include ``training``, which its backward methods need).

    Registered as the torch.compile backend ``name`` (unless ``register=False``), and itself a
    backend (``torch.compile(model, backend=b)``). ``strict=True``: a node that would run on
    torch is an error naming it and why. ``b.report()`` says what ran; ``b.functional`` has the
    mapped operations with torch's signatures.
    """
    from rs2triton.backend.compiler import Backend
    from rs2triton.backend.compiler import register as _register
    from rs2triton.backend.tree import load_tree

    tree = load_tree(kernels, features=features, default_features=default_features, interpret=interpret)
    backend = Backend(tree, name=name, strict=strict)
    if register:
        _register(backend)
    return backend


__all__ = ["torch_backend"]
