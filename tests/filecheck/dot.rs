//! Matrix products.

use teeny_triton::triton::*;

#[kernel]
pub fn dots<T: Triton, D: Float, const M: i32, const N: i32, const K: i32>(a_ptr: T::Pointer<D>, b_ptr: T::Pointer<D>, sa_ptr: T::Pointer<u8>, sb_ptr: T::Pointer<u8>, c_ptr: T::Pointer<f32>) {
    let rm = T::arange(0, M);
    let rn = T::arange(0, N);
    let rk = T::arange(0, K);
    let rs = T::arange(0, K / 32);
    let a = T::load(a_ptr.add_offsets(T::expand_dims(rm, 1) * K + T::expand_dims(rk, 0)), None, None, &[], None, None, None, false);
    let b = T::load(b_ptr.add_offsets(T::expand_dims(rk, 1) * N + T::expand_dims(rn, 0)), None, None, &[], None, None, None, false);
    // CHECK-LABEL: def dots(
    // CHECK-NOT: D = a_ptr.dtype
    let acc = T::zeros::<f32>(&[M, N]);
    let acc = T::dot::<D, f32>(a, b, Some(acc), InputPrecision::IEEE, None);
    // CHECK: acc = tl.dot(a, b, acc=acc, input_precision="ieee")
    let tf = T::dot::<D, f32>(a, b, None, InputPrecision::TF32, None);
    // CHECK-NEXT: tf = tl.dot(a, b)
    let x3 = T::dot::<D, f32>(a, b, Some(tf), InputPrecision::TF32x3, Some(32));
    // CHECK-NEXT: x3 = tl.dot(a, b, acc=tf, input_precision="tf32x3", max_num_imprecise_acc=32)
    let sa = T::load(sa_ptr.add_offsets(T::expand_dims(rm, 1) * (K / 32) + T::expand_dims(rs, 0)), None, None, &[], None, None, None, false);
    let sb = T::load(sb_ptr.add_offsets(T::expand_dims(rn, 1) * (K / 32) + T::expand_dims(rs, 0)), None, None, &[], None, None, None, false);
    let sc = T::dot_scaled::<D, u8, f32>(a, sa, DotFormat::E4M3, b, sb, DotFormat::E5M2, None, false);
    // CHECK: sc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e5m2")
    let sd = T::dot_scaled::<D, u8, f32>(a, sa, DotFormat::BF16x2, b, sb, DotFormat::BF16x2, Some(sc), true);
    // CHECK-NEXT: sd = tl.dot_scaled(a, sa, "bf16", b, sb, "bf16", acc=sc, fast_math=True)
    T::store(c_ptr.add_offsets(T::expand_dims(rm, 1) * N + T::expand_dims(rn, 0)), acc + x3 + sd, None, &[], None, None);
}
