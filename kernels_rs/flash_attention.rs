//! Flash attention, forward and backward, with an optional causal mask: the attention of
//! teenygrad's `nn/attention/flash_attn2.rs` (same layout, grids and recurrence), which has no
//! causal mask, with a `CAUSAL` const generic added, and every sum taken in `f32`.
//!
//! **Layout**: `q`, `o` and `do` are dense `[BH, N_CTX_Q, HEAD_DIM]`, `k` and `v` dense
//! `[BH, N_CTX_K, HEAD_DIM]` (`BH` = batch × heads: a `[B, H, N, D]` tensor made contiguous and
//! viewed so); the log-sum-exp of each query's scores is `f32` `[BH, N_CTX_Q]`. `HEAD_DIM` is a
//! power of two, every lane of it read (no mask). With `CAUSAL` query `i` attends to the keys
//! `j <= i` (torch's `is_causal`: the upper-left triangle, whatever `N_CTX_K` is); without it,
//! to every key.
//!
//! Each program owns one `(batch·head, row)` pair and walks the other side's rows one at a
//! time with the online-softmax recurrence (Dao et al.): the `N_CTX_Q × N_CTX_K` scores are
//! never stored. The running state is kept as `[HEAD_DIM]` tensors whose lanes are equal (a
//! loop-carried value keeps one shape), as teenygrad's kernel does. Inputs are read as `D`,
//! computed in `f32` and rounded to `D` once.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison, Tensor},
    *,
};

