#[kernel]
pub fn k<T: Triton>(n: i32) {
    let s = "À¯";
}
