//! Row-wise softmax and log-softmax over a row-major `[n_rows, n_cols]` matrix.
//!
//! Rows may be padded: element `(r, c)` lives at `r * stride + c`, with
//! `stride >= n_cols`. The same `stride` is used for the input and output.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Largest row the single-block kernel below is tuned for (host side only).
const MAX_FUSED_COLS: i32 = 8192;

/// Numerically stable softmax of each row: `y = exp(x - max(x)) / sum(exp(x - max(x)))`.
///
/// Grid: `[n_rows]` — one program per row. A smaller grid also works: each
/// program walks rows `pid, pid + num_programs, ...` until `n_rows`.
///
/// **Constraint**: `BLOCK_SIZE >= n_cols` (a whole row fits in one block);
/// lanes past `n_cols` load `-inf` so they contribute `exp(-inf) = 0`.
/// The math runs in `f32` whatever `D` is.
#[kernel(backward = SoftmaxBackward)]
pub fn softmax_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let n_programs = T::num_programs(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let col_mask = cols.lt(n_cols);
    let neg_inf = T::full(&[BLOCK_SIZE], D::from_f64(f64::NEG_INFINITY));

    let mut row = T::program_id(Axis::X);
    while row < n_rows {
        let offsets = cols + row * stride;
        let x = T::load(
            x_ptr.add_offsets(offsets),
            Some(col_mask),
            Some(neg_inf),
            &[],
            None,
            None,
            None,
            false,
        );

        // exp wants f32; subtract the row max first so it cannot overflow.
        let x = T::cast::<D, f32>(x, None, false);
        let x = x - T::max(x, Some(0), false);
        let numerator = T::exp(x);
        let denominator = T::sum(numerator, Some(0), false);
        let y = numerator / denominator;

        T::store(
            y_ptr.add_offsets(offsets),
            T::cast::<f32, D>(y, None, false),
            Some(col_mask),
            &[],
            None,
            None,
        );
        row += n_programs;
    }
}

/// Backward of the row softmax, from its saved output `y`:
/// `dx = y * (dy - sum(dy * y))` along each row, in `f32`.
///
/// Grid: as the forward's (a grid-stride loop over the rows).
#[kernel]
pub fn softmax_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let n_programs = T::num_programs(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let col_mask = cols.lt(n_cols);
    let zero = T::full(&[BLOCK_SIZE], D::ZERO);

    let mut row = T::program_id(Axis::X);
    while row < n_rows {
        let offsets = cols + row * stride;
        let dy = T::load(dy_ptr.add_offsets(offsets), Some(col_mask), Some(zero), &[], None, None, None, false);
        let y = T::load(y_ptr.add_offsets(offsets), Some(col_mask), Some(zero), &[], None, None, None, false);
        let dy = T::cast::<D, f32>(dy, None, false);
        let y = T::cast::<D, f32>(y, None, false);
        let dot = T::sum(dy * y, Some(0), false);
        let dx = y * (dy - dot);
        T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>(dx, None, false), Some(col_mask), &[], None, None);
        row += n_programs;
    }
}

/// Numerically stable log-softmax of each row: `y = x - max(x) - log(sum(exp(x - max(x))))`.
///
/// Grid, constraint and precision as `softmax_forward`'s.
#[kernel(backward = LogSoftmaxBackward)]
pub fn log_softmax_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let n_programs = T::num_programs(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let col_mask = cols.lt(n_cols);
    let neg_inf = T::full(&[BLOCK_SIZE], D::from_f64(f64::NEG_INFINITY));

    let mut row = T::program_id(Axis::X);
    while row < n_rows {
        let offsets = cols + row * stride;
        let x = T::load(x_ptr.add_offsets(offsets), Some(col_mask), Some(neg_inf), &[], None, None, None, false);
        let x = T::cast::<D, f32>(x, None, false);
        let shifted = x - T::max(x, Some(0), false);
        let y = shifted - T::log(T::sum(T::exp(shifted), Some(0), false));
        T::store(y_ptr.add_offsets(offsets), T::cast::<f32, D>(y, None, false), Some(col_mask), &[], None, None);
        row += n_programs;
    }
}

