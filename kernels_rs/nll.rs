//! The negative log-likelihood loss averaged over the rows, forward and backward: with the
//! log-probabilities `lp: [n_rows, n_cols]` (a `log_softmax`'s output) and the class of each row
//! `target: [n_rows]` (`i64`), `loss = -sum(lp[r, target[r]]) / count` over the rows whose
//! target is not `ignore_index`, `count` their number (`nll_loss(..., reduction="mean")`;
//! `cross_entropy` is it after `log_softmax`). No row counts (all ignored): 0 / 0, NaN, as torch.
//!
//! A target outside `0..n_cols` (and not ignored) is never read: it adds nothing and counts.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// The mean loss, in `f32`, rounded to `D` once.
///
/// Grid: `[1]` — one program walks the rows, `BLOCK_R` at a time.
#[kernel(backward = NllMeanBackward)]
pub fn nll_mean_forward<T: Triton, D: Float, const BLOCK_R: i32>(
    lp_ptr: T::Pointer<D>,
    target_ptr: T::Pointer<i64>,
    loss_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    ignore_index: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let rs = T::arange(0, BLOCK_R);
    let zero_fill = T::zeros::<D>(&[BLOCK_R]);
    let mut picked = T::zeros::<f32>(&[BLOCK_R]);
    let mut counted = T::zeros::<f32>(&[BLOCK_R]);
    for blk in 0..T::cdiv(n_rows, BLOCK_R) {
        let rows = rs + blk * BLOCK_R;
        let row_ok = rows.lt(n_rows);
        let target = T::load(target_ptr.add_offsets(rows), Some(row_ok), None, &[], None, None, None, false);
        let target = T::cast::<i64, i32>(target, None, false);
        let counts = row_ok & target.ne(ignore_index);
        let readable = counts & target.ge(0) & target.lt(n_cols);
        let lp = T::load(lp_ptr.add_offsets(rows * n_cols + target), Some(readable), Some(zero_fill), &[], None, None, None, false);
        picked += T::cast::<D, f32>(lp, None, false);
        counted += T::where_(counts, T::full(&[BLOCK_R], 1.0f32), T::zeros::<f32>(&[BLOCK_R]));
    }
    let loss = -T::sum(picked, Some(0), false) / T::sum(counted, Some(0), false);
    T::store(loss_ptr.add_offsets(T::arange(0, 1)), T::cast::<f32, D>(loss, None, false), None, &[], None, None);
}

/// `dlp[r, target[r]] = -dloss / count` for each counted row; every other element is left as
/// it is (the gradient buffer comes zeroed).
///
/// Grid: `[cdiv(n_rows, BLOCK_R)]`; each program counts the rows first (a pass over the targets).
#[kernel]
pub fn nll_mean_backward<T: Triton, D: Float, const BLOCK_R: i32>(
    dloss_ptr: T::Pointer<D>,
    target_ptr: T::Pointer<i64>,
    dlp_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    ignore_index: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let rs = T::arange(0, BLOCK_R);
    let mut counted = T::zeros::<f32>(&[BLOCK_R]);
    for blk in 0..T::cdiv(n_rows, BLOCK_R) {
        let rows = rs + blk * BLOCK_R;
        let row_ok = rows.lt(n_rows);
        let target = T::cast::<i64, i32>(T::load(target_ptr.add_offsets(rows), Some(row_ok), None, &[], None, None, None, false), None, false);
        counted += T::where_(row_ok & target.ne(ignore_index), T::full(&[BLOCK_R], 1.0f32), T::zeros::<f32>(&[BLOCK_R]));
    }
    let dloss = T::load(dloss_ptr.add_offsets(T::arange(0, 1)), None, None, &[], None, None, None, false);
    let g = -T::sum(T::cast::<D, f32>(dloss, None, false), Some(0), false) / T::sum(counted, Some(0), false);

    let rows = rs + T::program_id(Axis::X) * BLOCK_R;
    let row_ok = rows.lt(n_rows);
    let target = T::cast::<i64, i32>(T::load(target_ptr.add_offsets(rows), Some(row_ok), None, &[], None, None, None, false), None, false);
    let writes = row_ok & target.ne(ignore_index) & target.ge(0) & target.lt(n_cols);
    let dlp = T::zeros::<f32>(&[BLOCK_R]) + g;
    T::store(dlp_ptr.add_offsets(rows * n_cols + target), T::cast::<f32, D>(dlp, None, false), Some(writes), &[], None, None);
}

/// The loss as teenygrad's executor runs it: two inputs, the log-probabilities `[n_rows, n_cols]`
/// and the targets `[n_rows]` (`i64`), the output a scalar; `ignore_index` carried by the op.
/// Training: the backward writes the log-probabilities' gradient (the targets have none).
pub struct NllMeanRuntimeOp<D: Float + Send + Sync + 'static> {
    pub fwd: NllMeanForward<D>,
    pub bwd: NllMeanBackward<D>,
    pub ignore_index: i32,
}

impl<D: Float + Send + Sync + 'static> NllMeanRuntimeOp<D> {
    pub fn new(block_r: i32, ignore_index: i32) -> Self {
        Self {
            fwd: NllMeanForward::<D>::new(block_r),
            bwd: NllMeanBackward::<D>::new(block_r),
            ignore_index,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for NllMeanRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        2
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    fn compute_concrete_output_shape(&self, _input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
        Vec::new()
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let (lp, lp_shape) = inputs[0];
        let (target, target_shape) = inputs[1];
        assert!(lp_shape.len() == 2 && target_shape.len() == 1, "nll_mean_forward takes [rows, classes] and [rows]");
        assert!(target_shape[0] == lp_shape[0], "nll_mean_forward: one target per row");
        visitor.visit_ptr(lp);
        visitor.visit_ptr(target);
        visitor.visit_ptr(output);
        visitor.visit_i32(lp_shape[0] as i32);
        visitor.visit_i32(lp_shape[1] as i32);
        visitor.visit_i32(self.ignore_index);
    }

    fn grid(&self, _output_shape: &[usize]) -> [u32; 3] {
        [1, 1, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `nll_mean_backward(dloss, target, dlp, n_rows, n_cols, ignore_index)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let lp_shape = inputs[0].1;
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(inputs[1].0);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(lp_shape[0] as i32);
        visitor.visit_i32(lp_shape[1] as i32);
        visitor.visit_i32(self.ignore_index);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, input_shapes: &[&[usize]], _output_shape: &[usize]) -> [u32; 3] {
        [input_shapes[0][0].div_ceil(self.fwd.block_r as usize) as u32, 1, 1]
    }
}
