//! Compiler hints, assertions, printing, barriers and inline assembly.

use teeny_triton::triton::*;

#[kernel]
pub fn debug<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, out_ptr: T::Pointer<i32>, n: i32) {
    // CHECK-LABEL: def debug(
    T::assume(n > 0);
    // CHECK-NEXT: tl.assume(n > 0)
    T::static_assert(BLOCK > 0, "BLOCK must be positive");
    // CHECK-NEXT: tl.static_assert(BLOCK > 0, "BLOCK must be positive")
    T::static_assert(BLOCK % 16 == 0, "");
    // CHECK-NEXT: tl.static_assert(BLOCK % 16 == 0)
    T::static_print("compiling debug");
    // CHECK-NEXT: tl.static_print("compiling debug")
    let offs = T::arange(0, BLOCK);
    let h = T::max_contiguous(T::multiple_of(offs, &[16]), &[16]);
    // CHECK: h = tl.max_contiguous(tl.multiple_of(offs, 16), 16)
    let h = T::max_constancy(h, &[1]);
    // CHECK-NEXT: h = tl.max_constancy(h, 1)
    let x = T::load(x_ptr.add_offsets(h), None, None, &[], None, None, None, false);
    T::device_assert(x.ge(T::zeros_like(x)), "x must be non-negative", None);
    // CHECK: tl.device_assert(x >= tl.zeros_like(x), msg="x must be non-negative")
    T::device_assert(x.lt(1.0f32), "", Some(offs.lt(n)));
    // CHECK-NEXT: tl.device_assert(x < 1.0, mask=offs < n)
    T::device_print("x: ", x, false);
    // CHECK-NEXT: tl.device_print("x: ", x)
    T::device_print("bits: ", offs, true);
    // CHECK-NEXT: tl.device_print("bits: ", offs, hex=True)
    T::debug_barrier();
    // CHECK-NEXT: tl.debug_barrier()
    T::shared_barrier();
    // CHECK-NEXT: tl.debug_barrier()
    let lane = T::inline_asm_elementwise::<i32>("mov.u32 $0, %laneid;", "=r", true, 1);
    // CHECK-NEXT: lane = tl.inline_asm_elementwise(
    // CHECK-SAME: asm="mov.u32 $0, %laneid;", constraints="=r", args=[], dtype=tl.int32, is_pure=True, pack=1)
    T::store(out_ptr.add_offsets(offs), lane + offs, None, &[], None, None);
}
