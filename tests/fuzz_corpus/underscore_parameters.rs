#[kernel]
pub fn k<T: Triton>(_: i32, _: T::Pointer<f32>, n: i32) {
    let m = n * 2;
}
