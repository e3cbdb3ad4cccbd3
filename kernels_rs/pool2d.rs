//! 2-D max and average pooling of NCHW tensors: strided, zero- or `-inf`-padded; forward and
//! backward.
//!
//! Output element `(b, c, oh, ow)` pools the window of taps `(kh, kw)` at input position
//! `(oh * STRIDE_H + kh - PAD_H, ow * STRIDE_W + kw - PAD_W)` of plane `(b, c)`. Max pooling
//! leaves taps in the padding out; average pooling counts them as zeros (it divides by
//! `KH * KW` always, as PyTorch does with `count_include_pad`).
//!
//! Every kernel gives each program one plane `(b, c)` (grid axis Y, `B * C` planes) and
//! `BLOCK_P` of its `OH * OW` output positions, flattened row-major (grid axis X). Values are
//! compared and summed in `f32` whatever `D` is.

#![allow(non_snake_case)]

use core::ops::BitAnd;

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Max pooling: `y = max_pool2d(x)`.
///
/// Grid: `[cdiv(OH * OW, BLOCK_P), B * C]`.
#[kernel(backward = MaxPool2dBackward)]
pub fn max_pool2d_forward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const BLOCK_P: i32,
>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
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
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;
    let x_plane = plane * (H * W);

    let mut best = T::full(&[BLOCK_P], f32::NEG_INFINITY);
    for kh in 0..KH {
        let ih = oh * STRIDE_H + (kh - PAD_H);
        let row_ok = live & ih.ge(0) & ih.lt(H);
        for kw in 0..KW {
            let iw = ow * STRIDE_W + (kw - PAD_W);
            let ok = row_ok & iw.ge(0) & iw.lt(W);
            let x = T::load(
                x_ptr.add_offsets(ih * W + iw + x_plane),
                Some(ok),
                Some(T::zeros::<D>(&[BLOCK_P])),
                &[],
                None,
                None,
                None,
                false,
            );
            let x = T::where_(ok, T::cast::<D, f32>(x, None, false), T::full(&[BLOCK_P], f32::NEG_INFINITY));
            best = T::maximum(best, x);
        }
    }
    let y = T::cast::<f32, D>(best, None, false);
    T::store(y_ptr.add_offsets(p + plane * (OH * OW)), y, Some(live), &[], None, None);
}

/// Max pooling's gradient: each output position's `dy` goes to the first tap of its window
/// (in row-major order) that holds the maximum, as PyTorch routes it. Windows overlap when a
/// stride is smaller than the kernel, so the adds are atomic: `dx` must start zeroed.
///
/// Grid: the forward's, `[cdiv(OH * OW, BLOCK_P), B * C]`.
#[kernel]
pub fn max_pool2d_backward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const BLOCK_P: i32,
>(
    dy_ptr: T::Pointer<D>,
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
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
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;
    let x_plane = plane * (H * W);
    let out_at = p + plane * (OH * OW);
    let dy = T::load(dy_ptr.add_offsets(out_at), Some(live), Some(T::zeros::<D>(&[BLOCK_P])), &[], None, None, None, false);
    let y = T::load(y_ptr.add_offsets(out_at), Some(live), Some(T::zeros::<D>(&[BLOCK_P])), &[], None, None, None, false);
    let best = T::cast::<D, f32>(y, None, false);

    // 1 while a lane has not yet found its maximum, 0 after.
    let mut searching = T::full(&[BLOCK_P], 1i32);
    for kh in 0..KH {
        let ih = oh * STRIDE_H + (kh - PAD_H);
        let row_ok = live & ih.ge(0) & ih.lt(H);
        for kw in 0..KW {
            let iw = ow * STRIDE_W + (kw - PAD_W);
            let ok = row_ok & iw.ge(0) & iw.lt(W);
            let at = ih * W + iw + x_plane;
            let x = T::load(x_ptr.add_offsets(at), Some(ok), Some(T::zeros::<D>(&[BLOCK_P])), &[], None, None, None, false);
            let hit = ok & searching.gt(0) & T::cast::<D, f32>(x, None, false).eq(best);
            T::atomic_add(dx_ptr.add_offsets(at), dy, Some(hit), None, None);
            searching = T::where_(hit, T::zeros::<i32>(&[BLOCK_P]), searching);
        }
    }
}

