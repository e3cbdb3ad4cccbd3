//! A bias added along the last dimension, forward and backward: `y[r, c] = x[r, c] + b[c]` over
//! dense rows of `n_cols` (GPT-2's `addmm(bias, x, w)` is a matmul, then this).
//!
//! The backward gives `dx = dy` and `db[c] = sum over the rows of dy[r, c]`, each column block's
//! sum in `f32` over `BLOCK_R` rows at a time, rounded to `D` once.

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `y = x + b`, the bias broadcast over the rows.
///
/// Grid: `[cdiv(n_rows, BLOCK_R), cdiv(n_cols, BLOCK_N)]`.
#[kernel(backward = BiasAddBackward)]
pub fn bias_add_forward<T: Triton, D: Num, const BLOCK_R: i32, const BLOCK_N: i32>(
    x_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let rows = T::expand_dims(T::program_id(Axis::X) * BLOCK_R + T::arange(0, BLOCK_R), 1); // [BLOCK_R, 1]
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_N + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
    let mask = rows.lt(n_rows) & cols.lt(n_cols);
    let x = T::load(x_ptr.add_offsets(rows * n_cols + cols), Some(mask), None, &[], None, None, None, false);
    let b = T::load(b_ptr.add_offsets(cols), Some(cols.lt(n_cols)), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(rows * n_cols + cols), x + b, Some(mask), &[], None, None);
}

/// `dx = dy`, and `db` the column sums of `dy`: a program owns `BLOCK_N` columns and walks
/// every row.
///
/// Grid: `[cdiv(n_cols, BLOCK_N)]`.
#[kernel]
pub fn bias_add_backward<T: Triton, D: Num, const BLOCK_R: i32, const BLOCK_N: i32>(
    dy_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    db_ptr: T::Pointer<D>,
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
        let dy = T::load(dy_ptr.add_offsets(rows * n_cols + cols), Some(mask), Some(zero_fill), &[], None, None, None, false);
        T::store(dx_ptr.add_offsets(rows * n_cols + cols), dy, Some(mask), &[], None, None);
        acc += T::sum(T::cast::<D, f32>(dy, None, false), Some(0), false);
    }
    let db = T::expand_dims(T::cast::<f32, D>(acc, None, false), 0);
    T::store(db_ptr.add_offsets(cols), db, Some(cols.lt(n_cols)), &[], None, None);
}

/// As teenygrad's executor runs it: one input `[..., n_cols]`, the parameter `bias` of
/// `[n_cols]`, the output of the input's shape.
impl<D: Num + Send + Sync + 'static> teeny_core::model::RuntimeOp for BiasAddForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        let shape = input_shapes[0];
        vec![vec![shape[shape.len() - 1]]]
    }

    fn param_names(&self) -> &'static [&'static str] {
        &["bias"]
    }

    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
        input_shapes[0].to_vec()
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
        let n_cols = output_shape[output_shape.len() - 1];
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(output);
        visitor.visit_i32((n / n_cols) as i32);
        visitor.visit_i32(n_cols as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n_cols = output_shape[output_shape.len() - 1];
        let n: usize = output_shape.iter().product();
        let row_blocks = (n / n_cols).div_ceil(self.block_r as usize);
        [row_blocks as u32, n_cols.div_ceil(self.block_n as usize) as u32, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `bias_add_backward(dy, dx, db, n_rows, n_cols)`.
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
        grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let n_cols = output_shape[output_shape.len() - 1];
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_ptr(grad_params[0]);
        visitor.visit_i32((n / n_cols) as i32);
        visitor.visit_i32(n_cols as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        let n_cols = output_shape[output_shape.len() - 1];
        [n_cols.div_ceil(self.block_n as usize) as u32, 1, 1]
    }
}
