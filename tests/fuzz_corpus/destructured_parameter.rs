#[kernel]
pub fn k<T: Triton>((n, m): (i32, i32)) {
}
