#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32, n: i32) {
    let m = n + B;
}
