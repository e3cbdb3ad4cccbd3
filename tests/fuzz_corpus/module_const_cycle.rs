const A: i32 = B;
const B: i32 = A;
#[kernel]
pub fn k<T: Triton>(n: i32) { let a = A; }
