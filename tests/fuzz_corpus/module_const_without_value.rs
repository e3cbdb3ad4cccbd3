const A: i32;
#[kernel]
pub fn k<T: Triton>(n: i32) { let a = A; }
