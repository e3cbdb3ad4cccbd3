//! Small kernels that pin down Rust semantics through the translation.
//! Each one writes scalars or short vectors that tests/test_semantics.py checks.

use teeny_macros::kernel;
use teeny_triton::triton::{types::{AddOffsets, Comparison}, *};

/// Integer division and remainder truncate toward zero, as in Rust.
#[kernel]
pub fn int_div_rem<T: Triton, const C: i32>(out: T::Pointer<i32>, a: i32, b: i32) {
    T::store(out.add_offsets(0), a / b, None, &[], None, None);
    T::store(out.add_offsets(1), a % b, None, &[], None, None);
    T::store(out.add_offsets(2), (a * 3 + 1) / b, None, &[], None, None);
    T::store(out.add_offsets(3), -a % b, None, &[], None, None);
    let mut q = a;
    q /= b;
    T::store(out.add_offsets(4), q, None, &[], None, None);
    T::store(out.add_offsets(5), C / 2 + a * 0, None, &[], None, None);
    let f = a as f32 / b as f32;
    T::store(out.add_offsets(6), (f * 100.0f32) as i32, None, &[], None, None);
    // Compile-time operands that may be negative: Rust truncation, not Python's floor.
    T::store(out.add_offsets(7), (C - 13) / 2 * 100 + (C - 13) % 2 + a * 0, None, &[], None, None);
}

/// A `let` inside a block does not clobber the outer binding.
#[kernel]
pub fn shadowing<T: Triton>(out: T::Pointer<f32>, flag: i32, n: i32) {
    let x = 1.0f32;
    let y = 10.0f32;
    if flag > 0 {
        let x = 2.0f32;
        let y = x * 3.0f32; // the outer `y` is untouched
        T::store(out.add_offsets(1), x + y, None, &[], None, None);
    } else {
        let y = 7.0f32;
        T::store(out.add_offsets(1), y, None, &[], None, None);
    }
    let mut acc = 0.0f32;
    for i in 0..n {
        let x = i as f32;
        acc += x;
    }
    T::store(out.add_offsets(0), x, None, &[], None, None);
    T::store(out.add_offsets(2), acc, None, &[], None, None);
    // same-scope shadowing changes the value from here on
    let x = x + y;
    T::store(out.add_offsets(3), x, None, &[], None, None);
    {
        let y = 100.0f32;
        T::store(out.add_offsets(4), y, None, &[], None, None);
    }
    T::store(out.add_offsets(5), y, None, &[], None, None);
}

/// Range forms: exclusive, inclusive, stepped, reversed; and `while`.
#[kernel]
pub fn loops<T: Triton>(out: T::Pointer<i32>, lo: i32, hi: i32) {
    let mut a = 0;
    for i in lo..hi {
        let three = 3; // a compile-time `let` inside a loop body
        a = a * three + i;
    }
    T::store(out.add_offsets(0), a, None, &[], None, None);
    let mut b = 0;
    for i in lo..=hi {
        b = b * 3 + i;
    }
    T::store(out.add_offsets(1), b, None, &[], None, None);
    let mut c = 0;
    for i in (lo..hi).step_by(3) {
        c = c * 3 + i;
    }
    T::store(out.add_offsets(2), c, None, &[], None, None);
    let mut d = 0;
    for i in (lo..hi).rev() {
        d = d * 3 + i;
    }
    T::store(out.add_offsets(3), d, None, &[], None, None);
    let mut e = 0;
    for i in (lo..=hi).rev() {
        e = e * 3 + i;
    }
    T::store(out.add_offsets(4), e, None, &[], None, None);
    let mut f = 0;
    let mut k = lo;
    while k < hi {
        let step = 2;
        f += k;
        k += step;
    }
    T::store(out.add_offsets(5), f, None, &[], None, None);
    let mut g = 0;
    for i in (lo..hi).rev().step_by(2) {
        g = g * 3 + i;
    }
    T::store(out.add_offsets(6), g, None, &[], None, None);
}

