"""On Triton's interpreter a launcher's launch cannot read or write outside its tensors
(rs2triton/runtime/bounds.py): an access past them is an OutOfBounds ValueError naming the
kernel, the pointer argument, the Rust line and the lane, and nothing is written; the process
survives. Within the tensors' storage (masked lanes, views of a larger tensor) nothing changes."""

import pytest
import torch

import rs2triton
from rs2triton.runtime.bounds import OutOfBounds
from tests.conftest import DEVICE

pytestmark = pytest.mark.skipif(DEVICE != "cpu", reason="checks the interpreter's accesses (CPU tensors); "
                                "on a GPU the device itself runs the kernel")

SRC = """use teeny_triton::triton::*;

#[kernel]
pub fn gather<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, idx_ptr: T::Pointer<i32>, out_ptr: T::Pointer<f32>, n: i32) {
    let offs = T::arange(0, B);
    let m = offs.lt(n);
    let idx = T::load(idx_ptr.add_offsets(offs), Some(m), None, &[], None, None, None, false);
    let v = T::load(x_ptr.add_offsets(idx), Some(m), None, &[], None, None, None, false);
    T::store(out_ptr.add_offsets(offs), v, Some(m), &[], None, None);
}

#[kernel]
pub fn bump<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>, n: i32) {
    let offs = T::arange(0, B);
    let _old = T::atomic_add(x_ptr.add_offsets(offs), T::full::<f32>(&[B], 1.0f32), Some(offs.lt(n)), None, None);
}
"""


@pytest.fixture(scope="module")
def mods(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "gather.rs"
    path.write_text(SRC)
    return rs2triton.load("kernels_rs/vector_add.rs"), rs2triton.load(path)


def test_an_undersized_input_is_an_error_not_a_crash(mods):
    va = mods[0].VectorAdd(BLOCK_SIZE=128)
    a, b, out = torch.randn(10), torch.randn(1000), torch.zeros(1000)
    with pytest.raises(OutOfBounds) as info:
        va[(8,)](a, b, out, 1000)
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert msg.startswith("VectorAdd: a load at kernels_rs/vector_add.rs:") and "`a_ptr`" in msg
    assert "(10 float32, 10 elements)" in msg and "lane 10, program (0, 0, 0)" in msg and "past the end" in msg
    assert torch.count_nonzero(out) == 0  # nothing was stored
    va[(8,)](torch.randn(1000), b, out, 1000)  # the process and the launcher are fine
    assert torch.count_nonzero(out) > 0


def test_an_undersized_output_is_an_error(mods):
    va = mods[0].VectorAdd(BLOCK_SIZE=128)
    with pytest.raises(OutOfBounds, match=r"a store at kernels_rs/vector_add\.rs:\d+ reaches outside the tensor `out_ptr`"):
        va[(1,)](torch.randn(128), torch.randn(128), torch.zeros(100), 128)


def test_masked_lanes_and_views_of_larger_storage_are_fine(mods):
    va = mods[0].VectorAdd(BLOCK_SIZE=128)
    a, b, out = torch.randn(10), torch.randn(10), torch.zeros(10)
    va[(1,)](a, b, out, 10)  # lanes 10..127 are masked off
    assert torch.equal(out, a + b)
    big = torch.randn(300)
    view, out = big[:200], torch.zeros(200)
    va[(2,)](view, view, out, 200)  # the storage of `view` is the 300 elements of `big`
    assert torch.equal(out, view + view)


@pytest.mark.parametrize("bad,where", [(50, "element 50, past the end"), (-3, "3 elements before the start")])
def test_an_index_out_of_range_is_caught_at_its_lane(mods, bad, where):
    g = mods[1].Gather(B=16)
    x, idx, out = torch.randn(50), torch.arange(16, dtype=torch.int32), torch.zeros(16)
    g[(1,)](x, idx, out, 16)
    assert torch.equal(out, x[:16])
    idx[7] = bad
    with pytest.raises(OutOfBounds) as info:
        g[(1,)](x, idx, out, 16)
    msg = str(info.value)
    assert "Gather: a load at " in msg and "gather.rs:8" in msg and "`x_ptr`" in msg
    assert f"lane 7, program (0, 0, 0) accesses {where}" in msg


def test_atomics_are_checked(mods):
    bump = mods[1].Bump(B=32)
    x = torch.zeros(32)
    bump[(1,)](x, 32)
    assert torch.equal(x, torch.ones(32))
    with pytest.raises(OutOfBounds, match=r"Bump: an atomic read-modify-write at .*gather\.rs:\d+ reaches outside the tensor `x_ptr` \(20 float32"):
        bump[(1,)](torch.zeros(20), 32)


def test_the_check_can_be_turned_off(mods, monkeypatch):
    from rs2triton.runtime import bounds

    monkeypatch.setenv("RS2TRITON_BOUNDS_CHECK", "0")
    assert not bounds.enabled()
    va = mods[0].VectorAdd(BLOCK_SIZE=128)
    a, b, out = torch.randn(10), torch.randn(10), torch.zeros(10)
    va[(1,)](a, b, out, 10)  # (an in-bounds launch: an unchecked bad one could crash the process)
    assert torch.equal(out, a + b)
