// A `let` that reads the loop counter between its `let mut` and the `while`: not a counted loop.
#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32) {
    let mut start: i32 = 0;
    let offs = T::arange(0, B) + start;
    while start < n {
        T::store(x_ptr.add_offsets(offs + start), T::zeros::<f32>(&[B]), None, &[], None, None);
        start += B;
    }
}
