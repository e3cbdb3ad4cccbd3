//! Ops with host logic, as teenygrad's kernel files carry it: each kernel beside the
//! `impl RuntimeOp` that says how its executor launches it. Written for rs2triton's tests:
//! every shape of host code the translation handles (macro-written impls, wrapper structs
//! with `new`, several launches, parameters, padded output rows, pointer offsets, stubs,
//! `#[cfg]`-gated methods) and one it does not.

#![allow(non_snake_case)]

use core::marker::PhantomData;
use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

const ROUND_TO: usize = 4;

/// `y = x * x`, element by element.
///
/// Grid: `[cdiv(n, BLOCK_SIZE)]`.
#[kernel]
pub fn square_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: InPtr<T::Pointer<D>>,
    y_ptr: OutPtr<T::Pointer<D>>,
    n: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x * x, Some(mask), &[], None, None);
}

/// `dx = 2 x dy`.
#[kernel]
pub fn square_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: InPtr<T::Pointer<D>>,
    x_ptr: InPtr<T::Pointer<D>>,
    dx_ptr: OutPtr<T::Pointer<D>>,
    n: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let dy = T::load(dy_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(dx_ptr.add_offsets(offsets), (x + x) * dy, Some(mask), &[], None, None);
}

/// `y = x * w` with a weight `w` of the input's shape (a parameter).
#[kernel]
pub fn weigh_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: InPtr<T::Pointer<D>>,
    w_ptr: InPtr<T::Pointer<D>>,
    y_ptr: OutPtr<T::Pointer<D>>,
    n: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let w = T::load(w_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x * w, Some(mask), &[], None, None);
}

/// `dx = dy w`, `dw = dy x`.
#[kernel]
pub fn weigh_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: InPtr<T::Pointer<D>>,
    x_ptr: InPtr<T::Pointer<D>>,
    w_ptr: InPtr<T::Pointer<D>>,
    dx_ptr: OutPtr<T::Pointer<D>>,
    dw_ptr: OutPtr<T::Pointer<D>>,
    n: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
    let mask = offsets.lt(n);
    let dy = T::load(dy_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let x = T::load(x_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    let w = T::load(w_ptr.add_offsets(offsets), Some(mask), None, &[], None, None, None, false);
    T::store(dx_ptr.add_offsets(offsets), dy * w, Some(mask), &[], None, None);
    T::store(dw_ptr.add_offsets(offsets), dy * x, Some(mask), &[], None, None);
}

/// `y = x`, and `total += x` into a parameter: a running statistic, updated in place (as
/// teenygrad's batch-norm stats updates its running mean).
#[kernel]
pub fn tally_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: In<T::Pointer<D>>,
    total_ptr: InOut<T::Pointer<D>>,
    y_ptr: Out<T::Pointer<D>>,
    n: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let at = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let inside = at.lt(n);
    let x = T::load(x_ptr.add_offsets(at), Some(inside), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(at), x, Some(inside), &[], None, None);
    let before = T::load(total_ptr.add_offsets(at), Some(inside), None, &[], None, None, None, false);
    T::store(total_ptr.add_offsets(at), before + x, Some(inside), &[], None, None);
}

