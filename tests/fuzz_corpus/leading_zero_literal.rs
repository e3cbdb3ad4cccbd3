#[kernel]
pub fn k<T: Triton>(out_ptr: T::Pointer<i32>) {
    T::store(out_ptr, 007 + 0x1F + 0o17 + 0b101 + 0_1, None, &[], None, None);
}
