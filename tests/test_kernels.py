"""Every bundled kernel: numerics under the interpreter, and compilation for sm_90 and gfx942."""

import pytest
import torch

import rs2triton
from tests.cases import CASES
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE

DTYPE_NAMES = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16", torch.int32: "i32"}
TARGETS = ["cuda:90", "hip:gfx942"]

PARAMS = [pytest.param(c, dt, id=f"{c.id}-{DTYPE_NAMES[dt]}") for c in CASES for dt in c.dtypes]


@pytest.mark.parametrize("case,dtype", PARAMS)
def test_matches_torch(case, dtype):
    module = rs2triton.load(case.file)
    kernel = getattr(module, case.kernel)
    args = case.make_args(dtype, torch.Generator().manual_seed(1234))
    dev_args = {k: v.to(DEVICE) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    kernel[case.grid(args)](*dev_args.values(), **case.consts)
    expected = case.reference(args)
    assert expected, "a case must check at least one output"
    for name, want in expected.items():
        got = dev_args[name].cpu()
        assert got.dtype == want.dtype, name
        torch.testing.assert_close(got, want, atol=case.atol[dtype], rtol=case.rtol[dtype], msg=name)


def _request(case, dtype, target):
    module = rs2triton.load(case.file)
    info = module.__rs2triton_kernels__[case.kernel]
    return {"file": case.file, "kernel": case.kernel, "target": target,
            "dtypes": {d.name: DTYPE_NAMES[dtype] for d in info.dtype_params}, "consts": case.consts}


@pytest.fixture(scope="module")
def compiled():
    keys = [(c.id, DTYPE_NAMES[dt], t) for c in CASES for dt in c.dtypes for t in TARGETS]
    reqs = [_request(c, dt, t) for c in CASES for dt in c.dtypes for t in TARGETS]
    return dict(zip(keys, compile_in_subprocess(reqs), strict=True))


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case,dtype", PARAMS)
def test_compiles_for_gpu(compiled, case, dtype, target):
    res = compiled[(case.id, DTYPE_NAMES[dtype], target)]
    assert res["ok"], res.get("error")
    assert res["entry"], "the kernel's entry point is missing from the assembly"
    binary = "cubin" if target.startswith("cuda") else "hsaco"
    assert res["asm"][binary] > 0
