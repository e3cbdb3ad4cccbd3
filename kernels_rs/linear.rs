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
#[kernel(backward = LinearBackward)]
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

/// Backward of `linear_forward`, from the input `x`, the weight `w` and the output's gradient
/// `dy`: `dx = dy @ w`, `dw = dy^T @ x`, `db = dy` summed over the rows, accumulated in `f32`.
///
/// Grid: `[max(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)) * cdiv(K, BLOCK_K), 2]`. A program with
/// `program_id(Y) == 0` writes one `[BLOCK_M, BLOCK_K]` tile of `dx`; one with `1` writes a
/// `[BLOCK_N, BLOCK_K]` tile of `dw` and, in the first column of tiles, `BLOCK_N` items of `db`.
#[kernel]
pub fn linear_backward<T: Triton, D: Num, const BLOCK_M: i32, const BLOCK_N: i32, const BLOCK_K: i32>(
    x_ptr: T::Pointer<D>,
    w_ptr: T::Pointer<D>,
    dy_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    dw_ptr: T::Pointer<D>,
    db_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let k_tiles = T::cdiv(K, BLOCK_K);
    let tile_k = T::program_id(Axis::X) % k_tiles;
    let tile_row = T::program_id(Axis::X) / k_tiles; // a row of tiles of dx (over M) or of dw (over N)
    let k_cols = T::expand_dims(tile_k * BLOCK_K + T::arange(0, BLOCK_K), 0); // [1, BLOCK_K]

    if T::program_id(Axis::Y) == 0 {
        if tile_row < T::cdiv(M, BLOCK_M) {
            let rows = T::expand_dims(tile_row * BLOCK_M + T::arange(0, BLOCK_M), 1); // [BLOCK_M, 1]
            let ns = T::arange(0, BLOCK_N);
            let dy_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_N]);
            let w_fill = T::zeros::<D>(&[BLOCK_N, BLOCK_K]);
            let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_K]);
            let mut n = 0;
            while n < N {
                let n_cols = T::expand_dims(ns + n, 0); // [1, BLOCK_N]
                let n_rows = T::expand_dims(ns + n, 1); // [BLOCK_N, 1]
                let dy_mask = rows.lt(M) & n_cols.lt(N);
                let dy = T::load(dy_ptr.add_offsets(rows * N + n_cols), Some(dy_mask), Some(dy_fill), &[], None, None, None, false);
                let w_mask = n_rows.lt(N) & k_cols.lt(K);
                let w = T::load(w_ptr.add_offsets(n_rows * K + k_cols), Some(w_mask), Some(w_fill), &[], None, None, None, false);
                acc = T::dot::<D, f32>(dy, w, Some(acc), InputPrecision::IEEE, None);
                n += BLOCK_N;
            }
            let dx_mask = rows.lt(M) & k_cols.lt(K);
            T::store(dx_ptr.add_offsets(rows * K + k_cols), T::cast::<f32, D>(acc, None, false), Some(dx_mask), &[], None, None);
        }
    } else if tile_row < T::cdiv(N, BLOCK_N) {
        let n_first = tile_row * BLOCK_N;
        let n_rows = T::expand_dims(n_first + T::arange(0, BLOCK_N), 1); // [BLOCK_N, 1]
        let ms = T::arange(0, BLOCK_M);
        let dy_fill = T::zeros::<D>(&[BLOCK_N, BLOCK_M]);
        let x_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_K]);
        let mut acc = T::zeros::<f32>(&[BLOCK_N, BLOCK_K]);
        let mut db = T::zeros::<f32>(&[BLOCK_N]);
        let mut m = 0;
        while m < M {
            let m_cols = T::expand_dims(ms + m, 0); // [1, BLOCK_M]
            let m_rows = T::expand_dims(ms + m, 1); // [BLOCK_M, 1]
            // dy^T: element (n, m) of the tile is dy[m, n].
            let dy_mask = m_cols.lt(M) & n_rows.lt(N);
            let dy_t = T::load(dy_ptr.add_offsets(m_cols * N + n_rows), Some(dy_mask), Some(dy_fill), &[], None, None, None, false);
            let x_mask = m_rows.lt(M) & k_cols.lt(K);
            let x = T::load(x_ptr.add_offsets(m_rows * K + k_cols), Some(x_mask), Some(x_fill), &[], None, None, None, false);
            acc = T::dot::<D, f32>(dy_t, x, Some(acc), InputPrecision::IEEE, None);
            db = db + T::sum(T::cast::<D, f32>(dy_t, None, false), Some(1), false);
            m += BLOCK_M;
        }
        let dw_mask = n_rows.lt(N) & k_cols.lt(K);
        T::store(dw_ptr.add_offsets(n_rows * K + k_cols), T::cast::<f32, D>(acc, None, false), Some(dw_mask), &[], None, None);
        if tile_k == 0 {
            let n_cols = T::expand_dims(n_first + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
            let db = T::expand_dims(T::cast::<f32, D>(db, None, false), 0);
            T::store(db_ptr.add_offsets(n_cols), db, Some(n_cols.lt(N)), &[], None, None);
        }
    }
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

    fn has_backward(&self) -> bool {
        true
    }

    // linear_backward(x, w, dy, dx, dw, db, M, N, K): the gradient buffers come zeroed.
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
        let (x, x_shape) = inputs[0];
        visitor.visit_ptr(x);
        visitor.visit_ptr(params[0]);
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_ptr(grad_params[0]);
        visitor.visit_ptr(grad_params[1]);
        visitor.visit_i32(x_shape[0] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(x_shape[1] as i32);
    }

    fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        let row_tiles = output_shape[0]
            .div_ceil(self.block_m as usize)
            .max(output_shape[1].div_ceil(self.block_n as usize));
        let k_tiles = input_shapes[0][1].div_ceil(self.block_k as usize);
        [(row_tiles * k_tiles) as u32, 2, 1]
    }
}
