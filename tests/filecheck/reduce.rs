//! Reductions, scans, sorting and combine functions.

use teeny_triton::triton::*;

/// A combine function: becomes a `@triton.jit` helper.
fn add_combine<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> {
    a + b
}
// CHECK: @triton.jit
// CHECK-NEXT: def add_combine(a, b):
// CHECK: return a + b

#[kernel]
pub fn reduce<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, i_ptr: T::Pointer<i32>, out_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, BLOCK);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let xi = T::load(i_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    // CHECK-LABEL: def reduce(
    let s = T::sum(x, None, false) + T::sum(x, Some(0), true);
    // CHECK: s = tl.sum(x) + tl.sum(x, axis=0, keep_dims=True)
    let m = T::max(x, Some(0), false) - T::min(x, None, false);
    // CHECK-NEXT: m = tl.max(x, axis=0) - tl.min(x)
    let (best, at) = T::max_with_indices(x, 0, true, false);
    // CHECK-NEXT: best, at = tl.max(x, return_indices=True, axis=0)
    let (low, where_low) = T::min_with_indices(x, 0, false, true);
    // CHECK-NEXT: low, where_low = tl.min(x, return_indices=True, axis=0, return_indices_tie_break_left=False, keep_dims=True)
    let am = T::argmax(x, 0, true, false) + T::argmin(x, 0, false, false);
    // CHECK-NEXT: am = tl.argmax(x, axis=0) + tl.argmin(x, axis=0, tie_break_left=False)
    let xs = T::xor_sum(xi, Some(0), false);
    // CHECK-NEXT: xs = tl.xor_sum(xi, axis=0)
    let cs = T::cumsum(x, 0, false) + T::cumprod(x, 0, true);
    // CHECK-NEXT: cs = tl.cumsum(x) + tl.cumprod(x, reverse=True)
    let so = T::sort(x, None, false) + T::sort(x, Some(0), true);
    // CHECK-NEXT: so = tl.sort(x) + tl.sort(x, dim=0, descending=True)
    let h = T::histogram(xi, BLOCK, Some(offs.lt(8)));
    // CHECK-NEXT: h = tl.histogram(xi, BLOCK, mask=offs < 8)
    let total = T::reduce(x, 0, add_combine::<T, f32>, false);
    // CHECK-NEXT: total = tl.reduce(x, 0, add_combine)
    let running = T::associative_scan(x, 0, add_combine::<T, f32>, true);
    // CHECK-NEXT: running = tl.associative_scan(x, 0, add_combine, reverse=True)
    let sm = T::softmax(x, None, false, false);
    // CHECK-NEXT: sm = tl.softmax(x)
    let out = sm + running + total + s + m + best + low + (at + where_low + am + xs + h) as f32 + cs + so;
    T::store(out_ptr.add_offsets(offs), out, None, &[], None, None);
}
