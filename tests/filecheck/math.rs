//! Elementwise math and casts.

use teeny_triton::triton::*;

// Helpers come first: `T::atan` and f16 math use generated `@triton.jit` functions.
// CHECK: @triton.jit
// CHECK-NEXT: def _atan(x):
// CHECK: def _upcast_f16(x):

#[kernel]
pub fn math<T: Triton, D: Float, const BLOCK: i32>(x_ptr: T::Pointer<D>, u_ptr: T::Pointer<u32>, out_ptr: T::Pointer<f32>) {
    let offs = T::arange(0, BLOCK);
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let xf = T::cast::<D, f32>(x, None, false);
    // CHECK-LABEL: def math(x_ptr, u_ptr, out_ptr, BLOCK: tl.constexpr):
    // CHECK: xf = x.to(tl.float32)
    let xh = T::cast::<f32, f16>(xf, Some(FpDowncastRounding::Rtz), false);
    // CHECK-NEXT: xh = xf.to(tl.float16, fp_downcast_rounding="rtz")
    let bits = T::cast::<f32, i32>(xf, None, true);
    // CHECK-NEXT: bits = xf.to(tl.int32, bitcast=True)
    let a = T::abs(xf);
    // CHECK-NEXT: a = tl.abs(xf)
    let a = T::ceil(a) + T::floor(a);
    // CHECK-NEXT: a = tl.ceil(a) + tl.floor(a)
    let a = T::cos(a) + T::sin(a);
    // CHECK-NEXT: a = tl.cos(a) + tl.sin(a)
    let a = T::exp(a) + T::exp2(a);
    // CHECK-NEXT: a = tl.exp(a) + tl.exp2(a)
    let a = T::log(a) + T::log2(a);
    // CHECK-NEXT: a = tl.log(a) + tl.log2(a)
    let a = T::rsqrt(a) + T::sigmoid(a);
    // CHECK-NEXT: a = tl.rsqrt(a) + tl.sigmoid(a)
    let a = T::sqrt(a) + T::sqrt_rn(a);
    // CHECK-NEXT: a = tl.sqrt(a) + tl.sqrt_rn(a)
    let a = T::erf(a) + T::atan(a);
    // CHECK-NEXT: a = tl.erf(a) + _atan(a)
    let a = T::maximum(a, xf) + T::minimum(a, xf);
    // CHECK-NEXT: a = tl.maximum(a, xf) + tl.minimum(a, xf)
    let a = T::clamp(a, xf, xf + 1.0f32);
    // CHECK-NEXT: a = tl.clamp(a, xf, xf + 1.0)
    let a = T::fma(a, xf, a);
    // CHECK-NEXT: a = tl.fma(a, xf, a)
    let a = T::fdiv(a, xf, false) + T::fdiv(a, xf, true);
    // CHECK-NEXT: a = tl.fdiv(a, xf) + tl.fdiv(a, xf, ieee_rounding=True)
    let a = T::div_rn(a, xf);
    // CHECK-NEXT: a = tl.div_rn(a, xf)
    let u = T::load(u_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let hi = T::umulhi(u, u);
    // CHECK: hi = tl.umulhi(u, u)
    let half = T::exp(x);
    // CHECK-NEXT: half = tl.exp(_upcast_f16(x))
    T::store(out_ptr.add_offsets(offs), a + T::cast::<f16, f32>(xh, None, false), None, &[], None, None);
    // CHECK-NEXT: tl.store(out_ptr + offs, a + xh.to(tl.float32))
}

// One helper of each kind, however many calls.
// CHECK-NOT: def _atan(
