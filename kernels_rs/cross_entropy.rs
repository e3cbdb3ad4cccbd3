//! Cross-entropy from logits, averaged over the rows, forward and backward, for rows of any
//! length (a language model's vocabulary): with `logits: [n_rows, n_cols]` and the class of
//! each row `target: [n_rows]` (`i64`), `loss = sum(lse_r - logits[r, target[r]]) / count` over
//! the rows whose target is not `ignore_index` (`lse_r` the row's log-sum-exp, `count` the rows
//! counted), as `F.cross_entropy(logits, target, ignore_index=...)`. All rows ignored: NaN, as
//! torch. A target outside `0..n_cols` (and not ignored) is never read.
//!
//! Each row is read `BLOCK_N` columns at a time, in `f32`: its maximum, then the sum of
//! `exp(x - max)`. The forward adds each row's share into the loss atomically, so it runs in two
//! launches: `phase` 0 zeroes the loss, `phase` 1 adds the rows. Unlike teenygrad's
//! `cross_entropy_loss_forward` (one block a row, `f32`, a loss per row), any row length, any
//! float `D`, and the mean.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// The number of rows whose target is not `ignore_index`, in `f32`.
fn counted_rows<TT: Triton, const BLOCK_R: i32>(target_ptr: TT::Pointer<i64>, n_rows: i32, ignore_index: i32) -> TT::Tensor<f32>
where
    TT::I32Tensor: types::Tensor<i32, 1>,
    TT::I32Tensor: Comparison<i32, BoolTensor = TT::BoolTensor>,
    TT::Pointer<i64>: AddOffsets<i32, 1, TT::I32Tensor, Output = TT::Tensor<TT::Pointer<i64>>>,
{
    let rs = TT::arange(0, BLOCK_R);
    let mut counted = TT::zeros::<f32>(&[BLOCK_R]);
    for blk in 0..TT::cdiv(n_rows, BLOCK_R) {
        let rows = rs + blk * BLOCK_R;
        let row_ok = rows.lt(n_rows);
        let target = TT::load(target_ptr.add_offsets(rows), Some(row_ok), None, &[], None, None, None, false);
        let counts = row_ok & TT::cast::<i64, i32>(target, None, false).ne(ignore_index);
        counted += TT::where_(counts, TT::full(&[BLOCK_R], 1.0f32), TT::zeros::<f32>(&[BLOCK_R]));
    }
    TT::sum(counted, Some(0), false)
}

/// The log-sum-exp of the row starting at `row_start`, in `f32`, in two passes over it.
fn row_logsumexp<TT: Triton, DD: Float, const BLOCK_N: i32>(x_ptr: TT::Pointer<DD>, row_start: i32, n_cols: i32) -> TT::Tensor<f32>
where
    TT::I32Tensor: types::Tensor<i32, 1>,
    TT::I32Tensor: Comparison<i32, BoolTensor = TT::BoolTensor>,
    TT::Pointer<DD>: AddOffsets<i32, 1, TT::I32Tensor, Output = TT::Tensor<TT::Pointer<DD>>>,
{
    let cols = TT::arange(0, BLOCK_N);
    let neg_inf = TT::full(&[BLOCK_N], DD::from_f64(f64::NEG_INFINITY)); // what lanes past the row read
    let mut maxima = TT::full(&[BLOCK_N], f32::NEG_INFINITY);
    for blk in 0..TT::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let x = TT::load(x_ptr.add_offsets(offs + row_start), Some(offs.lt(n_cols)), Some(neg_inf), &[], None, None, None, false);
        maxima = TT::maximum(maxima, TT::cast::<DD, f32>(x, None, false));
    }
    let row_max = TT::max(maxima, Some(0), false);
    let mut sums = TT::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..TT::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let x = TT::load(x_ptr.add_offsets(offs + row_start), Some(offs.lt(n_cols)), Some(neg_inf), &[], None, None, None, false);
        sums += TT::exp(TT::cast::<DD, f32>(x, None, false) - row_max);
    }
    row_max + TT::log(TT::sum(sums, Some(0), false))
}

/// `phase` 0: the loss is set to 0 (grid `[1]`). `phase` 1: row `program_id(X)` adds
/// `(lse - logits[r, target[r]]) / count` into it, 0 for an ignored row (grid `[n_rows]`).
#[kernel(backward = CrossEntropyMeanBackward)]
pub fn cross_entropy_mean_forward<T: Triton, D: Float, const BLOCK_N: i32, const BLOCK_R: i32>(
    logits_ptr: T::Pointer<D>,
    target_ptr: T::Pointer<i64>,
    loss_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    ignore_index: i32,
    phase: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let one = T::arange(0, 1);
    let row = T::program_id(Axis::X);
    if phase == 0 {
        T::store(loss_ptr.add_offsets(one), T::zeros::<D>(&[1]), None, &[], None, None);
    } else {
        let count = counted_rows::<T, BLOCK_R>(target_ptr, n_rows, ignore_index);
        let target = T::cast::<i64, i32>(T::load(target_ptr.add_offsets(one + row), None, None, &[], None, None, None, false), None, false);
        let counts = target.ne(ignore_index);
        let readable = counts & target.ge(0) & target.lt(n_cols);
        let picked = T::load(logits_ptr.add_offsets(target + row * n_cols), Some(readable), Some(T::zeros::<D>(&[1])), &[], None, None, None, false);
        let lse = row_logsumexp::<T, D, BLOCK_N>(logits_ptr, row * n_cols, n_cols);
        let loss = T::where_(counts, lse - T::cast::<D, f32>(picked, None, false), T::zeros::<f32>(&[1]));
        let share = loss / count;
        T::atomic_add(loss_ptr.add_offsets(one), T::cast::<f32, D>(share, None, false), None, None, None);
    }
}

