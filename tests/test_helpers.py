"""Plain fns as helpers (tests/kernels/helpers.rs): combine fns nested in a kernel's body, passed
to `T::reduce` / `T::associative_scan` as a module-level one is. Numerics under the interpreter against torch in f32 and f16, compiled for sm_90 and gfx942,
and the generated text."""

import pytest
import torch

import rs2triton
from rs2triton import transpile_source
from rs2triton.transpiler.driver.pipeline import transpile_file
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE, jit_sources
from tests.numerics import assert_matches

SRC = "tests/kernels/helpers.rs"
DTYPES = [torch.float32, torch.float16]
ROWS, BLOCK = 3, 16


@pytest.fixture(scope="module")
def mod():
    return rs2triton.load(SRC)


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    text = transpile_file(SRC, launchers=True).text
    return jit_sources(text) | {"": text}


def _x(dtype, n, seed=0, lo=0.5, hi=1.5):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(n, generator=g) * (hi - lo) + lo).to(dtype).to(DEVICE)


# ---------------------------------------------------------------------------- nested combine fns


@pytest.mark.parametrize("dtype", DTYPES)
def test_nested_combine_fns_reduce_and_scan(mod, dtype):
    x = _x(dtype, ROWS * BLOCK)
    mx = torch.zeros(ROWS, dtype=dtype, device=DEVICE)
    prod = torch.zeros(ROWS * BLOCK, dtype=dtype, device=DEVICE)
    mod.nested_combines[(ROWS,)](x, mx, prod, BLOCK=BLOCK)
    rows = x.cpu().view(ROWS, BLOCK)
    assert_matches("max_ptr", mx, rows.max(dim=1).values)
    # the nested `combine` (a product) is meant, not the file's (a sum)
    want = torch.cumprod(rows.float(), dim=1).view(-1)
    tol = {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.float16 else {"atol": 1e-5, "rtol": 1e-5}
    assert_matches("prod_ptr", prod.float(), want, **tol)


def test_module_combine_beside_a_nested_one_of_another_kernels_name(mod):
    x = _x(torch.float32, ROWS * BLOCK, seed=1, lo=-2.0, hi=2.0)
    out = torch.zeros(ROWS * 2, device=DEVICE)
    mod.ModuleCombine(BLOCK=BLOCK)[(ROWS,)](x, out)
    rows = x.cpu().view(ROWS, BLOCK)
    want = torch.stack([rows.sum(dim=1), rows.min(dim=1).values], dim=1).view(-1)
    assert_matches("out_ptr", out, want, atol=1e-5, rtol=1e-5)


def test_each_nested_combine_fn_is_a_helper_of_its_own(generated):
    text = generated[""]
    for helper in ("max_combine", "combine_2", "combine", "max_combine_2"):
        assert f"\ndef {helper}(a, b):\n" in text, helper
    assert "def combine_2(a, b):\n    return a * b\n" in text
    assert "def max_combine_2(a, b):\n    return tl.minimum(a, b)\n" in text
    assert "m = tl.reduce(x, 0, max_combine)\n" in generated["nested_combines"]
    assert "p = tl.associative_scan(x, 0, combine_2)\n" in generated["nested_combines"]
    assert "s = tl.reduce(x, 0, combine)\n    lo = tl.reduce(x, 0, max_combine_2)\n" in generated["module_combine"]


def test_a_nested_combine_fn_passed_by_name_alone():
    src = """use teeny_triton::triton::*;

#[kernel]
pub fn k<T: Triton, const B: i32>(x_ptr: T::Pointer<f32>) {
    fn add(a: f32, b: f32) -> f32 {
        a + b
    }
    let x = T::load(x_ptr.add_offsets(T::arange(0, B)), None, None, &[], None, None, None, false);
    T::store(x_ptr, T::reduce(x, 0, add, false), None, &[], None, None);
}
"""
    text = transpile_source(src, "kernels/k.rs").text
    assert "def add(a, b):\n    return a + b\n" in text and "tl.reduce(x, 0, add)" in text


# ---------------------------------------------------------------------------- GPU targets

KERNELS = {"nested_combines": {"BLOCK": 64}, "module_combine": {"BLOCK": 64}}


@pytest.fixture(scope="module")
def compiled():
    reqs = [{"file": SRC, "kernel": k, "target": t, "dtypes": {} if k == "module_combine" else {"D": d}, "consts": c}
            for k, c in KERNELS.items() for t in ("cuda:90", "hip:gfx942") for d in ("f32", "f16", "bf16")
            if k != "module_combine" or d == "f32"]
    return compile_in_subprocess(reqs)


def test_helper_kernels_compile_for_sm90_and_gfx942(compiled):
    failures = [f"{r['kernel']} {r['target']} {r['dtypes']}: {r.get('error')}" for r in compiled if not r["ok"]]
    assert not failures, "\n".join(failures)
    assert len(compiled) == 8 and all(r["entry"] for r in compiled)
