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
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def windows():
    return rs2triton.load(ROOT / "tests" / "kernels" / "windows.rs", interpret=True)


def test_the_bounds_are_the_facts_the_transpiler_recorded_from_the_kernels_masks(windows):
    square = windows.SquareForward.bounds
    assert square == {"x_ptr": frozenset({"n_elements"}), "y_ptr": frozenset({"n_elements"})}
    assert set(windows.TwiceForward.bounds) == {"x_ptr", "first_ptr", "second_ptr"}


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


def test_an_out_that_overlaps_an_input_in_part_is_refused_as_torch_refuses_it(windows):
    """`apply(buf[0:16], out=buf[1:17])`: the kernel would read elements it had overwritten."""
    buf = torch.arange(32, dtype=torch.float32)
    before = buf.clone()
    with pytest.raises(ValueError, match=r"SquareForward.apply: unsupported operation: some elements of input 0 "
                                         r"\(shape \[16\]\) and the written-to tensor out \(shape \[16\]\) refer to a "
                                         r"single memory location; pass an out that shares no memory"):
        windows.SquareForward(BLOCK_SIZE=16).apply(buf[0:16], out=buf[1:17])
    assert torch.equal(buf, before)
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs", interpret=True)
    with pytest.raises(ValueError, match=r"some elements of input 0 \(shape \[4, 4\]\) and the written-to tensor out"):
        relu.ReluForward(BLOCK_SIZE=16).apply(buf[:16].view(4, 4), out=buf[8:24].view(4, 4))
    assert torch.equal(buf, before)
    a = buf[0:16]
    assert windows.SquareForward(BLOCK_SIZE=16).apply(a, out=a) is a and torch.equal(buf[:16], before[:16] ** 2)
    assert torch.equal(buf[16:], before[16:])


def test_an_out_that_is_an_input_gets_what_a_new_output_would():
    """`out=x` of a kernel whose programs read what others write (linear: each column tile reads
    the whole rows of x): computed into a new buffer, as teenygrad's executor always does."""
    linear = rs2triton.load(ROOT / "kernels_rs" / "linear.rs", interpret=True)
    gen = torch.Generator().manual_seed(3)
    x, w, b = torch.randn(4, 32, generator=gen), torch.randn(32, 32, generator=gen), torch.randn(32, generator=gen)
    want = x @ w.T + b
    got = linear.LinearForward(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16).apply(x, params=[w, b], out=x)
    assert got is x and torch.allclose(x, want, atol=1e-4)


def test_a_grid_of_no_program_for_an_output_with_elements_is_an_error(windows, monkeypatch):
    """teenygrad's executor hands the grid to cuLaunchKernel, which refuses an axis of 0: the output
    would have been left as allocated (uninitialised). An empty output needs no program."""
    op = windows.SquareForward(BLOCK_SIZE=16)
    assert op.apply(torch.randn(0), out_shape=(0,)).shape == (0,)
    monkeypatch.setattr(type(op), "grid", lambda self, shape: (0, 1, 1))
    with pytest.raises(ValueError, match=r"SquareForward.apply: `grid` gives the grid \[0, 1, 1\], which runs no "
                                         r"program, but the output has elements for the kernel to write: teenygrad's "
                                         r"executor refuses such a launch \(cuLaunchKernel: CUDA_ERROR_INVALID_VALUE\)"):
        op.apply(torch.randn(6), out_shape=(6,))
    out = torch.full((6,), 9.0)
    with pytest.raises(ValueError, match="`grid` gives the grid"):
        op.apply(torch.randn(6), out=out)
    assert torch.equal(out, torch.full((6,), 9.0))


def test_a_backward_grid_of_no_program_is_an_error(monkeypatch):
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs", interpret=True)
    op = relu.ReluForward(BLOCK_SIZE=16)
    monkeypatch.setattr(type(op), "backward_grid", lambda self, shapes, shape: (4, 0, 1))
    x = torch.randn(6, requires_grad=True)
    y = op.apply(x, out_shape=(6,))
    with pytest.raises(ValueError, match=r"ReluForward.apply: `backward_grid` gives the grid \[4, 0, 1\], which runs "
                                         r"no program"):
        y.sum().backward()


@pytest.mark.parametrize("n,wrapped", [(2**32 + 16, 16), (2**31, -(2**31))])
def test_a_tensor_past_what_the_kernels_i32_count_holds_is_refused(windows, n, wrapped):
    """`n as i32` in pack_args wraps a count of 2^31 or more (16 for 2^32 + 16): the kernel would
    address a fraction of the tensor. Meta tensors: nothing is allocated."""
    x = torch.empty(n, device="meta")
    with pytest.raises(ValueError, match=rf"SquareForward.apply: input 0 \(shape \[{n}\]\) holds {n} elements, more "
                                         rf"than kernel SquareForward's `n_elements: i32` can count \(at most "
                                         rf"2147483647; pack_args gives it {wrapped}: the count wrapped\), and the "
                                         rf"kernel addresses `x_ptr` under it"):
        windows.SquareForward(BLOCK_SIZE=16).apply(x, out_shape=(n,))


def test_on_the_interpreter_apply_holds_a_view_to_its_own_elements_where_no_mask_bounds_it(windows):
    """RowsForward addresses a row a program (`row * n_cols + cols`, masked by the columns only), so
    no mask says how much of `x_ptr` it reads: a view `big[0:2]` with `out_shape=(4, 8)` read
    `big`'s rows 2 and 3 (inside its storage) and returned them doubled. A launch of `apply` is
    held to each tensor's own elements; a direct launch may still reach its storage (as on a GPU)."""
    from rs2triton.runtime.bounds import OutOfBounds

    big = torch.arange(32, dtype=torch.float32).view(4, 8)
    op = windows.RowsForward(BLOCK_SIZE=8)
    assert torch.equal(op.apply(big[1:3], out_shape=(2, 8)), big[1:3] * 2)
    with pytest.raises(OutOfBounds, match=r"RowsForward: a load at .*windows.rs:\d+ reaches outside the tensor `x_ptr` "
                                          r"\(2x8 float32, 16 elements\): lane 0, program \(2, 0, 0\) accesses element "
                                          r"16, past the end; .*RuntimeOp.apply holds each tensor to its own elements"):
        op.apply(big[0:2], out_shape=(4, 8))
    y = torch.empty(4, 8)
    op[(4,)](big[0:2], y, 8)  # a launcher's own launch: a view may reach its storage
    assert torch.equal(y, big * 2)
