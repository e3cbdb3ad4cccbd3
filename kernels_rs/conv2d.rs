//! 2-D convolution of NCHW tensors: grouped, strided, zero-padded; forward and backward.
//!
//! Output element `(b, co, oh, ow)` is the sum, over the input channels `ci` of the group
//! `co` belongs to and over the taps `(kh, kw)`, of
//! `x[b, ci, oh * STRIDE_H + kh - PAD_H, ow * STRIDE_W + kw - PAD_W] * w[co, ci_in_group, kh, kw]`;
//! a tap that falls in the padding reads zero. The weight is `[C_OUT, C_IN / G, KH, KW]`.
//!
//! Both kernels give each program one output plane `(b, co)` (grid axis Y, `B * C_OUT`
//! planes) and `BLOCK_P` of its `OH * OW` positions, flattened row-major (grid axis X).
//! Products are summed in `f32` whatever `D` is.

#![allow(non_snake_case)]

use core::ops::BitAnd;

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Forward: `y = conv2d(x, w)`.
///
/// Grid: `[cdiv(OH * OW, BLOCK_P), B * C_OUT]`.
#[kernel(backward = Conv2dBackward)]
pub fn conv2d_forward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const G: i32,
    const BLOCK_P: i32,
>(
    x_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    C_IN: i32,
    C_OUT: i32,
    H: i32,
    W: i32,
    OH: i32,
    OW: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::BoolTensor: BitAnd<Output = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let plane = T::program_id(Axis::Y);
    let co = plane % C_OUT;
    let b = plane / C_OUT;
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;

    let per_group = C_IN / G;
    let first_ci = (co / (C_OUT / G)) * per_group;
    let mut acc = T::zeros::<f32>(&[BLOCK_P]);
    for ci in 0..per_group {
        let x_rows = (b * C_IN + first_ci + ci) * H;
        for kh in 0..KH {
            let ih = oh * STRIDE_H + (kh - PAD_H);
            let row_ok = live & ih.ge(0) & ih.lt(H);
            for kw in 0..KW {
                let iw = ow * STRIDE_W + (kw - PAD_W);
                let ok = row_ok & iw.ge(0) & iw.lt(W);
                let x = T::load(
                    x_ptr.add_offsets((ih + x_rows) * W + iw),
                    Some(ok),
                    Some(T::zeros::<D>(&[BLOCK_P])),
                    &[],
                    None,
                    None,
                    None,
                    false,
                );
                // One weight per (ci, kh, kw) for the whole plane: loaded once, broadcast.
                let tap = ((co * per_group + ci) * KH + kh) * KW + kw;
                let w = T::load(w_ptr.add_offsets(T::arange(0, 1) + tap), None, None, &[], None, None, None, false);
                let w_all = T::broadcast_to(w, &[BLOCK_P]);
                acc += T::cast::<D, f32>(x, None, false) * T::cast::<D, f32>(w_all, None, false);
            }
        }
    }
    let y = T::cast::<f32, D>(acc, None, false);
    T::store(y_ptr.add_offsets(p + plane * (OH * OW)), y, Some(live), &[], None, None);
}

/// Backward: `dx` and `dw` from `dy`, by the forward's loops run the other way: each
/// program scatters `dy * w` into `dx` at the taps its positions read, and adds
/// `sum(dy * x)` over its positions into each weight. Both sums cross programs, so both
/// go through atomic adds: `dx` and `dw` must start zeroed.
///
/// Grid: the forward's, `[cdiv(OH * OW, BLOCK_P), B * C_OUT]`.
#[kernel]
pub fn conv2d_backward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const G: i32,
    const BLOCK_P: i32,