/// `if` as a value, with and without statements in its branches; `else if` chains.
#[kernel]
pub fn if_values<T: Triton>(out: T::Pointer<i32>, a: i32, b: i32) {
    let simple = if a > b { a } else { b };
    T::store(out.add_offsets(0), simple, None, &[], None, None);
    let with_stmts = if a > b {
        let t = a - b;
        t * 2
    } else if a == b {
        0
    } else {
        let t = b - a;
        t * 3
    };
    T::store(out.add_offsets(1), with_stmts, None, &[], None, None);
    let mut m = 0;
    if a > 10 && b > 10 {
        m = 1;
    } else if a > 10 || b > 10 {
        m = 2;
    } else {
        m = 3;
    }
    T::store(out.add_offsets(2), m, None, &[], None, None);
    let v = { let w = a + 1; w * w };
    T::store(out.add_offsets(3), v, None, &[], None, None);
}

/// Literal forms, `as` casts and the scalar constants.
#[kernel]
pub fn literals<T: Triton>(out: T::Pointer<f32>, x: f32) {
    T::store(out.add_offsets(0), (0x1F + 1_000 + 0b101) as f32, None, &[], None, None);
    T::store(out.add_offsets(1), 1e-3_f32 + 2.5f32 + 3f32, None, &[], None, None);
    T::store(out.add_offsets(2), ((x * 7.0f32) as i32) as f32, None, &[], None, None);
    T::store(out.add_offsets(3), f32::consts::PI, None, &[], None, None);
    T::store(out.add_offsets(4), T::sum(T::minimum(T::full(&[1], x), T::full(&[1], f32::INFINITY)), None, false), None, &[], None, None);
    T::store(out.add_offsets(5), (i32::MAX / 65536) as f32, None, &[], None, None);
    T::store(out.add_offsets(6), T::sum(T::maximum(T::full(&[1], x), T::full(&[1], f32::NEG_INFINITY)), None, false), None, &[], None, None);
    T::store(out.add_offsets(7), -(x as i32) as f32, None, &[], None, None);
}

/// Every core op, one output block of `BLOCK` each (see test_semantics.py for the reference).
#[kernel]
pub fn core_ops<T: Triton, D: Float, const BLOCK: i32>(x_ptr: T::Pointer<D>, out_ptr: T::Pointer<D>, n: i32) {
    let offs = T::arange(0, BLOCK);
    let mask = offs.lt(n);
    let one = T::full(&[BLOCK], D::ONE);
    let half = T::full::<D>(&[BLOCK], D::from_f64(0.5));
    let zero = T::zeros_like(one);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), Some(one), &[], None, None, None, false);
    let xf = T::cast::<D, f32>(x, None, false);
    T::store(out_ptr.add_offsets(offs), T::exp(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + BLOCK), T::exp2(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 2 * BLOCK), T::log(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 3 * BLOCK), T::log2(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 4 * BLOCK), T::sqrt(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 5 * BLOCK), T::rsqrt(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 6 * BLOCK), T::sigmoid(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 7 * BLOCK), T::abs(x - one), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 8 * BLOCK), T::maximum(x, half), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 9 * BLOCK), T::minimum(x, half), None, &[], None, None);
    let big = T::where_(T::gt_scalar(x, D::from_f64(0.5)), x, zero);
    T::store(out_ptr.add_offsets(offs + 10 * BLOCK), big, None, &[], None, None);
    let ramp = T::cast::<f32, D>(T::arange_f32(0, BLOCK) * xf, None, false);
    T::store(out_ptr.add_offsets(offs + 11 * BLOCK), ramp, None, &[], None, None);
    let total = T::sum(T::where_(mask, xf, T::zeros_like(xf)), None, false);
    let total = T::cast::<f32, D>(T::zeros::<f32>(&[BLOCK]) + total, None, false);
    T::store(out_ptr.add_offsets(offs + 12 * BLOCK), total, None, &[], None, None);
    let hi = T::max(x, Some(0), false);
    T::store(out_ptr.add_offsets(offs + 13 * BLOCK), T::zeros_like(x) + hi, None, &[], None, None);
    let lo = T::min(x, None, false);
    T::store(out_ptr.add_offsets(offs + 14 * BLOCK), T::zeros_like(x) + lo, None, &[], None, None);
    // The comparisons, as `T::` calls and in their `_scalar` forms: bit k set when test k holds.
    let bits = T::where_(T::lt(x, half), one, zero)
        + T::where_(T::le(x, one), one, zero) * D::from_f64(2.0)
        + T::where_(T::gt(x, one), one, zero) * D::from_f64(4.0)
        + T::where_(T::ge(x, half), one, zero) * D::from_f64(8.0)
        + T::where_(T::eq(x, one), one, zero) * D::from_f64(16.0)
        + T::where_(T::ne(x, one), one, zero) * D::from_f64(32.0);
    T::store(out_ptr.add_offsets(offs + 15 * BLOCK), bits, None, &[], None, None);
    let s = D::from_f64(1.5);
    let sbits = T::where_(T::lt_scalar(x, s), one, zero)
        + T::where_(T::le_scalar(x, s), one, zero) * D::from_f64(2.0)
        + T::where_(T::ge_scalar(x, s), one, zero) * D::from_f64(4.0)
        + T::where_(T::eq_scalar(x, D::ONE), one, zero) * D::from_f64(8.0)
        + T::where_(T::ne_scalar(x, D::ONE), one, zero) * D::from_f64(16.0)
        + T::where_(x.ge(half) & x.le(one) & x.ne(zero), one, zero) * D::from_f64(32.0);
    T::store(out_ptr.add_offsets(offs + 16 * BLOCK), sbits, None, &[], None, None);
    let grid_info = (T::num_programs(Axis::X) * 1000 + T::cdiv(n, 7)) as f32;
    let grid_info = T::cast::<f32, D>(T::full(&[BLOCK], grid_info), None, false);
    T::store(out_ptr.add_offsets(offs + 17 * BLOCK), grid_info, None, &[], None, None);
    // 2-D: row i of `mat` is x; its transpose's row sums are BLOCK * x[i].
    let mat = T::broadcast_to(T::expand_dims(xf, 0), &[BLOCK, BLOCK]);
    let mat_t = T::trans(mat, &[1, 0]);
    let row_sums = T::sum(mat_t, Some(1), false);
    T::store(out_ptr.add_offsets(offs + 18 * BLOCK), T::cast::<f32, D>(row_sums, None, false), None, &[], None, None);
    // dot: (mat @ mat_t)[i, k] = sum_j x[j]^2 for every i, k.
    let prod = T::dot::<f32, f32>(mat, mat_t, None, InputPrecision::IEEE, None);
    let sq = T::max(prod, Some(1), false);
    T::store(out_ptr.add_offsets(offs + 19 * BLOCK), T::cast::<f32, D>(sq, None, false), None, &[], None, None);
}

