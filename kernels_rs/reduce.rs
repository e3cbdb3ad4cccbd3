//! Sum and mean over the last dimension (or over everything), forward and backward.
//!
//! The input is viewed as dense `[n_rows, n_cols]` rows, the output as `[n_rows]`: a sum over
//! the last dimension with or without `keepdim`, or over the whole tensor (`n_rows = 1`). Each
//! row is added up in `f32`, `BLOCK_N` columns at a time, and rounded to `D` once; the backward
//! spreads each row's gradient (divided by `n_cols` for the mean) over the row. The two ops are
//! written by one macro: the kernels' names, the op's struct and the scale of the sum as an
//! expression of the row length `$n` (an `f32`; `_n` where the scale does not use it).
//!
//! `sum_cols_*` sum over every dimension but the last instead (the output `[n_cols]`): the
//! gradient of a parameter broadcast over rows, such as a norm's weight.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

macro_rules! row_reduction {
    ($fwd:ident, $bwd:ident, $Fwd:ident, $Bwd:ident, |$n:ident| $scale:expr) => {
        /// `y[r] = scale * sum(x[r, :])`, in `f32`.
        ///
        /// Grid: `[n_rows]` — one program per row.
        #[kernel(backward = $Bwd)]
        pub fn $fwd<T: Triton, D: Float, const BLOCK_N: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n_cols: i32)
        where
            T::I32Tensor: types::Tensor<i32, 1>,
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let row = T::program_id(Axis::X);
            let cols = T::arange(0, BLOCK_N);
            let zero_fill = T::zeros::<D>(&[BLOCK_N]); // what lanes past the row read
            let mut acc = T::zeros::<f32>(&[BLOCK_N]);
            for blk in 0..T::cdiv(n_cols, BLOCK_N) {
                let offs = cols + blk * BLOCK_N;
                let x = T::load(x_ptr.add_offsets(offs + row * n_cols), Some(offs.lt(n_cols)), Some(zero_fill), &[], None, None, None, false);
                acc += T::cast::<D, f32>(x, None, false);
            }
            let $n = n_cols as f32;
            let total = T::sum(acc, Some(0), false) * ($scale);
            T::store(y_ptr.add_offsets(T::arange(0, 1) + row), T::cast::<f32, D>(total, None, false), None, &[], None, None);
        }

        /// `dx[r, c] = scale * dy[r]`.
        ///
        /// Grid: `[n_rows, cdiv(n_cols, BLOCK_N)]`.
        #[kernel]
        pub fn $bwd<T: Triton, D: Float, const BLOCK_N: i32>(dy_ptr: T::Pointer<D>, dx_ptr: T::Pointer<D>, n_cols: i32)
        where
            T::I32Tensor: types::Tensor<i32, 1>,
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let row = T::program_id(Axis::X);
            let dy = T::load(dy_ptr.add_offsets(T::arange(0, 1) + row), None, None, &[], None, None, None, false);
            let $n = n_cols as f32;
            let g = T::sum(T::cast::<D, f32>(dy, None, false), Some(0), false) * ($scale);
            let offs = T::program_id(Axis::Y) * BLOCK_N + T::arange(0, BLOCK_N);
            let dx = T::zeros::<f32>(&[BLOCK_N]) + g;
            T::store(dx_ptr.add_offsets(offs + row * n_cols), T::cast::<f32, D>(dx, None, false), Some(offs.lt(n_cols)), &[], None, None);
        }

        /// As teenygrad's executor runs it: one input, viewed as `[n_rows, n_cols]` with `n_rows`
        /// the output's element count (its last dimension reduced, kept as 1 or dropped, or a
        /// scalar output for the whole tensor).
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
                let n_rows: usize = output_shape.iter().product();
                let n: usize = inputs[0].1.iter().product();
                assert!(n_rows > 0 && n % n_rows == 0, "the output's rows do not divide the input");
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(output);
                visitor.visit_i32((n / n_rows) as i32);
            }

            fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
                let n_rows: usize = output_shape.iter().product();
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
                inputs: &[(teeny_core::model::RawPtr, &[usize])],
                _params: &[teeny_core::model::RawPtr],
                _output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                grad_output: teeny_core::model::RawPtr,
                _grad_output_row_stride: i32,
                grad_inputs: &[teeny_core::model::RawPtr],
                _grad_params: &[teeny_core::model::RawPtr],
                visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let n_rows: usize = output_shape.iter().product();
                let n: usize = inputs[0].1.iter().product();
                visitor.visit_ptr(grad_output);
                visitor.visit_ptr(grad_inputs[0]);
                visitor.visit_i32((n / n_rows) as i32);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                let n_rows: usize = output_shape.iter().product();
                let n: usize = input_shapes[0].iter().product();
                [n_rows as u32, (n / n_rows).div_ceil(self.block_n as usize) as u32, 1]
            }
        }
    };
}

