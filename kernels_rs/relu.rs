//! ReLU activation, forward and backward.
//!
//! Both kernels treat their buffers as flat, contiguous 1-D arrays of
//! `n_elements` items; one program per `BLOCK_SIZE`-wide block.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Forward: `y = max(x, 0)`, NaN kept as torch keeps it (`x < 0` is false for a NaN, so it is
/// passed through; `T::maximum` would drop it, as Rust's `f32::max` does).
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel(backward = ReluBackward)]
pub fn relu_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Tensor<D>: Comparison<D, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid = T::program_id(Axis::X);
    let offsets = T::arange(0, BLOCK_SIZE) + pid * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);

    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let zero = T::full(&[BLOCK_SIZE], D::ZERO);
    let y = T::where_(x.lt(zero), zero, x);

    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// Backward: `dx = dy` where the forward output was positive, else `0`.
///
/// Uses the saved forward *output* `y` (`y > 0` exactly when `x > 0`).
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel]
pub fn relu_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Tensor<D>: Comparison<D, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid = T::program_id(Axis::X);
    let offsets = T::arange(0, BLOCK_SIZE) + pid * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);

    let dy = T::load(dy_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let y = T::load(y_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);

    // Gradient flows only through the units that were active.
    let active = y.gt(T::zeros_like(y));
    let dx = T::where_(active, dy, T::zeros_like(dy));

    T::store(dx_ptr.add_offsets(offsets), dx, Some(mask), &[], None, None);
}

/// Pairs the forward and backward kernels for the autograd runtime.
pub struct ReluOp<D: Float + Send + Sync + 'static> {
    pub forward: ReluForward<D>,
    pub backward: ReluBackward<D>,
}

impl<D: Float + Send + Sync + 'static> ReluOp<D> {
    pub fn new(block_size: i32) -> Self {
        Self {
            forward: ReluForward::<D>::new(block_size),
            backward: ReluBackward::<D>::new(block_size),
        }
    }
}

/// How teenygrad's executor launches `relu_forward` (and, for training, `relu_backward`):
/// one input, no parameters, one program per `BLOCK_SIZE` elements.
impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for ReluForward<D> {
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

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `relu_backward(dy, y, dx, n)`: the saved output stands for the input's sign.
    #[cfg(feature = "training")]
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
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(n as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn relu_is_idempotent_on_scalars() {
        let r = |v: f32| if v > 0.0 { v } else { 0.0 };
        assert_eq!(r(r(-1.5)), r(-1.5));
        assert_eq!(r(r(2.0)), 2.0);
    }
}
