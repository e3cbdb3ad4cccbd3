//! Smooth activations built from `exp`, `log` and `sigmoid`: softplus, log-sigmoid,
//! mish, GELU (tanh form; and exact, from `erf`), ELU and CELU, forward and backward.
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
#[kernel(backward = SoftplusBackward)]
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
#[kernel(backward = LogsigmoidBackward)]
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
#[kernel(backward = MishBackward)]
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
#[kernel(backward = GeluTanhBackward)]
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

/// GELU, exact: `y = x Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))`, in `f32` (Triton's `erf` takes
/// no `f16`), rounded once to `D` as torch does.
#[kernel(backward = GeluErfBackward)]
pub fn gelu_erf_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n_elements);
    let x_raw = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let x = T::cast::<D, f32>(x_raw, None, false);
    let y = x * 0.5f32 * (T::erf(x * 0.7071067811865476f32) + 1.0f32); // 1 / sqrt(2)
    T::store(y_ptr.add_offsets(offsets), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
}

/// ELU: `y = x` where `x > 0`, else `alpha * (exp(x) - 1)`.
#[kernel(backward = EluBackward)]
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
#[kernel(backward = CeluBackward)]
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

// ── Backward: `dx = f'(x) * dy`, in `f32` ──────────────────────────────────────────

/// A backward kernel `$bwd(dy, x, dx, n_elements[, scalar])`: the gradient expression reads the
/// input as `$x` and `dy` as `$dy` (both `f32`), and the forward's scalar, if it has one.
macro_rules! activation_backward {
    ($bwd:ident, |$x:ident, $dy:ident| $grad:expr) => {
        activation_backward!(@kernel $bwd, (), |$x, $dy| $grad);
    };
    ($bwd:ident, $scalar:ident, |$x:ident, $dy:ident| $grad:expr) => {
        activation_backward!(@kernel $bwd, ($scalar: f32), |$x, $dy| $grad);
    };
    (@kernel $bwd:ident, ($($scalar:ident: $ty:ty)?), |$x:ident, $dy:ident| $grad:expr) => {
        /// `dx = f'(x) * dy` of the activation, elementwise, in `f32`.
        #[kernel]
        pub fn $bwd<T: Triton, D: Float, const BLOCK_SIZE: i32>(
            dy_ptr: T::Pointer<D>,
            x_ptr: T::Pointer<D>,
            dx_ptr: T::Pointer<D>,
            n_elements: i32,
            $($scalar: $ty,)?
        ) where
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offsets.lt(n_elements);
            let dy_raw = T::load(dy_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
            let x_raw = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
            let $dy = T::cast::<D, f32>(dy_raw, None, false);
            let $x = T::cast::<D, f32>(x_raw, None, false);
            T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>($grad, None, false), Some(mask), &[], None, None);
        }
    };
}

// softplus' derivative is sigmoid(beta x).
activation_backward!(softplus_backward, beta, |x, dy| dy * T::sigmoid(x * beta));
// log-sigmoid's is sigmoid(-x).
activation_backward!(logsigmoid_backward, |x, dy| dy * T::sigmoid(T::zeros_like(x) - x));
// mish's, with t = tanh(softplus(x)) = n / (n + 2), n = e (e + 2), e = exp(x): t + x sigmoid(x) (1 - t^2);
// above 20 it is 1, as the forward is x there.
activation_backward!(mish_backward, |x, dy| {
    let linear = x.gt(T::full(&[BLOCK_SIZE], 20.0f32));
    let e = T::exp(T::where_(linear, T::zeros_like(x), x));
    let n = e * (e + 2.0f32);
    let t = n / (n + 2.0f32);
    let slope = T::where_(linear, T::full(&[BLOCK_SIZE], 1.0f32), t + x * T::sigmoid(x) * (1.0f32 - t * t));
    dy * slope
});
// GELU's (tanh form), with u = k (x + c x^3) and s = sigmoid(u): s + x s (1 - s) k (1 + 3 c x^2).
activation_backward!(gelu_tanh_backward, |x, dy| {
    let k = 1.5957691216057308f32; // 2 * sqrt(2 / pi)
    let s = T::sigmoid((x + 0.044715f32 * x * x * x) * k);
    dy * (s + x * s * (1.0f32 - s) * k * (1.0f32 + 0.134145f32 * x * x))
});
// exact GELU's is Phi(x) + x phi(x): the normal distribution's CDF and density.
activation_backward!(gelu_erf_backward, |x, dy| {
    let cdf = (T::erf(x * 0.7071067811865476f32) + 1.0f32) * 0.5f32;
    let pdf = T::exp(x * x * -0.5f32) * 0.3989422804014327f32; // 1 / sqrt(2 pi)
    dy * (cdf + x * pdf)
});
// ELU's is 1 above 0, else alpha exp(x).
activation_backward!(elu_backward, alpha, |x, dy| {
    T::where_(x.gt(T::zeros_like(x)), dy, dy * T::exp(x) * alpha)
});
// CELU's is 1 above 0, else exp(x / alpha).
activation_backward!(celu_backward, alpha, |x, dy| {
    T::where_(x.gt(T::zeros_like(x)), dy, dy * T::exp(x / alpha))
});

// ── RuntimeOp: how teenygrad's executor would launch these ─────────────────────
//
// All seven are flat: one input, the output of its shape, no parameters, one program per
// `BLOCK_SIZE` elements. The four without a scalar argument are their own ops; softplus,
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

            #[cfg(feature = "training")]
            fn has_backward(&self) -> bool {
                true
            }

            /// The backward kernel's `(dy, x, dx, n_elements)`.
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
                let n: usize = output_shape.iter().product();
                visitor.visit_ptr(grad_output);
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(grad_inputs[0]);
                visitor.visit_i32(n as i32);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

impl_flat_unary_op!(LogsigmoidForward);
impl_flat_unary_op!(MishForward);
impl_flat_unary_op!(GeluTanhForward);
impl_flat_unary_op!(GeluErfForward);

/// A flat activation with one `f32` argument (softplus' `beta`, ELU's and CELU's `alpha`),
/// visited after the element count.
macro_rules! scalar_activation_op {
    ($Op:ident, $Fwd:ident, $Bwd:ident, $field:ident) => {
        pub struct $Op<D: Float + Send + Sync + 'static> {
            pub kernel: $Fwd<D>,
            pub bwd: $Bwd<D>,
            pub $field: f32,
        }

        impl<D: Float + Send + Sync + 'static> $Op<D> {
            pub fn new(block_size: i32, $field: f32) -> Self {
                Self {
                    kernel: $Fwd::<D>::new(block_size),
                    bwd: $Bwd::<D>::new(block_size),
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

            #[cfg(feature = "training")]
            fn has_backward(&self) -> bool {
                true
            }

            /// The backward kernel's `(dy, x, dx, n_elements, scalar)`.
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
                let n: usize = output_shape.iter().product();
                visitor.visit_ptr(grad_output);
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(grad_inputs[0]);
                visitor.visit_i32(n as i32);
                visitor.visit_f32(self.$field);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

scalar_activation_op!(SoftplusRuntimeOp, SoftplusForward, SoftplusBackward, beta);
scalar_activation_op!(EluRuntimeOp, EluForward, EluBackward, alpha);
scalar_activation_op!(CeluRuntimeOp, CeluForward, CeluBackward, alpha);
