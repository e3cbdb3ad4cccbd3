//! Batched matrix multiply `C[b] = A[b] @ B[b]` (`A[b]: [M, K]`, `B[b]: [K, N]`), forward and
//! backward: the backward gives both `dA = dC @ B^T` and `dB = A^T @ dC` in one launch.
//!
//! Each matrix is dense and row-major; consecutive matrices of a batch are `stride_ab` (for `A`)
//! and `stride_bb` (for `B`) elements apart, and a stride of 0 broadcasts one matrix over the
//! batch (a `[batch, M, K] @ [K, N]` product, the weight of a layer shared by every batch entry).
//! `C` and `dC` are dense `[batch, M, N]`. A plain matrix product is a batch of one. The element
//! types are those `dot` takes: `f32`, `f16`, `bf16`.

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `C[b] = A[b] @ B[b]`, accumulated in `f32` and rounded to `D` once.
///
/// Grid: `[cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), batch]` — program `(x, y, z)` owns the output tile
/// at row `x * BLOCK_M`, column `y * BLOCK_N` of matrix `z`. Each block size must be at least 16.
#[kernel(dtypes = [f32, f16, bf16], backward = BmmBackward)]
pub fn bmm_forward<T: Triton, D: Num, const BLOCK_M: i32, const BLOCK_N: i32, const BLOCK_K: i32>(
    a_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    c_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
    stride_ab: i32,
    stride_bb: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let batch = T::program_id(Axis::Z);
    let a_first = batch * stride_ab;
    let b_first = batch * stride_bb;
    let rows = T::expand_dims(T::program_id(Axis::X) * BLOCK_M + T::arange(0, BLOCK_M), 1); // [BLOCK_M, 1]
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_N + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
    let ks = T::arange(0, BLOCK_K);
    let a_k = T::expand_dims(ks, 0); // [1, BLOCK_K]
    let b_k = T::expand_dims(ks, 1); // [BLOCK_K, 1]
    let a_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_K]); // masked lanes must add nothing to the dot
    let b_fill = T::zeros::<D>(&[BLOCK_K, BLOCK_N]);

    let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_N]);
    for kt in 0..T::cdiv(K, BLOCK_K) {
        let k = kt * BLOCK_K;
        let a_mask = rows.lt(M) & (a_k + k).lt(K);
        let b_mask = (b_k + k).lt(K) & cols.lt(N);
        let a = T::load(a_ptr.add_offsets(rows * K + a_k + (k + a_first)), Some(a_mask), Some(a_fill), &[], None, None, None, false);
        let b = T::load(b_ptr.add_offsets((b_k + k) * N + cols + b_first), Some(b_mask), Some(b_fill), &[], None, None, None, false);
        acc = T::dot::<D, f32>(a, b, Some(acc), InputPrecision::IEEE, None);
    }

    let c_mask = rows.lt(M) & cols.lt(N);
    T::store(
        c_ptr.add_offsets(rows * N + cols + batch * M * N),
        T::cast::<f32, D>(acc, None, false), // rounded to D once
        Some(c_mask),
        &[],
        None,
        None,
    );
}

