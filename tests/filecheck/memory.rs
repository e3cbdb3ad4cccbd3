//! Loads and stores, scalar loads, block pointers and tensor descriptors.

use teeny_triton::triton::*;

#[kernel]
pub fn memory<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, s_ptr: T::Pointer<f32>, out_ptr: T::Pointer<f32>, n: i32) {
    let offs = T::arange(0, BLOCK);
    let m = offs.lt(n);
    // CHECK-LABEL: def memory(
    let a = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    // CHECK: a = tl.load(x_ptr + offs)
    let b = T::load(x_ptr.add_offsets(offs), Some(m), Some(T::zeros_like(a)), &[], None, None, None, false);
    // CHECK-NEXT: b = tl.load(x_ptr + offs, mask=m, other=tl.zeros_like(a))
    let c = T::load(x_ptr.add_offsets(offs), Some(m), None, &[], None, Some(CacheModifier::Cg), Some(EvictionPolicy::EvictLast), true);
    // CHECK-NEXT: c = tl.load(
    // CHECK-SAME: x_ptr + offs, mask=m, cache_modifier=".cg", eviction_policy="evict_last", volatile=True
    let d = T::load(x_ptr.add_offsets(offs), Some(m), None, &[], None, None, Some(EvictionPolicy::NoEvict), false);
    // CHECK: d = tl.load(x_ptr + offs, mask=m)
    let k = T::load_scalar_f32_as_i32(s_ptr, 3);
    // CHECK-NEXT: k = tl.load(s_ptr + 3).to(tl.int32)
    T::store(out_ptr.add_offsets(offs), a + b, None, &[], None, None);
    // CHECK-NEXT: tl.store(out_ptr + offs, a + b)
    T::store(out_ptr.add_offsets(offs + k), c + d, Some(m), &[], Some(CacheModifier::Wt), Some(EvictionPolicy::EvictFirst));
    // CHECK-NEXT: tl.store(
    // CHECK-SAME: out_ptr + (offs + k), c + d, mask=m, cache_modifier=".wt", eviction_policy="evict_first"
    // CHECK-NOT: other=
}

/// Block pointers are lowered to pointer arithmetic: offsets become variables.
#[kernel]
pub fn blocks<T: Triton, const BM: i32, const BN: i32>(x_ptr: T::Pointer<f32>, y_ptr: T::Pointer<f32>, M: i32, N: i32) {
    // CHECK-LABEL: def blocks(
    let mut src = T::make_block_ptr(x_ptr, &[M, N], &[N, 1], &[0, 0], &[BM, BN], &[1, 0]);
    // CHECK-NOT: tl.make_block_ptr
    // CHECK: src_off0 = 0
    // CHECK-NEXT: src_off1 = 0
    let dst = T::make_block_ptr(y_ptr, &[M, N], &[N, 1], &[0, 0], &[BM, BN], &[1, 0]);
    // CHECK: dst_off0 = 0
    let tile = T::load(src, None, None, &[0, 1], Some(PaddingOption::Zero), None, None, false);
    // CHECK: src_idx0 = src_off0 + tl.arange(0, BM)
    // CHECK-NEXT: src_idx1 = src_off1 + tl.arange(0, BN)
    // CHECK-NEXT: tile = tl.load(
    // CHECK-SAME: x_ptr + src_idx0[:, None] * N + src_idx1[None, :]
    // CHECK-SAME: mask=(src_idx0[:, None] >= 0) & (src_idx0[:, None] < M) & (src_idx1[None, :] >= 0) & (src_idx1[None, :] < N)
    // CHECK-SAME: other=0.0
    src = T::advance(src, &[BM, 0]);
    // CHECK: src_off0 = src_off0 + BM
    // CHECK-NOT: src_off1 =
    T::store(dst, tile, None, &[0], None, None);
    // CHECK: tl.store(
    // CHECK-SAME: y_ptr + dst_idx0[:, None] * N + dst_idx1[None, :], tile, mask=(dst_idx0[:, None] >= 0) & (dst_idx0[:, None] < M)
}

/// Tensor descriptors (the host sets an allocator).
#[kernel]
pub fn descriptors<T: Triton, const BM: i32, const BN: i32>(x_ptr: T::Pointer<f32>, y_ptr: T::Pointer<f32>, M: i32, N: i32) {
    // CHECK-LABEL: def descriptors(
    let xd = T::make_tensor_descriptor(x_ptr, &[M, N], &[N, 1], &[BM, BN], None);
    // CHECK: xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    let yd = T::make_tensor_descriptor(y_ptr, &[M, N], &[N, 1], &[BM, BN], Some(PaddingOption::Nan));
    // CHECK-NEXT: yd = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN], padding_option="nan")
    let tile = T::load_tensor_descriptor(xd, &[BM, 0]);
    // CHECK-NEXT: tile = xd.load([BM, 0])
    T::store_tensor_descriptor(yd, &[BM, 0], tile * 2.0f32);
    // CHECK-NEXT: yd.store([BM, 0], tile * 2.0)
}