/// Early exit, `let _ =`, a Python keyword as a parameter name, `In`/`Out` markers,
/// and compile-time `let`s used where Triton needs compile-time values.
#[kernel]
pub fn odds_and_ends<T: Triton, const BLOCK: i32>(
    x_ptr: In<T::Pointer<f32>>,
    out_ptr: Out<T::Pointer<f32>>,
    lambda: f32,
    n_rows: i32,
) {
    let row = T::program_id(Axis::X);
    if row >= n_rows {
        return;
    }
    let half = BLOCK / 2;
    let offs = T::arange(0, half);
    let scale = 0.5f32;
    let x = T::load(x_ptr.add_offsets(offs + row * half), None, None, &[], None, None, None, false);
    let _ = T::max(x, None, false);
    let (best, _) = T::max_with_indices(x, 0, true, false);
    T::store(out_ptr.add_offsets(offs + row * half), x * scale + lambda + best, None, &[], None, None);
}

/// The sum combine function for `T::reduce` / `T::associative_scan`.
fn add_combine<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> {
    a + b
}

/// Methods beyond the core set, one output row of `BLOCK` each (see test_semantics.py).
#[kernel]
pub fn more_ops<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, out_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, BLOCK);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let one = T::full(&[BLOCK], 1.0f32);
    T::store(out_ptr.add_offsets(offs), T::cos(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + BLOCK), T::sin(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 2 * BLOCK), T::erf(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 3 * BLOCK), T::floor(x * 3.0f32), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 4 * BLOCK), T::ceil(x * 3.0f32), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 5 * BLOCK), T::atan(x), None, &[], None, None);
    let lo = T::full(&[BLOCK], 0.5f32);
    T::store(out_ptr.add_offsets(offs + 6 * BLOCK), T::clamp(x, lo, one), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 7 * BLOCK), T::fma(x, x, one), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 8 * BLOCK), T::fdiv(x, x + one, false), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 9 * BLOCK), T::div_rn(x, x + one), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 10 * BLOCK), T::sqrt_rn(x), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 11 * BLOCK), T::softmax(x, None, false, false), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 12 * BLOCK), T::cumsum(x, 0, false), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 13 * BLOCK), T::cumprod(x, 0, true), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 14 * BLOCK), T::flip(x, None), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 15 * BLOCK), T::sort(x, None, true), None, &[], None, None);
    let arg = T::argmax(x, 0, true, false) * 100 + T::argmin(x, 0, true, false);
    T::store(out_ptr.add_offsets(offs + 16 * BLOCK), T::zeros::<f32>(&[BLOCK]) + (arg as f32), None, &[], None, None);
    let m2 = T::reshape(x, &[2, BLOCK / 2], false);
    let back = T::ravel(T::permute(m2, &[1, 0]), false);
    T::store(out_ptr.add_offsets(offs + 17 * BLOCK), back, None, &[], None, None);
    let (a, b) = T::split(T::join(x, x * 2.0f32));
    T::store(out_ptr.add_offsets(offs + 18 * BLOCK), a + b, None, &[], None, None);
    let rev_idx = (BLOCK - 1) - offs;
    T::store(out_ptr.add_offsets(offs + 19 * BLOCK), T::gather(x, rev_idx, 0), None, &[], None, None);
    let xi = T::cast::<f32, i32>(x * 100.0f32, None, false);
    let xs = T::xor_sum(xi, Some(0), false);
    T::store(out_ptr.add_offsets(offs + 20 * BLOCK), T::zeros::<f32>(&[BLOCK]) + (xs as f32), None, &[], None, None);
    let (bx, by) = T::broadcast(T::expand_dims(x, 0), T::expand_dims(x, 1));
    T::store(out_ptr.add_offsets(offs + 21 * BLOCK), T::sum(bx - by, Some(1), false), None, &[], None, None);
    let hinted = T::max_contiguous(T::multiple_of(offs, &[16]), &[16]);
    let hinted = T::max_constancy(hinted, &[1]);
    T::store(out_ptr.add_offsets(hinted + 22 * BLOCK), x, None, &[], None, None);
    let (best, at) = T::min_with_indices(x, 0, true, false);
    T::store(out_ptr.add_offsets(offs + 23 * BLOCK), T::zeros::<f32>(&[BLOCK]) + best + (at as f32), None, &[], None, None);
    let bins = T::histogram(offs % 4, BLOCK, None);
    T::store(out_ptr.add_offsets(offs + 24 * BLOCK), T::cast::<i32, f32>(bins, None, false), None, &[], None, None);
    let total = T::reduce(x, 0, add_combine::<T, f32>, false);
    let running = T::associative_scan(x, 0, add_combine::<T, f32>, false);
    T::store(out_ptr.add_offsets(offs + 25 * BLOCK), running + total, None, &[], None, None);
    T::static_assert(BLOCK > 0, "BLOCK must be positive");
    T::device_assert(x.ge(T::zeros_like(x)), "x must be non-negative", None);
    T::debug_barrier();
    T::shared_barrier();
    let both = T::interleave(x, x * 2.0f32);
    let offs2 = T::arange(0, 2 * BLOCK);
    T::store(out_ptr.add_offsets(offs2 + 26 * BLOCK), both, None, &[], None, None);
}

