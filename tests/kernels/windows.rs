//! Ops the torch mapping has no row for, whose kernels address flat buffers under a bound
//! (`offsets < n_elements`): what `apply` checks the tensors against (tests/test_apply_bounds.py).

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `y = x * x`.
#[kernel]
pub fn square_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid = T::program_id(Axis::X);
    let offsets = T::arange(0, BLOCK_SIZE) + pid * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x * x, Some(mask), &[], None, None);
}

/// Two copies of `x`, one after the other in the output.
#[kernel]
pub fn twice_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    first_ptr: T::Pointer<D>,
    second_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid = T::program_id(Axis::X);
    let offsets = T::arange(0, BLOCK_SIZE) + pid * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(first_ptr.add_offsets(offsets), x, Some(mask), &[], None, None);
    T::store(second_ptr.add_offsets(offsets), x, Some(mask), &[], None, None);
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for SquareForward<D> {
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
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(n as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [n.div_ceil(self.block_size as usize) as u32, 1, 1]
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for TwiceForward<D> {
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
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let n: usize = inputs[0].1.iter().product();
        let second = unsafe { (output as *mut D).add(n) } as teeny_core::model::RawPtr;
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_ptr(second);
        visitor.visit_i32(n as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [(n / 2).div_ceil(self.block_size as usize) as u32, 1, 1]
    }
}

/// `y = x + x`, a row a program, addressed through the row (`row * n_cols + cols`) under the
/// column bound only: no mask bounds the whole buffer, so only the interpreter's check of each
/// access holds a launch to its tensors.
#[kernel]
pub fn rows_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_cols: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let mask = cols.lt(n_cols);
    let offsets = cols + row * n_cols;
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x + x, Some(mask), &[], None, None);
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for RowsForward<D> {
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
}
