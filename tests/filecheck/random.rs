//! Random numbers (Philox).

use teeny_triton::triton::*;

#[kernel]
pub fn random<T: Triton, const BLOCK: i32>(out_ptr: T::Pointer<f32>, iout_ptr: T::Pointer<i32>, seed: u32) {
    let offs = T::arange(0, BLOCK);
    // CHECK-LABEL: def random(out_ptr, iout_ptr, seed, BLOCK: tl.constexpr):
    let u = T::rand(seed, offs, 10);
    // CHECK: u = tl.rand(seed, offs)
    let n = T::randn(seed, offs, 7);
    // CHECK-NEXT: n = tl.randn(seed, offs, n_rounds=7)
    let i = T::randint(seed, offs, 10);
    // CHECK-NEXT: i = tl.randint(seed, offs)
    let (r0, r1, r2, r3) = T::randint4x(seed, offs, 10);
    // CHECK-NEXT: r0, r1, r2, r3 = tl.randint4x(seed, offs)
    T::store(out_ptr.add_offsets(offs), u + n, None, &[], None, None);
    T::store(iout_ptr.add_offsets(offs), i ^ r0 ^ r1 ^ r2 ^ r3, None, &[], None, None);
    // CHECK: tl.store(iout_ptr + offs, i ^ r0 ^ r1 ^ r2 ^ r3)
}
