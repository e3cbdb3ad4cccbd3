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
- ``scaled_dot_product_attention`` with no mask and no dropout is made, in Dynamo's graph,
  ``rs2triton_aot::attention`` on ``[B*H, N, D]`` tensors (returning the output and each query's
  log-sum-exp, in ``f32``), whose autograd formula is ``rs2triton_aot::attention_backward``: the
  attention rows run both on flash-attention kernels (``mapping_rules.Launch``). Grouped key
  heads are expanded to the query heads (``enable_gqa``: a key's gradient is then a sum over its
  group, on the sum rows), and a head dimension that is not a power of two is padded with zeros
  to one (the scores and the output's columns are unchanged; the scale is the unpadded one).
  With a mask it is torch's math attention made of matrix products, a scale, the mask added and
  a softmax, so that AOTAutograd traces it (forward and backward) to rows' ops; with dropout it
  is torch's math attention (its dropout on torch).
- An RMS normalisation written out (Qwen3's ``Qwen3RMSNorm``: ``x * rsqrt(x.pow(2).mean(-1,
  keepdim=True) + eps)``, found in Dynamo's graph as that pattern) is made
  ``rs2triton_aot::rms_norm`` on ``[rows, n]`` (returning the output and each row's reciprocal
  RMS, in ``f32``), whose autograd formula is ``rs2triton_aot::rms_norm_backward`` (the input's
  gradient alone): the RMS-norm rows run both. The weight's product after it stays a product
  (its gradient a product and a sum over rows, on those rows' ops). ``torch.nn.functional.
  rms_norm`` over the last dimension is made the same.

On torch (a node that falls back) each operator computes what torch's own does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rs2triton.backend.plan import Tensor
from rs2triton.runtime.mapping_rules import next_pow2
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
    _define_attention(torch, lib)
    _define_rms_norm(torch, lib)


def _define_rms_norm(torch: Any, lib: Any) -> None:
    """``rs2triton_aot::rms_norm`` and its backward (see the module), on torch in f32."""

    def rms_norm(input: Any, eps: float) -> tuple[Any, Any]:
        rrms = torch.rsqrt(input.float().pow(2).mean(-1) + eps)
        return (input.float() * rrms[:, None]).to(input.dtype), rrms

    op = lib.custom_op("rs2triton_aot::rms_norm", rms_norm, mutates_args=(),
                       schema="(Tensor input, float eps) -> (Tensor, Tensor)")
    op.register_fake(lambda input, eps: (input.new_empty(input.shape),
                                         input.new_empty(input.shape[:1], dtype=torch.float32)))

    def rms_norm_backward(grad_output: Any, input: Any, rrms: Any) -> Any:
        x, dy, r = input.float(), grad_output.float(), rrms[:, None]
        return ((dy - x * r * r * (dy * x).mean(-1, keepdim=True)) * r).to(input.dtype)

    bwd = lib.custom_op("rs2triton_aot::rms_norm_backward", rms_norm_backward, mutates_args=(),
                        schema="(Tensor grad_output, Tensor input, Tensor rrms) -> Tensor")
    bwd.register_fake(lambda grad_output, input, rrms: torch.empty_like(input))

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
        ctx.save_for_backward(inputs[0], output[1])

    def backward(ctx: Any, grad: Any, _grad_rrms: Any) -> tuple[Any, ...]:
        input, rrms = ctx.saved_tensors
        return torch.ops.rs2triton_aot.rms_norm_backward(grad.contiguous(), input, rrms), None

    op.register_autograd(backward, setup_context=setup_context)


def _rms_norm(x: Any, eps: float) -> Any:
    """``x * rsqrt(mean(x², -1, keepdim) + eps)`` on ``rs2triton_aot::rms_norm``."""
    torch = _torch()
    y, _ = torch.ops.rs2triton_aot.rms_norm(x.reshape(-1, x.shape[-1]), float(eps))
    return y.reshape(x.shape)


def _called(node: Any, functions: tuple[Any, ...], method: str) -> bool:
    """Whether the Dynamo node calls one of ``functions`` or the Tensor method ``method``."""
    return (node.op == "call_function" and node.target in functions) or (node.op == "call_method"
                                                                          and node.target == method)


def _rms_norms(gm: Any) -> bool:
    """Each ``x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)`` of Dynamo's graph made
    :func:`_rms_norm` (the product's node made the call; the rest left to dead-code removal)."""
    import operator

    import torch.fx

    torch = _torch()
    changed = False
    for node in list(gm.graph.nodes):
        if not _called(node, (torch.rsqrt,), "rsqrt") or len(node.args) != 1:
            continue
        add = node.args[0]
        if not isinstance(add, torch.fx.Node) or not _called(add, (operator.add, torch.add), "add") \
                or len(add.args) != 2 or add.kwargs:
            continue
        mean, eps = add.args if isinstance(add.args[1], float) else add.args[::-1]
        if not isinstance(eps, float) or not isinstance(mean, torch.fx.Node) \
                or not _called(mean, (torch.mean,), "mean"):
            continue
        dims = mean.args[1] if len(mean.args) > 1 else mean.kwargs.get("dim")
        keepdim = mean.args[2] if len(mean.args) > 2 else mean.kwargs.get("keepdim", False)
        if dims not in (-1, [-1], (-1,)) or keepdim is not True or set(mean.kwargs) - {"dim", "keepdim"}:
            continue
        square = mean.args[0]
        if not isinstance(square, torch.fx.Node) or not _called(square, (torch.pow, operator.pow), "pow") \
                or len(square.args) != 2 or square.args[1] != 2 or square.kwargs:
            continue
        x = square.args[0]
        value = x.meta.get("example_value") if isinstance(x, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor) or value.dim() < 1 or not value.is_floating_point():
            continue
        for user in list(node.users):
            if _called(user, (operator.mul, torch.mul), "mul") and not user.kwargs and len(user.args) == 2 \
                    and set(user.args) == {x, node}:
                user.op, user.target, user.args = "call_function", _rms_norm, (x, eps)
                changed = True
    if changed:
        gm.graph.eliminate_dead_code()
    return changed


def _attention_math(query: Any, key: Any, value: Any, scale: float, is_causal: bool) -> tuple[Any, Any]:
    """The attention of ``[BH, N, D]`` tensors computed in f32 on torch, and its log-sum-exp."""
    torch = _torch()
    q, k, v = query.float(), key.float(), value.float()
    scores = q @ k.transpose(-2, -1) * scale
    if is_causal:
        upper = torch.ones(scores.shape[-2:], dtype=torch.bool, device=scores.device).triu(1)
        scores = scores.masked_fill(upper, float("-inf"))
    lse = scores.logsumexp(-1)
    return (torch.exp(scores - lse[..., None]) @ v).to(query.dtype), lse


def _define_attention(torch: Any, lib: Any) -> None:
    """``rs2triton_aot::attention`` and its backward (see the module); on torch each computes
    what their names say, in f32."""

    def attention(query: Any, key: Any, value: Any, scale: float, is_causal: bool) -> tuple[Any, Any]:
        return _attention_math(query, key, value, scale, is_causal)

    op = lib.custom_op("rs2triton_aot::attention", attention, mutates_args=(),
                       schema="(Tensor query, Tensor key, Tensor value, float scale, bool is_causal) -> "
                              "(Tensor, Tensor)")
    op.register_fake(lambda query, key, value, scale, is_causal: (
        query.new_empty((*query.shape[:-1], value.shape[-1])),
        query.new_empty(query.shape[:-1], dtype=torch.float32)))

    def attention_backward(grad_output: Any, query: Any, key: Any, value: Any, output: Any, lse: Any, scale: float,
                           is_causal: bool) -> tuple[Any, ...]:
        with torch.enable_grad():
            q, k, v = (t.detach().requires_grad_() for t in (query, key, value))
            out, _ = _attention_math(q, k, v, scale, is_causal)
            return tuple(g.to(t.dtype) for g, t in zip(torch.autograd.grad(out, (q, k, v), grad_output),
                                                       (query, key, value), strict=True))

    bwd = lib.custom_op("rs2triton_aot::attention_backward", attention_backward, mutates_args=(),
                        schema="(Tensor grad_output, Tensor query, Tensor key, Tensor value, Tensor output, "
                               "Tensor lse, float scale, bool is_causal) -> (Tensor, Tensor, Tensor)")
    bwd.register_fake(lambda grad_output, query, key, value, *rest: (
        torch.empty_like(query), torch.empty_like(key), torch.empty_like(value)))

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: tuple[Any, ...]) -> None:
        query, key, value, scale, is_causal = inputs
        ctx.save_for_backward(query, key, value, *output)
        ctx.scale, ctx.is_causal = scale, is_causal

    def backward(ctx: Any, grad: Any, _grad_lse: Any) -> tuple[Any, ...]:
        query, key, value, out, lse = ctx.saved_tensors
        dq, dk, dv = torch.ops.rs2triton_aot.attention_backward(grad.contiguous(), query, key, value, out, lse,
                                                                ctx.scale, ctx.is_causal)
        return dq, dk, dv, None, None

    op.register_autograd(backward, setup_context=setup_context)


