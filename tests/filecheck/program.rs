//! Program ids, index ranges and tensor creation.

use teeny_triton::triton::*;

#[kernel]
pub fn program<T: Triton, const BLOCK: i32>(out_ptr: T::Pointer<f32>, n: i32) {
    // CHECK-LABEL: def program(out_ptr, n, BLOCK: tl.constexpr):
    let pid = T::program_id(Axis::X);
    // CHECK-NEXT: pid = tl.program_id(0)
    let npid = T::num_programs(Axis::Y);
    // CHECK-NEXT: npid = tl.num_programs(1)
    let offs = pid * BLOCK + T::arange(0, BLOCK);
    // CHECK-NEXT: offs = pid * BLOCK + tl.arange(0, BLOCK)
    let fl = T::arange_f32(0, BLOCK);
    // CHECK-NEXT: fl = tl.arange(0, BLOCK).to(tl.float32)
    let blocks = T::cdiv(n, BLOCK);
    // CHECK-NEXT: blocks = tl.cdiv(n, BLOCK)
    let z = T::zeros::<f32>(&[BLOCK]);
    // CHECK-NEXT: z = tl.zeros([BLOCK], dtype=tl.float32)
    let zi = T::zeros::<i32>(&[BLOCK, BLOCK]);
    // CHECK-NEXT: zi = tl.zeros([BLOCK, BLOCK], dtype=tl.int32)
    let zl = T::zeros_like(fl);
    // CHECK-NEXT: zl = tl.zeros_like(fl)
    let f = T::full::<f32>(&[BLOCK], 1.5);
    // CHECK-NEXT: f = tl.full([BLOCK], 1.5, dtype=tl.float32)
    let fi = T::full(&[BLOCK], 7);
    // CHECK-NEXT: fi = tl.full([BLOCK], 7, dtype=tl.int32)
    let fh = T::full(&[BLOCK], 0.5f16);
    // CHECK-NEXT: fh = tl.full([BLOCK], 0.5, dtype=tl.float16)
    let (pi, pj) = T::swizzle2d(pid, npid, blocks, 4, 8);
    // CHECK-NEXT: pi, pj = tl.swizzle2d(pid, npid, blocks, 4, 8)
    T::store(out_ptr.add_offsets(offs), fl + z + zl + f, Some(offs.lt(n)), &[], None, None);
    // CHECK-NEXT: tl.store(out_ptr + offs, fl + z + zl + f, mask=offs < n)
}
