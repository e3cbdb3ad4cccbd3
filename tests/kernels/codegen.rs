//! Kernels that pin down the code-quality rules: counted `while` loops as ranges,
//! `let mut` values that stay runtime. tests/test_codegen.py checks their output
//! and runs them against Python.

use teeny_macros::kernel;
use teeny_triton::triton::{types::{AddOffsets, Comparison}, *};

/// Counted loops: ascending by a const generic, descending by a literal, inclusive;
/// each folds the visited counters like `acc * 3 + i`.
#[kernel]
pub fn counted<T: Triton, const STEP: i32>(out: T::Pointer<i32>, lo: i32, hi: i32) {
    let mut a = 0;
    let mut i = lo;
    while i < hi {
        a = a * 3 + i;
        i += STEP;
    }
    T::store(out.add_offsets(0), a, None, &[], None, None);
    let mut b = 0;
    let mut j = hi;
    while j >= lo {
        b = b * 3 + j;
        j -= 2;
    }
    T::store(out.add_offsets(1), b, None, &[], None, None);
    let mut c = 0;
    let mut k = lo;
    while hi >= k {
        c = c * 3 + k;
        k = k + 1;
    }
    T::store(out.add_offsets(2), c, None, &[], None, None);
    // One counter reused by several loops, restarted by assignment (as teenygrad's norms do).
    let mut d = 0;
    let mut n = lo;
    while n < hi {
        d = d * 3 + n;
        n += 2;
    }
    n = lo + 1;
    while n < hi {
        d = d * 3 + n;
        n += 2;
    }
    T::store(out.add_offsets(3), d, None, &[], None, None);
}

/// Loops that are not ranges stay `while`: a runtime step, a counter read after the
/// loop, a bound the body changes.
#[kernel]
pub fn not_counted<T: Triton>(out: T::Pointer<i32>, lo: i32, hi: i32, step: i32) {
    let mut a = 0;
    let mut i = lo;
    while i < hi {
        a = a * 3 + i;
        i += step;
    }
    T::store(out.add_offsets(0), a, None, &[], None, None);
    let mut j = lo;
    while j < hi {
        j += 2;
    }
    T::store(out.add_offsets(1), j, None, &[], None, None);
    let mut c = 0;
    let mut k = lo;
    let mut end = hi;
    while k < end {
        c = c * 3 + k;
        end -= 1;
        k += 1;
    }
    T::store(out.add_offsets(2), c, None, &[], None, None);
    // A reused counter whose first loop stays a `while` (runtime step): the second is a range.
    let mut d = 0;
    let mut m = lo;
    while m < hi {
        d = d * 3 + m;
        m += step;
    }
    m = lo;
    while m < hi {
        d = d * 3 + m;
        m += 3;
    }
    T::store(out.add_offsets(3), d, None, &[], None, None);
}

/// A `let mut` from a literal that a loop changes is runtime: what is computed from
/// it is not a `tl.constexpr`, in a branch or as a value.
#[kernel]
pub fn runtime_counter<T: Triton, const KW: i32>(out: T::Pointer<i32>, n: i32) {
    let mut iter = 0;
    for _t in 0..n {
        iter += 1;
    }
    let kw_idx = iter % KW;
    if kw_idx == 1 {
        T::store(out.add_offsets(0), 10, None, &[], None, None);
    } else {
        T::store(out.add_offsets(0), 20, None, &[], None, None);
    }
    T::store(out.add_offsets(1), kw_idx, None, &[], None, None);
    let pick = if kw_idx == 1 { 30 } else { 40 };
    T::store(out.add_offsets(2), pick, None, &[], None, None);
}

/// Comments stay where they were.
#[kernel]
pub fn comments<
    T: Triton, // no Python parameter: this comment has nowhere to go
    const UNUSED: i32, // a const generic's comment