def decompositions() -> dict[Any, Callable[..., Any]]:
    """ATen operators made the backend's own (see the module)."""
    define()
    return dict(_DEFINED.values())


def _sdpa(query: Any, key: Any, value: Any, attn_mask: Any = None, dropout_p: float = 0.0, is_causal: bool = False,
          scale: float | None = None, enable_gqa: bool = False) -> Any:
    """torch's scaled_dot_product_attention: with no mask and no dropout, on
    ``rs2triton_aot::attention`` (see the module); else :func:`_sdpa_math`."""
    torch = _torch()
    if dropout_p or attn_mask is not None or query.dim() < 3 or key.dim() != query.dim() \
            or value.dim() != query.dim():
        return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    heads, kv_heads = query.shape[-3], key.shape[-3]
    if enable_gqa and kv_heads != heads:  # (each key head serves a group of query heads: expanded to them)
        group = heads // kv_heads

        def expand(t: Any) -> Any:
            lead = t.shape[:-3]
            return t.unsqueeze(-3).expand(*lead, kv_heads, group, *t.shape[-2:]).reshape(*lead, heads, *t.shape[-2:])

        key, value = expand(key), expand(value)
    if query.shape[:-2] != key.shape[:-2] or key.shape[:-2] != value.shape[:-2]:
        return _sdpa_math(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    E, Ev = query.shape[-1], value.shape[-1]
    scale = float(E ** -0.5 if scale is None else scale)
    width = max(next_pow2(E), next_pow2(Ev))  # (zeros added to q and k add nothing to the scores)
    F = torch.nn.functional
    q, k, v = (t if t.shape[-1] == width else F.pad(t, (0, width - t.shape[-1])) for t in (query, key, value))
    L, S = query.shape[-2], key.shape[-2]
    out, _ = torch.ops.rs2triton_aot.attention(q.reshape(-1, L, width), k.reshape(-1, S, width),
                                               v.reshape(-1, S, width), scale, bool(is_causal))
    out = out.reshape(*query.shape[:-2], L, width)
    return out if width == Ev else out[..., :Ev]


def _sdpa_math(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, dropout_p: float = 0.0,
               is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False) -> Tensor:
    """torch's scaled_dot_product_attention, as matrix products, a scale, the causal mask added
    (``-inf`` above the diagonal: a constant made by ``full`` and ``triu``) and a softmax, which
    AOTAutograd traces forward and backward onto rows' ops. Where no mask is given or the mask
    is causal, no row is wholly masked, so the softmax is torch's. A boolean mask of the
    caller's (a padding mask: what transformers passes) is added as 0 or ``-inf``, and a row it
    masks wholly gives zeros, as torch's ``_safe_softmax`` does; a float mask is added to the
    scores (on the add row); with dropout, or a mask and ``is_causal``, it is torch's math
    attention."""
    torch = _torch()
    boolean = attn_mask is not None and attn_mask.dtype == torch.bool
    if dropout_p or (attn_mask is not None and is_causal):
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
    elif attn_mask is not None:  # (a float mask is added to the scores: on the add row)
        added = torch.broadcast_to(attn_mask, (*query.shape[:-1], S)).to(scores.dtype)
        scores = scores + (added.reshape(*query.shape[:-3], kv_heads, group * L, S) if group > 1 else added)
    probs = torch.softmax(scores, dim=-1)
    if keep is not None:
        probs = probs * keep.to(scores.dtype)
    out = torch.matmul(probs, value)
    return out.reshape(*query.shape[:-1], value.shape[-1]) if group > 1 else out


_LAYER_NORM = ("input", "normalized_shape", "weight", "bias", "eps")


def _rms_norm_call(input: Any, normalized_shape: Any, weight: Any = None, eps: float | None = None) -> Any:
    """``torch.nn.functional.rms_norm`` over the last dimension, on :func:`_rms_norm` (the
    weight a product after it; ``eps=None``: the dtype's epsilon, as torch's); over more
    dimensions, torch's own (its parts, on the rows' ops)."""
    torch = _torch()
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if len(shape) != 1 or input.dim() < 1 or shape[0] != input.shape[-1] or not input.is_floating_point():
        return torch.nn.functional.rms_norm(input, normalized_shape, weight, eps)
    y = _rms_norm(input, torch.finfo(input.dtype).eps if eps is None else eps)
    return y if weight is None else y * weight


def rewrite(gm: Any) -> None:
    """Dynamo's graph ``gm``, with its layer norms made ``rs2triton_aot::layer_norm``, its
    attention and RMS normalisations the backend's own (see the module), in place."""
    torch = _torch()
    define()
    F = torch.nn.functional
    layer_norms = (F.layer_norm, torch.layer_norm)
    rms_norms = (F.rms_norm, torch.rms_norm) if hasattr(F, "rms_norm") else ()
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
            node.target = _sdpa
            changed = True
        elif node.target in rms_norms:
            node.target = _rms_norm_call
            changed = True
    changed = _rms_norms(gm) or changed
    if changed:
        gm.recompile()
