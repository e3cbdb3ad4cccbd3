//! Tiled matrix multiply `C[M, N] = A[M, K] @ B[K, N]`.
//!
//! All three matrices are addressed through explicit element strides, so any
//! row-/column-major (or transposed-view) layout works.

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `C = A @ B`, accumulated in `f32` and rounded to `D` once at the end.
///
/// Grid: `[cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)]` — program `(x, y)` owns the
/// output tile starting at row `x * BLOCK_M`, column `y * BLOCK_N`.
///
/// Every load is masked against both of its bounds (rows/cols and `K`) with
/// zero fill, so `M`, `N` and `K` need not be multiples of the block sizes.
/// `BLOCK_K` must be at least 16 (a `dot` requirement).
#[kernel]
pub fn matmul<
    T: Triton,
    D: Num,
    const BLOCK_M: i32,
    const BLOCK_N: i32,
    const BLOCK_K: i32,
>(
    a_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    c_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
    stride_am: i32,
    stride_ak: i32,
    stride_bk: i32,
    stride_bn: i32,
    stride_cm: i32,
    stride_cn: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid_m = T::program_id(Axis::X);
    let pid_n = T::program_id(Axis::Y);

    let offs_m = pid_m * BLOCK_M + T::arange(0, BLOCK_M);
    let offs_n = pid_n * BLOCK_N + T::arange(0, BLOCK_N);
    let offs_k = T::arange(0, BLOCK_K);

    // Tile-shaped row indices of A and column indices of B; they do not
    // change along K, so build them (and their masks) once.
    let a_rows = T::broadcast_to(T::expand_dims(offs_m, 1), &[BLOCK_M, BLOCK_K]);
    let b_cols = T::broadcast_to(T::expand_dims(offs_n, 0), &[BLOCK_K, BLOCK_N]);
    let a_row_ok = a_rows.lt(M);
    let b_col_ok = b_cols.lt(N);
    let a_fill = T::zeros::<D>(&[BLOCK_M, BLOCK_K]);
    let b_fill = T::zeros::<D>(&[BLOCK_K, BLOCK_N]);

    let mut acc = T::zeros::<f32>(&[BLOCK_M, BLOCK_N]);
    for k in 0..T::cdiv(K, BLOCK_K) {
        let ks = offs_k + k * BLOCK_K;
        let a_ks = T::broadcast_to(T::expand_dims(ks, 0), &[BLOCK_M, BLOCK_K]);
        let b_ks = T::broadcast_to(T::expand_dims(ks, 1), &[BLOCK_K, BLOCK_N]);

        let a_mask = a_row_ok & a_ks.lt(K);
        let b_mask = b_ks.lt(K) & b_col_ok;
        let a = T::load(
            a_ptr.add_offsets(a_rows * stride_am + a_ks * stride_ak),
            Some(a_mask),
            Some(a_fill),
            &[],
            None,
            None,
            None,
            false,
        );
        let b = T::load(
            b_ptr.add_offsets(b_ks * stride_bk + b_cols * stride_bn),
            Some(b_mask),
            Some(b_fill),
            &[],
            None,
            None,
            None,
            false,
        );
        acc = T::dot::<D, f32>(a, b, Some(acc), InputPrecision::IEEE, None);
    }

    let c = T::cast::<f32, D>(acc, None, false);

    let c_rows = T::expand_dims(offs_m, 1);
    let c_cols = T::expand_dims(offs_n, 0);
    let c_mask = c_rows.lt(M) & c_cols.lt(N);
    T::store(
        c_ptr.add_offsets(c_rows * stride_cm + c_cols * stride_cn),
        c,
        Some(c_mask),
        &[],
        None,
        None,
    );
}

/// Tile sizes chosen by the host for one launch.
#[derive(Clone, Copy, Debug)]
pub struct MatmulTiles {
    pub block_m: i32,
    pub block_n: i32,
    pub block_k: i32,
}

impl MatmulTiles {
    pub fn grid(&self, m: i32, n: i32) -> [u32; 3] {
        let gm = (m + self.block_m - 1) / self.block_m;
        let gn = (n + self.block_n - 1) / self.block_n;
        [gm as u32, gn as u32, 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_covers_ragged_shapes() {
        let t = MatmulTiles { block_m: 32, block_n: 32, block_k: 16 };
        assert_eq!(t.grid(70, 50), [3, 2, 1]);
    }
}