/// Every atomic read-modify-write: each program applies `x + pid` to row k of `out`.
#[kernel]
pub fn atomics<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<i32>, out_ptr: T::Pointer<i32>, f_ptr: T::Pointer<f32>) {
    let pid = T::program_id(Axis::X);
    let offs = T::arange(0, BLOCK);
    let v = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false) + pid;
    let _ = T::atomic_add(out_ptr.add_offsets(offs), v, None, None, None);
    let _ = T::atomic_max(out_ptr.add_offsets(offs + BLOCK), v, None, Some(MemSem::AcqRel), Some(MemScope::Gpu));
    let _ = T::atomic_min(out_ptr.add_offsets(offs + 2 * BLOCK), v, None, Some(MemSem::Relaxed), None);
    let _ = T::atomic_and(out_ptr.add_offsets(offs + 3 * BLOCK), v, None, None, None);
    let _ = T::atomic_or(out_ptr.add_offsets(offs + 4 * BLOCK), v, None, None, Some(MemScope::Cta));
    let _ = T::atomic_xor(out_ptr.add_offsets(offs + 5 * BLOCK), v, None, None, None);
    let _ = T::atomic_xchg(out_ptr.add_offsets(offs + 6 * BLOCK), T::zeros_like(v) + 7, Some(offs.lt(BLOCK / 2)), None, None);
    let _ = T::atomic_cas(out_ptr.add_offsets(offs + 7 * BLOCK), T::zeros_like(v), v, None, None);
    let _ = T::atomic_add(f_ptr.add_offsets(offs), T::full(&[BLOCK], 0.5f32), None, Some(MemSem::Release), None);
}