row_reduction!(sum_rows_forward, sum_rows_backward, SumRowsForward, SumRowsBackward, |_n| 1.0f32);
row_reduction!(mean_rows_forward, mean_rows_backward, MeanRowsForward, MeanRowsBackward, |n| 1.0f32 / n);

/// `y[c] = sum(x[:, c])`, in `f32`: a program owns `BLOCK_N` columns and walks the rows,
/// `BLOCK_R` at a time.
///
/// Grid: `[cdiv(n_cols, BLOCK_N)]`.
#[kernel(backward = SumColsBackward)]
pub fn sum_cols_forward<T: Triton, D: Float, const BLOCK_R: i32, const BLOCK_N: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let cols = T::expand_dims(T::program_id(Axis::X) * BLOCK_N + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
    let rs = T::expand_dims(T::arange(0, BLOCK_R), 1); // [BLOCK_R, 1]
    let zero_fill = T::zeros::<D>(&[BLOCK_R, BLOCK_N]);
    let mut acc = T::zeros::<f32>(&[BLOCK_N]);
    for blk in 0..T::cdiv(n_rows, BLOCK_R) {
        let rows = rs + blk * BLOCK_R;
        let mask = rows.lt(n_rows) & cols.lt(n_cols);
        let x = T::load(x_ptr.add_offsets(rows * n_cols + cols), Some(mask), Some(zero_fill), &[], None, None, None, false);
        acc += T::sum(T::cast::<D, f32>(x, None, false), Some(0), false);
    }
    let y = T::expand_dims(T::cast::<f32, D>(acc, None, false), 0);
    T::store(y_ptr.add_offsets(cols), y, Some(cols.lt(n_cols)), &[], None, None);
}

/// `dx[r, c] = dy[c]`.
///
/// Grid: `[cdiv(n_rows, BLOCK_R), cdiv(n_cols, BLOCK_N)]`.
#[kernel]
pub fn sum_cols_backward<T: Triton, D: Float, const BLOCK_R: i32, const BLOCK_N: i32>(
    dy_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let rows = T::expand_dims(T::program_id(Axis::X) * BLOCK_R + T::arange(0, BLOCK_R), 1); // [BLOCK_R, 1]
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_N + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
    let dy = T::load(dy_ptr.add_offsets(cols), Some(cols.lt(n_cols)), None, &[], None, None, None, false);
    let dx = T::broadcast_to(dy, &[BLOCK_R, BLOCK_N]);
    T::store(dx_ptr.add_offsets(rows * n_cols + cols), dx, Some(rows.lt(n_rows) & cols.lt(n_cols)), &[], None, None);
}

/// As teenygrad's executor runs it: one input, viewed as `[n_rows, n_cols]` with `n_cols` the
/// output's element count (every dimension but the last reduced, kept as 1s or dropped).
impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for SumColsForward<D> {
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
        let n_cols: usize = output_shape.iter().product();
        let n: usize = inputs[0].1.iter().product();
        assert!(n_cols > 0 && n % n_cols == 0, "the output's columns do not divide the input");
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32((n / n_cols) as i32);
        visitor.visit_i32(n_cols as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n_cols: usize = output_shape.iter().product();
        [n_cols.div_ceil(self.block_n as usize) as u32, 1, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `sum_cols_backward(dy, dx, n_rows, n_cols)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let n_cols: usize = output_shape.iter().product();
        let n: usize = inputs[0].1.iter().product();
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32((n / n_cols) as i32);
        visitor.visit_i32(n_cols as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        let n_cols: usize = output_shape.iter().product();
        let n: usize = input_shapes[0].iter().product();
        let row_blocks = (n / n_cols).div_ceil(self.block_r as usize);
        [row_blocks as u32, n_cols.div_ceil(self.block_n as usize) as u32, 1]
    }
}
