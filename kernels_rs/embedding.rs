//! Embedding lookup, `y[i, :] = weight[idx[i], :]`, forward and backward.
//!
//! `weight` is a dense row-major `[n_embeddings, dim]` table, `idx` a flat array of `n_idx`
//! `i64` row numbers (any shape, read in order), `y` dense `[n_idx, dim]`. An index outside
//! `0..n_embeddings` reads zeros and receives no gradient (the kernels never address outside
//! the table). The backward adds each row of `dy` into the row of `dweight` it was read from,
//! atomically, as several indices may name one row: `dweight` must start zeroed. The row
//! `padding_idx` (a padding token's, as torch's `nn.Embedding(padding_idx=..)`; -1: none) is read
//! as any other and receives no gradient.

#![allow(non_snake_case)]

use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Gathers `BLOCK_N` rows of the table, `BLOCK_D` columns at a time.
///
/// Grid: `[cdiv(n_idx, BLOCK_N), cdiv(dim, BLOCK_D)]`.
#[kernel(backward = EmbeddingBackward)]
pub fn embedding_forward<T: Triton, D: Float, const BLOCK_N: i32, const BLOCK_D: i32>(
    w_ptr: T::Pointer<D>,
    idx_ptr: T::Pointer<i64>,
    y_ptr: T::Pointer<D>,
    n_idx: i32,
    dim: i32,
    n_embeddings: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let items = T::program_id(Axis::X) * BLOCK_N + T::arange(0, BLOCK_N);
    let item_ok = items.lt(n_idx);
    let idx = T::load(idx_ptr.add_offsets(items), Some(item_ok), None, &[], None, None, None, false);
    let idx = T::cast::<i64, i32>(idx, None, false);
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_D + T::arange(0, BLOCK_D), 0); // [1, BLOCK_D]
    let rows = T::expand_dims(idx, 1); // [BLOCK_N, 1]: the table's rows
    let row_ok = T::expand_dims(item_ok & idx.ge(0) & idx.lt(n_embeddings), 1);
    let w_fill = T::zeros::<D>(&[BLOCK_N, BLOCK_D]);
    let w = T::load(w_ptr.add_offsets(rows * dim + cols), Some(row_ok & cols.lt(dim)), Some(w_fill), &[], None, None, None, false);
    let out_mask = T::expand_dims(item_ok, 1) & cols.lt(dim);
    T::store(y_ptr.add_offsets(T::expand_dims(items, 1) * dim + cols), w, Some(out_mask), &[], None, None);
}

/// `dweight[idx[i], :] += dy[i, :]`, atomically, but for the row `padding_idx`.
///
/// Grid: as the forward's.
#[kernel]
pub fn embedding_backward<T: Triton, D: Float, const BLOCK_N: i32, const BLOCK_D: i32>(
    dy_ptr: T::Pointer<D>,
    idx_ptr: T::Pointer<i64>,
    dw_ptr: T::Pointer<D>,
    n_idx: i32,
    dim: i32,
    n_embeddings: i32,
    padding_idx: i32,
) where
    T::I32Tensor: types::Tensor<i32, 2>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 2, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
    T::Pointer<i64>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<i64>>>,
{
    let items = T::program_id(Axis::X) * BLOCK_N + T::arange(0, BLOCK_N);
    let item_ok = items.lt(n_idx);
    let idx = T::load(idx_ptr.add_offsets(items), Some(item_ok), None, &[], None, None, None, false);
    let idx = T::cast::<i64, i32>(idx, None, false);
    let cols = T::expand_dims(T::program_id(Axis::Y) * BLOCK_D + T::arange(0, BLOCK_D), 0); // [1, BLOCK_D]
    let in_mask = T::expand_dims(item_ok, 1) & cols.lt(dim);
    let dy = T::load(dy_ptr.add_offsets(T::expand_dims(items, 1) * dim + cols), Some(in_mask), None, &[], None, None, None, false);
    let row_ok = T::expand_dims(item_ok & idx.ge(0) & idx.lt(n_embeddings) & idx.ne(padding_idx), 1);
    T::atomic_add(dw_ptr.add_offsets(T::expand_dims(idx, 1) * dim + cols), dy, Some(row_ok & cols.lt(dim)), None, None);
}

/// An embedding as teenygrad's executor runs it, in `aten.embedding`'s order: two inputs, the
/// table `weight: [n_embeddings, dim]` and the indices (`i64`, any shape); the output is the
/// indices' shape and `dim`. Training: the backward writes the table's gradient (the indices
/// have none), but for the row `padding_idx` (-1: none).
pub struct Embedding<D: Float + Send + Sync + 'static> {
    pub fwd: EmbeddingForward<D>,
    pub bwd: EmbeddingBackward<D>,
    pub padding_idx: i32,
}

impl<D: Float + Send + Sync + 'static> Embedding<D> {
    pub fn new(block_n: i32, block_d: i32, padding_idx: i32) -> Self {
        Self {
            fwd: EmbeddingForward::<D>::new(block_n, block_d),
            bwd: EmbeddingBackward::<D>::new(block_n, block_d),
            padding_idx,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for Embedding<D> {
    fn n_activation_inputs(&self) -> usize {
        2
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    fn compute_concrete_output_shape(&self, input_shapes: &[&[usize]], _resolved: &[usize]) -> Vec<usize> {
        let w = input_shapes[0];
        assert!(w.len() == 2, "embedding_forward: the table is a matrix");
        let mut shape = input_shapes[1].to_vec();
        shape.push(w[1]);
        shape
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        _output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let (w, w_shape) = inputs[0];
        let (idx, idx_shape) = inputs[1];
        assert!(w_shape.len() == 2, "embedding_forward: the table is a matrix");
        let n_idx: usize = idx_shape.iter().product();
        visitor.visit_ptr(w);
        visitor.visit_ptr(idx);
        visitor.visit_ptr(output);
        visitor.visit_i32(n_idx as i32);
        visitor.visit_i32(w_shape[1] as i32);
        visitor.visit_i32(w_shape[0] as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let dim = output_shape[output_shape.len() - 1];
        let n_idx: usize = output_shape[..output_shape.len() - 1].iter().product();
        [n_idx.div_ceil(self.fwd.block_n as usize) as u32, dim.div_ceil(self.fwd.block_d as usize) as u32, 1]
    }

    #[cfg(feature = "training")]
    fn has_backward(&self) -> bool {
        true
    }

    /// `embedding_backward(dy, idx, dweight, n_idx, dim, n_embeddings, padding_idx)`.
    #[cfg(feature = "training")]
    fn pack_backward_args(
        &self,
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
        let w_shape = inputs[0].1;
        let (idx, idx_shape) = inputs[1];
        let n_idx: usize = idx_shape.iter().product();
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(idx);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(n_idx as i32);
        visitor.visit_i32(w_shape[1] as i32);
        visitor.visit_i32(w_shape[0] as i32);
        visitor.visit_i32(self.padding_idx);
    }

    #[cfg(feature = "training")]
    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}
