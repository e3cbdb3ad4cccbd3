"""A kernels_rs kernel pair as a torch.library custom op with autograd, checked against torch."""

import pytest
import torch
import triton

import rs2triton
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")


def _grid(meta):
    return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)


forward = relu.ReluForward(BLOCK_SIZE=256).for_torch_op()
backward = relu.ReluForward.backward(BLOCK_SIZE=256).for_torch_op()


@torch.library.triton_op("rs2triton_tests::relu", mutates_args=())
def relu_op(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    forward[_grid](x, y, x.numel())
    return y


def _backward(ctx, dy):
    (y,) = ctx.saved_tensors
    dx = torch.empty_like(dy)
    backward[_grid](dy.contiguous(), y, dx, dy.numel())
    return dx


def _setup_context(ctx, inputs, output):
    ctx.save_for_backward(output)


relu_op.register_autograd(_backward, setup_context=_setup_context)


def _input(dtype=torch.float64, n=1000):
    x = torch.randn(n, dtype=dtype, generator=torch.Generator().manual_seed(3))
    x = torch.where(x.abs() < 1e-3, 0.5, x)  # keep finite differences away from the kink at 0
    return x.to(DEVICE).requires_grad_()


def _check_against_torch(fn):
    x = _input()
    y = fn(x)
    y.backward(torch.arange(1000.0, dtype=x.dtype, device=DEVICE))
    x_ref = x.detach().clone().requires_grad_()
    y_ref = torch.relu(x_ref)
    y_ref.backward(torch.arange(1000.0, dtype=x.dtype, device=DEVICE))
    assert_matches("relu(x)", y, y_ref)
    assert_matches("x.grad", x.grad, x_ref.grad)


def test_custom_op_matches_torch_in_eager_mode():
    _check_against_torch(relu_op)
    assert torch.autograd.gradcheck(relu_op, (_input(n=64),))


def test_custom_op_is_registered_with_torch():
    x = _input(torch.float32, 64).detach()
    assert_matches("torch.ops.rs2triton_tests.relu(x)", torch.ops.rs2triton_tests.relu(x), x.relu())
    torch.library.opcheck(torch.ops.rs2triton_tests.relu.default, (x,), test_utils=["test_schema"])


def test_launch_checks_still_apply_inside_the_op():
    with pytest.raises(TypeError, match="ReluForward: argument `x_ptr: T::Pointer<D>` has dtype torch.int32"):
        relu_op(torch.arange(10, dtype=torch.int32, device=DEVICE))


@pytest.mark.skipif(DEVICE == "cpu", reason="needs a GPU: torch.compile traces the op into compiled Triton "
                    "kernels, which Triton's CPU interpreter cannot run, and this machine has no GPU "
                    "(run with RS2TRITON_TEST_DEVICE=cuda on a GPU machine)")
def test_custom_op_under_torch_compile():
    _check_against_torch(torch.compile(relu_op, fullgraph=True))
