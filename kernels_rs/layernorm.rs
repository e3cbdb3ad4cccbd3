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

/// A row's mean and `rstd`, in `f32`, in two passes over its `BLOCK_N`-wide column blocks
/// (the mean, then the biased variance around it).
fn row_stats<TT: Triton, DD: Float, const BLOCK_N: i32>(
    x_ptr: TT::Pointer<DD>,
    row_start: i32,
    n_cols: i32,
    eps: f32,
) -> (TT::Tensor<f32>, TT::Tensor<f32>)
where
    TT::I32Tensor: types::Tensor<i32, 1>,
    TT::I32Tensor: Comparison<i32, BoolTensor = TT::BoolTensor>,
    TT::Pointer<DD>: AddOffsets<i32, 1, TT::I32Tensor, Output = TT::Tensor<TT::Pointer<DD>>>,
{
    let cols = TT::arange(0, BLOCK_N);
    let inv_n = 1.0f32 / (n_cols as f32);
    let mut sum_acc = TT::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..TT::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = TT::load(x_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        sum_acc += TT::where_(mask, TT::cast::<DD, f32>(x, None, false), TT::zeros::<f32>(&[BLOCK_N]));
    }
    let mean = TT::sum(sum_acc, Some(0), false) * inv_n;
    let mut sq_acc = TT::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..TT::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = TT::load(x_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let diff = TT::where_(mask, TT::cast::<DD, f32>(x, None, false) - mean, TT::zeros::<f32>(&[BLOCK_N]));
        sq_acc += diff * diff;
    }
    let var = TT::sum(sq_acc, Some(0), false) * inv_n;
    (mean, TT::rsqrt(var + eps))
}

/// Forward pass of a model's layer: `y = layer_norm(x) * w + b` over contiguous rows of
/// `n_cols`, without saving the statistics (the backward recomputes them).
///
/// Grid: `[n_rows]` — one program per row.
#[kernel(backward = LayerNormRowsBackward)]
pub fn layer_norm_rows_forward<T: Triton, D: Float, const BLOCK_N: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    n_cols: i32,
    eps: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row_start = T::program_id(Axis::X) * n_cols;
    let (mean, rstd) = row_stats::<T, D, BLOCK_N>(x_ptr, row_start, n_cols, eps);
    let cols = T::arange(0, BLOCK_N);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let w = T::load(w_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
        let b = T::load(b_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
        let x_hat = (T::cast::<D, f32>(x, None, false) - mean) * rstd;
        let y = x_hat * T::cast::<D, f32>(w, None, false) + T::cast::<D, f32>(b, None, false);
        T::store(y_ptr.add_offsets(offs + row_start), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
    }
}

/// Backward pass: with `g = dy * w` and `x_hat` from the recomputed statistics,
/// `dx = rstd * (g - mean(g) - x_hat * mean(g * x_hat))`; `dw += dy * x_hat` and `db += dy`
/// are sums over the rows, added atomically: `dw` and `db` must start zeroed.
///
/// Grid: `[n_rows]` — one program per row.
#[kernel]
pub fn layer_norm_rows_backward<T: Triton, D: Float, const BLOCK_N: i32>(
    dy_ptr: T::Pointer<D>,
    x_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    dw_ptr: T::Pointer<D>,
    db_ptr: T::Pointer<D>,
    n_cols: i32,
    eps: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row_start = T::program_id(Axis::X) * n_cols;
    let (mean, rstd) = row_stats::<T, D, BLOCK_N>(x_ptr, row_start, n_cols, eps);
    let cols = T::arange(0, BLOCK_N);
    let inv_n = 1.0f32 / (n_cols as f32);

    // mean(g) and mean(g * x_hat) over the row.
    let mut g_acc = T::zeros::<f32>(&[BLOCK_N]);
    let mut gx_acc = T::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let dy = T::load(dy_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let w = T::load(w_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
        let x_hat = (T::cast::<D, f32>(x, None, false) - mean) * rstd;
        let g = T::where_(mask, T::cast::<D, f32>(dy, None, false) * T::cast::<D, f32>(w, None, false), T::zeros::<f32>(&[BLOCK_N]));
        g_acc += g;
        gx_acc += g * x_hat;
    }
    let g_mean = T::sum(g_acc, Some(0), false) * inv_n;
    let gx_mean = T::sum(gx_acc, Some(0), false) * inv_n;

    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let dy = T::load(dy_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let w = T::load(w_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
        let x_hat = (T::cast::<D, f32>(x, None, false) - mean) * rstd;
        let dy32 = T::cast::<D, f32>(dy, None, false);
        let dx = (dy32 * T::cast::<D, f32>(w, None, false) - g_mean - x_hat * gx_mean) * rstd;
        T::store(dx_ptr.add_offsets(offs + row_start), T::cast::<f32, D>(dx, None, false), Some(mask), &[], None, None);
        T::atomic_add(dw_ptr.add_offsets(offs), T::cast::<f32, D>(dy32 * x_hat, None, false), Some(mask), None, None);
        T::atomic_add(db_ptr.add_offsets(offs), dy, Some(mask), None, None);
    }
}

/// How teenygrad's executor runs a model's layer norm: one input viewed as `[rows, n_cols]`,
/// the parameters `weight` and `bias` of `[n_cols]`, output like the input.
pub struct LayerNormRowsRuntimeOp<D: Float + Send + Sync + 'static> {
    pub fwd: LayerNormRowsForward<D>,
    pub bwd: LayerNormRowsBackward<D>,
    pub eps: f32,
}

impl<D: Float + Send + Sync + 'static> LayerNormRowsRuntimeOp<D> {
    pub fn new(block_n: i32, eps: f32) -> Self {
        Self {
            fwd: LayerNormRowsForward::<D>::new(block_n),
            bwd: LayerNormRowsBackward::<D>::new(block_n),
            eps,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for LayerNormRowsRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        let n_cols = input_shapes[0][input_shapes[0].len() - 1];
        vec![vec![n_cols], vec![n_cols]]
    }

    fn param_names(&self) -> &'static [&'static str] {
        &["weight", "bias"]
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(params[1]);
        visitor.visit_i32(output_shape[output_shape.len() - 1] as i32);
        visitor.visit_f32(self.eps);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [(n / output_shape[output_shape.len() - 1]) as u32, 1, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `layer_norm_rows_backward(dy, x, w, dx, dw, db, n_cols, eps)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_ptr(grad_params[0]);
        visitor.visit_ptr(grad_params[1]);
        visitor.visit_i32(output_shape[output_shape.len() - 1] as i32);
        visitor.visit_f32(self.eps);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
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
