#[kernel]
pub fn k<T: Triton, const B: i32>(B: i32) {
}