/// Backward of `bmm_forward` from `A`, `B` and the output's gradient `dC`: `dA = dC @ B^T` and
/// `dB = A^T @ dC`, each accumulated in `f32`. A broadcast operand (batch stride 0) gets the sum
/// of its gradients over the batch, which the program of batch 0 accumulates alone.
///
/// Grid: `[max(cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)) * cdiv(K, BLOCK_K), 2, batch]`. A program
/// with `program_id(Y) == 0` writes one `[BLOCK_M, BLOCK_K]` tile of `dA`, one with `1` a
/// `[BLOCK_K, BLOCK_N]` tile of `dB`; `program_id(Z)` is the batch entry.
#[kernel(dtypes = [f32, f16, bf16])]
pub fn bmm_backward<T: Triton, D: Num, const BLOCK_M: i32, const BLOCK_N: i32, const BLOCK_K: i32>(
    a_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    dc_ptr: T::Pointer<D>,
    da_ptr: T::Pointer<D>,
    db_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
    stride_ab: i32,
    stride_bb: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let batch = T::program_id(Axis::Z);
    let n_batch = T::num_programs(Axis::Z);
    let k_tiles = T::cdiv(K, BLOCK_K);
    let tile = T::program_id(Axis::X);

    if T::program_id(Axis::Y) == 0 {
        // dA[m, k] = sum over n (and over the batch where A is broadcast) of dC[m, n] * B[k, n].
        let tile_m = tile / k_tiles;
        if tile_m < T::cdiv(M, BLOCK_M) && (stride_ab != 0 || batch == 0) {
            let first = if stride_ab == 0 { 0 } else { batch };
            let last = if stride_ab == 0 { n_batch } else { batch + 1 };
            let rows = T::expand_dims(tile_m * BLOCK_M + T::arange(0, BLOCK_M), 1); // [BLOCK_M, 1]
            let k_cols = T::expand_dims((tile % k_tiles) * BLOCK_K + T::arange(0, BLOCK_K), 0); // [1, BLOCK_K]
            let ns = T::arange(0, BLOCK_N);
            let dc_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_N]);
            let b_fill = T::zeros::<D>(&[BLOCK_N, BLOCK_K]);
            let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_K]);
            for bz in first..last {
                for nt in 0..T::cdiv(N, BLOCK_N) {
                    let n_cols = T::expand_dims(ns + nt * BLOCK_N, 0); // [1, BLOCK_N]
                    let n_rows = T::expand_dims(ns + nt * BLOCK_N, 1); // [BLOCK_N, 1]
                    let dc_mask = rows.lt(M) & n_cols.lt(N);
                    let dc = T::load(dc_ptr.add_offsets(rows * N + n_cols + bz * M * N), Some(dc_mask), Some(dc_fill), &[], None, None, None, false);
                    // B^T: element (n, k) of the tile is B[k, n].
                    let b_mask = n_rows.lt(N) & k_cols.lt(K);
                    let b_t = T::load(b_ptr.add_offsets(k_cols * N + n_rows + bz * stride_bb), Some(b_mask), Some(b_fill), &[], None, None, None, false);
                    acc = T::dot::<D, f32>(dc, b_t, Some(acc), InputPrecision::IEEE, None);
                }
            }
            let da_mask = rows.lt(M) & k_cols.lt(K);
            T::store(da_ptr.add_offsets(rows * K + k_cols + first * stride_ab), T::cast::<f32, D>(acc, None, false), Some(da_mask), &[], None, None);
        }
    } else {
        // dB[k, n] = sum over m (and over the batch where B is broadcast) of A[m, k] * dC[m, n].
        let n_tiles = T::cdiv(N, BLOCK_N);
        let tile_k = tile / n_tiles;
        if tile_k < k_tiles && (stride_bb != 0 || batch == 0) {
            let first = if stride_bb == 0 { 0 } else { batch };
            let last = if stride_bb == 0 { n_batch } else { batch + 1 };
            let k_rows = T::expand_dims(tile_k * BLOCK_K + T::arange(0, BLOCK_K), 1); // [BLOCK_K, 1]
            let cols = T::expand_dims((tile % n_tiles) * BLOCK_N + T::arange(0, BLOCK_N), 0); // [1, BLOCK_N]
            let ms = T::arange(0, BLOCK_M);
            let a_fill = T::zeros::<D>(&[BLOCK_K, BLOCK_M]);
            let dc_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_N]);
            let mut acc = T::zeros::<f32>(&[BLOCK_K, BLOCK_N]);
            for bz in first..last {
                for mt in 0..T::cdiv(M, BLOCK_M) {
                    let m_cols = T::expand_dims(ms + mt * BLOCK_M, 0); // [1, BLOCK_M]
                    let m_rows = T::expand_dims(ms + mt * BLOCK_M, 1); // [BLOCK_M, 1]
                    // A^T: element (k, m) of the tile is A[m, k].
                    let a_mask = k_rows.lt(K) & m_cols.lt(M);
                    let a_t = T::load(a_ptr.add_offsets(m_cols * K + k_rows + bz * stride_ab), Some(a_mask), Some(a_fill), &[], None, None, None, false);
                    let dc_mask = m_rows.lt(M) & cols.lt(N);
                    let dc = T::load(dc_ptr.add_offsets(m_rows * N + cols + bz * M * N), Some(dc_mask), Some(dc_fill), &[], None, None, None, false);
                    acc = T::dot::<D, f32>(a_t, dc, Some(acc), InputPrecision::IEEE, None);
                }
            }
            let db_mask = k_rows.lt(K) & cols.lt(N);
            T::store(db_ptr.add_offsets(k_rows * N + cols + first * stride_bb), T::cast::<f32, D>(acc, None, false), Some(db_mask), &[], None, None);
        }
    }
}

