//! Comparisons (trait methods and value methods) and `where_`.

use teeny_triton::triton::*;

#[kernel]
pub fn compare<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, out_ptr: T::Pointer<f32>, n: i32, t: f32) {
    let offs = T::arange(0, BLOCK);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let y = x * 2.0f32;
    // CHECK-LABEL: def compare(
    let a = T::lt(x, y);
    // CHECK: a = x < y
    let b = T::le(x, y);
    // CHECK-NEXT: b = x <= y
    let c = T::gt(x, y);
    // CHECK-NEXT: c = x > y
    let d = T::ge(x, y);
    // CHECK-NEXT: d = x >= y
    let e = T::eq(x, y);
    // CHECK-NEXT: e = x == y
    let f = T::ne(x, y);
    // CHECK-NEXT: f = x != y
    let g = T::lt_scalar(x, t);
    // CHECK-NEXT: g = x < t
    let h = T::le_scalar(x, t);
    // CHECK-NEXT: h = x <= t
    let i = T::gt_scalar(x, 0.5f32);
    // CHECK-NEXT: i = x > 0.5
    let j = T::ge_scalar(x, t);
    // CHECK-NEXT: j = x >= t
    let k = T::eq_scalar(x, t);
    // CHECK-NEXT: k = x == t
    let l = T::ne_scalar(x, t);
    // CHECK-NEXT: l = x != t
    let m = offs.lt(n) & x.ge(y);
    // CHECK-NEXT: m = (offs < n) & (x >= y)
    let w = T::where_(a & b | c, x, y);
    // CHECK-NEXT: w = tl.where(a & b | c, x, y)
    let any = d | e | f | g | h | i | j | k | l | m;
    T::store(out_ptr.add_offsets(offs), w, Some(any), &[], None, None);
}