/// `dlogits[r, :] = (softmax(logits[r, :]) - onehot(target[r])) * dloss / count`, 0 for an
/// ignored row.
///
/// Grid: `[n_rows]` — one program per row, three passes over it (max, sum, gradient).
#[kernel]
pub fn cross_entropy_mean_backward<T: Triton, D: Float, const BLOCK_N: i32, const BLOCK_R: i32>(
    logits_ptr: T::Pointer<D>,
    target_ptr: T::Pointer<i64>,
    dloss_ptr: T::Pointer<D>,
    dlogits_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    ignore_index: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let one = T::arange(0, 1);
    let row = T::program_id(Axis::X);
    let row_start = row * n_cols;
    let count = counted_rows::<T, BLOCK_R>(target_ptr, n_rows, ignore_index);
    let dloss = T::load(dloss_ptr.add_offsets(one), None, None, &[], None, None, None, false);
    let target = T::cast::<i64, i32>(T::load(target_ptr.add_offsets(one + row), None, None, &[], None, None, None, false), None, false);
    // The row's scale: dloss / count where its target counts, else 0 (as a scalar).
    let scale = T::sum(T::where_(target.ne(ignore_index), T::cast::<D, f32>(dloss, None, false) / count, T::zeros::<f32>(&[1])), Some(0), false);
    let target = T::sum(target, Some(0), false);
    let lse = row_logsumexp::<T, D, BLOCK_N>(logits_ptr, row_start, n_cols);
    let cols = T::arange(0, BLOCK_N);
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x = T::load(logits_ptr.add_offsets(offs + row_start), Some(mask), None, &[], None, None, None, false);
        let p = T::exp(T::cast::<D, f32>(x, None, false) - lse);
        let onehot = T::where_(offs.eq(target), T::full(&[BLOCK_N], 1.0f32), T::zeros::<f32>(&[BLOCK_N]));
        let d = (p - onehot) * scale;
        T::store(dlogits_ptr.add_offsets(offs + row_start), T::cast::<f32, D>(d, None, false), Some(mask), &[], None, None);
    }
}

/// The loss as teenygrad's executor runs it: two inputs, the logits `[n_rows, n_cols]` and the
/// targets `[n_rows]` (`i64`), the output a scalar; `ignore_index` carried by the op. Two forward
/// launches (zero the loss, add the rows); training: the backward writes the logits' gradient
/// (the targets have none).
pub struct CrossEntropyMeanRuntimeOp<D: Float + Send + Sync + 'static> {
    pub fwd: CrossEntropyMeanForward<D>,
    pub bwd: CrossEntropyMeanBackward<D>,
    pub ignore_index: i32,
}

impl<D: Float + Send + Sync + 'static> CrossEntropyMeanRuntimeOp<D> {
    pub fn new(block_n: i32, block_r: i32, ignore_index: i32) -> Self {
        Self {
            fwd: CrossEntropyMeanForward::<D>::new(block_n, block_r),
            bwd: CrossEntropyMeanBackward::<D>::new(block_n, block_r),
            ignore_index,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for CrossEntropyMeanRuntimeOp<D> {
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
        params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        self.pack_args_for_launch(1, inputs, params, output, output_shape, output_row_stride, visitor);
    }

    fn grid(&self, _output_shape: &[usize]) -> [u32; 3] {
        [1, 1, 1]
    }

    fn n_launches(&self) -> usize {
        2
    }

    /// `cross_entropy_mean_forward(logits, target, loss, n_rows, n_cols, ignore_index, phase)`.
    fn pack_args_for_launch(
        &self,
        launch_idx: usize,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let (logits, logits_shape) = inputs[0];
        let (target, target_shape) = inputs[1];
        assert!(logits_shape.len() == 2 && target_shape.len() == 1, "cross_entropy takes [rows, classes] and [rows]");
        assert!(target_shape[0] == logits_shape[0], "cross_entropy: one target per row");
        visitor.visit_ptr(logits);
        visitor.visit_ptr(target);
        visitor.visit_ptr(output);
        visitor.visit_i32(logits_shape[0] as i32);
        visitor.visit_i32(logits_shape[1] as i32);
        visitor.visit_i32(self.ignore_index);
        visitor.visit_i32(launch_idx as i32);
    }

    fn grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]], _output_shape: &[usize]) -> [u32; 3] {
        if launch_idx == 0 { [1, 1, 1] } else { [input_shapes[0][0] as u32, 1, 1] }
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `cross_entropy_mean_backward(logits, target, dloss, dlogits, n_rows, n_cols, ignore_index)`.
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
        let (logits, logits_shape) = inputs[0];
        visitor.visit_ptr(logits);
        visitor.visit_ptr(inputs[1].0);
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(logits_shape[0] as i32);
        visitor.visit_i32(logits_shape[1] as i32);
        visitor.visit_i32(self.ignore_index);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, input_shapes: &[&[usize]], _output_shape: &[usize]) -> [u32; 3] {
        [input_shapes[0][0] as u32, 1, 1]
    }
}
