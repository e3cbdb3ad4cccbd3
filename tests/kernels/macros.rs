//! Kernels and host impls written by the file's own `macro_rules!`, some through other macros
//! (see tests/test_macros.py).
use teeny_triton::triton::*;

// One kernel per unary op, with the helper it calls: `$op` is a method of the DSL.
macro_rules! unary_kernel {
    ($name:ident, $helper:ident, $op:ident) => {
        /// `y = op(x) + x`, one block per program.
        #[kernel]
        pub fn $name<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n: i32) {
            let offs = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * BLOCK_SIZE;
            let mask = offs.lt(n);
            let x = T::load(x_ptr.add_offsets(offs), Some(mask), None, &[], None, None, None, false);
            T::store(y_ptr.add_offsets(offs), $helper::<T, D>(x), Some(mask), &[], None, None);
        }

        fn $helper<TT: Triton, DD: Float>(x: TT::Tensor<DD>) -> TT::Tensor<DD> {
            TT::$op(x) + x
        }
    };
}

// Two kernels at once, through the macro above: invocations in an expansion are expanded too.
macro_rules! two_kernels {
    ($a:ident, $ha:ident, $b:ident, $hb:ident) => {
        unary_kernel!($a, $ha, exp);
        unary_kernel!($b, $hb, sqrt);
    };
}

unary_kernel!(sigmoid_plus, sigmoid_plus_x, sigmoid);
two_kernels!(exp_plus, exp_plus_x, sqrt_plus, sqrt_plus_x);

// A method, written into an `impl` block by the macro below.
macro_rules! n_inputs {
    ($n:expr) => {
        fn n_activation_inputs(&self) -> usize {
            $n
        }
    };
}

// The host impl of an elementwise kernel, with a method written by another macro.
macro_rules! elementwise_op {
    ($k:ident) => {
        impl<D: Float + Send + Sync + 'static> teeny_core::model::RuntimeOp for $k<D> {
            n_inputs!(1);

            fn param_shapes(&self, _: &[&[usize]], _: &[usize]) -> Vec<Vec<usize>> {
                vec![]
            }

            fn pack_args(
                &self,
                inputs: &[(teeny_core::model::RawPtr, &[usize])],
                _: &[teeny_core::model::RawPtr],
                output: teeny_core::model::RawPtr,
                output_shape: &[usize],
                _: i32,
                visitor: &mut dyn teeny_core::device::program::ArgVisitor,
            ) {
                let n: usize = output_shape.iter().product();
                visitor.visit_ptr(inputs[0].0);
                visitor.visit_ptr(output);
                visitor.visit_i32(n as i32);
            }

            fn grid(&self, output_shape: &[usize]) -> [u32; 3] {
                let n: usize = output_shape.iter().product();
                [n.div_ceil(self.block_size as usize) as u32, 1, 1]
            }
        }
    };
}

// Several ops' impls, each through the macro above.
macro_rules! elementwise_ops {
    ($($k:ident),*) => {
        $(elementwise_op!($k);)*
    };
}

elementwise_ops!(SigmoidPlus, ExpPlus, SqrtPlus);
