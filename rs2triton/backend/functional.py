"""``backend.functional``: every mapped operation with torch's signature (``relu(x)``,
``linear(x, weight, bias=None)``, ``softmax(x, dim)``...), run on the teenygrad op, differentiable.

Eagerly a call plans and runs the op as a graph node would (a call the op cannot take runs on
torch, and the report says why). Under ``torch.compile`` a function is one opaque custom op
(``torch.library.custom_op``, namespace ``rs2triton_<backend name>``) with a fake
implementation from torch's own meaning (the reference on meta tensors) and an autograd
formula that runs the op's backward kernels, so Dynamo never traces into the host code.
"""

from __future__ import annotations

from typing import Any

from rs2triton.backend.entry import Entry


class Functional:
    def __init__(self, backend) -> None:
        self._backend = backend
        self._entries = {e.name: e for e in backend.table}
        self._ops: dict[str, Any] = {}
        self._funcs: dict[str, Any] = {}

    def __dir__(self) -> list[str]:
        return sorted(self._entries)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        entry = self._entries.get(name)
        if entry is None:
            raise AttributeError(f"backend.functional has no {name!r}; the mapped operations are "
                                 f"{', '.join(sorted(self._entries))}")
        fn = self._funcs.get(name)
        if fn is None:
            fn = self._funcs[name] = self._make(entry)
        return fn

    def _make(self, entry: Entry):
        import torch

        backend = self._backend
        reference = _reference(entry.reference)
        signature = backend._signatures[entry.name]
        custom = self._custom(entry)

        def call(*args, **kwargs):
            if torch.compiler.is_compiling():
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                return custom(**bound.arguments)
            return backend.run(entry, args, kwargs, reference, f"functional.{entry.name}")

        call.__name__ = call.__qualname__ = entry.name
        call.__signature__ = signature  # type: ignore[attr-defined]
        call.__doc__ = (f"torch's `{entry.schema}`, run on teenygrad's {' or '.join(entry.op)} "
                        f"(the same as {entry.reference} otherwise).")
        return call

    def _custom(self, entry: Entry):
        """The custom op standing for ``entry`` under torch.compile."""
        import torch

        backend = self._backend
        namespace = f"rs2triton_{''.join(c if c.isalnum() else '_' for c in backend.name)}"
        reference = _reference(entry.reference)
        signature = backend._signatures[entry.name]
        schema = entry.schema.split("(", 1)[1]
        schema = "(" + schema
        qualname = f"{namespace}::{entry.name}"

        def impl(*args, **kwargs):
            return backend.run(entry, args, kwargs, reference, f"functional.{entry.name}")

        lib_op = torch.library.custom_op(qualname, impl, mutates_args=(), schema=schema)

        def fake(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return reference(**bound.arguments)

        lib_op.register_fake(fake)
        tensor_args = [p for p in signature.parameters if "Tensor" in _arg_type(entry, p)]

        def setup_context(ctx, inputs, output):
            bound = signature.bind(*inputs)
            ctx.arguments = dict(bound.arguments)
            ctx.save_for_backward(*[bound.arguments.get(n) for n in tensor_args])

        def backward(ctx, grad_output):
            values = dict(ctx.arguments)
            for n, t in zip(tensor_args, ctx.saved_tensors, strict=True):
                values[n] = None if t is None else t.detach().requires_grad_(t.requires_grad or True)
            with torch.enable_grad():
                out = impl(**values)
                wanted = [values[n] for n in tensor_args if values[n] is not None]
                grads = torch.autograd.grad(out, wanted, grad_output, allow_unused=True)
            by_name = dict(zip([n for n in tensor_args if values[n] is not None], grads, strict=True))
            return tuple(by_name.get(p) if p in tensor_args else None for p in signature.parameters)

        lib_op.register_autograd(backward, setup_context=setup_context)
        return lib_op


def _arg_type(entry: Entry, name: str) -> str:
    import torch

    for a in torch._C.parse_schema(entry.schema).arguments:
        if a.name == name:
            return str(a.type)
    return ""


def _reference(path: str):
    from rs2triton.backend.plan import _reference as ref

    return ref(path)
