"""teenygrad's ops as ``torch.library`` custom ops, in one call.

:func:`register_op` turns one op (a configured kernel with host logic, ``ReluForward(
BLOCK_SIZE=1024)``, or a wrapper op such as ``ChannelCatRuntimeOp.new(128, 2)``) into a custom
op ``namespace::name`` whose schema is ``(Tensor[] inputs, Tensor[] params, SymInt[] out_shape)
-> Tensor``, with

- a fake (meta) implementation, from the op's own host logic: the output shape from
  ``compute_concrete_output_shape`` and the dtype from where ``pack_args`` puts the output;
- autograd, when the op ``has_backward``: a second custom op ``name_backward`` runs the
  backward kernel (zeroed gradient buffers, as teenygrad's executor), so ``torch.compile``
  sees both;
- on a GPU, ``torch.library.triton_op`` with the launches made through ``wrap_triton``, which
  ``torch.compile`` traces into its graph; on Triton's CPU interpreter, where compiled Triton
  cannot run, ``torch.library.custom_op`` (``torch.compile`` keeps it as one opaque call).

:func:`register_ops` registers every op of a generated module that it can build: each kernel
with host logic whose const generics are all in ``consts``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from types import GenericAlias, ModuleType
from typing import TYPE_CHECKING, Any

from rs2triton.runtime.values import _torch

if TYPE_CHECKING:  # (torch is not followed by mypy: its types are Any to it)
    from torch import Tensor

    from rs2triton.runtime.protocols import Op

SCHEMA = "(Tensor[] inputs, Tensor[] params, SymInt[] out_shape) -> Tensor"
BACKWARD_SCHEMA = ("(Tensor[] inputs, Tensor[] params, Tensor output, Tensor grad_output, SymInt[] out_shape, "
                   "bool[] needs) -> Tensor[]")


def snake_case(name: str) -> str:
    """``ReluForward`` -> ``relu_forward`` (the op's name in its namespace)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _tensors() -> GenericAlias:
    """``list[torch.Tensor]``, the annotation of a ``Tensor[]`` argument."""
    return GenericAlias(list, (_torch().Tensor,))


def _interpreted(op: Op) -> bool:
    kernel = op.forward_kernel()
    return bool(getattr(getattr(kernel, "launcher", None), "interpreted", False))


class DryRunError(Exception):
    """The dry run of an op's host logic failed: whether it writes its params is not known."""


def writes_params(op: Op) -> bool:
    """Whether ``op``'s forward kernel writes one of its parameters (teenygrad's batch-norm stats
    updates its running statistics in place): a dry run of ``pack_args`` on stand-ins of a
    generic shape, its visited parameters looked up in the kernel's ``Out``/``InOut`` marks;
    False where the dry run cannot tell (a launch that writes one is then an error, not a
    silent mutation)."""
    from rs2triton.runtime import apply

    class Stand:  # a tensor as the host code sees one: a shape
        def __init__(self, shape: Iterable[int]) -> None:
            self.shape = tuple(shape)

    shape = (2,) * 6
    try:
        n = int(op.n_activation_inputs())
        inputs = tuple(Stand(shape) for _ in range(n))
        input_shapes = [shape] * n
        output_shape = [int(s) for s in op.compute_concrete_output_shape(input_shapes, list(shape))]
        params = tuple(Stand(p) for p in op.param_shapes(input_shapes, output_shape))
        if not params:
            return False
        launches = apply.forward_launches(op, inputs, params, output_shape, int(op.forward_output_row_stride(output_shape)))
        return bool(apply.written_params(op.forward_kernel(), launches, params))
    except Exception as e:  # (host logic the generic shape does not fit: not known; the caller says so)
        raise DryRunError(f"{type(e).__name__}: {e}") from e


def register_op(op: Op, qualname: str | None = None, *, namespace: str = "rs2triton", mutates_params: bool | None = None,
                replace: bool = False) -> Any:  # (the torch.ops overload packet)
    """Register ``op`` as the custom op ``qualname`` (``"namespace::name"``; by default the op's
    name in snake case, in ``namespace``). Returns the op's ``torch.ops`` overload packet, callable
    as ``f(inputs, params, out_shape)``. ``mutates_params``: whether the op writes its parameter
    tensors in place (declared to torch, and then without autograd, which torch.library has only
    for functional ops); by default what :func:`writes_params` finds (a dry run of its host logic,
    the kernel's stores read from it), a warning with the cause where it cannot tell. A name in use is an error
    unless ``replace``; ``op`` must be a translated ``impl RuntimeOp`` (``TypeError``)."""
    torch = _torch()
    from rs2triton.runtime import apply

    missing = [m for m in ("n_activation_inputs", "param_shapes", "pack_args", "grid", "forward_kernel")
               if not callable(getattr(op, m, None))]
    if missing:
        raise TypeError(f"register_op: {type(op).__name__} is not a teenygrad op (an `impl RuntimeOp` rs2triton "
                        f"translated): it has no {', '.join(f'`{m}`' for m in missing)}")
    name = qualname or f"{namespace}::{snake_case(getattr(op, 'RUST_NAME', type(op).__name__))}"
    if not isinstance(name, str) or name.count("::") != 1 or not all(
            part.isascii() and part.isidentifier() for part in name.split("::")):
        raise ValueError(f"register_op: the name must be `namespace::name`, both Python identifiers, got {name!r}")
    namespace_, short = name.split("::")
    if not replace and hasattr(getattr(torch.ops, namespace_), short):
        raise ValueError(f"register_op: an op named {name} is registered already (register_op(..., replace=True) "
                         "replaces it)")
    label = getattr(op, "RUST_NAME", type(op).__name__)
    interpreted = _interpreted(op)
    define = torch.library.custom_op if interpreted else torch.library.triton_op
    if mutates_params is None:
        try:
            mutable = writes_params(op)
        except DryRunError as e:  # registered as not mutating: a launch that writes a param is then an error
            import warnings

            warnings.warn(f"register_op: cannot tell whether {label} writes its params: its host logic failed on "
                          f"stand-in shapes ({e}); registered as not writing them (a launch that does is an "
                          "error); say which: register_op(..., mutates_params=True or False)", RuntimeWarning,
                          stacklevel=2)
            mutable = False
    else:
        mutable = bool(mutates_params)

    def run(inputs: Sequence[Tensor], params: Sequence[Tensor], out_shape: list[int]) -> Tensor:
        inputs, params, output_shape, bound = _prepared(op, inputs, params, out_shape, contiguous_params=mutable)
        return apply.forward(bound, inputs, params, None, output_shape, torch_op=not interpreted,
                             params_mutable=mutable)

    run.__name__ = name.split("::")[1]
    # (`triton_op` ignores `schema` and infers it from the annotations, which spell SCHEMA)
    run.__annotations__ = {"inputs": _tensors(), "params": _tensors(), "out_shape": list[int],
                           "return": torch.Tensor}
    custom = define(name, run, mutates_args=("params",) if mutable else (),
                    schema=SCHEMA.replace("Tensor[] params", "Tensor(a!)[] params") if mutable else SCHEMA)

    def fake(inputs: Sequence[Tensor], params: Sequence[Tensor], out_shape: list[int]) -> Tensor:
        inputs, params, output_shape, bound = _prepared(op, inputs, params, out_shape)
        dtype = apply.output_dtype(bound, inputs, params, output_shape)
        return inputs[0].new_empty(output_shape, dtype=dtype) if inputs else torch.empty(output_shape, dtype=dtype)

    custom.register_fake(fake)
    if mutable:  # (torch.library has autograd for functional ops only)
        return getattr(getattr(torch.ops, namespace_), short)
    backward_op = _register_backward(op, name, label, interpreted)

    def setup_context(ctx: Any, inputs: tuple[list[Tensor], list[Tensor], list[int]], output: Tensor) -> None:
        ins, params, out_shape = inputs
        ctx.save_for_backward(*ins, *params, output)
        ctx.n_inputs, ctx.out_shape = len(ins), list(out_shape)

    def backward(ctx: Any, grad_output: Tensor) -> tuple[list[Tensor | None], list[Tensor | None], list[int] | None]:
        *tensors, output = ctx.saved_tensors
        ins, params = tensors[:ctx.n_inputs], tensors[ctx.n_inputs:]
        needs = [bool(n) for n in ctx.needs_input_grad[0]] if isinstance(ctx.needs_input_grad[0], (list, tuple)) \
            else [bool(ctx.needs_input_grad[0])] * len(ins)
        needs_p = [bool(n) for n in ctx.needs_input_grad[1]] if isinstance(ctx.needs_input_grad[1], (list, tuple)) \
            else [bool(ctx.needs_input_grad[1])] * len(params)
        grads = backward_op(list(ins), list(params), output, grad_output, ctx.out_shape, needs + needs_p)
        grads = [g if n else None for g, n in zip(grads, needs + needs_p, strict=True)]
        # out_shape has no gradient: None, or [] for a scalar's empty shape (torch.library holds an
        # empty list to its own structure, not to a leaf)
        return grads[:len(ins)], grads[len(ins):], (None if ctx.out_shape else [])

    custom.register_autograd(backward, setup_context=setup_context)
    return getattr(getattr(torch.ops, namespace_), short)


def _prepared(op: Op, inputs: Sequence[Tensor], params: Sequence[Tensor], out_shape: Sequence[int],
              contiguous_params: bool = False) -> tuple[tuple[Tensor, ...], tuple[Tensor, ...], list[int], Op]:
    from rs2triton.runtime import apply

    inputs, params = tuple(inputs), tuple(params)
    op = apply.bind_dtype(op, inputs)
    inputs = tuple(x.contiguous() for x in inputs)
    if contiguous_params and not all(p.is_contiguous() for p in params):  # (a copy would take the writes)
        raise ValueError(f"{apply._name(op)}: the params it writes must be contiguous tensors")
    params = tuple(p.contiguous() for p in params)
    input_shapes = [tuple(int(s) for s in x.shape) for x in inputs]
    with apply.host_code(op, input_shapes, list(out_shape)):
        # ([] is a 0-d output, or, for an op that computes its output shape, nothing given)
        output_shape = apply.resolve_output_shape(op, input_shapes, None, list(out_shape))
        apply.check_params(op, params, input_shapes, output_shape)
    apply.check_mapped(op, input_shapes, output_shape)
    return inputs, params, output_shape, op


def _register_backward(op: Op, name: str, label: str, interpreted: bool) -> Any:  # (the torch.ops packet)
    torch = _torch()
    from rs2triton.runtime import apply

    define = torch.library.custom_op if interpreted else torch.library.triton_op

    def run(inputs: list[Tensor], params: list[Tensor], output: Tensor, grad_output: Tensor, out_shape: list[int],
            needs: list[bool]) -> list[Tensor]:
        if not op.has_backward():
            raise RuntimeError(f"{label} has no backward in teenygrad (has_backward() is false): its output "
                               "cannot be differentiated")
        bound = apply.bind_dtype(op, tuple(inputs))
        tensors = (*inputs, *params)
        grads = apply.backward(bound, tuple(inputs), tuple(params), output, list(out_shape), grad_output,
                               [bool(n) for n in needs], torch_op=not interpreted)
        # (Tensor[] holds no None: a gradient not needed is zeros, which autograd is not given)
        return [g if g is not None else torch.zeros_like(t) for g, t in zip(grads, tensors, strict=True)]

    backward_name = f"{name}_backward"
    run.__annotations__ = {"inputs": _tensors(), "params": _tensors(), "output": torch.Tensor,
                           "grad_output": torch.Tensor, "out_shape": list[int], "needs": list[bool],
                           "return": _tensors()}
    custom = define(backward_name, run, mutates_args=(), schema=BACKWARD_SCHEMA)

    def fake(inputs: list[Tensor], params: list[Tensor], output: Tensor, grad_output: Tensor, out_shape: list[int],
             needs: list[bool]) -> list[Tensor]:
        return [torch.empty_like(t) for t in (*inputs, *params)]

    custom.register_fake(fake)
    namespace_, short = backward_name.split("::")
    return getattr(getattr(torch.ops, namespace_), short)


def register_ops(module: ModuleType, *, namespace: str = "rs2triton", consts: dict[str, Any] | None = None) -> dict[str, Any]:
    """Register every op of a generated module that can be built from ``consts`` (const generic
    name -> value): each kernel with host logic whose const generics all have a value there. The
    ``torch.ops`` packets by launcher name."""
    from rs2triton.runtime.launcher import Launcher

    consts = dict(consts or {})
    out = {}
    for attr, value in vars(module).items():
        if not isinstance(value, Launcher) or value.op is None or attr != value.name:
            continue
        if not all(c in consts for c in value.consts):
            continue
        out[attr] = register_op(value(**{c: consts[c] for c in value.consts}), namespace=namespace)
    return out
