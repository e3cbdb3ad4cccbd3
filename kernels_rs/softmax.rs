//! Row-wise softmax over a row-major `[n_rows, n_cols]` matrix.
//!
//! Rows may be padded: element `(r, c)` lives at `r * stride + c`, with
//! `stride >= n_cols`. The same `stride` is used for the input and output.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Largest row the single-block kernel below is tuned for (host side only).
const MAX_FUSED_COLS: i32 = 8192;

/// Numerically stable softmax of each row: `y = exp(x - max(x)) / sum(exp(x - max(x)))`.
///
/// Grid: `[n_rows]` — one program per row. A smaller grid also works: each
/// program walks rows `pid, pid + num_programs, ...` until `n_rows`.
///
/// **Constraint**: `BLOCK_SIZE >= n_cols` (a whole row fits in one block);
/// lanes past `n_cols` load `-inf` so they contribute `exp(-inf) = 0`.
/// The math runs in `f32` whatever `D` is.
#[kernel]
pub fn softmax_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    n_rows: i32,
    n_cols: i32,
    stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let n_programs = T::num_programs(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let col_mask = cols.lt(n_cols);
    let neg_inf = T::full(&[BLOCK_SIZE], D::from_f64(f64::NEG_INFINITY));

    let mut row = T::program_id(Axis::X);
    while row < n_rows {
        let offsets = cols + row * stride;
        let x = T::load(
            x_ptr.add_offsets(offsets),
            Some(col_mask),
            Some(neg_inf),
            &[],
            None,
            None,
            None,
            false,
        );

        // exp wants f32; subtract the row max first so it cannot overflow.
        let x = T::cast::<D, f32>(x, None, false);
        let x = x - T::max(x, Some(0), false);
        let numerator = T::exp(x);
        let denominator = T::sum(numerator, Some(0), false);
        let y = numerator / denominator;

        T::store(
            y_ptr.add_offsets(offsets),
            T::cast::<f32, D>(y, None, false),
            Some(col_mask),
            &[],
            None,
            None,
        );
        row += n_programs;
    }
}

/// Launch glue: picks the block size for a given row length (host side only).
pub struct SoftmaxOp<D: Float + Send + Sync + 'static> {
    pub forward: SoftmaxForward<D>,
    pub block_size: i32,
}

impl<D: Float + Send + Sync + 'static> SoftmaxOp<D> {
    pub fn new(n_cols: i32) -> Self {
        assert!(n_cols <= MAX_FUSED_COLS, "row too long for the fused kernel");
        let block_size = (n_cols as u32).next_power_of_two() as i32;
        Self {
            forward: SoftmaxForward::<D>::new(block_size),
            block_size,
        }
    }

    pub fn grid(&self, n_rows: usize) -> [u32; 3] {
        [n_rows as u32, 1, 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_covers_row() {
        for n in [1, 100, 128, 1000] {
            let bs = (n as u32).next_power_of_two() as i32;
            assert!(bs >= n && bs <= MAX_FUSED_COLS);
        }
    }
}
