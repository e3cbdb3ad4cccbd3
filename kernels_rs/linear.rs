//! A fully connected layer, `y[M, N] = x[M, K] @ w[N, K]^T + b[N]`, all row-major
//! and contiguous (the layout of a linear layer's weight).
//!
//! The reduction over `K` is a counted `while` loop, as teenygrad's kernels often
//! write it; rs2triton turns it into a `for` over a range, which Triton can
//! software-pipeline (`num_stages`).

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `y = x @ w^T + b`, accumulated in `f32` and rounded to `D` once.
///
/// Grid: `[cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)]`. `BLOCK_K` must be at least 16.
#[kernel]
pub fn linear_forward<T: Triton, D: Num, const BLOCK_M: i32, const BLOCK_N: i32, const BLOCK_K: i32>(
    x_ptr: T::Pointer<D>,
    // the layer's weight, [N, K]
    w_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let rows = T::expand_dims(T::program_id(Axis::X) * BLOCK_M + T::arange(0, BLOCK_M), 1);
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_N + T::arange(0, BLOCK_N), 0);
    let ks = T::arange(0, BLOCK_K);
    let x_k = T::expand_dims(ks, 0); // [1, BLOCK_K]
    let w_k = T::expand_dims(ks, 1); // [BLOCK_K, 1]
    let x_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_K]); // masked lanes must add nothing to the dot
    let w_fill = T::zeros::<D>(&[BLOCK_K, BLOCK_N]);

    let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_N]);
    let mut k = 0;
    while k < K { // one BLOCK_K-wide slice of the reduction per iteration
        let x_mask = rows.lt(M) & (x_k + k).lt(K);
        let w_mask = (w_k + k).lt(K) & cols.lt(N);
        let x = T::load(x_ptr.add_offsets(rows * K + x_k + k), Some(x_mask), Some(x_fill), &[], None, None, None, false);
        // w^T: element (k, n) of the tile is w[n, k].
        let w = T::load(w_ptr.add_offsets(cols * K + w_k + k), Some(w_mask), Some(w_fill), &[], None, None, None, false);
        acc = T::dot::<D, f32>(x, w, Some(acc), InputPrecision::IEEE, None);
        k += BLOCK_K;
    }

    let bias = T::load(b_ptr.add_offsets(cols), Some(cols.lt(N)), None, &[], None, None, None, false);
    let y = acc + T::cast::<D, f32>(bias, None, false);
    let y_mask = rows.lt(M) & cols.lt(N);
    T::store(
        y_ptr.add_offsets(rows * N + cols),
        T::cast::<f32, D>(y, None, false), // rounded to D once
        Some(y_mask),
        &[],
        None,
        None,
    );
}

/// A linear layer as teenygrad's executor runs it: one input `[M, K]`, the parameters
/// `weight` `[N, K]` and `bias` `[N]`, the output `[M, N]`.
impl<D: Num + Send + Sync + 'static> teeny_core::model::RuntimeOp for LinearForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> Vec<Vec<usize>> {
        let k = *input_shapes[0].last().unwrap();
        let n = output_shape[output_shape.len() - 1];
        vec![vec![n, k], vec![n]]
    }

    fn param_names(&self) -> &'static [&'static str] {
        &["weight", "bias"]
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
        let (x, x_shape) = inputs[0];
        assert!(x_shape.len() == 2, "linear_forward takes a matrix");
        visitor.visit_ptr(x);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(params[1]);
        visitor.visit_ptr(output);
        visitor.visit_i32(x_shape[0] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(x_shape[1] as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let rows = output_shape[0].div_ceil(self.block_m as usize);
        let cols = output_shape[1].div_ceil(self.block_n as usize);
        [rows as u32, cols as u32, 1]
    }
}
