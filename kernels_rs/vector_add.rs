//! Element-wise vector addition.
//!
//! Layout: three contiguous 1-D buffers of `n_elements` items. Each program
//! handles one `BLOCK_SIZE`-wide slice; only the last slice can be partial.

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Computes `out[i] = a[i] + b[i]` for `i < n_elements`.
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]` — one program per block.
///
/// Full blocks take an unmasked fast path; the trailing partial block
/// (if any) falls back to masked loads and stores.
#[kernel]
pub fn vector_add<T: Triton, D: Num, const BLOCK_SIZE: i32>(
    a_ptr: T::Pointer<D>,
    b_ptr: T::Pointer<D>,
    out_ptr: T::Pointer<D>,
    n_elements: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let pid = T::program_id(Axis::X);
    let block_start = pid * BLOCK_SIZE;
    let offsets = block_start + T::arange(0, BLOCK_SIZE);

    if block_start + BLOCK_SIZE <= n_elements {
        // Whole block is in range: no mask needed.
        let a = T::load(a_ptr.add_offsets(offsets), None, None, &[], None, None, None, false);
        let b = T::load(b_ptr.add_offsets(offsets), None, None, &[], None, None, None, false);
        T::store(out_ptr.add_offsets(offsets), a + b, None, &[], None, None);
    } else {
        // Tail block: guard every lane against running past the end.
        let in_bounds = offsets.lt(n_elements);
        let a = T::load(
            a_ptr.add_offsets(offsets),
            Some(in_bounds),
            None,
            &[],
            None,
            None,
            None,
            false,
        );
        let b = T::load(
            b_ptr.add_offsets(offsets),
            Some(in_bounds),
            None,
            &[],
            None,
            None,
            None,
            false,
        );
        T::store(out_ptr.add_offsets(offsets), a + b, Some(in_bounds), &[], None, None);
    }
}

/// Number of programs needed to cover `n` elements with `block`-wide blocks.
/// Host-side helper: not a kernel, not a combine function.
pub fn vector_add_grid(n: i32, block: i32) -> [u32; 3] {
    [((n + block - 1) / block) as u32, 1, 1]
}

/// Launch glue for the runtime (host side only).
pub struct VectorAddOp<D: Num + Send + Sync + 'static> {
    pub kernel: VectorAdd<D>,
    pub block_size: i32,
}

impl<D: Num + Send + Sync + 'static> VectorAddOp<D> {
    pub fn new(block_size: i32) -> Self {
        Self {
            kernel: VectorAdd::<D>::new(block_size),
            block_size,
        }
    }

    pub fn grid(&self, n_elements: usize) -> [u32; 3] {
        vector_add_grid(n_elements as i32, self.block_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_rounds_up() {
        assert_eq!(vector_add_grid(1000, 128), [8, 1, 1]);
        assert_eq!(vector_add_grid(1024, 128), [8, 1, 1]);
    }
}

/// `out = a + b` as teenygrad's executor runs it: two inputs of one shape, the output of
/// that shape, no parameters; the buffers are flat, one program per `BLOCK_SIZE` elements.
impl<D: Num + Send + Sync + 'static> teeny_core::model::RuntimeOp for VectorAdd<D> {
    fn n_activation_inputs(&self) -> usize {
        2
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        assert!(inputs[0].1 == inputs[1].1, "vector_add adds two tensors of one shape");
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(inputs[1].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(n as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [n.div_ceil(self.block_size as usize) as u32, 1, 1]
    }
}
