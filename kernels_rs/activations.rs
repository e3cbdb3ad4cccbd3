//! Smooth activations built from `exp`, `log` and `sigmoid`: softplus, log-sigmoid,
//! mish, GELU (tanh form), ELU and CELU, forward only.
//!
//! Every kernel treats its buffers as flat 1-D arrays of `n_elements` items, one
//! program per `BLOCK_SIZE`-wide block. They are written the way teenygrad's own
//! activations are (constants as `T::full` tensors of `D`), so in `f16` they exercise
//! chains of f32-only math: `log(1 + exp(x))` must not overflow where torch does not.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Softplus: `y = log(1 + exp(beta * x)) / beta`.
#[kernel]
pub fn softplus_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
    beta: f32, // sharpness; 1.0 is torch's default
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let one = T::full(&[BLOCK_SIZE], D::ONE);
    let beta_t = T::full(&[BLOCK_SIZE], D::from_f64(beta as f64));
    let inv_beta = T::full(&[BLOCK_SIZE], D::from_f64(1.0 / beta as f64));
    let y = T::log(one + T::exp(x * beta_t)) * inv_beta;
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// Log-sigmoid: `y = -log(1 + exp(-x))`.
#[kernel]
pub fn logsigmoid_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let one = T::full(&[BLOCK_SIZE], D::ONE);
    let zero = T::zeros_like(x);
    let y = zero - T::log(one + T::exp(zero - x));
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// Mish: `y = x * tanh(softplus(x))`. With `e = exp(x)` and `n = e * (e + 2)`,
/// `tanh(log(1 + e)) = n / (n + 2)`, which has no cancellation for small `e`;
/// above 20, `y = x` to working precision (and `n` would overflow above 44).
#[kernel]
pub fn mish_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let two = T::full(&[BLOCK_SIZE], D::from_f64(2.0));
    let linear = x.gt(T::full(&[BLOCK_SIZE], D::from_f64(20.0)));
    let e = T::exp(x);
    let n = e * (e + two);
    let y = T::where_(linear, x, x * n / (n + two));
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// GELU, tanh approximation: `y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`,
/// with `0.5 (1 + tanh(v)) = sigmoid(2v)`.
#[kernel]
pub fn gelu_tanh_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let c = T::full(&[BLOCK_SIZE], D::from_f64(0.044715));
    let k = T::full(&[BLOCK_SIZE], D::from_f64(1.5957691216057308)); // 2 * sqrt(2 / pi)
    let u = (x + c * x * x * x) * k;
    let y = x * T::sigmoid(u);
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// ELU: `y = x` where `x > 0`, else `alpha * (exp(x) - 1)`.
#[kernel]
pub fn elu_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
    alpha: f32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let one = T::full(&[BLOCK_SIZE], D::ONE);
    let alpha_t = T::full(&[BLOCK_SIZE], D::from_f64(alpha as f64));
    let positive = T::gt(x, T::zeros_like(x));
    let y = T::where_(positive, x, alpha_t * (T::exp(x) - one));
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

/// CELU: `y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`.
#[kernel]
pub fn celu_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
    alpha: f32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let zero = T::zeros_like(x);
    let one = T::full(&[BLOCK_SIZE], D::ONE);
    let alpha_t = T::full(&[BLOCK_SIZE], D::from_f64(alpha as f64));
    let inv_alpha = T::full(&[BLOCK_SIZE], D::from_f64(1.0 / alpha as f64));
    let negative_part = alpha_t * (T::exp(x * inv_alpha) - one);
    let y = T::maximum(zero, x) + T::minimum(zero, negative_part);
    T::store(y_ptr.add_offsets(offsets), y, Some(mask), &[], None, None);
}

// ── RuntimeOp: how teenygrad's executor would launch these ─────────────────────
//
// All six are flat: one input, the output of its shape, no parameters, one program per
// `BLOCK_SIZE` elements. The three without a scalar argument are their own ops; softplus,
// ELU and CELU carry theirs in a wrapper struct built by `new`.

/// `impl RuntimeOp` for a flat one-input kernel whose only argument after the two
/// buffers is the element count.
macro_rules! impl_flat_unary_op {
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
    };
}

impl_flat_unary_op!(LogsigmoidForward);
impl_flat_unary_op!(MishForward);
impl_flat_unary_op!(GeluTanhForward);

/// A flat activation with one `f32` argument (softplus' `beta`, ELU's and CELU's `alpha`),
/// visited after the element count.
macro_rules! scalar_activation_op {
    ($Op:ident, $Fwd:ident, $field:ident) => {
        pub struct $Op<D: Float + Send + Sync + 'static> {
            pub kernel: $Fwd<D>,
            pub $field: f32,
        }

        impl<D: Float + Send + Sync + 'static> $Op<D> {
            pub fn new(block_size: i32, $field: f32) -> Self {
                Self {
                    kernel: $Fwd::<D>::new(block_size),
                    $field,
                }
            }
        }

        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $Op<D> {
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
                visitor.visit_f32(self.$field);
            }

            fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
                let n: usize = output_shape.iter().product();
                [n.div_ceil(self.kernel.block_size as usize) as u32, 1, 1]
            }
        }
    };
}

scalar_activation_op!(SoftplusRuntimeOp, SoftplusForward, beta);
scalar_activation_op!(EluRuntimeOp, EluForward, alpha);
scalar_activation_op!(CeluRuntimeOp, CeluForward, alpha);
