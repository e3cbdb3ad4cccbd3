"""`apply` stays inside each tensor's own elements: a tensor handed to a pointer the kernel
addresses as a flat buffer under a bound (`offsets < n_elements`) must hold that many elements,
an output offset (`(output as *mut D).add(n)`) must lie inside the output, and a given
`out_shape` must be the op's own where it computes one. Each refusal names the op, the argument
and both sizes, and nothing is launched (tests/kernels/windows.rs: ops the torch mapping has no
row for, so only these checks stand between them and the neighbouring elements).
"""

from __future__ import annotations

import pytest
import torch

import rs2triton
from rs2triton.runtime.locations import generated_function, mask_bounds
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def windows():
    return rs2triton.load(ROOT / "tests" / "kernels" / "windows.rs", interpret=True)


def test_the_bounds_are_read_from_the_kernels_masks(windows):
    square = mask_bounds(generated_function(windows.SquareForward.fn))
    assert square == {"x_ptr": frozenset({"n_elements"}), "y_ptr": frozenset({"n_elements"})}
    twice = mask_bounds(generated_function(windows.TwiceForward.fn))
    assert set(twice) == {"x_ptr", "first_ptr", "second_ptr"}


def test_a_fitting_call_runs_and_a_view_is_read_as_its_own_elements(windows):
    big = torch.arange(64, dtype=torch.float32)
    op = windows.SquareForward(BLOCK_SIZE=16)
    y = op.apply(big[40:48], out_shape=(8,))
    assert torch.equal(y, big[40:48] ** 2)
    twice = windows.TwiceForward(BLOCK_SIZE=16).apply(big[:5], out_shape=(10,))
    assert torch.equal(twice, torch.cat([big[:5], big[:5]]))


def test_an_out_shape_larger_than_the_input_is_refused_before_reading_the_storage_past_a_view(windows):
    """The issue's case: a view `big[40:48]` with `out_shape=(24,)` read `big[48:64]`."""
    big = torch.arange(64, dtype=torch.float32)
    before = big.clone()
    with pytest.raises(ValueError) as info:
        windows.SquareForward(BLOCK_SIZE=16).apply(big[40:48], out_shape=(24,))
    message = str(info.value)
    assert "SquareForward.apply" in message and "addresses 24 elements through `x_ptr`" in message
    assert "input 0 (shape [8]) holds 8" in message
    assert torch.equal(big, before)


def test_more_output_rows_than_the_input_has_are_refused(windows):
    with pytest.raises(ValueError, match=r"addresses 40 elements through `x_ptr`.*input 0 \(shape \[3, 8\]\) holds 24"):
        windows.SquareForward(BLOCK_SIZE=16).apply(torch.randn(3, 8), out_shape=(5, 8))


def test_an_out_too_small_for_what_the_kernel_writes_is_refused(windows):
    """`out=big[:16]` where the kernel writes 24 elements (the issue's overwrite of big[16:24])."""
    big = torch.zeros(64)
    before = big.clone()
    with pytest.raises(ValueError) as info:
        windows.TwiceForward(BLOCK_SIZE=16).apply(torch.randn(12), out=big[:16])
    message = str(info.value)
    assert "TwiceForward.apply" in message and "`second_ptr`" in message and "holds 4" in message, message
    assert torch.equal(big, before)


def test_an_output_offset_past_the_output_is_refused(windows):
    with pytest.raises(ValueError, match=r"TwiceForward.apply: pack_args addresses the output from element 12, but "
                                         r"it holds 10"):
        windows.TwiceForward(BLOCK_SIZE=16).apply(torch.randn(12), out_shape=(10,))


def test_pointer_arithmetic_past_a_tensor_is_rusts_undefined_behaviour_refused():
    from rs2triton.runtime.host import Panic, ptr_add

    t = torch.arange(6.0)
    assert torch.equal(ptr_add(t, 6), t[6:]) and torch.equal(ptr_add(t, 2), t[2:])
    with pytest.raises(Panic, match="offset by 7 elements past a buffer of 6"):
        ptr_add(t, 7)


def test_an_out_shape_the_op_computes_otherwise_is_refused(windows, monkeypatch):
    op = windows.SquareForward(BLOCK_SIZE=16)
    monkeypatch.setattr(type(op), "compute_concrete_output_shape", lambda self, inputs, out: list(inputs[0]))
    x = torch.randn(6)
    assert torch.equal(op.apply(x, out_shape=(6,)), x * x)
    with pytest.raises(ValueError, match=r"out_shape is \[4\], but SquareForward computes the output shape \[6\]"):
        op.apply(x, out_shape=(4,))


def test_the_launches_are_made_as_they_are_taken(windows, monkeypatch):
    """A launch list is never built whole: an op of three launches makes the second only after
    the first ran."""
    op = windows.SquareForward(BLOCK_SIZE=16)
    made: list[int] = []
    cls = type(op)
    monkeypatch.setattr(cls, "n_launches", lambda self: 3)

    def pack(self, i, inputs, params, output, output_shape, stride):
        made.append(i)
        return cls.pack_args(self, inputs, params, output, output_shape, stride)

    launched: list[list[int]] = []
    monkeypatch.setattr(cls, "pack_args_for_launch", pack)
    monkeypatch.setattr(cls, "grid_for_launch", lambda self, i, shapes, out: launched.append(list(made)) or
                        cls.grid(self, out))
    x = torch.randn(20)
    assert torch.equal(op.apply(x, out_shape=(20,)), x * x)
    assert made == [0, 1, 2] and launched == [[0], [0, 1], [0, 1, 2]]


def test_apply_refuses_on_the_interpreter_a_dtype_it_computes_wrongly_before_anything_runs():
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs", interpret=True)
    linear = rs2triton.load(ROOT / "kernels_rs" / "linear.rs", interpret=True)
    x = torch.linspace(-3, 3, 8)
    assert torch.equal(relu.ReluForward(BLOCK_SIZE=8).apply(x.double(), out_shape=(8,)), x.double().relu())
    op = linear.LinearForward(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    w, b = torch.randn(5, 16, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    out = torch.full((8,), 3.0, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match=r"ReluForward.apply: input 0 \(shape \[8\]\) has dtype torch.bfloat16, and "
                                        r"pack_args hands it to `x_ptr: T::Pointer<D>` of kernel ReluForward: Triton's "
                                        r"CPU interpreter .* bfloat16 arithmetic is wrong"):
        relu.ReluForward(BLOCK_SIZE=8).apply(x.bfloat16(), out=out)
    assert torch.equal(out, torch.full((8,), 3.0, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match=r"LinearForward.apply: input 0 \(shape \[4, 16\]\) has dtype torch.float64, "
                                        r"and pack_args hands it to `x_ptr: T::Pointer<D>` of kernel LinearForward: .*"
                                        r"`tl.dot` of float64 tensors is wrong"):
        op.apply(torch.randn(4, 16, dtype=torch.float64), params=[w, b], out_shape=(4, 5))
