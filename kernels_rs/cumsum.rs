//! Cumulative sum along the last dimension, `y[r, c] = x[r, 0] + ... + x[r, c]`, of rows of any
//! length.
//!
//! The input is dense `[n_rows, n_cols]` rows, the output of its shape. A program owns a row and
//! walks it `BLOCK_N` columns at a time: each tile's scan, plus the sum of the tiles before it,
//! in `f32`, rounded to `D` once. (teenygrad's `cum_sum_forward` reads a row in one tile, so its
//! block must cover the row.) The gradient of a cumulative sum is one of the output's gradient
//! taken from the end: the backward kernel walks the row from its last tile (AOTAutograd writes
//! it as a flip, this op and a flip: both run on kernels).

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `y[r, :] = cumsum(x[r, :])`, `BLOCK_N` columns at a time with the running total carried.
///
/// Grid: `[n_rows]` — one program per row.
#[kernel(backward = CumsumRowsBackward)]
pub fn cumsum_rows_forward<T: Triton, D: Float, const BLOCK_N: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n_cols: i32)
where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_N);
    let zero_fill = T::zeros::<D>(&[BLOCK_N]); // what lanes past the row read
    let mut before = T::zeros::<f32>(&[BLOCK_N]); // the sum of the tiles before, in every lane
    for blk in 0..T::cdiv(n_cols, BLOCK_N) {
        let offs = cols + blk * BLOCK_N;
        let mask = offs.lt(n_cols);
        let x_raw = T::load(x_ptr.add_offsets(offs + row * n_cols), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let x = T::cast::<D, f32>(x_raw, None, false);
        let y = T::cumsum(x, 0, false) + before;
        T::store(y_ptr.add_offsets(offs + row * n_cols), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
        before += T::sum(x, Some(0), false);
    }
}

/// `dx[r, c] = dy[r, c] + ... + dy[r, n_cols - 1]`: the row's tiles from the last, each scanned
/// from its end, plus the sum of the tiles after it.
///
/// Grid: `[n_rows]` — one program per row.
#[kernel]
pub fn cumsum_rows_backward<T: Triton, D: Float, const BLOCK_N: i32>(dy_ptr: T::Pointer<D>, dx_ptr: T::Pointer<D>, n_cols: i32)
where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_N);
    let zero_fill = T::zeros::<D>(&[BLOCK_N]);
    let n_blocks = T::cdiv(n_cols, BLOCK_N);
    let mut after = T::zeros::<f32>(&[BLOCK_N]); // the sum of the tiles after, in every lane
    for back in 0..n_blocks {
        let offs = cols + (n_blocks - 1 - back) * BLOCK_N;
        let mask = offs.lt(n_cols);
        let dy_raw = T::load(dy_ptr.add_offsets(offs + row * n_cols), Some(mask), Some(zero_fill), &[], None, None, None, false);
        let dy = T::cast::<D, f32>(dy_raw, None, false);
        let dx = T::cumsum(dy, 0, true) + after;
        T::store(dx_ptr.add_offsets(offs + row * n_cols), T::cast::<f32, D>(dx, None, false), Some(mask), &[], None, None);
        after += T::sum(dy, Some(0), false);
    }
}

/// As teenygrad's executor runs it: one input `[.., n_cols]`, dense, the output of its shape, one
/// program per row. Training: the backward reads only the output's gradient.
impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for CumsumRowsForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let n_cols = output_shape[output_shape.len() - 1];
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(n_cols as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n_rows: usize = output_shape[..output_shape.len() - 1].iter().product();
        [n_rows as u32, 1, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// The backward kernel's `(dy, dx, n_cols)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        _inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(output_shape[output_shape.len() - 1] as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}