/// Tensor descriptors: copy a tile, doubled.
#[kernel]
pub fn descriptors<T: Triton, const BM: i32, const BN: i32>(x_ptr: T::Pointer<f32>, y_ptr: T::Pointer<f32>, M: i32, N: i32) {
    let pid_m = T::program_id(Axis::X);
    let pid_n = T::program_id(Axis::Y);
    let xd = T::make_tensor_descriptor(x_ptr, &[M, N], &[N, 1], &[BM, BN], None);
    let yd = T::make_tensor_descriptor(y_ptr, &[M, N], &[N, 1], &[BM, BN], Some(PaddingOption::Zero));
    let tile = T::load_tensor_descriptor(xd, &[pid_m * BM, pid_n * BN]);
    T::store_tensor_descriptor(yd, &[pid_m * BM, pid_n * BN], tile * 2.0f32);
}

/// Random numbers, grouped program ids, scalar loads, `view` and ordered `cat`.
#[kernel]
pub fn misc_ops<T: Triton, const BLOCK: i32>(out_ptr: T::Pointer<f32>, iout_ptr: T::Pointer<i32>, s_ptr: T::Pointer<f32>, seed: u32) {
    let pid = T::program_id(Axis::X);
    let offs = T::arange(0, BLOCK) + pid * BLOCK;
    T::store(out_ptr.add_offsets(offs), T::rand(seed, offs, 10), None, &[], None, None);
    T::store(out_ptr.add_offsets(offs + 4 * BLOCK), T::randn(seed, offs, 10), None, &[], None, None);
    T::store(iout_ptr.add_offsets(offs), T::randint(seed, offs, 10), None, &[], None, None);
    let (r0, r1, r2, r3) = T::randint4x(seed, offs, 10);
    T::store(iout_ptr.add_offsets(offs + 4 * BLOCK), r0 ^ r1 ^ r2 ^ r3, None, &[], None, None);
    let (gi, gj) = T::swizzle2d(pid, 1, 4, 3, 2);
    let k = T::load_scalar_f32_as_i32(s_ptr, pid);
    let local = T::arange(0, BLOCK);
    T::store(iout_ptr.add_offsets(local + (8 + pid) * BLOCK), T::zeros::<i32>(&[BLOCK]) + gi * 100 + gj * 10 + k, None, &[], None, None);
    let v = T::view(T::arange_f32(0, BLOCK), &[2, BLOCK / 2]);
    let both = T::cat(T::arange_f32(0, BLOCK), T::arange_f32(0, BLOCK) + 100.0f32, false);
    let wide = T::arange(0, 2 * BLOCK);
    T::store(out_ptr.add_offsets(wide + 8 * BLOCK + pid * 2 * BLOCK), both + T::sum(T::sum(v, Some(1), false), Some(0), false) * 0.0f32, None, &[], None, None);
}

/// Hints, printing and the high half of an unsigned product.
#[kernel]
pub fn hints_and_prints<T: Triton, const BLOCK: i32>(a_ptr: T::Pointer<u32>, b_ptr: T::Pointer<u32>, out_ptr: T::Pointer<u32>, n: i32) {
    T::assume(n > 0);
    T::static_print("compiling hints_and_prints");
    let offs = T::arange(0, BLOCK);
    let a = T::load(a_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let b = T::load(b_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let hi = T::umulhi(a, b);
    T::device_print("hi: ", hi, false);
    T::store(out_ptr.add_offsets(offs), hi, None, &[], None, None);
}

/// A scalar parameter of the dtype parameter's type: `y = alpha * x`.
#[kernel]
pub fn scale<T: Triton, D: Float, const BLOCK: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, alpha: D, n: i32) {
    let offs = T::arange(0, BLOCK);
    let mask = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offs), x * alpha, Some(mask), &[], None, None);
}

