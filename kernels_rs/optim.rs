//! Optimizer updates, one parameter tensor per launch (what `torch.optim`'s
//! Adam, AdamW and SGD do to each parameter in a step).
//!
//! Layout: the parameter, its gradient and each state buffer are contiguous
//! and of `n_elements` f32 items. Each program updates one `BLOCK_SIZE` slice
//! in place; lanes past `n_elements` are masked. The signatures are those of
//! teenygrad's `nn/optim` kernels, so the backend launches either alike.
//! Scalars that depend only on the step count are computed on the host.

#![allow(non_snake_case)]

use teeny_macros::kernel;
use teeny_triton::triton::{
    types::{AddOffsets, Comparison},
    *,
};

/// Adam, with L2 weight decay folded into the gradient:
///
/// ```text
/// g' = g + weight_decay * p
/// m  = beta1 * m + (1 - beta1) * g'
/// v  = beta2 * v + (1 - beta2) * g'^2
/// p  = p - step_size * m / (sqrt(v) / bias_corr2_sqrt + eps)
/// ```
///
/// Host scalars: `step_size = lr / (1 - beta1^t)`, `bias_corr2_sqrt = sqrt(1 - beta2^t)`.
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel]
pub fn adam_step<T: Triton, const BLOCK_SIZE: i32>(
    params_ptr: InOut<T::Pointer<f32>>,
    grad_ptr: In<T::Pointer<f32>>,
    exp_avg_ptr: InOut<T::Pointer<f32>>,
    exp_avg_sq_ptr: InOut<T::Pointer<f32>>,
    n_elements: i32,
    step_size: f32,
    bias_corr2_sqrt: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let lanes = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let live = lanes.lt(n_elements);
    let p = T::load(
        params_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = T::load(
        grad_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let m = T::load(
        exp_avg_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let v = T::load(
        exp_avg_sq_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );

    let g = g + T::full(&[BLOCK_SIZE], weight_decay) * p;
    let m = T::full(&[BLOCK_SIZE], beta1) * m + T::full(&[BLOCK_SIZE], 1.0_f32 - beta1) * g;
    let v = T::full(&[BLOCK_SIZE], beta2) * v + T::full(&[BLOCK_SIZE], 1.0_f32 - beta2) * g * g;
    let bias_corr2 = T::full(&[BLOCK_SIZE], bias_corr2_sqrt);
    let denom = T::sqrt_rn(v) / bias_corr2 + T::full(&[BLOCK_SIZE], eps);
    let p = p - T::full(&[BLOCK_SIZE], step_size) * m / denom;

    T::store(
        params_ptr.add_offsets(lanes),
        p,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(
        exp_avg_ptr.add_offsets(lanes),
        m,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(
        exp_avg_sq_ptr.add_offsets(lanes),
        v,
        Some(live),
        &[],
        None,
        None,
    );
}

/// AdamW: Adam with decoupled weight decay, `p = p * (1 - lr * weight_decay)`
/// before the update (the gradient is not changed). Host scalars and grid as
/// for `adam_step`.
#[kernel]
pub fn adamw_step<T: Triton, const BLOCK_SIZE: i32>(
    params_ptr: InOut<T::Pointer<f32>>,
    grad_ptr: In<T::Pointer<f32>>,
    exp_avg_ptr: InOut<T::Pointer<f32>>,
    exp_avg_sq_ptr: InOut<T::Pointer<f32>>,
    n_elements: i32,
    step_size: f32,
    bias_corr2_sqrt: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    weight_decay: f32,
    lr: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let lanes = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let live = lanes.lt(n_elements);
    let p = T::load(
        params_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = T::load(
        grad_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let m = T::load(
        exp_avg_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let v = T::load(
        exp_avg_sq_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );

    let p = p * T::full(&[BLOCK_SIZE], 1.0_f32 - lr * weight_decay);
    let m = T::full(&[BLOCK_SIZE], beta1) * m + T::full(&[BLOCK_SIZE], 1.0_f32 - beta1) * g;
    let v = T::full(&[BLOCK_SIZE], beta2) * v + T::full(&[BLOCK_SIZE], 1.0_f32 - beta2) * g * g;
    let bias_corr2 = T::full(&[BLOCK_SIZE], bias_corr2_sqrt);
    let denom = T::sqrt_rn(v) / bias_corr2 + T::full(&[BLOCK_SIZE], eps);
    let p = p - T::full(&[BLOCK_SIZE], step_size) * m / denom;

    T::store(
        params_ptr.add_offsets(lanes),
        p,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(
        exp_avg_ptr.add_offsets(lanes),
        m,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(
        exp_avg_sq_ptr.add_offsets(lanes),
        v,
        Some(live),
        &[],
        None,
        None,
    );
}

/// Plain SGD: `p = p - lr * (g + weight_decay * p)`.
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel]
pub fn sgd_step<T: Triton, const BLOCK_SIZE: i32>(
    params_ptr: InOut<T::Pointer<f32>>,
    grad_ptr: In<T::Pointer<f32>>,
    n_elements: i32,
    lr: f32,
    weight_decay: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let lanes = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let live = lanes.lt(n_elements);
    let p = T::load(
        params_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = T::load(
        grad_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = g + T::full(&[BLOCK_SIZE], weight_decay) * p;
    T::store(
        params_ptr.add_offsets(lanes),
        p - T::full(&[BLOCK_SIZE], lr) * g,
        Some(live),
        &[],
        None,
        None,
    );
}

/// SGD with heavy-ball momentum:
///
/// ```text
/// g'  = g + weight_decay * p
/// buf = momentum * buf + (1 - dampening) * g'
/// p   = p - lr * buf
/// ```
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel]
pub fn sgd_momentum_step<T: Triton, const BLOCK_SIZE: i32>(
    params_ptr: InOut<T::Pointer<f32>>,
    grad_ptr: In<T::Pointer<f32>>,
    buf_ptr: InOut<T::Pointer<f32>>,
    n_elements: i32,
    lr: f32,
    momentum: f32,
    dampening: f32,
    weight_decay: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let lanes = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let live = lanes.lt(n_elements);
    let p = T::load(
        params_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = T::load(
        grad_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let buf = T::load(
        buf_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = g + T::full(&[BLOCK_SIZE], weight_decay) * p;
    let buf =
        T::full(&[BLOCK_SIZE], momentum) * buf + T::full(&[BLOCK_SIZE], 1.0_f32 - dampening) * g;
    T::store(
        params_ptr.add_offsets(lanes),
        p - T::full(&[BLOCK_SIZE], lr) * buf,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(buf_ptr.add_offsets(lanes), buf, Some(live), &[], None, None);
}

/// SGD with Nesterov momentum: the buffer as in `sgd_momentum_step`, then
/// `p = p - lr * (g' + momentum * buf)`.
///
/// Grid: `[cdiv(n_elements, BLOCK_SIZE)]`.
#[kernel]
pub fn sgd_nesterov_step<T: Triton, const BLOCK_SIZE: i32>(
    params_ptr: InOut<T::Pointer<f32>>,
    grad_ptr: In<T::Pointer<f32>>,
    buf_ptr: InOut<T::Pointer<f32>>,
    n_elements: i32,
    lr: f32,
    momentum: f32,
    dampening: f32,
    weight_decay: f32,
) where
    T::I32Tensor: types::Tensor<i32, 1>,
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<f32>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<f32>>>,
{
    let lanes = T::program_id(Axis::X) * BLOCK_SIZE + T::arange(0, BLOCK_SIZE);
    let live = lanes.lt(n_elements);
    let p = T::load(
        params_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let g = T::load(
        grad_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let buf = T::load(
        buf_ptr.add_offsets(lanes),
        Some(live),
        None,
        &[],
        None,
        None,
        None,
        false,
    );
    let mu = T::full(&[BLOCK_SIZE], momentum);
    let g = g + T::full(&[BLOCK_SIZE], weight_decay) * p;
    let buf = mu * buf + T::full(&[BLOCK_SIZE], 1.0_f32 - dampening) * g;
    let p = p - T::full(&[BLOCK_SIZE], lr) * (g + mu * buf);
    T::store(
        params_ptr.add_offsets(lanes),
        p,
        Some(live),
        &[],
        None,
        None,
    );
    T::store(buf_ptr.add_offsets(lanes), buf, Some(live), &[], None, None);
}
