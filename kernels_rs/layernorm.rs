//! Layer normalisation over the last dimension of a row-major `[rows, n_cols]`
//! matrix (rows may be padded: element `(r, c)` is at `r * stride + c`).
//!
//! y[r, c] = (x[r, c] - mean_r) * rstd_r * w[c] + b[c],
//! rstd_r  = 1 / sqrt(var_r + eps)   (biased variance)

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Forward pass that also saves the per-row `mean` and `rstd` (as `f32`)
/// for a backward pass.
///
/// Grid: `[n_rows]` — one program per row, walking the row in `BLOCK_N`-wide
/// column blocks (three passes: mean, variance, normalise). Statistics are
/// accumulated in `f32` whatever `D` is.
#[kernel]
pub fn layer_norm_forward<T: Triton, D: Float, const BLOCK_N: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    mean_ptr: T::Pointer<f32>,
    rstd_ptr: T::Pointer<f32>,
    n_cols: i32,
    stride: i32,
    eps: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let row = T::program_id(Axis::X);
    let row_start = row * stride;
    let cols = T::arange(0, BLOCK_N);
    let zero_fill = T::full(&[BLOCK_N], D::ZERO);
    let inv_n = if n_cols > 0 { 1.0f32 / (n_cols as f32) } else { 0.0f32 };

    // ── Pass 1: mean. Whole blocks unmasked, then the ragged tail masked. ──
    let n_whole = n_cols - n_cols % BLOCK_N;
    let mut sum_acc = T::zeros::<f32>(&[BLOCK_N]);
    let mut col: i32 = 0;
    while col < n_whole {
        let x = T::load(
            x_ptr.add_offsets(cols + (row_start + col)),
            None,
            None,
            &[],
            None,
            None,
            None,
            false,
        );
        sum_acc += T::cast::<D, f32>(x, None, false);
        col += BLOCK_N;
    }
    if n_whole < n_cols {
        let offs = cols + n_whole;
        let mask = offs.lt(n_cols);
        let x = T::load(
            x_ptr.add_offsets(offs + row_start),
            Some(mask),
            Some(zero_fill),
            &[],
            None,
            None,
            None,
            false,
        );
        sum_acc += T::cast::<D, f32>(x, None, false);
    }
    let mean = T::sum(sum_acc, Some(0), false) * inv_n;

    // ── Pass 2: biased variance around the mean. ──
    let mut sq_acc = T::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(
            x_ptr.add_offsets(offs + row_start),
            Some(mask),
            Some(zero_fill),
            &[],
            None,
            None,
            None,
            false,
        );
        let x = T::cast::<D, f32>(x, None, false);
        // Padding lanes would otherwise add mean^2 each.
        let diff = T::where_(mask, x - mean, T::zeros::<f32>(&[BLOCK_N]));
        sq_acc += diff * diff;
    }
    let var = T::sum(sq_acc, Some(0), false) * inv_n;
    let rstd = T::rsqrt(var + eps);

    // Save the row statistics (a one-lane store at index `row`).
    let stat_offs = T::arange(0, 1) + row;
    T::store(mean_ptr.add_offsets(stat_offs), mean, None, &[], None, None);
    T::store(rstd_ptr.add_offsets(stat_offs), rstd, None, &[], None, None);

    // ── Pass 3: normalise, scale and shift. ──
    let n_blocks = (n_cols + BLOCK_N - 1) / BLOCK_N;
    for blk in 0..n_blocks {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(
            x_ptr.add_offsets(offs + row_start),
            Some(mask),
            Some(zero_fill),
            &[],
            None,
            None,
            None,
            false,
        );
        let w = T::load(w_ptr.add_offsets(offs), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let b = T::load(b_ptr.add_offsets(offs), Some(mask), Some(zero_fill), &[], None, None, None, false);

        let x_hat = (T::cast::<D, f32>(x, None, false) - mean) * rstd;
        let y = x_hat * T::cast::<D, f32>(w, None, false) + T::cast::<D, f32>(b, None, false);
        T::store(
            y_ptr.add_offsets(offs + row_start),
            T::cast::<f32, D>(y, None, false),
            Some(mask),
            &[],
            None,
            None,
        );
    }
}

/// Host-side configuration for `layer_norm_forward`.
pub struct LayerNormConfig {
    pub block_n: i32,
    pub eps: f32,
}

impl Default for LayerNormConfig {
    fn default() -> Self {
        Self { block_n: 1024, eps: 1e-5 }
    }
}

impl LayerNormConfig {
    pub fn grid(&self, n_rows: usize) -> [u32; 3] {
        [n_rows as u32, 1, 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_eps_is_small() {
        let cfg = LayerNormConfig::default();
        assert!(cfg.eps > 0.0 && cfg.eps < 1e-3);
    }
}
