//! Shape manipulation.

use teeny_triton::triton::*;

// `cat` with `can_reorder = false` keeps the order through a helper.
// CHECK-LABEL: def _cat(a, b):
// CHECK: return tl.ravel(tl.permute(tl.join(a, b), (1, 0)))

#[kernel]
pub fn shape<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, i_ptr: T::Pointer<i32>, out_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, BLOCK);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let idx = T::load(i_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    // CHECK-LABEL: def shape(
    let row = T::expand_dims(x, 0);
    // CHECK: row = tl.expand_dims(x, 0)
    let col = T::expand_dims(x, 1);
    // CHECK-NEXT: col = tl.expand_dims(x, 1)
    let (bx, by) = T::broadcast(row, col);
    // CHECK-NEXT: bx, by = tl.broadcast(row, col)
    let sq = T::broadcast_to(row, &[BLOCK, BLOCK]);
    // CHECK-NEXT: sq = tl.broadcast_to(row, [BLOCK, BLOCK])
    let p = T::permute(sq, &[1, 0]);
    // CHECK-NEXT: p = tl.permute(sq, (1, 0))
    let t = T::trans(p, &[]) + T::trans(p, &[1, 0]) + T::trans(T::expand_dims(sq, 2), &[2, 0, 1]);
    // CHECK-NEXT: t = tl.trans(p) + tl.trans(p) + tl.trans(tl.expand_dims(sq, 2), (2, 0, 1))
    let r = T::reshape(x, &[2, BLOCK / 2], false);
    // CHECK-NEXT: r = tl.reshape(x, [2, BLOCK // 2])
    let v = T::view(x, &[2, BLOCK / 2]);
    // CHECK-NEXT: v = tl.reshape(x, [2, BLOCK // 2])
    let flat = T::ravel(r + v, true);
    // CHECK-NEXT: flat = tl.ravel(r + v)
    let j = T::join(x, flat);
    // CHECK-NEXT: j = tl.join(x, flat)
    let (lo, hi) = T::split(j);
    // CHECK-NEXT: lo, hi = tl.split(j)
    let both = T::interleave(lo, hi);
    // CHECK-NEXT: both = tl.interleave(lo, hi)
    let f = T::flip(x, None) + T::flip(x, Some(0));
    // CHECK-NEXT: f = tl.flip(x, -1) + tl.flip(x, 0)
    let g = T::gather(x, idx, 0);
    // CHECK-NEXT: g = tl.gather(x, idx, 0)
    let c = T::cat(x, g, true);
    // CHECK-NEXT: c = tl.cat(x, g, can_reorder=True)
    let ordered = T::cat(x, f, false);
    // CHECK-NEXT: ordered = _cat(x, f)
    T::store(out_ptr.add_offsets(T::arange(0, 2 * BLOCK)), both + c + ordered, None, &[], None, None);
    T::store(out_ptr.add_offsets(offs), T::sum(t + bx + by, Some(0), false), None, &[], None, None);
}
