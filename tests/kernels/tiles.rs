//! The tile DSL of teenygrad's newest branch: `#[tiled_kernel]`, `Tile<T, D>` values and plain
//! fns called from kernels (nested in a body or at module level). Checked by tests/test_tiles.py.

use teeny_triton::triton::*;

/// Scales a tile by a tensor; the mask goes along.
fn scale<TT: Triton, DD: Float>(t: Tile<TT, DD>, by: TT::Tensor<DD>) -> Tile<TT, DD> {
    Tile {
        tensor: t.tensor * by,
        mask: t.mask,
    }
}

/// A plain tensor helper at module level, generic over its dtype; a tail expression returns.
fn square<TT: Triton, DD: Float>(v: TT::Tensor<DD>) -> TT::Tensor<DD> {
    v * v
}

/// Stores a tile through a tile of pointers (an `Out` tile passed along, as composed tile-ops do).
fn store_tile<TT: Triton, DD: Float>(dst: Tile<TT, TT::Pointer<DD>>, v: Tile<TT, DD>) {
    TT::store(dst.tensor, v.tensor, v.mask, &[], None, None);
}

/// `max(x, 0)` of a tile.
fn relu_tile<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> Tile<TT, DD> {
    let zero = TT::zeros_like(t.tensor);
    Tile { tensor: TT::maximum(t.tensor, zero), mask: t.mask }
}

/// A kernel made of tile-ops: helpers take and give whole tiles, the store happens in one.
#[tiled_kernel(dtypes = [f32, f16])]
pub fn tile_composed<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x: In<Tile<T, D>>,
    y: Out<Tile<T, D>>,
    n_elements: i32,
) {
    let r = relu_tile::<T, D>(x);
    store_tile::<T, D>(y, r);
}

/// `y = alpha * x + x * x` through the macro's prelude: `x` is a loaded tile, `y` a tile of pointers.
#[tiled_kernel(dtypes = [f32, f16])]
pub fn tile_affine<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x: In<Tile<T, D>>,
    y: Out<Tile<T, D>>,
    n_elements: i32,
    alpha: f32,
) {
    let a = T::full(&[BLOCK_SIZE], D::from_f64(alpha as f64));
    let scaled = scale::<T, D>(x, a);
    let sq = square::<T, D>(scaled.tensor);
    T::store(y.tensor, sq / (a * a) + scaled.tensor, scaled.mask, &[], None, None);
}

/// Two inputs in signature order, the author's own names shadowing the prelude's (`offsets`,
/// `in_bounds`), and an `InOut` tile, which gets no prelude: it stays a pointer.
#[tiled_kernel]
pub fn tile_shadowing<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    a: In<Tile<T, D>>,
    b: In<Tile<T, D>>,
    acc: InOut<Tile<T, D>>,
    out: Out<Tile<T, D>>,
    n_elements: i32,
) {
    let in_bounds = a.tensor.gt(b.tensor); // the author's `in_bounds`, not the prelude's
    let bigger = T::where_(in_bounds, a.tensor, b.tensor);
    T::store(out.tensor, bigger, a.mask, &[], None, None);
    let offsets = offsets + 0; // the prelude's `offsets`, shadowed
    let old = T::load(acc.add_offsets(offsets), b.mask, None, &[], None, None, None, false);
    T::store(acc.add_offsets(offsets), old + bigger, b.mask, &[], None, None);
}