// One host impl for every elementwise op of one input: written by a macro, as teenygrad
// writes most of its impls. `$n_params`: how many parameters of the input's shape it takes.
macro_rules! impl_unary_runtime_op {
    ($Fwd:ident, $n_params:expr) => {
        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $Fwd<D> {
            fn n_activation_inputs(&self) -> usize {
                1
            }

            fn param_shapes(&self, input_shapes: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
                vec![input_shapes[0].to_vec(); $n_params]
            }

            fn pack_args(
                &self,
                inputs: &[(teeny_core::model::RawPtr, &[usize])],
                params: &[teeny_core::model::RawPtr],
                output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                _: i32,
                visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let n: usize = output_shape.iter().product();
                visitor.visit_ptr(inputs[0].0);
                for &p in params.iter() {
                    visitor.visit_ptr(p);
                }
                visitor.visit_ptr(output);
                visitor.visit_i32(n as i32);
            }

            fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
                let n: usize = output_shape.iter().product();
                [n.div_ceil(self.block_size as usize) as u32, 1, 1]
            }

            #[cfg(feature = "training")]
            fn has_backward(&self) -> bool {
                true
            }

            #[cfg(feature = "training")]
            fn pack_backward_args(
                &self,
                inputs: &[(teeny_core::model::RawPtr, &[usize])],
                params: &[teeny_core::model::RawPtr],
                _output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                grad_output: teeny_core::model::RawPtr,
                _: i32,
                grad_inputs: &[teeny_core::model::RawPtr],
                grad_params: &[teeny_core::model::RawPtr],
                visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let n: usize = output_shape.iter().product();
                visitor.visit_ptr(grad_output);
                visitor.visit_ptr(inputs[0].0);
                for i in 0..params.len() {
                    visitor.visit_ptr(params[i]);
                }
                visitor.visit_ptr(grad_inputs[0]);
                for g in grad_params.iter() {
                    visitor.visit_ptr(*g);
                }
                visitor.visit_i32(n as i32);
            }

            #[cfg(feature = "training")]
            fn backward_grid(&self, _: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
                self.grid(output_shape)
            }
        }
    };
}

impl_unary_runtime_op!(SquareForward, 0);
impl_unary_runtime_op!(WeighForward, 1);
impl_unary_runtime_op!(TallyForward, 1);

/// Copies an `[m, n]` matrix into rows of `row_stride` elements (a padded output).
#[kernel]
pub fn pad_rows_forward<T: Triton, D: Float, const BLOCK_N: i32>(
    x_ptr: InPtr<T::Pointer<D>>,
    y_ptr: OutPtr<T::Pointer<D>>,
    n: i32,
    row_stride: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_N);
    let mask = cols.lt(n);
    let x = T::load(x_ptr.add_offsets(cols + row * n), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(cols + row * row_stride), x + x, Some(mask), &[], None, None);
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for PadRowsForward<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, _input_shapes: &[&[usize]], _output_shape: &[usize]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    /// Rows rounded up to a multiple of `ROUND_TO` elements.
    fn forward_output_row_stride(&self, output_shape: &[usize]) -> usize {
        let n = output_shape.last().copied().unwrap_or(1);
        n.next_multiple_of(ROUND_TO)
    }

    fn pack_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(output_row_stride);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        [output_shape[0] as u32, 1, 1]
    }
}

/// Copies one input's channels into its range of a wider output (one launch per input).
#[kernel]
pub fn join_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    x_ptr: InPtr<T::Pointer<D>>,
    y_ptr: OutPtr<T::Pointer<D>>,
    width: i32,
    total: i32,
    offset: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let mask = cols.lt(width);
    let x = T::load(x_ptr.add_offsets(cols + row * width), Some(mask), None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(cols + (row * total + offset)), x, Some(mask), &[], None, None);
}

/// The gradient of one input: its range of the output's gradient.
#[kernel]
pub fn join_backward<T: Triton, D: Float, const BLOCK_SIZE: i32>(
    dy_ptr: InPtr<T::Pointer<D>>,
    dx_ptr: OutPtr<T::Pointer<D>>,
    width: i32,
    total: i32,
    offset: i32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let row = T::program_id(Axis::X);
    let cols = T::arange(0, BLOCK_SIZE);
    let mask = cols.lt(width);
    let dy = T::load(dy_ptr.add_offsets(cols + (row * total + offset)), Some(mask), None, &[], None, None, None, false);
    T::store(dx_ptr.add_offsets(cols + row * width), dy, Some(mask), &[], None, None);
}

/// Joins `n_inputs` `[rows, width_i]` matrices side by side.
pub struct JoinRuntimeOp<D: Float + Send + Sync + 'static> {
    fwd: JoinForward<D>,
    bwd: JoinBackward<D>,
    n_inputs: usize,
}

