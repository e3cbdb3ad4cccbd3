"""Block pointers (gone from Triton 3.9) lowered to pointer arithmetic plus masks."""

import pytest
import torch

import rs2triton
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE
from tests.numerics import assert_matches

SRC = "tests/kernels/block_ptr.rs"


@pytest.fixture(scope="module")
def mod():
    return rs2triton.load(SRC)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_matmul_through_block_pointers(mod, dtype):
    M, N, K, BM, BN, BK = 50, 37, 45, 32, 32, 16
    gen = torch.Generator().manual_seed(4)
    a = torch.randn(M, K, generator=gen).to(dtype)
    b = torch.randn(K, N, generator=gen).to(dtype)
    c = torch.zeros(M, N, dtype=dtype, device=DEVICE)
    grid = ((M + BM - 1) // BM, (N + BN - 1) // BN)
    mod.matmul_block_ptr[grid](a.to(DEVICE), b.to(DEVICE), c, M, N, K, a.stride(0), b.stride(0), c.stride(0),
                               BM=BM, BN=BN, BK=BK)
    want = (a.float() @ b.float()).to(dtype)
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    assert_matches("c_ptr", c, want, atol=tol, rtol=tol)


@pytest.mark.parametrize("shift", [0, 5, -3])
def test_boundary_check_both_ends_and_nan_padding(mod, shift):
    n, block = 100, 32
    x = torch.randn(n)
    y = torch.full((n,), 7.0, device=DEVICE)
    mod.shifted_copy[((n + block - 1) // block,)](x.to(DEVICE), y, n, shift, BLOCK=block)
    src = torch.arange(n) + shift
    inside = (src >= 0) & (src < n)
    want = torch.full((n,), float("nan"))
    want[inside] = x[src[inside]]
    assert_matches("y_ptr", y, want, equal_nan=True)


def test_block_pointer_kernels_compile_for_gpus():
    reqs = []
    for target in ("cuda:90", "hip:gfx942"):
        for dt in ("f32", "f16"):
            reqs.append({"file": SRC, "kernel": "matmul_block_ptr", "target": target, "dtypes": {"D": dt},
                         "consts": {"BM": 64, "BN": 64, "BK": 32}})
        reqs.append({"file": SRC, "kernel": "shifted_copy", "target": target, "dtypes": {}, "consts": {"BLOCK": 128}})
    failures = [f"{r['kernel']} {r['target']}: {r.get('error')}" for r in compile_in_subprocess(reqs)
                if not r["ok"] or not r["entry"]]
    assert not failures, "\n".join(failures)