/// Backward of the row log-softmax, from its saved output `y`:
/// `dx = dy - exp(y) * sum(dy)` along each row, in `f32`.
///
/// Grid: as the forward's.
#[kernel]
pub fn log_softmax_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let n_programs = T::num_programs(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let col_mask = cols.lt(n_cols);
    let zero = T::full(&[BLOCK_SIZE], D::ZERO);

    let mut row = T::program_id(Axis::X);
    while row < n_rows {
        let offsets = cols + row * stride;
        let dy = T::load(dy_ptr.add_offsets(offsets), Some(col_mask), Some(zero), &[], None, None, None, false);
        let y = T::load(y_ptr.add_offsets(offsets), Some(col_mask), Some(zero), &[], None, None, None, false);
        let dy = T::cast::<D, f32>(dy, None, false);
        let dx = dy - T::exp(T::cast::<D, f32>(y, None, false)) * T::sum(dy, Some(0), false);
        T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>(dx, None, false), Some(col_mask), &[], None, None);
        row += n_programs;
    }
}

/// Launch glue: picks the block size for a given row length (host side only).
pub struct SoftmaxOp<D: Float + Send + Sync + 'static> {
    pub forward: SoftmaxForward<D>,
    pub block_size: i32,
}

impl<D: Float + Send + Sync + 'static> SoftmaxOp<D> {
    pub fn new(n_cols: i32) -> Self {
        assert!(n_cols <= MAX_FUSED_COLS, "row too long for the fused kernel");
        let block_size = (n_cols as u32).next_power_of_two() as i32;
        Self {
            forward: SoftmaxForward::<D>::new(block_size),
            block_size,
        }
    }

    pub fn grid(&self, n_rows: usize) -> [u32; 3] {
        [n_rows as u32, 1, 1]
    }
}

/// A row op as teenygrad's executor runs it: one input `[rows, cols]`, row-major and dense, the
/// output of its shape; one program per row, `BLOCK_SIZE` at least `cols` (the kernel reads a
/// row in one tile). Training: the backward reads the saved output.
macro_rules! impl_row_op {
    ($Fwd:ident) => {
        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $Fwd<D> {
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
                assert!(n_cols <= self.block_size as usize, "a row is wider than BLOCK_SIZE");
                let n_rows: usize = output_shape.iter().product::<usize>() / n_cols;
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(output);
                visitor.visit_i32(n_rows as i32);
                visitor.visit_i32(n_cols as i32);
                visitor.visit_i32(n_cols as i32); // stride: dense rows
            }

            fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
                let n_rows: usize = output_shape[..output_shape.len() - 1].iter().product();
                [n_rows as u32, 1, 1]
            }

            fn has_backward(&self) -> bool {
                true
            }

            fn pack_backward_args(
                &self,
                _inputs: &[(teeny_core::model::RawPtr, &[usize])],
                _params: &[teeny_core::model::RawPtr],
                output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                grad_output: teeny_core::model::RawPtr,
                _grad_output_row_stride: i32,
                grad_inputs: &[teeny_core::model::RawPtr],
                _grad_params: &[teeny_core::model::RawPtr],
                visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let n_cols = output_shape[output_shape.len() - 1];
                let n_rows: usize = output_shape.iter().product::<usize>() / n_cols;
                visitor.visit_ptr(grad_output);
                visitor.visit_ptr(output);
                visitor.visit_ptr(grad_inputs[0]);
                visitor.visit_i32(n_rows as i32);
                visitor.visit_i32(n_cols as i32);
                visitor.visit_i32(n_cols as i32);
            }

            fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

impl_row_op!(SoftmaxForward);
impl_row_op!(LogSoftmaxForward);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_covers_row() {
        for n in [1, 100, 128, 1000] {
            let bs = (n as u32).next_power_of_two() as i32;
            assert!(bs >= n && bs <= MAX_FUSED_COLS);
        }
    }
}
