#[kernel]
pub fn k<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, n: i32) {
    let src = T::make_block_ptr(x_ptr, &[n], &[1], &[0], &[BLOCK], &[0]);
    let v = T::load(src, None, None, &[0.5], Some(PaddingOption::Nan), None, None, false);
}
