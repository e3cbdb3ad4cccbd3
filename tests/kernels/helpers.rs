//! Plain fns as helpers: combine fns nested in a kernel's body (passed to `T::reduce` and
//! `T::associative_scan` as the file's own are), and helpers whose dtype parameters are their
//! own (`DD`, resolved from their arguments or passed by the call). See tests/test_helpers.py.
use teeny_triton::triton::*;

/// The file's sum combine fn; `nested_combines` has a `combine` of its own, which shadows it there.
fn combine<T: Triton, D: Num>(a: T::Tensor<D>, b: T::Tensor<D>) -> T::Tensor<D> {
    a + b
}

/// Per row of `BLOCK`: its maximum, and its running product, with combine fns nested in the body.
#[kernel]
pub fn nested_combines<T: Triton, D: Float, const BLOCK: i32>(
    x_ptr: T::Pointer<D>,
    max_ptr: T::Pointer<D>,
    prod_ptr: T::Pointer<D>,
) {
    fn max_combine<TT: Triton, DD: Float>(a: TT::Tensor<DD>, b: TT::Tensor<DD>) -> TT::Tensor<DD> {
        TT::maximum(a, b)
    }
    // the product, named as the file's sum: this one is meant here
    fn combine<TT: Triton, DD: Float>(a: TT::Tensor<DD>, b: TT::Tensor<DD>) -> TT::Tensor<DD> {
        a * b
    }
    let row = T::program_id(Axis::X);
    let offs = T::arange(0, BLOCK) + row * BLOCK;
    let x = T::load(x_ptr.add_offsets(offs), None, None, &[], None, None, None, false);
    let m = T::reduce(x, 0, max_combine::<T, D>, false);
    T::store(max_ptr.add_offsets(row), m, None, &[], None, None);
    let p = T::associative_scan(x, 0, combine::<T, D>, false);
    T::store(prod_ptr.add_offsets(offs), p, None, &[], None, None);
}

/// Per row: its sum by the file's combine fn, and its minimum by a nested fn named as the other
/// kernel's (a helper of its own).
#[kernel]
pub fn module_combine<T: Triton, const BLOCK: i32>(x_ptr: T::Pointer<f32>, out_ptr: T::Pointer<f32>) {
    fn max_combine<TT: Triton>(a: TT::Tensor<f32>, b: TT::Tensor<f32>) -> TT::Tensor<f32> {
        TT::minimum(a, b)
    }
    let row = T::program_id(Axis::X);
    let x = T::load(x_ptr.add_offsets(T::arange(0, BLOCK) + row * BLOCK), None, None, &[], None, None, None, false);
    let s = T::reduce(x, 0, combine::<T, f32>, false);
    let lo = T::reduce(x, 0, max_combine::<T>, false);
    T::store(out_ptr.add_offsets(row * 2), s, None, &[], None, None);
    T::store(out_ptr.add_offsets(row * 2 + 1), lo, None, &[], None, None);
}

/// `x + k`: `DD` is the dtype of `x`, and so of the fill.
fn shifted<TT: Triton, DD: Float>(x: TT::Tensor<DD>, k: DD) -> TT::Tensor<DD> {
    let fill = TT::full(&[1], k);
    x + fill
}

/// `k` as a one-element tensor of `DD`: no argument's dtype is `DD`, so the call passes it.
fn filled<TT: Triton, DD: Float>(k: DD) -> TT::Tensor<DD> {
    TT::full(&[1], k)
}

/// `exp` of a Tile's tensor, computed in f32 for half types and rounded back to `DD`.
fn tile_exp<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> TT::Tensor<DD> {
    TT::exp(t.tensor)
}

/// `y = (x + k) + k + 2 + exp(x)` through helpers with dtype parameters of their own.
#[kernel]
pub fn own_dtypes<T: Triton, D: Float, const BLOCK: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, k: D, n: i32) {
    let offs = T::arange(0, BLOCK) + T::program_id(Axis::X) * BLOCK;
    let in_bounds = offs.lt(n);
    let x = T::load(x_ptr.add_offsets(offs), Some(in_bounds), None, &[], None, None, None, false);
    let t = Tile { tensor: x, mask: Some(in_bounds) };
    let e = tile_exp::<T, D>(t);
    let y = shifted::<T, D>(x, k) + filled::<T, D>(k) + filled::<T, D>(D::from_f64(2.0)) + e;
    T::store(y_ptr.add_offsets(offs), y, Some(in_bounds), &[], None, None);
}
