"""Hand-written Triton for the bundled kernels: the baseline rs2triton's output is timed against.

Written the way a Triton programmer would, with the same tiling as the DSL kernels.
"""

import triton
import triton.language as tl


@triton.jit
def vector_add(a_ptr, b_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, stride, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, c, mask=mask)


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, n_cols, stride, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        acc += tl.load(x_ptr + off + cols, mask=off + cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK_N):
        m = off + cols < n_cols
        x = tl.load(x_ptr + off + cols, mask=m, other=0.0).to(tl.float32)
        d = tl.where(m, x - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for off in range(0, n_cols, BLOCK_N):
        m = off + cols < n_cols
        x = tl.load(x_ptr + off + cols, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + off + cols, mask=m).to(tl.float32)
        b = tl.load(b_ptr + off + cols, mask=m).to(tl.float32)
        tl.store(y_ptr + off + cols, ((x - mean) * rstd * w + b).to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def relu_forward(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


@triton.jit
def relu_backward(dy_ptr, y_ptr, dx_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    dy = tl.load(dy_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(dx_ptr + offs, tl.where(y > 0, dy, 0.0), mask=mask)


# Activations (kernels_rs/activations.rs): math in f32, one rounding to the output type.
@triton.jit
def _block_f32(x_ptr, n, BLOCK_SIZE: tl.constexpr):
    """This program's offsets, their mask, and x there, in f32."""
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    return offs, mask, tl.load(x_ptr + offs, mask=mask).to(tl.float32)


@triton.jit
def softplus_forward(x_ptr, y_ptr, n, beta, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    tl.store(y_ptr + offs, (tl.log(1.0 + tl.exp(x * beta)) / beta).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def logsigmoid_forward(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    tl.store(y_ptr + offs, (-tl.log(1.0 + tl.exp(-x))).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def mish_forward(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    e = tl.exp(x)
    t = e * (e + 2.0)  # tanh(softplus(x)) = t / (t + 2)
    y = tl.where(x > 20.0, x, x * t / (t + 2.0))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def gelu_tanh_forward(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    y = x * tl.sigmoid(1.5957691216057308 * (x + 0.044715 * x * x * x))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def elu_forward(x_ptr, y_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    y = tl.where(x > 0, x, alpha * (tl.exp(x) - 1.0))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def celu_forward(x_ptr, y_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    offs, mask, x = _block_f32(x_ptr, n, BLOCK_SIZE)
    negative_part = tl.minimum(0.0, alpha * (tl.exp(x / alpha) - 1.0))
    tl.store(y_ptr + offs, (tl.maximum(x, 0.0) + negative_part).to(y_ptr.dtype.element_ty), mask=mask)


# kernels_rs/linear.rs: y = x @ w^T + b, row-major contiguous x [M, K], w [N, K].
@triton.jit
def linear_forward(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N).to(tl.float32)[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc.to(y_ptr.dtype.element_ty), mask=mask)
