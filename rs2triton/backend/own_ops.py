"""The backend's own operators, for torch operators whose backward takes what a teenygrad op's
forward does not compute, and the rewrite of Dynamo's graph that uses them.

- ``native_layer_norm_backward`` takes the forward's mean and reciprocal standard deviation, and
  no ``eps``: a layer-norm op computes neither, and its backward kernel recomputes them from the
  input and ``eps``. In Dynamo's graph (before AOTAutograd) a ``layer_norm`` call becomes
  ``rs2triton_aot::layer_norm``, whose autograd formula is ``rs2triton_aot::layer_norm_backward``
  (given the input, the weight, the bias and ``eps``): the layer-norm row maps both, and the
  forward saves no statistics.
- ``nll_loss_backward`` takes the forward's total weight, which the NLL op does not return: it is
  decomposed into ``rs2triton_aot::nll_loss_backward``, given none (:func:`decompositions`).
- ``scaled_dot_product_attention`` is made torch's math attention in Dynamo's graph, so that
  AOTAutograd traces it (forward and backward) to matrix products, a softmax and elementwise
  ops, each on a row's op (on CPU torch picks a fused kernel of its own, on CUDA another).

On torch (a node that falls back) each operator computes what torch's own does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rs2triton.backend.plan import Tensor
from rs2triton.runtime.values import _torch

_DEFINED: dict[str, tuple[Any, Callable[..., Any]]] = {}  # an ATen overload's name -> (it, its decomposition)


def define() -> None:
    """Define the operators, once per process."""
    if _DEFINED:
        return
    torch = _torch()
    aten = torch.ops.aten
    lib = torch.library

    def layer_norm(input: Tensor, normalized_shape: list[int], weight: Tensor | None = None,
                   bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
        return aten.native_layer_norm(input, normalized_shape, weight, bias, eps)[0]

    ln = lib.custom_op("rs2triton_aot::layer_norm", layer_norm, mutates_args=(),
                       schema="(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
                              "float eps=1e-05) -> Tensor")
    ln.register_fake(lambda input, *rest: input.new_empty(input.shape))

    def layer_norm_backward(grad_output: Tensor, input: Tensor, normalized_shape: list[int], weight: Tensor | None,
                            bias: Tensor | None, eps: float, output_mask: list[bool]) -> tuple[Tensor, Tensor, Tensor]:
        _, mean, rstd = aten.native_layer_norm(input, normalized_shape, weight, bias, eps)
        grads = aten.native_layer_norm_backward(grad_output, input, normalized_shape, mean, rstd, weight, bias,
                                                output_mask)
        return tuple(input.new_empty(0) if g is None else g for g in grads)

    ln_bwd = lib.custom_op("rs2triton_aot::layer_norm_backward", layer_norm_backward, mutates_args=(),
                           schema="(Tensor grad_output, Tensor input, int[] normalized_shape, Tensor? weight, "
                                  "Tensor? bias, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)")

    def layer_norm_backward_fake(grad_output: Tensor, input: Tensor, normalized_shape: list[int],
                                 weight: Tensor | None, bias: Tensor | None, eps: float,
                                 output_mask: list[bool]) -> tuple[Tensor, Tensor, Tensor]:
        return (input.new_empty(input.shape) if output_mask[0] else input.new_empty(0),
                weight.new_empty(weight.shape) if weight is not None and output_mask[1] else input.new_empty(0),
                bias.new_empty(bias.shape) if bias is not None and output_mask[2] else input.new_empty(0))

    ln_bwd.register_fake(layer_norm_backward_fake)

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Tensor) -> None:
        input, normalized_shape, weight, bias, eps = inputs
        ctx.save_for_backward(input, weight, bias)
        ctx.normalized_shape, ctx.eps = normalized_shape, eps

    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, Tensor | None, Tensor | None, None]:
        input, weight, bias = ctx.saved_tensors
        needs = ctx.needs_input_grad
        mask = [bool(needs[0]), weight is not None and bool(needs[2]), bias is not None and bool(needs[3])]
        gi, gw, gb = torch.ops.rs2triton_aot.layer_norm_backward(grad, input, ctx.normalized_shape, weight, bias,
                                                                 ctx.eps, mask)
        return gi if mask[0] else None, None, gw if mask[1] else None, gb if mask[2] else None, None

    ln.register_autograd(backward, setup_context=setup_context)

    def nll_loss_backward(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                          ignore_index: int) -> Tensor:
        total_weight = aten.nll_loss_forward(self, target, weight, reduction, ignore_index)[1]
        return aten.nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight)

    nll_bwd = lib.custom_op("rs2triton_aot::nll_loss_backward", nll_loss_backward, mutates_args=(),
                            schema="(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
                                   "SymInt ignore_index) -> Tensor")
    nll_bwd.register_fake(lambda grad_output, self, *rest: self.new_empty(self.shape))

    def nll_decomposed(grad_output: Tensor, self: Tensor, target: Tensor, weight: Tensor | None, reduction: int,
                       ignore_index: int, total_weight: Tensor) -> Tensor:
        return torch.ops.rs2triton_aot.nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index)

    _DEFINED[str(aten.nll_loss_backward.default)] = (aten.nll_loss_backward.default, nll_decomposed)


def decompositions() -> dict[Any, Callable[..., Any]]:
    """ATen operators made the backend's own (see the module)."""
    define()
    return dict(_DEFINED.values())