impl<D: Float + Send + Sync + 'static> JoinRuntimeOp<D> {
    pub fn new(block_size: i32, n_inputs: usize) -> Self {
        Self {
            fwd: JoinForward::<D>::new(block_size),
            bwd: JoinBackward::<D>::new(block_size),
            n_inputs,
        }
    }

    pub fn forward_source(&self) -> &str {
        &self.fwd.source
    }

    pub fn backward_source(&self) -> &str {
        &self.bwd.source
    }

    /// Rust's integer semantics, where Python's differ (tested through the translation).
    pub fn arithmetic(&self, a: i32, b: i32, big: usize, f: f32) -> (i32, i32, i32, u32, i32, u8, u32, f32) {
        let quotient = a / b;
        let remainder = a % b;
        let wrapped = big as i32;
        let unsigned = a as u32;
        let truncated = f as i32;
        let narrowed = (a * 100) as u8;
        let saturated = (f - 100.0) as u32;
        let rounded = f * 0.1;
        (quotient, remainder, wrapped, unsigned, truncated, narrowed, saturated, rounded)
    }

    pub fn unsigned_difference(&self, a: usize, b: usize) -> usize {
        a - b
    }

    pub fn classify(&self, n: usize) -> i32 {
        match n {
            0 => -1,
            1 | 2 => 1,
            3..=9 => 2,
            _ => 3,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for JoinRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        self.n_inputs
    }

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
        vec![]
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

    fn n_launches(&self) -> usize {
        self.n_inputs
    }

    fn pack_args_for_launch(
        &self,
        launch_idx: usize,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        _output_row_stride: i32,
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let offset: usize = inputs[..launch_idx].iter().map(|(_, s)| s[1]).sum();
        let (x, shape) = inputs[launch_idx];
        visitor.visit_ptr(x);
        visitor.visit_ptr(output);
        visitor.visit_i32(shape[1] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(offset as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        [output_shape[0] as u32, 1, 1]
    }

    fn grid_for_launch(&self, _launch_idx: usize, input_shapes: &[&[usize]], _output_shape: &[usize]) -> [u32; 3] {
        [input_shapes[0][0] as u32, 1, 1]
    }

    fn has_backward(&self) -> bool {
        true
    }

    fn n_backward_launches(&self) -> usize {
        self.n_inputs
    }

    fn pack_backward_args_for_launch(
        &self,
        launch_idx: usize,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        let mut offset = 0;
        for i in 0..launch_idx {
            offset += inputs[i].1[1];
        }
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(grad_inputs[launch_idx]);
        visitor.visit_i32(inputs[launch_idx].1[1] as i32);
        visitor.visit_i32(output_shape[1] as i32);
        visitor.visit_i32(offset as i32);
    }

    fn backward_grid_for_launch(&self, launch_idx: usize, input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid_for_launch(launch_idx, input_shapes, output_shape)
    }
}

/// `SquareForward` with fields named as the trait's methods and the runtime's (Rust keeps a
/// struct's fields and methods apart; teenygrad's `ClipRuntimeOp` has a `backward_kernel`).
pub struct SquareRuntimeOp<D: Float + Send + Sync + 'static> {
    kernel: SquareForward<D>,
    backward_kernel: SquareBackward<D>,
    /// At least this many programs.
    grid: u32,
    /// The backward kernel's source, as teenygrad's batch-norm ops keep it.
    backward_text: String,
}

impl<D: Float + Send + Sync + 'static> SquareRuntimeOp<D> {
    pub fn new(block_size: i32, grid: u32) -> Self {
        Self {
            kernel: SquareForward::<D>::new(block_size),
            backward_kernel: SquareBackward::<D>::new(block_size),
            grid,
            backward_text: SquareBackward::<D>::new(block_size).source,
        }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for SquareRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
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
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(output_shape.iter().product::<usize>() as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        [(n.div_ceil(self.kernel.block_size as usize) as u32).max(self.grid), 1, 1]
    }

    fn has_backward(&self) -> bool {
        true
    }

    fn pack_backward_args(
        &self,
        inputs: &[(teeny_core::model::RawPtr, &[usize])],
        _params: &[teeny_core::model::RawPtr],
        _output: teeny_core::model::RawPtr,
        output_shape: &[usize],
        grad_output: teeny_core::model::RawPtr,
        _grad_output_row_stride: i32,
        grad_inputs: &[teeny_core::model::RawPtr],
        _grad_params: &[teeny_core::model::RawPtr],
        visitor: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        visitor.visit_ptr(grad_output);
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(grad_inputs[0]);
        visitor.visit_i32(output_shape.iter().product::<usize>() as i32);
    }

    fn backward_grid(&self, _input_shapes: &[&[usize]], output_shape: &[usize]) -> [u32; 3] {
        self.grid(output_shape)
    }
}

/// Column means and reciprocal root mean squares of an `[n, c]` f32 matrix, into one buffer
/// of `2 * c` (means first); `scale` is `1 / n`.
#[kernel]
pub fn moments_forward<T: Triton, const BLOCK_N: i32>(
    x_ptr: InPtr<T::Pointer<f32>>,
    mean_ptr: OutPtr<T::Pointer<f32>>,
    rms_ptr: OutPtr<T::Pointer<f32>>,
    n: i32,
    c: i32,
    scale: f32,
    eps: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let col = T::program_id(Axis::X);
    let rows = T::arange(0, BLOCK_N);
    let mask = rows.lt(n);
    let x = T::load(x_ptr.add_offsets(rows * c + col), Some(mask), Some(T::zeros::<f32>(&[BLOCK_N])), &[], None, None, None, false);
    let mean = T::sum(x, 0, false) * scale;
    let ms = T::sum(x * x, 0, false) * scale;
    let one = T::arange(0, 1);
    T::store(mean_ptr.add_offsets(one + col), T::broadcast_to(mean, &[1]), None, &[], None, None);
    T::store(rms_ptr.add_offsets(one + col), T::broadcast_to(T::rsqrt(ms + eps), &[1]), None, &[], None, None);
}

/// The moments op: no kernel field (teenygrad's graph pairs it with `MomentsForward`).
pub struct MomentsRuntimeOp<D: Float + Send + Sync + 'static> {
    pub block_n: i32,
    pub eps: f32,
    _marker: PhantomData<D>,
}

