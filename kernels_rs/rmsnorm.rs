//! RMS normalisation over the last dimension of a dense row-major `[rows, n_cols]` matrix, with
//! no weight (a model's weight is a product after it: Qwen3's `weight * x`), forward and a
//! backward that is right on a GPU: each program writes its own row of `dx` and nothing else.
//! (teenygrad's `nn/norm/rmsnorm.rs` backward adds every row's weight gradient into `dweight`
//! with a plain read-modify-write from each row's program: a race on a GPU.)
//!
//! y[r, c] = x[r, c] * rrms_r,   rrms_r = 1 / sqrt(mean_c(x[r, c]²) + eps)
//!
//! Sums are taken in `f32`; `rrms` is saved as `f32`.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Forward: `y = x * rrms` per row, and `rrms` saved for the backward.
///
/// Grid: `[rows]` — one program per row, walking it in `BLOCK_N`-wide column blocks (two passes:
/// the mean of the squares, then the product).
#[kernel]
pub fn rms_norm_rows_forward<T: Triton, D: Float, const BLOCK_N: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    rrms_ptr: T::Pointer<f32>,
    n_cols: i32,
    eps: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let row = T::program_id(Axis::X);
    let row_start = row * n_cols;
    let cols = T::arange(0, BLOCK_N);
    let zero_fill = T::full(&[BLOCK_N], D::ZERO);
    let inv_n = 1.0f32 / (n_cols as f32);

    let mut sq_acc = T::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let x = T::cast::<D, f32>(x, None, false);
        sq_acc += x * x;
    }
    let rrms = T::rsqrt(T::sum(sq_acc, Some(0), false) * inv_n + eps);
    T::store(rrms_ptr.add_offsets(T::arange(0, 1) + row), rrms, None, &[], None, None);

    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let y = T::cast::<D, f32>(x, None, false) * rrms;
        T::store(y_ptr.add_offsets(offs + row_start), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
    }
}

/// Backward from `x`, the saved `rrms` and the output's gradient `dy`:
/// `dx = rrms * (dy - x * rrms² * mean_c(dy * x))`.
///
/// Grid: `[rows]` — one program per row (two passes: the row's `Σ dy·x`, then `dx`).
#[kernel]
pub fn rms_norm_rows_backward<T: Triton, D: Float, const BLOCK_N: i32>(
    dy_ptr: T::Pointer<D>,
    x_ptr: T::Pointer<D>,
    rrms_ptr: T::Pointer<f32>,
    dx_ptr: T::Pointer<D>,
    n_cols: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let row = T::program_id(Axis::X);
    let row_start = row * n_cols;
    let cols = T::arange(0, BLOCK_N);
    let zero_fill = T::full(&[BLOCK_N], D::ZERO);
    let inv_n = 1.0f32 / (n_cols as f32);
    let rrms = T::sum(
        T::load(rrms_ptr.add_offsets(T::arange(0, 1) + row), None, None, &[], None, None, None, false),
        Some(0),
        false,
    );

    let mut dot_acc = T::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let dy = T::load(dy_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        dot_acc += T::cast::<D, f32>(dy, None, false) * T::cast::<D, f32>(x, None, false);
    }
    let c = T::sum(dot_acc, Some(0), false) * inv_n * rrms * rrms;

    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let dy = T::load(dy_ptr.add_offsets(offs + row_start), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let dx = (T::cast::<D, f32>(dy, None, false) - T::cast::<D, f32>(x, None, false) * c) * rrms;
        T::store(dx_ptr.add_offsets(offs + row_start), T::cast::<f32, D>(dx, None, false), Some(mask), &[], None, None);
    }
}