def _sdpa_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: float = 0.0,
               is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False) -> Tensor:
    """torch's scaled_dot_product_attention, as matrix products, a scale, the causal mask added
    (``-inf`` above the diagonal: a constant made by ``full`` and ``triu``) and a softmax, which
    AOTAutograd traces forward and backward onto rows' ops. Where no mask is given or the mask
    is causal, no row is wholly masked, so the softmax is torch's. A boolean mask of the
    caller's (a padding mask: what transformers passes) is added as 0 or ``-inf``, and a row it
    masks wholly gives zeros, as torch's ``_safe_softmax`` does; with a float mask or dropout it
    is torch's math attention."""
    torch = _torch()
    boolean = attn_mask is not None and attn_mask.dtype == torch.bool
    if dropout_p or (attn_mask is not None and (is_causal or not boolean)):
        return torch.ops.aten._scaled_dot_product_attention_math(query, key, value, attn_mask, dropout_p, is_causal,
                                                                 scale=scale, enable_gqa=enable_gqa)[0]
    # (with grouped heads, each key head serves a group of query heads: the group's queries are
    # one matrix's rows, so that a key's gradient is a product too, not a sum over the group)
    heads, kv_heads = query.shape[-3], key.shape[-3]
    group = heads // kv_heads if enable_gqa and kv_heads != heads else 1
    L, S, E = query.shape[-2], key.shape[-2], query.shape[-1]
    q = query.reshape(*query.shape[:-3], kv_heads, group * L, E) if group > 1 else query
    scale = E ** -0.5 if scale is None else scale
    scores = torch.matmul(q, key.transpose(-2, -1)) * scale
    if is_causal:
        mask = torch.full((group, L, S), float("-inf"), dtype=scores.dtype, device=scores.device).triu(1)
        scores = scores + mask.reshape(group * L, S)
    keep = None
    if boolean:  # (True: a key the query attends to)
        allowed = torch.broadcast_to(attn_mask, (*query.shape[:-1], S))
        if group > 1:
            allowed = allowed.reshape(*query.shape[:-3], kv_heads, group * L, S)
        # a row with no key attended to gives zeros (torch's `_safe_softmax`): its softmax is taken
        # over every key, so that it is finite, then multiplied by 0. The mask's own logic is on
        # bool tensors; the additive mask is the log of the 0/1 mask (0 where attended, -inf
        # elsewhere), on the log row's op
        keep = allowed.any(-1, keepdim=True)
        scores = scores + torch.log((allowed | ~keep).to(scores.dtype))
    probs = torch.softmax(scores, dim=-1)
    if keep is not None:
        probs = probs * keep.to(scores.dtype)
    out = torch.matmul(probs, value)
    return out.reshape(*query.shape[:-1], value.shape[-1]) if group > 1 else out


_LAYER_NORM = ("input", "normalized_shape", "weight", "bias", "eps")


def rewrite(gm: Any) -> None:
    """Dynamo's graph ``gm``, with its layer norms made ``rs2triton_aot::layer_norm`` and its
    attention torch's math attention (see the module), in place."""
    torch = _torch()
    define()
    F = torch.nn.functional
    layer_norms = (F.layer_norm, torch.layer_norm)
    attentions = (F.scaled_dot_product_attention, torch._C._nn.scaled_dot_product_attention)
    changed = False
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target in layer_norms:
            given = dict(zip(_LAYER_NORM, node.args, strict=False)) | dict(node.kwargs)
            if set(given) - set(_LAYER_NORM) or not isinstance(given.get("normalized_shape"), (list, tuple)):
                continue
            node.target = torch.ops.rs2triton_aot.layer_norm.default
            node.args, node.kwargs = (given["input"], list(given["normalized_shape"])), \
                {k: given[k] for k in _LAYER_NORM[2:] if k in given}
            changed = True
        elif node.target in attentions:
            node.target = _sdpa_math
            changed = True
    if changed:
        gm.recompile()