>(
    dy_ptr: T::Pointer<D>,
    x_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    dw_ptr: T::Pointer<D>,
    C_IN: i32,
    C_OUT: i32,
    H: i32,
    W: i32,
    OH: i32,
    OW: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::BoolTensor: BitAnd<Output = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let plane = T::program_id(Axis::Y);
    let co = plane % C_OUT;
    let b = plane / C_OUT;
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;
    let dy = T::load(
        dy_ptr.add_offsets(p + plane * (OH * OW)),
        Some(live),
        Some(T::zeros::<D>(&[BLOCK_P])),
        &[],
        None,
        None,
        None,
        false,
    );
    let dy32 = T::cast::<D, f32>(dy, None, false);

    let per_group = C_IN / G;
    let first_ci = (co / (C_OUT / G)) * per_group;
    for ci in 0..per_group {
        let x_rows = (b * C_IN + first_ci + ci) * H;
        for kh in 0..KH {
            let ih = oh * STRIDE_H + (kh - PAD_H);
            let row_ok = live & ih.ge(0) & ih.lt(H);
            for kw in 0..KW {
                let iw = ow * STRIDE_W + (kw - PAD_W);
                let ok = row_ok & iw.ge(0) & iw.lt(W);
                let at = (ih + x_rows) * W + iw;
                let tap = ((co * per_group + ci) * KH + kh) * KW + kw;
                let w = T::load(w_ptr.add_offsets(T::arange(0, 1) + tap), None, None, &[], None, None, None, false);
                let w_all = T::cast::<D, f32>(T::broadcast_to(w, &[BLOCK_P]), None, false);
                // Distinct positions of one plane read distinct taps: no lane adds twice here.
                T::atomic_add(dx_ptr.add_offsets(at), T::cast::<f32, D>(dy32 * w_all, None, false), Some(ok), None, None);

                let x = T::load(
                    x_ptr.add_offsets(at),
                    Some(ok),
                    Some(T::zeros::<D>(&[BLOCK_P])),
                    &[],
                    None,
                    None,
                    None,
                    false,
                );
                let partial = T::sum(dy32 * T::cast::<D, f32>(x, None, false), Some(0), false);
                let dw = T::cast::<f32, D>(T::expand_dims(partial, 0), None, false);
                T::atomic_add(dw_ptr.add_offsets(T::arange(0, 1) + tap), dw, None, None, None);
            }
        }
    }
}

/// How teenygrad's executor launches `conv2d_forward` (and, for training, `conv2d_backward`):
/// one input `[B, C_IN, H, W]`, one parameter (the weight), output `[B, C_OUT, OH, OW]`.
impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for Conv2dForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> Vec<Vec<usize>> {
        let c_in = input_shapes[0][1];
        vec![vec![output_shape[1], c_in / self.g as usize, self.kh as usize, self.kw as usize]]
    }

    fn param_names(&self) -> &'static [&'static str] {
        &["weight"]
    }

    /// `OH = (H + 2 * PAD_H - KH) / STRIDE_H + 1`, and `OW` likewise; `C_OUT` is the graph's.
    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], resolved: &[usize]) -> Vec<usize> {
        let x = input_shapes[0];
        let oh = (x[2] + 2 * self.pad_h as usize - self.kh as usize) / self.stride_h as usize + 1;
        let ow = (x[3] + 2 * self.pad_w as usize - self.kw as usize) / self.stride_w as usize + 1;
        vec![x[0], resolved[1], oh, ow]
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
        let x = inputs[0].1;
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(output);
        visitor.visit_i32(x[1] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(x[2] as i32);
        visitor.visit_i32(x[3] as i32);
        visitor.visit_i32(output_shape[2] as i32);
        visitor.visit_i32(output_shape[3] as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let positions = output_shape[2] * output_shape[3];
        [
            positions.div_ceil(self.block_p as usize) as u32,
            (output_shape[0] * output_shape[1]) as u32,
            1,
        ]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `conv2d_backward(dy, x, w, dx, dw, C_IN, C_OUT, H, W, OH, OW)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let x = inputs[0].1;
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_ptr(grad_params[0]);
        visitor.visit_i32(x[1] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(x[2] as i32);
        visitor.visit_i32(x[3] as i32);
        visitor.visit_i32(output_shape[2] as i32);
        visitor.visit_i32(output_shape[3] as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}
