ÿ#[kernel]
pub fn k<T: Triton>(n: i32) {
}
