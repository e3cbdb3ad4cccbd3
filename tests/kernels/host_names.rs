//! Host code whose names Python would read otherwise than Rust: raw identifiers, names NFKC
//! folds together, Python keywords and builtins, names a generated class or launcher already has,
//! and module constants host code reads (one through `as usize`). Written for rs2triton's tests.

use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

const ROWS: i32 = 48;
const COLS: i32 = 3;
const CELLS: usize = (ROWS * COLS) as usize;
const r#LANES: usize = CELLS / 4;

/// `y = x`, with const generics whose fields a configured kernel already has.
#[kernel]
pub fn copy_forward<T: Triton, D: Float, const LAUNCHER: i32, const WRAP: i32, const BLOCK_SIZE: i32>(
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
    T::store(y_ptr.add_offsets(offsets), x, Some(mask), &[], None, None);
}

impl teeny_core::model::RuntimeOp for CopyForward {
    fn n_activation_inputs(&self) -> usize {
        1
    }

    fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
        vec![]
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
        let n: usize = output_shape.iter().product();
        visitor.visit_ptr(inputs[0].0);
        visitor.visit_ptr(output);
        visitor.visit_i32(n as i32);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        let n: usize = output_shape.iter().product();
        // the const generics named as what a configured kernel holds, read by host code
        [n.div_ceil(self.block_size as usize) as u32, self.launcher as u32, self.wrap as u32]
    }
}

pub struct Names {
    kernel: CopyForward,
    r#type: usize,
    type_args: usize,
    apply: i32,
}

impl Names {
    pub fn new(r#type: usize) -> Self {
        Self { kernel: CopyForward::new(7, 9, 64), r#type, type_args: r#type + 1, apply: 2 }
    }

    /// `r#N` and `N` are one name; `Ｎ` (fullwidth) is another, as rustc sees them.
    pub fn raw_and_folded(&self, r#N: i32) -> (i32, i32, i32) {
        let Ｎ = N * 10;
        let ﬁ = 5;
        let fi = ﬁ + 1;
        (r#N, Ｎ, fi + ﬁ)
    }

    /// Python keywords and builtins as Rust names.
    pub fn keywords(&self, lambda: i32, len: i32) -> i32 {
        let def = lambda + len;
        let class = def * 2;
        let range = class - 1;
        let print = range + 1;
        let r#match = print;
        let visitor = r#match + 1;
        let math = visitor + 1;
        let triton = math + 1;
        let i32 = triton + 1;
        let cls = i32 + 1;
        cls
    }

    /// A method named as the runtime's `apply`, and fields named as what a class has.
    pub fn apply(&self) -> usize {
        self.r#type + self.type_args + self.apply as usize
    }

    pub fn calls_apply(&self) -> usize {
        self.apply() * 2
    }

    pub fn constants(&self) -> (usize, usize) {
        (CELLS, LANES)
    }

    pub fn kernel_fields(&self) -> (i32, i32, i32) {
        (self.kernel.launcher, self.kernel.wrap, self.kernel.block_size)
    }
}

impl teeny_core::model::RuntimeOp for Names {
    fn n_activation_inputs(&self) -> usize {
        1
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
        self.kernel.pack_args(inputs, params, output, output_shape, output_row_stride, visitor);
    }

    fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
        self.kernel.grid(output_shape)
    }
}