>(
    // where the result goes
    out: T::Pointer<f32>, // one element
    n: i32,
) {
    let x = 2.5f32; // a trailing note
    if n > 0 { // on the header line
        T::store(
            out.add_offsets(0),
            x, // inside the call: moved above it
            None,
            &[],
            None,
            None,
        );
    }
    let v = if n > 1 {
        // in a branch of a ternary: moved above it
        x
    } else {
        0.0 // so is this one
    };
    let w = if n > 3 {
        let t = v * 2.0;
        t + 1.0 // after a block's value
        // and below it
    } else {
        v
    };
    T::store(out.add_offsets(0), w, None, &[], None, None);
}

/// Noise the translation leaves out: integer ternaries that are `min`/`max`, an f32 fill
/// cast to D.
#[kernel]
pub fn tidy<T: Triton, D: Float, const B: i32>(
    x_ptr: T::Pointer<D>,
    z_ptr: T::Pointer<D>,
    out: T::Pointer<i32>,
    a: i32,
    b: i32,
    eps: f32,
) {
    let lo = if a < b { a } else { b };
    let hi = if a <= b { b } else { a };
    let top = if a > b { a } else { b };
    let floor = if a >= b { b } else { a };
    T::store(out.add_offsets(0), lo, None, &[], None, None);
    T::store(out.add_offsets(1), hi, None, &[], None, None);
    T::store(out.add_offsets(2), top, None, &[], None, None);
    T::store(out.add_offsets(3), floor, None, &[], None, None);
    let eps_t = T::cast::<f32, D>(T::full::<f32>(&[B], eps), None, false);
    let two = T::cast::<f32, D>(T::full::<f32>(&[B], 2.0f32), None, false);
    T::store(x_ptr.add_offsets(T::arange(0, B)), eps_t * two, None, &[], None, None);
    let lowest = T::cast::<f32, D>(T::full::<f32>(&[B], -3.4028235e38_f32), None, false);
    T::store(z_ptr.add_offsets(T::arange(0, B)), lowest, None, &[], None, None);
}

/// A half-precision value held in f32 passes through a reduction and a selection; it is
/// rounded to D once, at the store (or where it meets a plain D value).
#[kernel]
pub fn held_in_f32<T: Triton, D: Float, const B: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, z_ptr: T::Pointer<D>, n: i32) {
    let offs = T::arange(0, B);
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), Some(T::full(&[B], D::from_f64(-1.0e4))), &[], None, None, None, false);
    let e = T::exp(x - T::max(x, Some(0), false));
    let s = T::sum(T::where_(mask, e, T::zeros_like(e)), Some(0), false);
    T::store(y_ptr.add_offsets(offs), e / s, Some(mask), &[], None, None);
    T::store(z_ptr.add_offsets(offs), T::maximum(e, x), Some(mask), &[], None, None);
}

/// Hard shrink with a runtime threshold: `-(lambda as f64)` is exact in f32, so no f64
/// reaches the GPU.
#[kernel]
pub fn shrink<T: Triton, D: Float, const B: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, lambda: f32, n: i32) {
    let offs = T::arange(0, B);
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
    let hi = T::full(&[B], D::from_f64(lambda as f64));
    let lo = T::full(&[B], D::from_f64(-(lambda as f64)));
    let keep = x.gt(hi) | x.lt(lo);
    let y = T::where_(keep, x, T::zeros_like(x));
    T::store(y_ptr.add_offsets(offs), y, Some(mask), &[], None, None);
}

/// Casts of f16 math held in f32: to f32 it is used as it is (no round trip through f16);
/// to any other type it is rounded to f16 first.
#[kernel]
pub fn held_casts<T: Triton, const B: i32>(
    x_ptr: T::Pointer<f16>,
    f_ptr: T::Pointer<f32>,
    i_ptr: T::Pointer<i32>,
    n: i32,
) {
    let offs = T::arange(0, B);
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
    let e = T::exp(x);
    T::store(f_ptr.add_offsets(offs), T::cast::<f16, f32>(e, None, false), Some(mask), &[], None, None);
    T::store(i_ptr.add_offsets(offs), T::cast::<f16, i32>(e, None, false), Some(mask), &[], None, None);
}