/// Tile literals with and without turbofish, `Some` and `None` masks, a nested
/// `#[inline(always)]` helper called once per mask shape, and a helper calling a helper.
#[kernel]
pub fn tile_literals<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: In<T::Pointer<D>>,
    y_ptr: Out<T::Pointer<D>>,
    n_elements: i32,
) {
    #[inline(always)]
    fn twice<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> Tile<TT, DD> {
        let doubled = t.tensor + t.tensor;
        Tile { tensor: doubled, mask: t.mask }
    }

    fn plus_one<TT: Triton, DD: Float>(t: Tile<TT, DD>) -> TT::Tensor<DD> {
        let one = TT::full(&[16], DD::from_f64(1.0));
        let again = twice::<TT, DD>(t);
        again.tensor + one
    }

    let offsets = T::arange(0, BLOCK_SIZE);
    let in_bounds = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(in_bounds), None, &[], None, None, None, false);
    let masked = Tile::<T, D> { tensor: x, mask: Some(in_bounds) };
    let bare: Tile<T, D> = Tile { tensor: x, mask: None };
    let m2 = twice::<T, D>(masked);
    let b2 = twice::<T, D>(bare);
    let mask = m2.mask;
    T::store(y_ptr.add_offsets(offsets), m2.tensor + b2.tensor, mask, &[], None, None);
    let bare_again = Tile::<T, D> { tensor: x, mask: None };
    let p = plus_one::<T, D>(bare_again);
    T::store(y_ptr.add_offsets(offsets + BLOCK_SIZE), p, Some(in_bounds), &[], None, None);
}

/// A nested helper of the same name as another kernel's, with a different body.
#[kernel]
pub fn other_twice<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: In<T::Pointer<D>>,
    y_ptr: Out<T::Pointer<D>>,
    n_elements: i32,
) {
    fn twice<TT: Triton, DD: Float>(v: TT::Tensor<DD>) -> TT::Tensor<DD> {
        v * DD::from_f64(3.0)
    }

    let offsets = T::arange(0, BLOCK_SIZE);
    let in_bounds = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(in_bounds), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), twice::<T, D>(x), Some(in_bounds), &[], None, None);
}

/// `loop {}` placeholders: a call of one is the endless loop Rust runs; in a branch never
/// taken it costs nothing, and what follows an unconditional one is never reached.
#[kernel]
pub fn placeholders<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: In<T::Pointer<D>>,
    y_ptr: Out<T::Pointer<D>>,
    n_elements: i32,
    spin: i32,
) {
    #[allow(clippy::empty_loop)]
    fn never<DD: Dtype>() -> DD {
        loop {}
    }

    let offsets = T::arange(0, BLOCK_SIZE);
    let in_bounds = offsets.lt(n_elements);
    let x = T::load(x_ptr.add_offsets(offsets), Some(in_bounds), None, &[], None, None, None, false);
    if spin > 0 {
        let v = T::full(&[BLOCK_SIZE], never::<D>());
        T::store(y_ptr.add_offsets(offsets), v, Some(in_bounds), &[], None, None);
    }
    T::store(y_ptr.add_offsets(offsets), x + x, Some(in_bounds), &[], None, None);
}

/// Never returns: the loop, then nothing (the rest is unreachable, as rustc says).
#[kernel]
#[allow(unreachable_code)]
pub fn spins<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: Out<T::Pointer<D>>) {
    #[allow(clippy::empty_loop)]
    fn hang<TT: Triton>() -> TT::BoolTensor {
        loop {}
    }

    let offsets = T::arange(0, BLOCK_SIZE);
    let cond = hang::<T>();
    T::store(x_ptr.add_offsets(offsets), T::zeros::<D>(&[BLOCK_SIZE]), Some(cond), &[], None, None);
    let _ = T::dot_scaled::<D, D, D>(T::zeros::<D>(&[16, 16]), T::zeros::<D>(&[16, 1]), DotFormat::Int8,
                                     T::zeros::<D>(&[16, 16]), T::zeros::<D>(&[16, 1]), DotFormat::E4M3, None, false);
}

/// `T::zeros::<T::Pointer<D>>`: a tensor of null pointers (teeny-triton's kitchen sink makes one),
/// here the pointers of the lanes past `n_elements`, which the mask keeps from being read.
#[kernel]
pub fn null_pointers<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: In<T::Pointer<D>>,
    y_ptr: Out<T::Pointer<D>>,
    n_elements: i32,
) {
    let offsets = T::arange(0, BLOCK_SIZE);
    let in_bounds = offsets.lt(n_elements);
    let nowhere = T::zeros::<T::Pointer<D>>(&[BLOCK_SIZE]);
    let ptrs = T::where_(in_bounds, x_ptr.add_offsets(offsets), nowhere);
    let x = T::load(ptrs, Some(in_bounds), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x + x, Some(in_bounds), &[], None, None);
}
