#[kernel]
pub fn k<T: Triton>(x: f32) {
    let y = x * 3.0f30;
}