/// Inline assembly: the DSL passes no operands, so the asm reads special registers.
#[kernel]
pub fn lane_ids<T: Triton>(out_ptr: T::Pointer<i32>) {
    let lane = T::inline_asm_elementwise::<i32>("mov.u32 $0, %laneid;", "=r", true, 1);
    T::store(out_ptr.add_offsets(T::program_id(Axis::X)), lane, None, &[], None, None);
}

/// One tile of a block-scaled fp8 matmul: `C = (A * 2^(sa - 127)) @ (B * 2^(sb - 127))`.
#[kernel]
pub fn scaled_dot<T: Triton, D: Dtype, const M: i32, const N: i32, const K: i32>(
    a_ptr: T::Pointer<D>,
    a_scale_ptr: T::Pointer<u8>,
    b_ptr: T::Pointer<D>,
    b_scale_ptr: T::Pointer<u8>,
    c_ptr: T::Pointer<f32>,
) {
    let rm = T::arange(0, M);
    let rn = T::arange(0, N);
    let rk = T::arange(0, K);
    let rs = T::arange(0, K / 32);
    let a = T::load(a_ptr.add_offsets(T::expand_dims(rm, 1) * K + T::expand_dims(rk, 0)), None, None, &[], None, None, None, false);
    let b = T::load(b_ptr.add_offsets(T::expand_dims(rk, 1) * N + T::expand_dims(rn, 0)), None, None, &[], None, None, None, false);
    let sa = T::load(a_scale_ptr.add_offsets(T::expand_dims(rm, 1) * (K / 32) + T::expand_dims(rs, 0)), None, None, &[], None, None, None, false);
    let sb = T::load(b_scale_ptr.add_offsets(T::expand_dims(rn, 1) * (K / 32) + T::expand_dims(rs, 0)), None, None, &[], None, None, None, false);
    let c = T::dot_scaled::<D, u8, f32>(a, sa, DotFormat::E4M3, b, sb, DotFormat::E4M3, None, false);
    T::store(c_ptr.add_offsets(T::expand_dims(rm, 1) * N + T::expand_dims(rn, 0)), c, None, &[], None, None);
}

