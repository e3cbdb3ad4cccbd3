#[kernel]
pub fn k<T: Triton, const B: i32, const B: i32>(n: i32) {
}