impl<D: Float + Send + Sync + 'static> MomentsRuntimeOp<D> {
    pub fn new(block_n: i32, eps: f32) -> Self {
        Self { block_n, eps, _marker: PhantomData }
    }
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for MomentsRuntimeOp<D> {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
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
        let c = output_shape[0] / 2;
        let rms = unsafe { (output as *mut D).add(c) } as teeny_core::model::RawPtr;
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_ptr(rms);
        let n = inputs[0].1[0];
        visitor.visit_i32(n as i32);
        visitor.visit_i32(c as i32);
        visitor.visit_f32(1.0 / n as f32);
        visitor.visit_f32(self.eps);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        [(output_shape[0] / 2) as u32, 1, 1]
    }

    #[cfg(feature = "no_such_feature")]
    fn has_backward(&self) -> bool {
        true
    }
}

/// A kernel whose op is not implemented at runtime.
#[kernel]
pub fn later_forward<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: InPtr<T::Pointer<D>>, n: i32)
where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE);
    let x = T::load(x_ptr.add_offsets(offsets), Some(offsets.lt(n)), None, &[], None, None, None, false);
    T::store(x_ptr.add_offsets(offsets), x, Some(offsets.lt(n)), &[], None, None);
}

impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for LaterForward<D> {
    fn n_activation_inputs(&self) -> usize {
        unimplemented!(concat!(stringify!(LaterForward), " has no runtime support yet"))
    }

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
        unimplemented!()
    }

    fn pack_args(
        &self,
        _: &[(teeny_core::model::RawPtr, &[usize])],
        _: &[teeny_core::model::RawPtr],
        _: teeny_core::model::RawPtr,
        _: &[usize],
        _: i32,
        _: &mut dyn teeny_core::device::program::ArgVisitor,
    ) {
        unimplemented!()
    }

    /// A grid rs2triton does not translate: `try_fold`.
    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n = output_shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b)).unwrap();
        [n as u32, 1, 1]
    }
}