/// Rust's integer rules where Python's differ: `/` and `%` in folded and compile-time values,
/// shifts, wrapping casts, unsigned comparisons and `!` (C = 9 in the tests).
#[kernel]
pub fn int_rules<T: Triton, const C: i32>(out: T::Pointer<i64>, a: i32, b: i32) {
    // folded literals: every sign combination
    T::store(out.add_offsets(0), (-7 / 2) as i64, None, &[], None, None);
    T::store(out.add_offsets(1), (-7 % 2) as i64, None, &[], None, None);
    T::store(out.add_offsets(2), (7 / -2) as i64, None, &[], None, None);
    T::store(out.add_offsets(3), (7 % -2) as i64, None, &[], None, None);
    T::store(out.add_offsets(4), (-7 / -2) as i64, None, &[], None, None);
    T::store(out.add_offsets(5), (-7 % -2) as i64, None, &[], None, None);
    // compile-time values that may be negative: C - 14 = -5, 14 - C = 5
    T::store(out.add_offsets(6), ((C - 14) / 4) as i64, None, &[], None, None);
    T::store(out.add_offsets(7), ((C - 14) % 4) as i64, None, &[], None, None);
    T::store(out.add_offsets(8), ((14 - C) / -4) as i64, None, &[], None, None);
    T::store(out.add_offsets(9), ((14 - C) % -4) as i64, None, &[], None, None);
    // runtime values
    T::store(out.add_offsets(10), (a / b) as i64, None, &[], None, None);
    T::store(out.add_offsets(11), (a % b) as i64, None, &[], None, None);
    // shifts: bits shifted out of a typed literal are lost; `>>` is arithmetic on signed
    // values and logical on unsigned ones
    T::store(out.add_offsets(12), (1i32 << 31) as i64, None, &[], None, None);
    T::store(out.add_offsets(13), (0x0Fu8 << 5) as i64, None, &[], None, None);
    T::store(out.add_offsets(14), (-8 >> 1) as i64, None, &[], None, None);
    T::store(out.add_offsets(15), (a >> 2) as i64, None, &[], None, None);
    T::store(out.add_offsets(16), ((a as u32) >> 28) as i64, None, &[], None, None);
    // casts between integers wrap
    T::store(out.add_offsets(17), (a as u8) as i64, None, &[], None, None);
    T::store(out.add_offsets(18), (a as i8) as i64, None, &[], None, None);
    T::store(out.add_offsets(19), (a as u32) as i64, None, &[], None, None);
    T::store(out.add_offsets(20), ((C - 14) as u32) as i64, None, &[], None, None);
    T::store(out.add_offsets(21), ((C * 100) as u8) as i64, None, &[], None, None);
    T::store(out.add_offsets(22), (-1i32 as u8) as i64, None, &[], None, None);
    T::store(out.add_offsets(23), (300i32 as i8) as i64, None, &[], None, None);
    // float -> int casts of constants saturate, NaN is 0
    T::store(out.add_offsets(24), (-1.5f32 as u8) as i64, None, &[], None, None);
    T::store(out.add_offsets(25), (3.9e10f64 as i32) as i64, None, &[], None, None);
    T::store(out.add_offsets(26), (-2.9f32 as i32) as i64, None, &[], None, None);
    // unsigned comparisons and `!`
    T::store(out.add_offsets(27), ((a as u32) > 5u32) as i64, None, &[], None, None);
    T::store(out.add_offsets(28), (((C - 14) as u32) > 5u32) as i64, None, &[], None, None);
    T::store(out.add_offsets(29), (!5u32) as i64, None, &[], None, None);
    T::store(out.add_offsets(30), (!(C as u32)) as i64, None, &[], None, None);
    T::store(out.add_offsets(31), (!(a as u32)) as i64, None, &[], None, None);
    T::store(out.add_offsets(32), (!a) as i64, None, &[], None, None);
    T::store(out.add_offsets(33), (-128i8) as i64, None, &[], None, None);
    T::store(out.add_offsets(34), (!0u8) as i64, None, &[], None, None);
    // an unsuffixed literal under `as` is an i32
    T::store(out.add_offsets(35), (1 << 31) as i64, None, &[], None, None);
    T::store(out.add_offsets(36), ((16777217 as f32) as i32) as i64, None, &[], None, None);
    // bool operators
    let both = a > 0 && b > 0;
    let either = a > 0 || b > 0;
    T::store(out.add_offsets(37), both as i64 + 2 * (either as i64) + 4 * ((a > 0) ^ (b > 0)) as i64 + 8 * (!both) as i64, None, &[], None, None);
    T::store(out.add_offsets(38), (C > 3 && !(C > 10)) as i64 + 2 * (C < 3 || C == 9) as i64, None, &[], None, None);
    // the pointer-sized integers: `usize` is unsigned, `isize` signed
    T::store(out.add_offsets(39), ((a as usize) > 5) as i64, None, &[], None, None);
    T::store(out.add_offsets(40), ((a as isize) > 5) as i64, None, &[], None, None);
    T::store(out.add_offsets(41), (((C - 14) as usize) > 5usize) as i64, None, &[], None, None);
    T::store(out.add_offsets(42), ((a as usize) >> 60) as i64, None, &[], None, None);
}

/// Float `%` is C's fmod (the sign of the dividend), float -> int casts of runtime values,
/// and constants rounded to their float type.
#[kernel]
pub fn float_rules<T: Triton>(out: T::Pointer<f32>, iout: T::Pointer<i64>, x: f32, y: f32) {
    T::store(out.add_offsets(0), -7.5f32 % 2.0f32, None, &[], None, None);
    T::store(out.add_offsets(1), x % y, None, &[], None, None);
    T::store(out.add_offsets(2), 1e40f64 as f32, None, &[], None, None);
    T::store(out.add_offsets(3), (x as i32) as f32, None, &[], None, None);
    T::store(iout.add_offsets(0), (x as i32) as i64, None, &[], None, None);
    T::store(iout.add_offsets(1), (x as u8) as i64, None, &[], None, None);
    T::store(iout.add_offsets(2), (x as i8) as i64, None, &[], None, None);
    T::store(iout.add_offsets(3), (x as u32) as i64, None, &[], None, None);
    T::store(iout.add_offsets(4), x as i64, None, &[], None, None);
}
