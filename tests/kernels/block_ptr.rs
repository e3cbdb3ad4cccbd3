//! Block pointers: Triton 3.9 removed them, so rs2triton lowers them to pointer
//! arithmetic plus boundary masks that every Triton version runs.

use teeny_triton::triton::*;

/// `C = A @ B` through block pointers, advanced along K, boundary-checked on both dims.
#[kernel]
pub fn matmul_block_ptr<T: Triton, D: Float, const BM: i32, const BN: i32, const BK: i32>(
    a_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    c_ptr: T::Pointer<D>,
    M: i32,
    N: i32,
    K: i32,
    stride_am: i32,
    stride_bk: i32,
    stride_cm: i32,
) {
    let pid_m = T::program_id(Axis::X);
    let pid_n = T::program_id(Axis::Y);
    let mut a_blocks = T::make_block_ptr(a_ptr, &[M, K], &[stride_am, 1], &[pid_m * BM, 0], &[BM, BK], &[1, 0]);
    let mut b_blocks = T::make_block_ptr(b_ptr, &[K, N], &[stride_bk, 1], &[0, pid_n * BN], &[BK, BN], &[1, 0]);
    let mut acc = T::zeros::<f32>(&[BM, BN]);
    for _k in 0..T::cdiv(K, BK) {
        let a = T::load(a_blocks, None, None, &[0, 1], Some(PaddingOption::Zero), None, None, false);
        let b = T::load(b_blocks, None, None, &[0, 1], Some(PaddingOption::Zero), None, None, false);
        acc = T::dot::<D, f32>(a, b, Some(acc), InputPrecision::IEEE, None);
        a_blocks = T::advance(a_blocks, &[0, BK]);
        b_blocks = T::advance(b_blocks, &[BK, 0]);
    }
    let c_blocks = T::make_block_ptr(c_ptr, &[M, N], &[stride_cm, 1], &[pid_m * BM, pid_n * BN], &[BM, BN], &[1, 0]);
    T::store(c_blocks, T::cast::<f32, D>(acc, None, false), None, &[0, 1], None, None);
}

/// A shifted 1-D copy: the window starts at `shift` (may be negative); out-of-range lanes read NaN.
#[kernel]
pub fn shifted_copy<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, y_ptr: T::Pointer<f32>, n: i32, shift: i32) {
    let pid = T::program_id(Axis::X);
    let src = T::make_block_ptr(x_ptr, &[n], &[1], &[pid * BLOCK + shift], &[BLOCK], &[0]);
    let dst = T::make_block_ptr(y_ptr, &[n], &[1], &[pid * BLOCK], &[BLOCK], &[0]);
    let v = T::load(src, None, None, &[0], Some(PaddingOption::Nan), None, None, false);
    T::store(dst, v, None, &[0], None, None);
}
