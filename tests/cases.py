"""Test cases for the bundled DSL kernels in ``kernels_rs/``.

Pure Python + torch: nothing here imports the transpiler. Each ``KernelCase``
says which ``#[kernel]`` fn to translate, its const-generic values, the dtypes
to try, how to build its runtime arguments (every parameter, by Rust name, in
Rust parameter order), its launch grid and a float32 torch reference.

Conventions:
- ``make_args(dtype, gen)`` returns CPU tensors; outputs are pre-allocated.
  Where a row stride differs from the row length, the whole padded buffer is
  passed (contiguous) and outputs are zero-filled, so the reference also checks
  that the kernel never writes the padding.
- ``reference(args)`` reads only the INPUT entries of ``args`` (and the shapes
  / dtypes of the outputs) and returns ``{output_name: expected_tensor}``.
- Sizes are deliberately not multiples of the block sizes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

Args = dict[str, object]


@dataclass(frozen=True)
class KernelCase:
    id: str
    file: str
    kernel: str
    consts: dict[str, int]
    dtypes: tuple[torch.dtype, ...]
    make_args: Callable[[torch.dtype, torch.Generator], Args]
    grid: Callable[[Args], tuple[int, ...]]
    reference: Callable[[Args], dict[str, torch.Tensor]]
    atol: dict[torch.dtype, float]
    rtol: dict[torch.dtype, float]


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


def _randn(shape, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    # Draw in float32 so every dtype sees the same values (up to rounding).
    return torch.randn(shape, generator=gen, dtype=torch.float32).to(dtype)


def _rand_input(shape, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    if dtype.is_floating_point:
        return _randn(shape, dtype, gen)
    return torch.randint(-1000, 1000, shape, generator=gen, dtype=torch.int64).to(dtype)


# Default tolerances for elementwise-ish kernels computed in (or rounded to) D.
_ATOL = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 1e-2, torch.int32: 0.0}
_RTOL = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 1e-2, torch.int32: 0.0}


# ── vector_add ────────────────────────────────────────────────────────────────

_VADD_CONSTS = {"BLOCK_SIZE": 128}


def _vadd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n = 1000
    return {
        "a_ptr": _rand_input((n,), dtype, gen),
        "b_ptr": _rand_input((n,), dtype, gen),
        "out_ptr": torch.empty(n, dtype=dtype),
        "n_elements": n,
    }


def _vadd_ref(args: Args) -> dict[str, torch.Tensor]:
    a, b, out = args["a_ptr"], args["b_ptr"], args["out_ptr"]
    if out.dtype.is_floating_point:
        expected = (a.float() + b.float()).to(out.dtype)
    else:  # exact integer sum (float32 would round large ints)
        expected = (a.long() + b.long()).to(out.dtype)
    return {"out_ptr": expected}


# ── relu ─────────────────────────────────────────────────────────────────────

_RELU_CONSTS = {"BLOCK_SIZE": 128}


def _relu_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n = 1000
    return {
        "x_ptr": _randn((n,), dtype, gen),
        "y_ptr": torch.empty(n, dtype=dtype),
        "n_elements": n,
    }


def _relu_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    x, y = args["x_ptr"], args["y_ptr"]
    return {"y_ptr": torch.clamp_min(x.float(), 0.0).to(y.dtype)}


def _relu_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n = 1000
    # y is a genuine relu output: about half exact zeros, the rest positive.
    y = torch.clamp_min(_randn((n,), torch.float32, gen), 0.0).to(dtype)
    return {
        "dy_ptr": _randn((n,), dtype, gen),
        "y_ptr": y,
        "dx_ptr": torch.empty(n, dtype=dtype),
        "n_elements": n,
    }


def _relu_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    dy, y, dx = args["dy_ptr"], args["y_ptr"], args["dx_ptr"]
    expected = torch.where(y.float() > 0, dy.float(), torch.zeros((), dtype=torch.float32))
    return {"dx_ptr": expected.to(dx.dtype)}


def _grid_1d(consts: dict[str, int], block: str) -> Callable[[Args], tuple[int, ...]]:
    return lambda args: (_cdiv(int(args["n_elements"]), consts[block]),)


# ── softmax ──────────────────────────────────────────────────────────────────

_SOFTMAX_CONSTS = {"BLOCK_SIZE": 128}


def _softmax_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols, stride = 37, 100, 112  # rows padded to 112 elements
    x = _randn((n_rows, stride), dtype, gen) * 3
    return {
        "x_ptr": x,
        "y_ptr": torch.zeros(n_rows, stride, dtype=dtype),
        "n_rows": n_rows,
        "n_cols": n_cols,
        "stride": stride,
    }


def _softmax_ref(args: Args) -> dict[str, torch.Tensor]:
    x, y = args["x_ptr"], args["y_ptr"]
    n_cols = int(args["n_cols"])
    expected = torch.zeros(y.shape, dtype=torch.float32)  # padding stays zero
    expected[:, :n_cols] = torch.softmax(x[:, :n_cols].float(), dim=1)
    return {"y_ptr": expected.to(y.dtype)}


# ── matmul ───────────────────────────────────────────────────────────────────

_MATMUL_CONSTS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}


def _matmul_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    M, N, K = 70, 50, 45
    a = _randn((M, K), dtype, gen)
    b = _randn((K, N), dtype, gen)
    c = torch.empty(M, N, dtype=dtype)
    return {
        "a_ptr": a,
        "b_ptr": b,
        "c_ptr": c,
        "M": M,
        "N": N,
        "K": K,
        "stride_am": a.stride(0),
        "stride_ak": a.stride(1),
        "stride_bk": b.stride(0),
        "stride_bn": b.stride(1),
        "stride_cm": c.stride(0),
        "stride_cn": c.stride(1),
    }


def _matmul_grid(args: Args) -> tuple[int, ...]:
    return (
        _cdiv(int(args["M"]), _MATMUL_CONSTS["BLOCK_M"]),
        _cdiv(int(args["N"]), _MATMUL_CONSTS["BLOCK_N"]),
    )


def _matmul_ref(args: Args) -> dict[str, torch.Tensor]:
    a, b, c = args["a_ptr"], args["b_ptr"], args["c_ptr"]
    return {"c_ptr": (a.float() @ b.float()).to(c.dtype)}


# ── layer norm ───────────────────────────────────────────────────────────────

_LAYERNORM_CONSTS = {"BLOCK_N": 128}


def _layernorm_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols, stride = 13, 300, 320  # rows padded to 320 elements
    # Non-zero mean and non-unit scale so the statistics matter.
    x = (_randn((n_rows, stride), torch.float32, gen) * 2 + 0.5).to(dtype)
    return {
        "x_ptr": x,
        "y_ptr": torch.zeros(n_rows, stride, dtype=dtype),
        "w_ptr": (1 + 0.1 * _randn((n_cols,), torch.float32, gen)).to(dtype),
        "b_ptr": (0.1 * _randn((n_cols,), torch.float32, gen)).to(dtype),
        "mean_ptr": torch.empty(n_rows, dtype=torch.float32),
        "rstd_ptr": torch.empty(n_rows, dtype=torch.float32),
        "n_cols": n_cols,
        "stride": stride,
        "eps": 1e-5,
    }


def _layernorm_ref(args: Args) -> dict[str, torch.Tensor]:
    x, y = args["x_ptr"], args["y_ptr"]
    n_cols, eps = int(args["n_cols"]), float(args["eps"])
    xf = x[:, :n_cols].float()
    w, b = args["w_ptr"].float(), args["b_ptr"].float()
    mean = xf.mean(dim=1)
    var = ((xf - mean[:, None]) ** 2).mean(dim=1)  # biased
    rstd = torch.rsqrt(var + eps)
    expected = torch.zeros(y.shape, dtype=torch.float32)  # padding stays zero
    expected[:, :n_cols] = (xf - mean[:, None]) * rstd[:, None] * w + b
    return {"y_ptr": expected.to(y.dtype), "mean_ptr": mean, "rstd_ptr": rstd}


# ── linear (a counted `while` over K, lowered to a pipelinable `for`) ──────────

_LINEAR_CONSTS = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}


def _linear_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    M, N, K = 70, 50, 45
    return {
        "x_ptr": _randn((M, K), dtype, gen),
        "w_ptr": _randn((N, K), dtype, gen),
        "b_ptr": _randn((N,), dtype, gen),
        "y_ptr": torch.empty(M, N, dtype=dtype),
        "M": M,
        "N": N,
        "K": K,
    }


def _linear_ref(args: Args) -> dict[str, torch.Tensor]:
    x, w, b, y = args["x_ptr"], args["w_ptr"], args["b_ptr"], args["y_ptr"]
    return {"y_ptr": (x.float() @ w.float().T + b.float()).to(y.dtype)}


# ── activations over [-30, 30], against torch's own result in the same dtype ──

_ACT_CONSTS = {"BLOCK_SIZE": 256}
WIDE_RANGE = (-30.0, 30.0)


def _act_args(**scalars: float) -> Callable[[torch.dtype, torch.Generator], Args]:
    def make(dtype: torch.dtype, gen: torch.Generator) -> Args:
        n = 4096
        return {"x_ptr": torch.linspace(*WIDE_RANGE, n, dtype=torch.float32).to(dtype),
                "y_ptr": torch.empty(n, dtype=dtype), "n_elements": n, **scalars}
    return make


def _act_ref(fn: Callable[..., torch.Tensor], *scalar_names: str) -> Callable[[Args], dict[str, torch.Tensor]]:
    # torch computes f16/bf16 activations in f32 and rounds once: the behaviour to match.
    return lambda args: {"y_ptr": fn(args["x_ptr"], *(args[k] for k in scalar_names))}


def _activation(id: str, fn, *scalar_names: str, **scalars: float) -> KernelCase:
    return KernelCase(
        id=id, file="kernels_rs/activations.rs", kernel=id, consts=_ACT_CONSTS,
        dtypes=(torch.float32, torch.float16), make_args=_act_args(**scalars),
        grid=_grid_1d(_ACT_CONSTS, "BLOCK_SIZE"), reference=_act_ref(fn, *scalar_names),
        # one f16 rounding apart at most; f32 within a few ulp of |y| up to 30
        atol={torch.float32: 1e-5, torch.float16: 1e-3},
        rtol={torch.float32: 1e-5, torch.float16: 2e-3},
    )


def _torch_activations() -> list[KernelCase]:
    import torch.nn.functional as F

    return [
        _activation("softplus_forward", lambda x, beta: F.softplus(x, beta=beta), "beta", beta=1.5),
        _activation("logsigmoid_forward", F.logsigmoid),
        _activation("mish_forward", F.mish),
        _activation("gelu_tanh_forward", lambda x: F.gelu(x, approximate="tanh")),
        _activation("gelu_erf_forward", F.gelu),
        _activation("elu_forward", lambda x, alpha: F.elu(x, alpha=alpha), "alpha", alpha=1.25),
        _activation("celu_forward", lambda x, alpha: F.celu(x, alpha=alpha), "alpha", alpha=1.5),
    ]


# ── the ops a model's training needs (bmm, embedding, reductions, powers, nll) ──

_BMM_CONSTS = {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}
_BMM = (3, 37, 19, 45)  # batch, M, N, K: none a multiple of its block


def _bmm_args(dtype: torch.dtype, gen: torch.Generator, backward: bool = False) -> Args:
    batch, M, N, K = _BMM
    a = _randn((batch, M, K), dtype, gen)
    b = _randn((K, N), dtype, gen)  # one matrix for the whole batch: batch stride 0
    if not backward:
        return {"a_ptr": a, "b_ptr": b, "c_ptr": torch.empty(batch, M, N, dtype=dtype),
                "M": M, "N": N, "K": K, "stride_ab": M * K, "stride_bb": 0}
    return {"a_ptr": a, "b_ptr": b, "dc_ptr": _randn((batch, M, N), dtype, gen),
            "da_ptr": torch.zeros(batch, M, K, dtype=dtype), "db_ptr": torch.zeros(K, N, dtype=dtype),
            "M": M, "N": N, "K": K, "stride_ab": M * K, "stride_bb": 0}


def _bmm_grid(args: Args) -> tuple[int, ...]:
    batch, M, N, K = _BMM
    return (_cdiv(M, 16), _cdiv(N, 16), batch)


def _bmm_backward_grid(args: Args) -> tuple[int, ...]:
    batch, M, N, K = _BMM
    return (max(_cdiv(M, 16), _cdiv(N, 16)) * _cdiv(K, 16), 2, batch)


def _bmm_ref(args: Args) -> dict[str, torch.Tensor]:
    a, b, c = args["a_ptr"], args["b_ptr"], args["c_ptr"]
    return {"c_ptr": (a.float() @ b.float()).to(c.dtype)}


def _bmm_backward_ref(args: Args) -> dict[str, torch.Tensor]:
    a, b, dc = args["a_ptr"].float(), args["b_ptr"].float(), args["dc_ptr"].float()
    dtype = args["da_ptr"].dtype
    return {"da_ptr": (dc @ b.T).to(dtype), "db_ptr": (a.transpose(1, 2) @ dc).sum(0).to(dtype)}


_EMB_CONSTS = {"BLOCK_N": 16, "BLOCK_D": 32}
_EMB = (50, 45, 61)  # table rows, dim, indices


def _embedding_indices(gen: torch.Generator) -> torch.Tensor:
    n_emb, _, n_idx = _EMB
    idx = torch.randint(0, n_emb, (n_idx,), generator=gen)
    idx[:6] = 7  # one row read (and its gradient added) six times
    return idx


def _embedding_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_emb, dim, n_idx = _EMB
    return {"w_ptr": _randn((n_emb, dim), dtype, gen), "idx_ptr": _embedding_indices(gen),
            "y_ptr": torch.empty(n_idx, dim, dtype=dtype), "n_idx": n_idx, "dim": dim, "n_embeddings": n_emb}


def _embedding_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_emb, dim, n_idx = _EMB
    dy, idx = _randn((n_idx, dim), dtype, gen), _embedding_indices(gen)
    return {"dy_ptr": dy, "idx_ptr": idx, "dw_ptr": torch.zeros(n_emb, dim, dtype=dtype), "n_idx": n_idx, "dim": dim,
            "n_embeddings": n_emb, "padding_idx": int(idx[6])}  # (a row read: its gradient stays zero)


def _embedding_grid(args: Args) -> tuple[int, ...]:
    return (_cdiv(int(args["n_idx"]), 16), _cdiv(int(args["dim"]), 32))


def _embedding_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    return {"y_ptr": args["w_ptr"][args["idx_ptr"]]}


def _embedding_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    dw = torch.zeros(args["dw_ptr"].shape, dtype=torch.float32)
    dw.index_add_(0, args["idx_ptr"], args["dy_ptr"].float())
    dw[args["padding_idx"]] = 0  # (a padding row, one of the indices read: no gradient)
    return {"dw_ptr": dw.to(args["dw_ptr"].dtype)}


_ROWS_CONSTS = {"BLOCK_N": 64}
_ROWS = (13, 150)


def _rows_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _ROWS
    return {"x_ptr": _randn((n_rows, n_cols), dtype, gen) + 0.25, "y_ptr": torch.empty(n_rows, dtype=dtype),
            "n_cols": n_cols}


def _rows_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _ROWS
    return {"dy_ptr": _randn((n_rows,), dtype, gen), "dx_ptr": torch.empty(n_rows, n_cols, dtype=dtype),
            "n_cols": n_cols}


def _rows_case(kernel: str, reference: Callable[[Args], dict[str, torch.Tensor]], backward: bool) -> KernelCase:
    return KernelCase(
        id=kernel, file="kernels_rs/reduce.rs", kernel=kernel, consts=_ROWS_CONSTS,
        dtypes=(torch.float32, torch.float16), make_args=_rows_bwd_args if backward else _rows_fwd_args,
        grid=(lambda args: (_ROWS[0], _cdiv(_ROWS[1], 64))) if backward else (lambda args: (_ROWS[0],)),
        reference=reference,
        # a sum of 150 unit normals rounded to f16 once (|y| ~ 40: 0.03 an ulp)
        atol={torch.float32: 1e-4, torch.float16: 3e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3},
    )


def _cumsum_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _ROWS  # (150 columns: three tiles of 64, the last partial)
    return {"x_ptr": _randn((n_rows, n_cols), dtype, gen), "y_ptr": torch.empty(n_rows, n_cols, dtype=dtype),
            "n_cols": n_cols}


_POW_CONSTS = {"BLOCK_SIZE": 256}


def _flat_args(*names: str, exponent: float | None = None, positive: bool = False):
    def make(dtype: torch.dtype, gen: torch.Generator) -> Args:
        n = 1000
        args: Args = {}
        for name in names:
            if name.startswith("d") and name.endswith("x_ptr"):
                args[name] = torch.empty(n, dtype=dtype)
            elif name == "y_ptr" and "dy_ptr" not in names:
                args[name] = torch.empty(n, dtype=dtype)
            else:
                v = _randn((n,), torch.float32, gen) * 2
                if name == "x_ptr":
                    v[:4] = torch.tensor([0.0, -2.0, 1.0, -0.5])  # a zero, negatives: the sign rules
                args[name] = (v.abs() + 0.1 if positive and name != "dy_ptr" else v).to(dtype)
        args["n"] = n
        if exponent is not None:
            args["exponent"] = exponent
        return args
    return make


def _flat_case(kernel: str, make_args, reference) -> KernelCase:
    return KernelCase(
        id=kernel, file="kernels_rs/pow.rs", kernel=kernel, consts=_POW_CONSTS, dtypes=(torch.float32, torch.float16),
        make_args=make_args, grid=lambda args: (_cdiv(int(args["n"]), 256),), reference=reference,
        atol={torch.float32: 1e-5, torch.float16: 1e-3}, rtol={torch.float32: 1e-5, torch.float16: 2e-3},
    )


def _pow_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    return {"y_ptr": torch.pow(args["x_ptr"].float(), args["exponent"]).to(args["y_ptr"].dtype)}


def _pow_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    x, p = args["x_ptr"].float(), float(args["exponent"])
    return {"dx_ptr": (args["dy_ptr"].float() * p * torch.pow(x, p - 1)).to(args["dx_ptr"].dtype)}


def _rsqrt_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    return {"y_ptr": torch.rsqrt(args["x_ptr"].float()).to(args["y_ptr"].dtype)}


def _rsqrt_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    y = args["y_ptr"].float()
    return {"dx_ptr": (-0.5 * y * y * y * args["dy_ptr"].float()).to(args["dx_ptr"].dtype)}


_NLL_CONSTS = {"BLOCK_R": 32}
_NLL = (77, 13)  # rows, classes


def _nll_targets(gen: torch.Generator) -> torch.Tensor:
    n_rows, n_cols = _NLL
    target = torch.randint(0, n_cols, (n_rows,), generator=gen)
    target[::5] = -100  # ignored rows: neither summed nor counted
    return target


def _nll_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _NLL
    lp = torch.log_softmax(_randn((n_rows, n_cols), torch.float32, gen), dim=1).to(dtype)
    return {"lp_ptr": lp, "target_ptr": _nll_targets(gen), "loss_ptr": torch.empty(1, dtype=dtype),
            "n_rows": n_rows, "n_cols": n_cols, "ignore_index": -100}


def _nll_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _NLL
    return {"dloss_ptr": torch.tensor([1.75], dtype=dtype), "target_ptr": _nll_targets(gen),
            "dlp_ptr": torch.zeros(n_rows, n_cols, dtype=dtype), "n_rows": n_rows, "n_cols": n_cols,
            "ignore_index": -100}


def _nll_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    import torch.nn.functional as F

    loss = F.nll_loss(args["lp_ptr"].float(), args["target_ptr"], ignore_index=-100)
    return {"loss_ptr": loss.reshape(1).to(args["loss_ptr"].dtype)}


def _nll_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    import torch.nn.functional as F

    lp = torch.zeros(args["dlp_ptr"].shape, requires_grad=True)
    F.nll_loss(lp, args["target_ptr"], ignore_index=-100).backward(args["dloss_ptr"].float()[0])
    return {"dlp_ptr": lp.grad.to(args["dlp_ptr"].dtype)}


_CAT_CONSTS = {"BLOCK_SIZE": 64}
_CAT = (6, 75, 200, 50)  # n_outer, chunk, total, offset: one input's slab of a wider output


def _cat_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_outer, chunk, total, offset = _CAT
    return {"x_ptr": _rand_input((n_outer, chunk), dtype, gen), "y_ptr": torch.zeros(n_outer, total, dtype=dtype),
            "chunk": chunk, "total": total, "offset": offset}


def _cat_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_outer, chunk, total, offset = _CAT
    return {"dy_ptr": _rand_input((n_outer, total), dtype, gen), "dx_ptr": torch.zeros(n_outer, chunk, dtype=dtype),
            "chunk": chunk, "total": total, "offset": offset}


def _cat_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    _, chunk, _, offset = _CAT
    y = torch.zeros_like(args["y_ptr"])  # the rest of the output stays as it was
    y[:, offset:offset + chunk] = args["x_ptr"]
    return {"y_ptr": y}


def _cat_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    _, chunk, _, offset = _CAT
    return {"dx_ptr": args["dy_ptr"][:, offset:offset + chunk].clone()}


_CE_CONSTS = {"BLOCK_N": 128, "BLOCK_R": 32}
_CE = (41, 300)  # rows, classes: a row spans three column blocks


def _ce_targets(gen: torch.Generator) -> torch.Tensor:
    n_rows, n_cols = _CE
    target = torch.randint(0, n_cols, (n_rows,), generator=gen)
    target[::5] = -100
    return target


def _ce_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _CE
    return {"logits_ptr": _randn((n_rows, n_cols), dtype, gen) * 3, "target_ptr": _ce_targets(gen),
            "loss_ptr": torch.full((1,), 5.0, dtype=dtype), "n_rows": n_rows, "n_cols": n_cols,
            "ignore_index": -100, "phase": 1}  # (phase 1 adds to the loss: it starts at 5)


def _ce_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _CE
    return {"logits_ptr": _randn((n_rows, n_cols), dtype, gen) * 3, "target_ptr": _ce_targets(gen),
            "dloss_ptr": torch.tensor([0.75], dtype=dtype), "dlogits_ptr": torch.empty(n_rows, n_cols, dtype=dtype),
            "n_rows": n_rows, "n_cols": n_cols, "ignore_index": -100}


def _ce_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    import torch.nn.functional as F

    loss = 5.0 + F.cross_entropy(args["logits_ptr"].float(), args["target_ptr"], ignore_index=-100)
    return {"loss_ptr": loss.reshape(1).to(args["loss_ptr"].dtype)}


def _ce_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    import torch.nn.functional as F

    logits = args["logits_ptr"].float().requires_grad_()
    F.cross_entropy(logits, args["target_ptr"], ignore_index=-100).backward(args["dloss_ptr"].float()[0])
    return {"dlogits_ptr": logits.grad.to(args["dlogits_ptr"].dtype)}


_BIAS_CONSTS = {"BLOCK_R": 16, "BLOCK_N": 32}
_BIAS = (37, 45)  # rows, columns


def _bias_fwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _BIAS
    return {"x_ptr": _rand_input((n_rows, n_cols), dtype, gen), "b_ptr": _rand_input((n_cols,), dtype, gen),
            "y_ptr": torch.empty(n_rows, n_cols, dtype=dtype), "n_rows": n_rows, "n_cols": n_cols}


def _bias_bwd_args(dtype: torch.dtype, gen: torch.Generator) -> Args:
    n_rows, n_cols = _BIAS
    return {"dy_ptr": _randn((n_rows, n_cols), dtype, gen), "dx_ptr": torch.empty(n_rows, n_cols, dtype=dtype),
            "db_ptr": torch.empty(n_cols, dtype=dtype), "n_rows": n_rows, "n_cols": n_cols}


def _bias_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    x, b = args["x_ptr"], args["b_ptr"]
    if not x.dtype.is_floating_point:
        return {"y_ptr": (x.long() + b.long()).to(x.dtype)}
    return {"y_ptr": (x.float() + b.float()).to(x.dtype)}


def _bias_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    dy = args["dy_ptr"]
    return {"dx_ptr": dy.clone(), "db_ptr": dy.float().sum(0).to(dy.dtype)}


_FA = (3, 13, 11, 16)  # batch·heads, query rows, key rows, head dim


def _fa_args(dtype: torch.dtype, gen: torch.Generator, backward: str = "") -> Args:
    bh, nq, nk, hd = _FA
    q, k, v = _randn((bh, nq, hd), dtype, gen), _randn((bh, nk, hd), dtype, gen), _randn((bh, nk, hd), dtype, gen)
    args: Args = {"q_ptr": q, "k_ptr": k, "v_ptr": v}
    if not backward:
        return {**args, "o_ptr": torch.empty(bh, nq, hd, dtype=dtype), "lse_ptr": torch.empty(bh, nq),
                "n_ctx_q": nq, "n_ctx_k": nk, "softmax_scale": hd ** -0.5, "neg_inf": float("-inf")}
    # (o and lse as the forward makes them, from the same q, k, v: the reference recomputes them)
    return {**args, "o_ptr": _randn((bh, nq, hd), dtype, gen), "do_ptr": _randn((bh, nq, hd), dtype, gen),
            "lse_ptr": torch.empty(bh, nq),
            **({"dq_ptr": torch.empty(bh, nq, hd, dtype=dtype)} if backward == "dq" else
               {"dk_ptr": torch.empty(bh, nk, hd, dtype=dtype), "dv_ptr": torch.empty(bh, nk, hd, dtype=dtype)}),
            "n_ctx_q": nq, "n_ctx_k": nk, "softmax_scale": hd ** -0.5}


def _fa_math(args: Args, causal: bool):
    """torch's attention in f32 on the case's q, k, v (requiring gradients), its output and lse."""
    q, k, v = (args[n].float().requires_grad_() for n in ("q_ptr", "k_ptr", "v_ptr"))
    scores = q @ k.transpose(1, 2) * args["softmax_scale"]
    if causal:
        scores = scores.masked_fill(torch.ones(_FA[1], _FA[2], dtype=torch.bool).triu(1), float("-inf"))
    return (q, k, v), torch.softmax(scores, -1) @ v, scores.logsumexp(-1)


def _fa_prepare(args: Args, causal: bool) -> None:
    """A backward case's ``o`` and ``lse`` made the forward's (the kernels read them)."""
    _, o, lse = _fa_math(args, causal)
    args["o_ptr"], args["lse_ptr"] = o.detach().to(args["q_ptr"].dtype), lse.detach()


def _fa_ref(causal: bool, backward: str):
    def ref(args: Args) -> dict[str, torch.Tensor]:
        (q, k, v), o, lse = _fa_math(args, causal)
        dtype = args["q_ptr"].dtype
        if not backward:
            return {"o_ptr": o.detach().to(dtype), "lse_ptr": lse.detach()}
        o.backward(args["do_ptr"].float())
        if backward == "dq":
            return {"dq_ptr": q.grad.to(dtype)}
        return {"dk_ptr": k.grad.to(dtype), "dv_ptr": v.grad.to(dtype)}
    return ref


def _fa_cases() -> list[KernelCase]:
    cases = []
    for causal in (False, True):
        consts = {"HEAD_DIM": _FA[3], "CAUSAL": causal}
        tag = "_causal" if causal else ""
        for kernel, backward, rows in (("flash_attention_forward", "", 1), ("flash_attention_backward_dq", "dq", 1),
                                       ("flash_attention_backward_dkv", "dkv", 2)):

            def make(d: torch.dtype, g: torch.Generator, backward: str = backward, causal: bool = causal) -> Args:
                args = _fa_args(d, g, backward)
                if backward:
                    _fa_prepare(args, causal)
                return args

            cases.append(KernelCase(
                id=f"{kernel}{tag}", file="kernels_rs/flash_attention.rs", kernel=kernel, consts=consts,
                dtypes=(torch.float32, torch.float16), make_args=make,
                grid=lambda args, rows=rows: (_FA[rows], _FA[0]), reference=_fa_ref(causal, backward),
                # f16: q, k, v (and o, do) rounded to f16; the sums are f32, the results rounded once
                atol={torch.float32: 1e-4, torch.float16: 1e-2}, rtol={torch.float32: 1e-4, torch.float16: 1e-2}))
    return cases


_RMS = (5, 45)  # rows, columns: not a multiple of BLOCK_N


def _rms_args(dtype: torch.dtype, gen: torch.Generator, backward: bool = False) -> Args:
    rows, cols = _RMS
    x = _randn(_RMS, dtype, gen)
    if not backward:
        return {"x_ptr": x, "y_ptr": torch.empty(_RMS, dtype=dtype), "rrms_ptr": torch.empty(rows),
                "n_cols": cols, "eps": 1e-6}
    rrms = torch.rsqrt(x.float().pow(2).mean(-1) + 1e-6)  # (the forward's)
    return {"dy_ptr": _randn(_RMS, dtype, gen), "x_ptr": x, "rrms_ptr": rrms, "dx_ptr": torch.empty(_RMS, dtype=dtype),
            "n_cols": cols}


def _rms_fwd_ref(args: Args) -> dict[str, torch.Tensor]:
    x = args["x_ptr"].float()
    rrms = torch.rsqrt(x.pow(2).mean(-1) + args["eps"])
    return {"y_ptr": (x * rrms[:, None]).to(args["y_ptr"].dtype), "rrms_ptr": rrms}


def _rms_bwd_ref(args: Args) -> dict[str, torch.Tensor]:
    x = args["x_ptr"].float().requires_grad_()
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    y.backward(args["dy_ptr"].float())
    return {"dx_ptr": x.grad.to(args["dx_ptr"].dtype)}


def _rms_cases() -> list[KernelCase]:
    tol = {"atol": {torch.float32: 1e-5, torch.float16: 1e-2}, "rtol": {torch.float32: 1e-5, torch.float16: 1e-2}}
    return [KernelCase(id="rms_norm_rows_forward", file="kernels_rs/rmsnorm.rs", kernel="rms_norm_rows_forward",
                       consts={"BLOCK_N": 16}, dtypes=(torch.float32, torch.float16), make_args=_rms_args,
                       grid=lambda args: (_RMS[0],), reference=_rms_fwd_ref, **tol),
            KernelCase(id="rms_norm_rows_backward", file="kernels_rs/rmsnorm.rs", kernel="rms_norm_rows_backward",
                       consts={"BLOCK_N": 16}, dtypes=(torch.float32, torch.float16),
                       make_args=lambda d, g: _rms_args(d, g, backward=True), grid=lambda args: (_RMS[0],),
                       reference=_rms_bwd_ref, **tol)]


def _model_op_cases() -> list[KernelCase]:
    bmm_tol = {"atol": {torch.float32: 1e-4, torch.float16: 1e-2}, "rtol": {torch.float32: 1e-4, torch.float16: 1e-2}}
    exact = {"atol": {torch.float32: 0.0, torch.float16: 0.0, torch.int32: 0.0},
             "rtol": {torch.float32: 0.0, torch.float16: 0.0, torch.int32: 0.0}}
    return [
        KernelCase(id="bmm_forward", file="kernels_rs/bmm.rs", kernel="bmm_forward", consts=_BMM_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=_bmm_args, grid=_bmm_grid,
                   reference=_bmm_ref, **bmm_tol),
        KernelCase(id="bmm_backward", file="kernels_rs/bmm.rs", kernel="bmm_backward", consts=_BMM_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=lambda d, g: _bmm_args(d, g, backward=True),
                   grid=_bmm_backward_grid, reference=_bmm_backward_ref,
                   # dB sums 3 * 37 products: f16's result is rounded once from ~20
                   atol={torch.float32: 1e-4, torch.float16: 2e-2}, rtol={torch.float32: 1e-4, torch.float16: 1e-2}),
        KernelCase(id="embedding_forward", file="kernels_rs/embedding.rs", kernel="embedding_forward",
                   consts=_EMB_CONSTS, dtypes=(torch.float32, torch.float16), make_args=_embedding_fwd_args,
                   grid=_embedding_grid, reference=_embedding_fwd_ref, **exact),
        KernelCase(id="embedding_backward", file="kernels_rs/embedding.rs", kernel="embedding_backward",
                   consts=_EMB_CONSTS, dtypes=(torch.float32, torch.float16), make_args=_embedding_bwd_args,
                   grid=_embedding_grid, reference=_embedding_bwd_ref,
                   # six f16 atomic adds into one row round after each add
                   atol={torch.float32: 1e-6, torch.float16: 1e-2}, rtol={torch.float32: 1e-6, torch.float16: 1e-2}),
        _rows_case("sum_rows_forward", lambda a: {"y_ptr": a["x_ptr"].float().sum(1).to(a["y_ptr"].dtype)}, False),
        _rows_case("sum_rows_backward",
                   lambda a: {"dx_ptr": a["dy_ptr"][:, None].expand(a["dx_ptr"].shape).to(a["dx_ptr"].dtype)}, True),
        _rows_case("mean_rows_forward", lambda a: {"y_ptr": a["x_ptr"].float().mean(1).to(a["y_ptr"].dtype)}, False),
        _rows_case("mean_rows_backward",
                   lambda a: {"dx_ptr": (a["dy_ptr"].float()[:, None] / a["n_cols"])
                              .expand(a["dx_ptr"].shape).to(a["dx_ptr"].dtype)}, True),
        KernelCase(id="cumsum_rows_forward", file="kernels_rs/cumsum.rs", kernel="cumsum_rows_forward",
                   consts=_ROWS_CONSTS, dtypes=(torch.float32, torch.float16), make_args=_cumsum_args,
                   grid=lambda args: (_ROWS[0],),
                   reference=lambda a: {"y_ptr": a["x_ptr"].double().cumsum(1).to(a["y_ptr"].dtype)},
                   # running sums of up to 150 unit normals (|y| up to ~25), rounded to f16 once
                   atol={torch.float32: 1e-4, torch.float16: 2e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3}),
        KernelCase(id="cumsum_rows_backward", file="kernels_rs/cumsum.rs", kernel="cumsum_rows_backward",
                   consts=_ROWS_CONSTS, dtypes=(torch.float32, torch.float16),
                   make_args=lambda d, g: {"dy_ptr": (a := _cumsum_args(d, g))["x_ptr"], "dx_ptr": a["y_ptr"],
                                           "n_cols": a["n_cols"]},
                   grid=lambda args: (_ROWS[0],),
                   reference=lambda a: {"dx_ptr": a["dy_ptr"].double().flip(1).cumsum(1).flip(1).to(a["dx_ptr"].dtype)},
                   atol={torch.float32: 1e-4, torch.float16: 2e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3}),
        _flat_case("pow_scalar_forward", _flat_args("x_ptr", "y_ptr", exponent=3.0), _pow_fwd_ref),
        _flat_case("pow_scalar_backward", _flat_args("dy_ptr", "x_ptr", "dx_ptr", exponent=2.0), _pow_bwd_ref),
        _flat_case("rsqrt_forward", _flat_args("x_ptr", "y_ptr", positive=True), _rsqrt_fwd_ref),
        _flat_case("rsqrt_backward", _flat_args("dy_ptr", "y_ptr", "dx_ptr", positive=True), _rsqrt_bwd_ref),
        KernelCase(id="nll_mean_forward", file="kernels_rs/nll.rs", kernel="nll_mean_forward", consts=_NLL_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=_nll_fwd_args, grid=lambda args: (1,),
                   reference=_nll_fwd_ref, **_default_tol()),
        KernelCase(id="nll_mean_backward", file="kernels_rs/nll.rs", kernel="nll_mean_backward", consts=_NLL_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=_nll_bwd_args,
                   grid=lambda args: (_cdiv(_NLL[0], 32),), reference=_nll_bwd_ref, **_default_tol()),
        KernelCase(id="cat_forward", file="kernels_rs/cat.rs", kernel="cat_forward", consts=_CAT_CONSTS,
                   dtypes=(torch.float32, torch.float16, torch.int32), make_args=_cat_fwd_args,
                   grid=lambda args: (_CAT[0], _cdiv(_CAT[1], 64)), reference=_cat_fwd_ref, **exact),
        KernelCase(id="cat_backward", file="kernels_rs/cat.rs", kernel="cat_backward", consts=_CAT_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=_cat_bwd_args,
                   grid=lambda args: (_CAT[0], _cdiv(_CAT[1], 64)), reference=_cat_bwd_ref, **exact),
        KernelCase(id="cross_entropy_mean_forward", file="kernels_rs/cross_entropy.rs",
                   kernel="cross_entropy_mean_forward", consts=_CE_CONSTS, dtypes=(torch.float32, torch.float16),
                   make_args=_ce_fwd_args, grid=lambda args: (_CE[0],), reference=_ce_fwd_ref,
                   # f16: 41 atomic adds, each rounded to f16 (the loss is ~10: 0.008 an ulp)
                   atol={torch.float32: 1e-5, torch.float16: 3e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3}),
        KernelCase(id="cross_entropy_mean_backward", file="kernels_rs/cross_entropy.rs",
                   kernel="cross_entropy_mean_backward", consts=_CE_CONSTS, dtypes=(torch.float32, torch.float16),
                   make_args=_ce_bwd_args, grid=lambda args: (_CE[0],), reference=_ce_bwd_ref, **_default_tol()),
        KernelCase(id="bias_add_forward", file="kernels_rs/bias.rs", kernel="bias_add_forward", consts=_BIAS_CONSTS,
                   dtypes=(torch.float32, torch.float16, torch.int32), make_args=_bias_fwd_args,
                   grid=lambda args: (_cdiv(_BIAS[0], 16), _cdiv(_BIAS[1], 32)), reference=_bias_fwd_ref,
                   **_default_tol()),
        KernelCase(id="bias_add_backward", file="kernels_rs/bias.rs", kernel="bias_add_backward", consts=_BIAS_CONSTS,
                   dtypes=(torch.float32, torch.float16), make_args=_bias_bwd_args,
                   grid=lambda args: (_cdiv(_BIAS[1], 32),), reference=_bias_bwd_ref,
                   # db: 37 values added in f32, rounded to f16 once (|db| up to ~15)
                   atol={torch.float32: 1e-5, torch.float16: 1e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3}),
        KernelCase(id="sum_cols_forward", file="kernels_rs/reduce.rs", kernel="sum_cols_forward", consts=_BIAS_CONSTS,
                   dtypes=(torch.float32, torch.float16),
                   make_args=lambda d, g: {"x_ptr": _randn(_BIAS, d, g), "y_ptr": torch.empty(_BIAS[1], dtype=d),
                                           "n_rows": _BIAS[0], "n_cols": _BIAS[1]},
                   grid=lambda args: (_cdiv(_BIAS[1], 32),),
                   reference=lambda a: {"y_ptr": a["x_ptr"].float().sum(0).to(a["y_ptr"].dtype)},
                   atol={torch.float32: 1e-5, torch.float16: 1e-2}, rtol={torch.float32: 1e-5, torch.float16: 1e-3}),
        KernelCase(id="sum_cols_backward", file="kernels_rs/reduce.rs", kernel="sum_cols_backward", consts=_BIAS_CONSTS,
                   dtypes=(torch.float32, torch.float16),
                   make_args=lambda d, g: {"dy_ptr": _randn((_BIAS[1],), d, g), "dx_ptr": torch.empty(_BIAS, dtype=d),
                                           "n_rows": _BIAS[0], "n_cols": _BIAS[1]},
                   grid=lambda args: (_cdiv(_BIAS[0], 16), _cdiv(_BIAS[1], 32)),
                   reference=lambda a: {"dx_ptr": a["dy_ptr"].expand(_BIAS).clone()}, **exact),
    ]


def _default_tol() -> dict[str, dict[torch.dtype, float]]:
    return {"atol": _ATOL, "rtol": _RTOL}


# ── the table ────────────────────────────────────────────────────────────────

CASES: list[KernelCase] = [
    KernelCase(
        id="vector_add",
        file="kernels_rs/vector_add.rs",
        kernel="vector_add",
        consts=_VADD_CONSTS,
        dtypes=(torch.float32, torch.float16, torch.int32),
        make_args=_vadd_args,
        grid=_grid_1d(_VADD_CONSTS, "BLOCK_SIZE"),
        reference=_vadd_ref,
        atol=_ATOL,
        rtol=_RTOL,
    ),
    KernelCase(
        id="relu_forward",
        file="kernels_rs/relu.rs",
        kernel="relu_forward",
        consts=_RELU_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_relu_fwd_args,
        grid=_grid_1d(_RELU_CONSTS, "BLOCK_SIZE"),
        reference=_relu_fwd_ref,
        atol=_ATOL,
        rtol=_RTOL,
    ),
    KernelCase(
        id="relu_backward",
        file="kernels_rs/relu.rs",
        kernel="relu_backward",
        consts=_RELU_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_relu_bwd_args,
        grid=_grid_1d(_RELU_CONSTS, "BLOCK_SIZE"),
        reference=_relu_bwd_ref,
        atol=_ATOL,
        rtol=_RTOL,
    ),
    KernelCase(
        id="softmax_forward",
        file="kernels_rs/softmax.rs",
        kernel="softmax_forward",
        consts=_SOFTMAX_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_softmax_args,
        grid=lambda args: (int(args["n_rows"]),),
        reference=_softmax_ref,
        atol={torch.float32: 1e-6, torch.float16: 1e-3, torch.bfloat16: 8e-3},
        rtol={torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 1e-2},
    ),
    KernelCase(
        id="matmul",
        file="kernels_rs/matmul.rs",
        kernel="matmul",
        consts=_MATMUL_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_matmul_args,
        grid=_matmul_grid,
        reference=_matmul_ref,
        # K=45 sums of unit normals: |c| ~ 7; f32 accumulation order differs.
        atol={torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 6e-2},
        rtol={torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2},
    ),
    KernelCase(
        id="layer_norm_forward",
        file="kernels_rs/layernorm.rs",
        kernel="layer_norm_forward",
        consts=_LAYERNORM_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_layernorm_args,
        grid=lambda args: (int(args["x_ptr"].shape[0]),),
        reference=_layernorm_ref,
        # mean/rstd are float32 outputs: the fp16 entry covers y, which is
        # rounded to fp16 (|y| up to ~4 -> 4e-3 ulp); stats match to ~1e-5.
        atol={torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 5e-2},
        rtol={torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 2e-2},
    ),
    KernelCase(
        id="linear_forward",
        file="kernels_rs/linear.rs",
        kernel="linear_forward",
        consts=_LINEAR_CONSTS,
        dtypes=(torch.float32, torch.float16),
        make_args=_linear_args,
        grid=lambda args: (_cdiv(int(args["M"]), 32), _cdiv(int(args["N"]), 32)),
        reference=_linear_ref,
        atol={torch.float32: 1e-4, torch.float16: 1e-2},
        rtol={torch.float32: 1e-4, torch.float16: 1e-2},
    ),
    *_torch_activations(),
    *_model_op_cases(),
    *_fa_cases(),
    *_rms_cases(),
]

_BY_ID = {c.id: c for c in CASES}


def case(id: str) -> KernelCase:
    """The case with this id (``KeyError`` listing the known ids otherwise)."""
    try:
        return _BY_ID[id]
    except KeyError:
        raise KeyError(f"no kernel case {id!r}; known: {sorted(_BY_ID)}") from None
