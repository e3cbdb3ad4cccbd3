//! A kernel for the launcher tests: access markers, a concrete `i32` pointer,
//! a scalar typed by the dtype parameter, a bool and a backward that lives elsewhere.

use teeny_macros::kernel;
use teeny_triton::triton::{types::{AddOffsets, Comparison}, *};

/// `y = alpha * x (+ y when accumulate)`; `index_ptr` receives each element's index.
#[kernel(backward = AxpyBackward)]
pub fn axpy<T: Triton, D: Num, const BLOCK: i32>(
    x_ptr: InPtr<T::Pointer<D>>,
    y_ptr: InOutPtr<T::Pointer<D>>,
    index_ptr: OutPtr<T::Pointer<i32>>,
    alpha: D,
    n: i32,
    accumulate: bool,
) {
    let pid = T::program_id(Axis::X);
    let offsets = T::arange(0, BLOCK) + pid * BLOCK;
    let mask = offsets.lt(n);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let y = T::load(y_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    if accumulate {
        T::store(y_ptr.add_offsets(offsets), x * alpha + y, Some(mask), &[], None, None);
    } else {
        T::store(y_ptr.add_offsets(offsets), x * alpha, Some(mask), &[], None, None);
    }
    T::store(index_ptr.add_offsets(offsets), offsets, Some(mask), &[], None, None);
}
