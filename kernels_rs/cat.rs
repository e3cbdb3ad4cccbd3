//! Concatenation of dense tensors along any dimension, forward and backward.
//!
//! Along dimension `d`, each input is `[n_outer, chunk]` with `n_outer` the product of the
//! dimensions before `d` and `chunk` the product of the rest, and the output `[n_outer, total]`
//! with `total` the sum of the chunks: input `i` fills columns `offset .. offset + chunk` of
//! every output row, `offset` the sum of the chunks before it. One launch per input, forward
//! (a copy into the output) and backward (the matching slice of `dy` copied out).

#![allow(non_snake_case)]

use teeny_core::dtype::Num;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// `y[o, offset + c] = x[o, c]` for `c < chunk`.
///
/// Grid: `[n_outer, cdiv(chunk, BLOCK_SIZE)]`.
#[kernel(backward = CatBackward)]
pub fn cat_forward<T: Triton, D: Num, const BLOCK_SIZE: i32>(
    x_ptr: T::Pointer<D>,
    y_ptr: T::Pointer<D>,
    chunk: i32,
    total: i32,
    offset: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let outer = T::program_id(Axis::X);
    let cs = T::program_id(Axis::Y) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let mask = cs.lt(chunk);
    let x = T::load(x_ptr.add_offsets(cs + outer * chunk), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(cs + (outer * total + offset)), x, Some(mask), &[], None, None);
}

/// `dx[o, c] = dy[o, offset + c]` for `c < chunk`.
///
/// Grid: as the forward's.
#[kernel]
pub fn cat_backward<T: Triton, D: Num, const BLOCK_SIZE: i32>(
    dy_ptr: T::Pointer<D>,
    dx_ptr: T::Pointer<D>,
    chunk: i32,
    total: i32,
    offset: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let outer = T::program_id(Axis::X);
    let cs = T::program_id(Axis::Y) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let mask = cs.lt(chunk);
    let dy = T::load(dy_ptr.add_offsets(cs + (outer * total + offset)), Some(mask), None, &[], None, None, None, false);
    T::store(dx_ptr.add_offsets(cs + outer * chunk), dy, Some(mask), &[], None, None);
}

/// `torch.cat(inputs, dim)` as teenygrad's executor runs it: `n_inputs` inputs of one rank,
/// equal but for dimension `dim` (negative counts from the end, as torch's), one launch each.
pub struct CatRuntimeOp<D: Num + Send + Sync + 'static> {
    pub fwd: CatForward<D>,
    pub bwd: CatBackward<D>,
    pub n_inputs: usize,
    pub dim: i32,
}

impl<D: Num + Send + Sync + 'static> CatRuntimeOp<D> {
    pub fn new(block_size: i32, n_inputs: usize, dim: i32) -> Self {
        assert!(n_inputs > 0, "cat takes at least one input");
        Self {
            fwd: CatForward::<D>::new(block_size),
            bwd: CatBackward::<D>::new(block_size),
            n_inputs,
            dim,
        }
    }

    /// The dimension `dim` names in a shape of `rank` dimensions.
    fn axis(&self, rank: usize) -> usize {
        let axis = if self.dim < 0 { rank as i32 + self.dim } else { self.dim };
        assert!(axis >= 0 && (axis as usize) < rank, "cat: dim is out of range");
        axis as usize
    }

    /// `(n_outer, chunk, total, offset)` of input `i`.
    fn layout(&self, input_shapes: &[&[usize]], i: usize) -> (usize, usize, usize, usize) {
        let shape = input_shapes[i];
        let axis = self.axis(shape.len());
        let n_outer: usize = shape[..axis].iter().product();
        let mut total = 0;
        let mut offset = 0;
        for j in 0..input_shapes.len() {
            let other = input_shapes[j];
            assert!(other.len() == shape.len(), "cat: the inputs differ in rank");
            let other_outer: usize = other[..axis].iter().product();
            assert!(other_outer == n_outer, "cat: the inputs differ before dim");
            let other_chunk: usize = other[axis..].iter().product();
            if j < i {
                offset += other_chunk;
            }
            total += other_chunk;
        }
        let chunk: usize = shape[axis..].iter().product();
        (n_outer, chunk, total, offset)
    }
}

impl<D: Num + Send + Sync + 'static> teeny_core::model::RuntimeOp for CatRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        self.n_inputs
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
        let mut shape = input_shapes[0].to_vec();
        let axis = self.axis(shape.len());
        shape[axis] = 0;
        for j in 0..input_shapes.len() {
            shape[axis] += input_shapes[j][axis];
        }
        shape
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        self.pack_args_for_launch(0, inputs, params, output, output_shape, output_row_stride, visitor);
    }

    /// With one input: a copy of it.
    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let axis = self.axis(output_shape.len());
        let n_outer: usize = output_shape[..axis].iter().product();
        let chunk: usize = output_shape[axis..].iter().product();
        [n_outer as u32, chunk.div_ceil(self.fwd.block_size as usize) as u32, 1]
    }

    fn n_launches(&self) -> usize {
        self.n_inputs
    }

    fn pack_args_for_launch(
        &self,
        launch_idx: usize,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let mut shapes: Vec<&[usize]> = Vec::new();
        for j in 0..inputs.len() {
            shapes.push(inputs[j].1);
        }
        let (_n_outer, chunk, total, offset) = self.layout(&shapes, launch_idx);
        visitor.visit_ptr(inputs[launch_idx].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(chunk as i32);
        visitor.visit_i32(total as i32);
        visitor.visit_i32(offset as i32);
    }

    fn grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]], _output_shape: &[usize]) -> [u32; 3] {
        let (n_outer, chunk, _total, _offset) = self.layout(input_shapes, launch_idx);
        [n_outer as u32, chunk.div_ceil(self.fwd.block_size as usize) as u32, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    #[cfg(feature = "training")]
    fn n_backward_launches(&self) -> usize {
        self.n_inputs
    }

    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        self.pack_backward_args_for_launch(
            0,
            inputs,
            params,
            output,
            output_shape,
            grad_output,
            grad_output_row_stride,
            grad_inputs,
            grad_params,
            visitor,
        );
    }

    /// `cat_backward(dy, dx_i, chunk, total, offset)` for input `launch_idx`.
    #[cfg(feature = "training")]
    fn pack_backward_args_for_launch(
        &self,
        launch_idx: usize,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let mut shapes: Vec<&[usize]> = Vec::new();
        for j in 0..inputs.len() {
            shapes.push(inputs[j].1);
        }
        let (_n_outer, chunk, total, offset) = self.layout(&shapes, launch_idx);
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[launch_idx]);
        visitor.visit_i32(chunk as i32);
        visitor.visit_i32(total as i32);
        visitor.visit_i32(offset as i32);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.backward_grid_for_launch(0, input_shapes, output_shape)
    }

    #[cfg(feature = "training")]
    fn backward_grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid_for_launch(launch_idx, input_shapes, output_shape)
    }
}
