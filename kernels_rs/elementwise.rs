//! Elementwise arithmetic and math, forward and backward: `a + b`, `a - b`, `a * b`, `a / b`,
//! `maximum`, `minimum`, and `exp`, `log`, `sqrt`, `abs`, `neg`, `sin`, `cos`, `erf`,
//! `reciprocal`, `sigmoid`, `tanh`, `silu` of one tensor; tanh's and sigmoid's gradients from `y`.
//!
//! Every kernel treats its buffers as flat 1-D arrays of `n` items, one program per
//! `BLOCK_SIZE`-wide block (grid: `[cdiv(n, BLOCK_SIZE)]`), and computes in `f32` whatever
//! `D` is, rounding to `D` once. Lanes past `n` read ones (which no function here turns into
//! an infinity or a NaN) and are never stored. The kernels and their `impl RuntimeOp` are
//! written by two macros, one for a function of one tensor and one for two: each invocation
//! names the forward and backward kernels, the forward's struct, and the expressions (in `f32`
//! tensors) of the value and of the gradients.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `$fwd(x, y, n)`: `y = f(x)`; `$bwd(dy, x, y, dx, n)`: `dx = f'(x) * dy`, where the gradient
/// expression reads the input `$x`, the output `$y` and `dy` as `$dy`.
macro_rules! unary_op {
    ($fwd:ident, $bwd:ident, $Fwd:ident, $Bwd:ident,
     |$x:ident| $value:expr, |$gx:ident, $y:ident, $dy:ident| $grad:expr) => {
        /// `y = f(x)` of one tensor, elementwise, computed in `f32`.
        #[kernel(backward = $Bwd)]
        pub fn $fwd<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n: i32)
        where
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offsets.lt(n);
            let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
            let x_raw = T::load(x_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $x = T::cast::<D, f32>(x_raw, None, false);
            T::store(y_ptr.add_offsets(offsets), T::cast::<f32, D>($value, None, false), Some(mask), &[], None, None);
        }

        /// `dx = f'(x) * dy`, from the input and the output of the forward.
        #[kernel]
        pub fn $bwd<T: Triton, D: Float, const BLOCK_SIZE: i32>(
            dy_ptr: T::Pointer<D>,
            x_ptr: T::Pointer<D>,
            y_ptr: T::Pointer<D>,
            dx_ptr: T::Pointer<D>,
            n: i32,
        ) where
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offsets.lt(n);
            let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
            let dy_raw = T::load(dy_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $dy = T::cast::<D, f32>(dy_raw, None, false);
            let x_raw = T::load(x_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $gx = T::cast::<D, f32>(x_raw, None, false);
            let y_raw = T::load(y_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $y = T::cast::<D, f32>(y_raw, None, false);
            T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>($grad, None, false), Some(mask), &[], None, None);
        }

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

            #[cfg(feature = "training")]
            fn pack_backward_args(
                &self,
                inputs: &[(teeny_core::model::RawPtr, &[usize])],
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
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(output);
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

/// `$fwd(a, b, out, n)`: `out = f(a, b)`; `$bwd(dy, a, b, da, db, n)`: both gradients, where
/// their expressions read the inputs `$a`, `$b` and `dy` as `$dy`.
macro_rules! binary_op {
    ($fwd:ident, $bwd:ident, $Fwd:ident, $Bwd:ident,
     |$a:ident, $b:ident| $value:expr, |$ga:ident, $gb:ident, $dy:ident| ($grad_a:expr, $grad_b:expr)) => {
        /// `out = f(a, b)` of two tensors of one shape, elementwise, computed in `f32`.
        #[kernel(backward = $Bwd)]
        pub fn $fwd<T: Triton, D: Float, const BLOCK_SIZE: i32>(
            a_ptr: T::Pointer<D>,
            b_ptr: T::Pointer<D>,
            out_ptr: T::Pointer<D>,
            n: i32,
        ) where
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offsets.lt(n);
            let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
            let a_raw = T::load(a_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $a = T::cast::<D, f32>(a_raw, None, false);
            let b_raw = T::load(b_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $b = T::cast::<D, f32>(b_raw, None, false);
            T::store(out_ptr.add_offsets(offsets), T::cast::<f32, D>($value, None, false), Some(mask), &[], None, None);
        }

        /// `da` and `db` of `dy`, from the forward's inputs.
        #[kernel]
        pub fn $bwd<T: Triton, D: Float, const BLOCK_SIZE: i32>(
            dy_ptr: T::Pointer<D>,
            a_ptr: T::Pointer<D>,
            b_ptr: T::Pointer<D>,
            da_ptr: T::Pointer<D>,
            db_ptr: T::Pointer<D>,
            n: i32,
        ) where
            T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
            T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
        {
            let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offsets.lt(n);
            let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
            let dy_raw = T::load(dy_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $dy = T::cast::<D, f32>(dy_raw, None, false);
            let a_raw = T::load(a_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $ga = T::cast::<D, f32>(a_raw, None, false);
            let b_raw = T::load(b_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
            let $gb = T::cast::<D, f32>(b_raw, None, false);
            T::store(da_ptr.add_offsets(offsets), T::cast::<f32, D>($grad_a, None, false), Some(mask), &[], None, None);
            T::store(db_ptr.add_offsets(offsets), T::cast::<f32, D>($grad_b, None, false), Some(mask), &[], None, None);
        }

        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $Fwd<D> {
            fn n_activation_inputs(&self) -> usize {
                2
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
                visitor.visit_ptr(inputs[1].0);
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
                visitor.visit_ptr(inputs[1].0);
                visitor.visit_ptr(grad_inputs[0]);
                visitor.visit_ptr(grad_inputs[1]);
                visitor.visit_i32(n as i32);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

binary_op!(
    // `out = a + b`.
    add_forward, add_backward, AddForward, AddBackward,
    |a, b| a + b, |_a, _b, dy| (dy, dy)
);
binary_op!(
    // `out = a - b`.
    sub_forward, sub_backward, SubForward, SubBackward,
    |a, b| a - b, |_a, _b, dy| (dy, T::zeros_like(dy) - dy)
);
binary_op!(
    // `out = a * b`.
    mul_forward, mul_backward, MulForward, MulBackward,
    |a, b| a * b, |a, b, dy| (dy * b, dy * a)
);
binary_op!(
    // `out = a / b`.
    div_forward, div_backward, DivForward, DivBackward,
    |a, b| a / b, |a, b, dy| (dy / b, T::zeros_like(dy) - dy * a / (b * b))
);
binary_op!(
    // `out = maximum(a, b)`. The gradient goes to the larger; on a tie, half to each (as torch's).
    maximum_forward, maximum_backward, MaximumForward, MaximumBackward,
    |a, b| T::maximum(a, b),
    |a, b, dy| (
        T::where_(a.eq(b), dy * 0.5f32, T::where_(a.gt(b), dy, T::zeros_like(dy))),
        T::where_(a.eq(b), dy * 0.5f32, T::where_(b.gt(a), dy, T::zeros_like(dy)))
    )
);
binary_op!(
    // `out = minimum(a, b)`. The gradient goes to the smaller; on a tie, half to each (as torch's).
    minimum_forward, minimum_backward, MinimumForward, MinimumBackward,
    |a, b| T::minimum(a, b),
    |a, b, dy| (
        T::where_(a.eq(b), dy * 0.5f32, T::where_(a.lt(b), dy, T::zeros_like(dy))),
        T::where_(a.eq(b), dy * 0.5f32, T::where_(b.lt(a), dy, T::zeros_like(dy)))
    )
);

unary_op!(
    // `y = exp(x)`.
    exp_forward, exp_backward, ExpForward, ExpBackward,
    |x| T::exp(x), |_x, y, dy| dy * y
);
unary_op!(
    // `y = ln(x)`.
    log_forward, log_backward, LogForward, LogBackward,
    |x| T::log(x), |x, _y, dy| dy / x
);
unary_op!(
    // `y = sqrt(x)`.
    sqrt_forward, sqrt_backward, SqrtForward, SqrtBackward,
    |x| T::sqrt(x), |_x, y, dy| dy * 0.5f32 / y
);
unary_op!(
    // `y = |x|`; its gradient at 0 is 0, as torch's.
    abs_forward, abs_backward, AbsForward, AbsBackward,
    |x| T::abs(x),
    |x, _y, dy| {
        let zero = T::zeros_like(dy);
        T::where_(x.gt(zero), dy, T::where_(x.lt(zero), zero - dy, zero))
    }
);
unary_op!(
    // `y = -x`.
    neg_forward, neg_backward, NegForward, NegBackward,
    |x| T::zeros_like(x) - x, |_x, _y, dy| T::zeros_like(dy) - dy
);
unary_op!(
    // `y = sin(x)`.
    sin_forward, sin_backward, SinForward, SinBackward,
    |x| T::sin(x), |x, _y, dy| dy * T::cos(x)
);
unary_op!(
    // `y = cos(x)`.
    cos_forward, cos_backward, CosForward, CosBackward,
    |x| T::cos(x), |x, _y, dy| T::zeros_like(dy) - dy * T::sin(x)
);
unary_op!(
    // `y = erf(x)`; `erf'(x) = 2 / sqrt(pi) * exp(-x^2)`.
    erf_forward, erf_backward, ErfForward, ErfBackward,
    |x| T::erf(x), |x, _y, dy| dy * 1.1283791670955126f32 * T::exp(T::zeros_like(x) - x * x)
);
unary_op!(
    // `y = 1 / x`.
    reciprocal_forward, reciprocal_backward, ReciprocalForward, ReciprocalBackward,
    |x| 1.0f32 / x, |_x, y, dy| T::zeros_like(dy) - dy * y * y
);
unary_op!(
    // `y = 1 / (1 + exp(-x))`.
    sigmoid_forward, sigmoid_backward, SigmoidForward, SigmoidBackward,
    |x| T::sigmoid(x), |_x, y, dy| dy * y * (1.0f32 - y)
);
unary_op!(
    // `y = tanh(x) = 2 * sigmoid(2x) - 1`.
    tanh_forward, tanh_backward, TanhForward, TanhBackward,
    |x| T::sigmoid(x * 2.0f32) * 2.0f32 - 1.0f32, |_x, y, dy| dy * (1.0f32 - y * y)
);
unary_op!(
    // `y = x * sigmoid(x)`.
    silu_forward, silu_backward, SiluForward, SiluBackward,
    |x| x * T::sigmoid(x), |x, _y, dy| dy * (T::sigmoid(x) * (1.0f32 + x * (1.0f32 - T::sigmoid(x))))
);

// The gradients of tanh and sigmoid from their output `y` (what ATen's `tanh_backward(dy, y)` and
// `sigmoid_backward(dy, y)` are given; the ops above take the input): each a function of two
// tensors, `dy` and `y`, with its own gradient (a second derivative).
binary_op!(
    // `dx = dy * (1 - y^2)`, tanh's gradient.
    tanh_grad_forward, tanh_grad_backward, TanhGradForward, TanhGradBackward,
    |dy, y| dy * (1.0f32 - y * y), |dy, y, g| (g * (1.0f32 - y * y), g * dy * y * -2.0f32)
);
binary_op!(
    // `dx = dy * y * (1 - y)`, sigmoid's gradient.
    sigmoid_grad_forward, sigmoid_grad_backward, SigmoidGradForward, SigmoidGradBackward,
    |dy, y| dy * y * (1.0f32 - y), |dy, y, g| (g * y * (1.0f32 - y), g * dy * (1.0f32 - y * 2.0f32))
);
