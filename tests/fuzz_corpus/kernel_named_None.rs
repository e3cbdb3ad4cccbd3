#[kernel]
pub fn None<T: Triton>(x: i32) {}