/// Average pooling: `y = avg_pool2d(x)`, every window divided by `KH * KW`.
///
/// Grid: `[cdiv(OH * OW, BLOCK_P), B * C]`.
#[kernel(backward = AvgPool2dBackward)]
pub fn avg_pool2d_forward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const BLOCK_P: i32,
>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
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
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;
    let x_plane = plane * (H * W);

    let mut total = T::zeros::<f32>(&[BLOCK_P]);
    for kh in 0..KH {
        let ih = oh * STRIDE_H + (kh - PAD_H);
        let row_ok = live & ih.ge(0) & ih.lt(H);
        for kw in 0..KW {
            let iw = ow * STRIDE_W + (kw - PAD_W);
            let ok = row_ok & iw.ge(0) & iw.lt(W);
            let x = T::load(
                x_ptr.add_offsets(ih * W + iw + x_plane),
                Some(ok),
                Some(T::zeros::<D>(&[BLOCK_P])),
                &[],
                None,
                None,
                None,
                false,
            );
            total += T::cast::<D, f32>(x, None, false);
        }
    }
    let y = T::cast::<f32, D>(total / ((KH * KW) as f32), None, false);
    T::store(y_ptr.add_offsets(p + plane * (OH * OW)), y, Some(live), &[], None, None);
}

/// Average pooling's gradient: each tap of a window inside the image gets `dy / (KH * KW)`.
/// Windows overlap when a stride is smaller than the kernel, so the adds are atomic: `dx`
/// must start zeroed.
///
/// Grid: the forward's, `[cdiv(OH * OW, BLOCK_P), B * C]`.
#[kernel]
pub fn avg_pool2d_backward<
    T: Triton,
    D: Float,
    const KH: i32,
    const KW: i32,
    const STRIDE_H: i32,
    const STRIDE_W: i32,
    const PAD_H: i32,
    const PAD_W: i32,
    const BLOCK_P: i32,
>(
    dy_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
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
    let p = T::arange(0, BLOCK_P) + T::program_id(Axis::X) * BLOCK_P;
    let live = p.lt(OH * OW);
    let oh = p / OW;
    let ow = p % OW;
    let x_plane = plane * (H * W);
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
    let share = T::cast::<f32, D>(T::cast::<D, f32>(dy, None, false) / ((KH * KW) as f32), None, false);
    for kh in 0..KH {
        let ih = oh * STRIDE_H + (kh - PAD_H);
        let row_ok = live & ih.ge(0) & ih.lt(H);
        for kw in 0..KW {
            let iw = ow * STRIDE_W + (kw - PAD_W);
            let ok = row_ok & iw.ge(0) & iw.lt(W);
            T::atomic_add(dx_ptr.add_offsets(ih * W + iw + x_plane), share, Some(ok), None, None);
        }
    }
}

/// How teenygrad's executor launches a pooling kernel (and, for training, its backward):
/// one input `[B, C, H, W]`, no parameters, output `[B, C, OH, OW]`. `$backward_args` visits
/// what the backward kernel takes ahead of `H, W, OH, OW`.
macro_rules! impl_pool2d_op {
    ($Fwd:ident, |$inputs:ident, $output:ident, $grad_output:ident, $grad_inputs:ident, $visitor:ident| $backward_args:block) => {
        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $Fwd<D> {
            fn n_activation_inputs(&self) -> usize {
                1
            }

            fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
                Vec::new()
            }

            /// `OH = (H + 2 * PAD_H - KH) / STRIDE_H + 1`, and `OW` likewise.
            fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
                let x = input_shapes[0];
                let oh = (x[2] + 2 * self.pad_h as usize - self.kh as usize) / self.stride_h as usize + 1;
                let ow = (x[3] + 2 * self.pad_w as usize - self.kw as usize) / self.stride_w as usize + 1;
                vec![x[0], x[1], oh, ow]
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
                let x = inputs[0].1;
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(output);
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

            #[cfg(feature = "training")]
            fn pack_backward_args(
                &self,
                $inputs: &[(teeny_core::model::RawPtr, &[usize])],
                _params: &[teeny_core::model::RawPtr],
                $output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                $grad_output: teeny_core::model::RawPtr,
                _grad_output_row_stride: i32,
                $grad_inputs: &[teeny_core::model::RawPtr],
                _grad_params: &[teeny_core::model::RawPtr],
                $visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let x = $inputs[0].1;
                $backward_args
                $visitor.visit_i32(x[2] as i32);
                $visitor.visit_i32(x[3] as i32);
                $visitor.visit_i32(output_shape[2] as i32);
                $visitor.visit_i32(output_shape[3] as i32);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

// `max_pool2d_backward(dy, x, y, dx, H, W, OH, OW)`: the saved input and output find the maximum.
impl_pool2d_op!(MaxPool2dForward, |inputs, output, grad_output, grad_inputs, visitor| {
    visitor.visit_ptr(grad_output);
    visitor.visit_ptr(inputs[0].0);
    visitor.visit_ptr(output);
    visitor.visit_ptr(grad_inputs[0]);
});

// `avg_pool2d_backward(dy, dx, H, W, OH, OW)`.
impl_pool2d_op!(AvgPool2dForward, |inputs, output, grad_output, grad_inputs, visitor| {
    visitor.visit_ptr(grad_output);
    visitor.visit_ptr(grad_inputs[0]);
});
