"""``backend.functional``: every mapped operation with torch's signature (``relu(x)``,
``linear(x, weight, bias=None)``, ``softmax(x, dim)``...), run on the teenygrad op, differentiable.

Eagerly a call plans and runs the op as a graph node would (a call the op cannot take runs on
torch, and the report says why). Under ``torch.compile`` a function is one opaque custom op
(``torch.library.custom_op``, namespace ``rs2triton_<backend name>``) with a fake
implementation from torch's own meaning (the reference on meta tensors) and an autograd
formula that runs the op's backward kernels, so Dynamo never traces into the host code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rs2triton.backend.plan import Tensor, _reference
from rs2triton.runtime.mapping_rules import Entry

if TYPE_CHECKING:
    from rs2triton.backend.protocols import BackendView


class Functional:
    def __init__(self, backend: BackendView) -> None:
        self._backend = backend
        # (a row that launches kernels directly maps the backend's own ATen operators: no function)
        self._entries = {e.name: e for e in backend.table if not e.launched}
        self._funcs: dict[str, Any] = {}
        for entry in self._entries.values():  # (made now: under torch.compile, Dynamo only reads the attribute)
            setattr(self, entry.name, self._make(entry))

    def __dir__(self) -> list[str]:
        return sorted(self._entries)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        entry = self._entries.get(name)
        if entry is None:
            raise AttributeError(f"backend.functional has no {name!r}; the mapped operations are "
                                 f"{', '.join(sorted(self._entries))}")
        raise AssertionError(name)  # pragma: no cover (every row's function is an attribute)

    def _make(self, entry: Entry) -> Callable[..., Any]:
        import torch

        backend = self._backend
        reference = _reference(entry.reference)
        signature = backend._signatures[entry.name]
        custom = self._custom(entry)

        def call(*args: Any, **kwargs: Any) -> Any:
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

    def _custom(self, entry: Entry) -> Any:
        """The custom op standing for ``entry`` under torch.compile."""
        import torch

        backend = self._backend
        namespace = f"rs2triton_{''.join(c if c.isalnum() else '_' for c in backend.name)}"
        reference = _reference(entry.reference)
        signature = backend._signatures[entry.name]
        schema = entry.schema.split("(", 1)[1]
        schema = "(" + schema
        qualname = f"{namespace}::{entry.name}"

        def impl(*args: Any, **kwargs: Any) -> Any:
            return backend.run(entry, args, kwargs, reference, f"functional.{entry.name}")

        lib_op = torch.library.custom_op(qualname, impl, mutates_args=(), schema=schema)

        def fake(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return reference(**bound.arguments)

        lib_op.register_fake(fake)
        tensor_args = [a.name for a in torch._C.parse_schema(entry.schema).arguments if "Tensor" in str(a.type)]

        # The backward is an opaque custom op too (AOT autograd traces a backward formula with
        # fake tensors): it runs the forward again under autograd, so that the op's own backward
        # kernels compute the gradients, and returns one per tensor argument given.
        def backward_impl(grad_output: Tensor, *args: Any, **kwargs: Any) -> list[Tensor]:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = dict(bound.arguments)
            given = [n for n in tensor_args if values.get(n) is not None]
            for n in given:
                values[n] = values[n].detach().requires_grad_()
            with torch.enable_grad():
                out = impl(**values)
                grads = torch.autograd.grad(out, [values[n] for n in given], grad_output, allow_unused=True)
            return [torch.zeros_like(values[n]) if g is None else g for n, g in zip(given, grads, strict=True)]

        backward_schema = "(Tensor grad_output, " + schema[1:].rsplit("->", 1)[0].rstrip() + " -> Tensor[]"
        backward_op = torch.library.custom_op(f"{qualname}_backward", backward_impl, mutates_args=(),
                                              schema=backward_schema)

        def backward_fake(grad_output: Tensor, *args: Any, **kwargs: Any) -> list[Tensor]:
            values = signature.bind(*args, **kwargs).arguments
            return [torch.empty_like(values[n]) for n in tensor_args if values.get(n) is not None]

        backward_op.register_fake(backward_fake)

        positional = [n for n, p in signature.parameters.items() if p.kind is not p.KEYWORD_ONLY]

        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Tensor,
                          keyword_only_inputs: dict[str, Any] | None = None) -> None:
            # (torch passes keyword-only arguments apart, where the schema has any: `alpha`)
            arguments = dict(zip(positional, inputs, strict=True)) | dict(keyword_only_inputs or {})
            ctx.arguments = arguments
            ctx.given = [n for n in tensor_args if arguments.get(n) is not None]
            ctx.save_for_backward(*[arguments[n] for n in ctx.given])

        def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
            values = dict(ctx.arguments)
            for n, t in zip(ctx.given, ctx.saved_tensors, strict=True):
                values[n] = t
            grads = backward_op(grad_output, **values)
            by_name = dict(zip(ctx.given, grads, strict=True))
            return tuple(by_name.get(p) for p in positional)

        lib_op.register_autograd(backward, setup_context=setup_context)
        return lib_op

