//! Atomic read-modify-write operations.

use teeny_triton::triton::*;

#[kernel]
pub fn atomics<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<i32>, out_ptr: T::Pointer<i32>, f_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, BLOCK);
    let v = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let m = offs.lt(BLOCK / 2);
    // CHECK-LABEL: def atomics(
    let a = T::atomic_add(out_ptr.add_offsets(offs), v, None, None, None);
    // CHECK: a = tl.atomic_add(out_ptr + offs, v)
    let b = T::atomic_max(out_ptr.add_offsets(offs), v, Some(m), Some(MemSem::AcqRel), Some(MemScope::Gpu));
    // CHECK-NEXT: b = tl.atomic_max(out_ptr + offs, v, mask=m, sem="acq_rel", scope="gpu")
    let c = T::atomic_min(out_ptr.add_offsets(offs), v, None, Some(MemSem::Relaxed), None);
    // CHECK-NEXT: c = tl.atomic_min(out_ptr + offs, v, sem="relaxed")
    let d = T::atomic_and(out_ptr.add_offsets(offs), v, None, None, Some(MemScope::Cta));
    // CHECK-NEXT: d = tl.atomic_and(out_ptr + offs, v, scope="cta")
    let e = T::atomic_or(out_ptr.add_offsets(offs), v, Some(m), None, None);
    // CHECK-NEXT: e = tl.atomic_or(out_ptr + offs, v, mask=m)
    let f = T::atomic_xor(out_ptr.add_offsets(offs), v, None, Some(MemSem::Release), Some(MemScope::Sys));
    // CHECK-NEXT: f = tl.atomic_xor(out_ptr + offs, v, sem="release", scope="sys")
    let g = T::atomic_xchg(out_ptr.add_offsets(offs), T::zeros_like(v) + 7, Some(m), None, None);
    // CHECK-NEXT: g = tl.atomic_xchg(out_ptr + offs, tl.zeros_like(v) + 7, mask=m)
    let h = T::atomic_cas(out_ptr.add_offsets(offs), T::zeros_like(v), v, Some(MemSem::Acquire), None);
    // CHECK-NEXT: h = tl.atomic_cas(out_ptr + offs, tl.zeros_like(v), v, sem="acquire")
    let _ = T::atomic_add(f_ptr.add_offsets(offs), T::full(&[BLOCK], 0.5f32), None, None, None);
    // CHECK-NEXT: tl.atomic_add(f_ptr + offs, tl.full([BLOCK], 0.5, dtype=tl.float32))
    T::store(out_ptr.add_offsets(offs), a + b + c + d + e + f + g + h, None, &[], None, None);
}