/// `o = softmax(q kᵀ · softmax_scale [+ causal mask]) v` for one query row, and its scores'
/// log-sum-exp `lse` (what the backward kernels recompute the probabilities from).
///
/// Grid: `[N_CTX_Q, BH]` — program `(m, bh)` owns query row `m` of `bh`.
#[kernel]
pub fn flash_attention_forward<T: Triton, D: Float, const HEAD_DIM: i32, const CAUSAL: bool>(
    q_ptr: T::Pointer<D>,
    k_ptr: T::Pointer<D>,
    v_ptr: T::Pointer<D>,
    o_ptr: T::Pointer<D>,
    lse_ptr: T::Pointer<f32>,
    n_ctx_q: i32,
    n_ctx_k: i32,
    softmax_scale: f32,
    neg_inf: f32, // f32::NEG_INFINITY, passed in as teenygrad's kernel takes it
) where
    T::I32Tensor: Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let pid_m = T::program_id(Axis::X); // query row   [0, n_ctx_q)
    let pid_bh = T::program_id(Axis::Y); // batch·head [0, BH)

    let q_row_base = (pid_bh * n_ctx_q + pid_m) * HEAD_DIM;
    let kv_bh_base = pid_bh * n_ctx_k * HEAD_DIM;
    let d = T::arange(0, HEAD_DIM);

    let q_vec = T::cast::<D, f32>(
        T::load(q_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );
    let scale_t = T::full(&[HEAD_DIM], softmax_scale);

    // (causal: the keys 0..=pid_m, as many of them as there are)
    let k_end = if CAUSAL { (pid_m + 1).min(n_ctx_k) } else { n_ctx_k };

    let mut acc = T::zeros::<f32>(&[HEAD_DIM]);
    let mut m_i = T::full(&[HEAD_DIM], neg_inf);
    let mut l_i = T::zeros::<f32>(&[HEAD_DIM]);
    for k_row in 0..k_end {
        let kv_row_base = kv_bh_base + k_row * HEAD_DIM;
        let k_vec = T::cast::<D, f32>(
            T::load(k_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let v_vec = T::cast::<D, f32>(
            T::load(v_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );

        let qk = T::sum(q_vec * k_vec, Some(0), true) * scale_t; // [HD], every lane the score

        let m_new = T::maximum(m_i, qk);
        let exp_diff = T::exp(m_i - m_new);
        let p = T::exp(qk - m_new);
        l_i = exp_diff * l_i + p;
        acc = exp_diff * acc + p * v_vec;
        m_i = m_new;
    }

    let o_row = acc / l_i;
    let lse = T::max(m_i + T::log(l_i), Some(0), true); // [1]: the lanes are equal

    T::store(o_ptr.add_offsets(d + q_row_base), T::cast::<f32, D>(o_row, None, false), None, &[], None, None);
    T::store(lse_ptr.add_offsets(T::arange(0, 1) + (pid_bh * n_ctx_q + pid_m)), lse, None, &[], None, None);
}

/// `dq` of one query row: `dq = Σ_k p·(do·v_k − Σ(o·do)) · k_k · softmax_scale`, the
/// probabilities `p = exp(q·k·softmax_scale − lse)` recomputed (over the same keys as the
/// forward's).
///
/// Grid: `[N_CTX_Q, BH]`, as the forward's.
#[kernel]
pub fn flash_attention_backward_dq<T: Triton, D: Float, const HEAD_DIM: i32, const CAUSAL: bool>(
    q_ptr: T::Pointer<D>,
    k_ptr: T::Pointer<D>,
    v_ptr: T::Pointer<D>,
    o_ptr: T::Pointer<D>,
    do_ptr: T::Pointer<D>,
    lse_ptr: T::Pointer<f32>,
    dq_ptr: T::Pointer<D>,
    n_ctx_q: i32,
    n_ctx_k: i32,
    softmax_scale: f32,
) where
    T::I32Tensor: Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let pid_m = T::program_id(Axis::X);
    let pid_bh = T::program_id(Axis::Y);

    let q_row_base = (pid_bh * n_ctx_q + pid_m) * HEAD_DIM;
    let kv_bh_base = pid_bh * n_ctx_k * HEAD_DIM;
    let d = T::arange(0, HEAD_DIM);
    let scale_t = T::full(&[HEAD_DIM], softmax_scale);

    let q_vec = T::cast::<D, f32>(
        T::load(q_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );
    let o_vec = T::cast::<D, f32>(
        T::load(o_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );
    let do_vec = T::cast::<D, f32>(
        T::load(do_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );
    let d_q = T::sum(o_vec * do_vec, Some(0), true); // [1]: Σ o·do
    let lse = T::load(
        lse_ptr.add_offsets(T::arange(0, 1) + (pid_bh * n_ctx_q + pid_m)),
        None,
        None,
        &[],
        None,
        None,
        None,
        false,
    ); // [1]

    let k_end = if CAUSAL { (pid_m + 1).min(n_ctx_k) } else { n_ctx_k };

    let mut dq_acc = T::zeros::<f32>(&[HEAD_DIM]);
    for k_row in 0..k_end {
        let kv_row_base = kv_bh_base + k_row * HEAD_DIM;
        let k_vec = T::cast::<D, f32>(
            T::load(k_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let v_vec = T::cast::<D, f32>(
            T::load(v_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let qk = T::sum(q_vec * k_vec, Some(0), true) * scale_t;
        let p = T::exp(qk - lse);
        let ds = p * (T::sum(do_vec * v_vec, Some(0), true) - d_q);
        dq_acc = dq_acc + ds * k_vec * scale_t;
    }

    T::store(dq_ptr.add_offsets(d + q_row_base), T::cast::<f32, D>(dq_acc, None, false), None, &[], None, None);
}

/// `dk` and `dv` of one key row: `dv = Σ_q p·do_q`, `dk = Σ_q p·(do_q·v − Σ(o_q·do_q)) · q_q ·
/// softmax_scale`, over the queries that attend to the key (with `CAUSAL`: the rows from the
/// key's own on). Each program owns its key row: no atomics.
///
/// Grid: `[N_CTX_K, BH]`.
#[kernel]
pub fn flash_attention_backward_dkv<T: Triton, D: Float, const HEAD_DIM: i32, const CAUSAL: bool>(
    q_ptr: T::Pointer<D>,
    k_ptr: T::Pointer<D>,
    v_ptr: T::Pointer<D>,
    o_ptr: T::Pointer<D>,
    do_ptr: T::Pointer<D>,
    lse_ptr: T::Pointer<f32>,
    dk_ptr: T::Pointer<D>,
    dv_ptr: T::Pointer<D>,
    n_ctx_q: i32,
    n_ctx_k: i32,
    softmax_scale: f32,
) where
    T::I32Tensor: Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let pid_n = T::program_id(Axis::X); // key row    [0, n_ctx_k)
    let pid_bh = T::program_id(Axis::Y); // batch·head [0, BH)

    let q_bh_base = pid_bh * n_ctx_q * HEAD_DIM;
    let kv_row_base = (pid_bh * n_ctx_k + pid_n) * HEAD_DIM;
    let lse_bh_base = pid_bh * n_ctx_q;
    let d = T::arange(0, HEAD_DIM);
    let scale_t = T::full(&[HEAD_DIM], softmax_scale);

    let k_vec = T::cast::<D, f32>(
        T::load(k_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );
    let v_vec = T::cast::<D, f32>(
        T::load(v_ptr.add_offsets(d + kv_row_base), None, None, &[], None, None, None, false),
        None,
        false,
    );

    // (causal: the queries pid_n.. attend to this key)
    let q_start = if CAUSAL { pid_n } else { 0 };

    let mut dk_acc = T::zeros::<f32>(&[HEAD_DIM]);
    let mut dv_acc = T::zeros::<f32>(&[HEAD_DIM]);
    for q_row in q_start..n_ctx_q {
        let q_row_base = q_bh_base + q_row * HEAD_DIM;
        let q_vec = T::cast::<D, f32>(
            T::load(q_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let o_vec = T::cast::<D, f32>(
            T::load(o_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let do_vec = T::cast::<D, f32>(
            T::load(do_ptr.add_offsets(d + q_row_base), None, None, &[], None, None, None, false),
            None,
            false,
        );
        let lse = T::load(
            lse_ptr.add_offsets(T::arange(0, 1) + (lse_bh_base + q_row)),
            None,
            None,
            &[],
            None,
            None,
            None,
            false,
        ); // [1]

        let qk = T::sum(q_vec * k_vec, Some(0), true) * scale_t;
        let p = T::exp(qk - lse);
        dv_acc = dv_acc + p * do_vec;
        let ds = p * (T::sum(do_vec * v_vec, Some(0), true) - T::sum(o_vec * do_vec, Some(0), true));
        dk_acc = dk_acc + ds * q_vec * scale_t;
    }

    T::store(dk_ptr.add_offsets(d + kv_row_base), T::cast::<f32, D>(dk_acc, None, false), None, &[], None, None);
    T::store(dv_ptr.add_offsets(d + kv_row_base), T::cast::<f32, D>(dv_acc, None, false), None, &[], None, None);
}