/// A matrix product as teenygrad's executor runs it: two inputs `A: [..., M, K]` and
/// `B: [..., K, N]`, each a matrix or a batch of them (with the same batch dimensions, or one of
/// them a single matrix broadcast over the other's batch), the output `[..., M, N]`. Training:
/// one backward launch writes both inputs' gradients.
impl<D: Num + Send + Sync + 'static> teeny_core::model::RuntimeOp for BmmForward<D> {
    fn n_activation_inputs(&self) -> usize {
        2
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    /// The batch dimensions of the operand with more of them, then `[M, N]`.
    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
        let a = input_shapes[0];
        let b = input_shapes[1];
        assert!(a.len() >= 2 && b.len() >= 2, "bmm_forward multiplies matrices");
        let mut shape = if a.len() >= b.len() { a[..a.len() - 2].to_vec() } else { b[..b.len() - 2].to_vec() };
        shape.push(a[a.len() - 2]);
        shape.push(b[b.len() - 1]);
        shape
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
        let (a, a_shape) = inputs[0];
        let (b, b_shape) = inputs[1];
        assert!(a_shape.len() >= 2 && b_shape.len() >= 2, "bmm_forward multiplies matrices");
        let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
        let n = b_shape[b_shape.len() - 1];
        assert!(b_shape[b_shape.len() - 2] == k, "bmm_forward: the inner dimensions differ");
        let rank = output_shape.len();
        assert!(rank >= 2, "bmm_forward: the output is not [.., M, N]");
        assert!(output_shape[rank - 2] == m, "bmm_forward: the output is not [.., M, N]");
        assert!(output_shape[rank - 1] == n, "bmm_forward: the output is not [.., M, N]");
        // A batch of one matrix is broadcast (batch stride 0); any other batch is the output's.
        let batch: usize = output_shape[..rank - 2].iter().product();
        let a_batch: usize = a_shape[..a_shape.len() - 2].iter().product();
        let b_batch: usize = b_shape[..b_shape.len() - 2].iter().product();
        assert!(a_batch == batch || a_batch == 1, "bmm_forward: A's batch does not fit the output's");
        assert!(b_batch == batch || b_batch == 1, "bmm_forward: B's batch does not fit the output's");
        let stride_ab = if a_batch == 1 { 0 } else { m * k };
        let stride_bb = if b_batch == 1 { 0 } else { k * n };
        visitor.visit_ptr(a);
        visitor.visit_ptr(b);
        visitor.visit_ptr(output);
        visitor.visit_i32(m as i32);
        visitor.visit_i32(n as i32);
        visitor.visit_i32(k as i32);
        visitor.visit_i32(stride_ab as i32);
        visitor.visit_i32(stride_bb as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let rank = output_shape.len();
        let batch: usize = output_shape[..rank - 2].iter().product();
        let rows = output_shape[rank - 2].div_ceil(self.block_m as usize);
        let cols = output_shape[rank - 1].div_ceil(self.block_n as usize);
        [rows as u32, cols as u32, batch as u32]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `bmm_backward(a, b, dc, da, db, M, N, K, stride_ab, stride_bb)`.
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
        let (a, a_shape) = inputs[0];
        let (b, b_shape) = inputs[1];
        assert!(a_shape.len() >= 2 && b_shape.len() >= 2, "bmm_forward multiplies matrices");
        let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
        let n = b_shape[b_shape.len() - 1];
        assert!(b_shape[b_shape.len() - 2] == k, "bmm_forward: the inner dimensions differ");
        let rank = output_shape.len();
        assert!(rank >= 2, "bmm_forward: the output is not [.., M, N]");
        assert!(output_shape[rank - 2] == m, "bmm_forward: the output is not [.., M, N]");
        assert!(output_shape[rank - 1] == n, "bmm_forward: the output is not [.., M, N]");
        // A batch of one matrix is broadcast (batch stride 0); any other batch is the output's.
        let batch: usize = output_shape[..rank - 2].iter().product();
        let a_batch: usize = a_shape[..a_shape.len() - 2].iter().product();
        let b_batch: usize = b_shape[..b_shape.len() - 2].iter().product();
        assert!(a_batch == batch || a_batch == 1, "bmm_forward: A's batch does not fit the output's");
        assert!(b_batch == batch || b_batch == 1, "bmm_forward: B's batch does not fit the output's");
        let stride_ab = if a_batch == 1 { 0 } else { m * k };
        let stride_bb = if b_batch == 1 { 0 } else { k * n };
        visitor.visit_ptr(a);
        visitor.visit_ptr(b);
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_ptr(grad_inputs[1]);
        visitor.visit_i32(m as i32);
        visitor.visit_i32(n as i32);
        visitor.visit_i32(k as i32);
        visitor.visit_i32(stride_ab as i32);
        visitor.visit_i32(stride_bb as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        let rank = output_shape.len();
        let batch: usize = output_shape[..rank - 2].iter().product();
        let k = input_shapes[0][input_shapes[0].len() - 1];
        let row_tiles = output_shape[rank - 2]
            .div_ceil(self.block_m as usize)
            .max(output_shape[rank - 1].div_ceil(self.block_n as usize));
        let k_tiles = k.div_ceil(self.block_k as usize);
        [(row_tiles * k_tiles) as u32, 2, batch as u32]
    }
}
