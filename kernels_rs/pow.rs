//! Powers, elementwise, forward and backward: `x ** p` for a scalar exponent `p`, and
//! `rsqrt(x) = x ** -0.5`.
//!
//! Flat kernels as in `elementwise.rs`: buffers of `n` items, one program per `BLOCK_SIZE`
//! block (grid: `[cdiv(n, BLOCK_SIZE)]`), computed in `f32` and rounded to `D` once; lanes past
//! `n` read ones and are never stored.
//!
//! `x ** p` follows `torch.pow`: `|x| ** p` from `exp2(p * log2|x|)`, negative for a negative
//! `x` and an odd integer `p`, NaN for a negative `x` and a fractional `p`, and 1 for `p == 0`
//! whatever `x` is.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `x ** p` of an `f32` tile, as `torch.pow` computes it.
fn pow_tile<TT: Triton, const BLOCK_SIZE: i32>(x: TT::Tensor<f32>, p: f32) -> TT::Tensor<f32> {
    let ps = TT::full(&[BLOCK_SIZE], p);
    let magnitude = TT::exp2(TT::log2(TT::abs(x)) * ps);
    let whole = TT::floor(ps).eq(ps);
    let odd = whole & (ps - TT::floor(ps * 0.5f32) * 2.0f32).ne(TT::zeros::<f32>(&[BLOCK_SIZE]));
    let nan = TT::full(&[BLOCK_SIZE], f32::NAN);
    let negative = TT::where_(odd, -magnitude, TT::where_(whole, magnitude, nan));
    let value = TT::where_(x.lt(TT::zeros::<f32>(&[BLOCK_SIZE])), negative, magnitude);
    TT::where_(ps.eq(TT::zeros::<f32>(&[BLOCK_SIZE])), TT::full(&[BLOCK_SIZE], 1.0f32), value)
}

/// `y = x ** exponent`.
#[kernel(backward = PowScalarBackward)]
pub fn pow_scalar_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n: i32,
    exponent: f32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
    let y = pow_tile::<T, BLOCK_SIZE>(T::cast::<D, f32>(x, None, false), exponent);
    T::store(y_ptr.add_offsets(offsets), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
}

/// `dx = exponent * x ** (exponent - 1) * dy` (0 for `exponent == 0`, as torch gives).
#[kernel]
pub fn pow_scalar_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
    x_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    n: i32,
    exponent: f32,
) where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
    let dy = T::cast::<D, f32>(T::load(dy_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false), None, false);
    let x = T::cast::<D, f32>(T::load(x_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false), None, false);
    let slope = pow_tile::<T, BLOCK_SIZE>(x, exponent - 1.0f32) * exponent;
    let dx = if exponent == 0.0f32 { T::zeros::<f32>(&[BLOCK_SIZE]) } else { slope * dy };
    T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>(dx, None, false), Some(mask), &[], None, None);
}

/// `y = 1 / sqrt(x)`.
#[kernel(backward = RsqrtBackward)]
pub fn rsqrt_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n: i32)
where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let ones = T::full(&[BLOCK_SIZE], D::ONE); // what lanes past `n` read
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false);
    let y = T::rsqrt(T::cast::<D, f32>(x, None, false));
    T::store(y_ptr.add_offsets(offsets), T::cast::<f32, D>(y, None, false), Some(mask), &[], None, None);
}

/// `dx = -0.5 * y ** 3 * dy`, from the forward's output `y`.
#[kernel]
pub fn rsqrt_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
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
    let dy = T::cast::<D, f32>(T::load(dy_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false), None, false);
    let y = T::cast::<D, f32>(T::load(y_ptr.add_offsets(offsets), Some(mask), Some(ones), &[], None, None, None, false), None, false);
    let dx = y * y * y * dy * -0.5f32;
    T::store(dx_ptr.add_offsets(offsets), T::cast::<f32, D>(dx, None, false), Some(mask), &[], None, None);
}

/// `x ** exponent` as teenygrad's executor runs it: one input, the output of its shape, the
/// exponent carried by the op.
pub struct PowScalarRuntimeOp<D: Float + Send + Sync + 'static> {
    pub fwd: PowScalarForward<D>,
    pub bwd: PowScalarBackward<D>,
    pub exponent: f32,
}

impl<D: Float + Send + Sync + 'static> PowScalarRuntimeOp<D> {
    pub fn new(block_size: i32, exponent: f32) -> Self {
        Self {
            fwd: PowScalarForward::<D>::new(block_size),
            bwd: PowScalarBackward::<D>::new(block_size),
            exponent,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for PowScalarRuntimeOp<D> {
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
        visitor.visit_f32(self.exponent);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [n.div_ceil(self.fwd.block_size as usize) as u32, 1, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `pow_scalar_backward(dy, x, dx, n, exponent)`.
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
        visitor.visit_f32(self.exponent);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}

/// `rsqrt` as teenygrad's executor runs it: one input, the output of its shape; the backward
/// reads the output.
impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for RsqrtForward<D> {
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

    /// `rsqrt_backward(dy, y, dx, n)`.
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
