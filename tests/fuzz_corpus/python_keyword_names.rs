// Rust names that are Python keywords: each gets a trailing `_`, as every name does.
const lambda: i32 = 4;

fn pass<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> {
    a + b
}

#[kernel]
pub fn assert<T: Triton, D: Num, const def: i32>(r#in: T::Pointer<D>, class: T::Pointer<D>, True: i32) {
    let offs = T::arange(0, def);
    let x = T::load(r#in.add_offsets(offs), None, None, &[], None, None, None, false);
    let s = T::reduce(x, 0, pass::<T, D>, false);
    let with = True + lambda;
    T::store(class.add_offsets(offs), x + s, None, &[], None, None);
}
