"""Every bundled kernel: numerics under the interpreter, and compilation for sm_90 and gfx942."""

import json
import os
from pathlib import Path

import pytest
import torch

import rs2triton
from tests.cases import CASES
from tests.compile_helper import compile_in_subprocess
from tests.conftest import DEVICE
from tests.numerics import assert_matches

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
        if got.is_floating_point():
            assert_no_spurious_inf_or_zero(got, want, name)
        assert_matches(name, got, want, atol=case.atol[dtype], rtol=case.rtol[dtype])


def spurious(got: torch.Tensor, want: torch.Tensor) -> tuple[int, int]:
    """(non-finite where torch is finite, zero where torch is at least the dtype's eps)."""
    bad_inf = (~torch.isfinite(got) & torch.isfinite(want)).sum().item()
    # Below eps, `1 + t` is 1 in any formula without log1p: a zero there is not an error.
    bad_zero = ((got == 0) & (want.abs() >= torch.finfo(want.dtype).eps)).sum().item()
    return bad_inf, bad_zero


def assert_no_spurious_inf_or_zero(got: torch.Tensor, want: torch.Tensor, name: str) -> None:
    bad_inf, bad_zero = spurious(got, want)
    assert bad_inf == 0, f"{name}: {bad_inf} values are inf/nan where torch's are finite"
    assert bad_zero == 0, f"{name}: {bad_zero} values are 0 where torch's are not"


WIDE = [pytest.param(c, id=c.id) for c in CASES
        if torch.float16 in c.dtypes and c.file != "kernels_rs/activations.rs"  # those span [-30, 30] already
        # (an attention or RMS-norm backward reads what the forward saved of its inputs: stretched, they are not)
        and not c.id.startswith(("flash_attention_backward", "rms_norm_rows_backward"))]


@pytest.mark.parametrize("case", WIDE)
def test_f16_inputs_spanning_30_match_torch(case):
    """Every float kernel in f16 with its float inputs stretched over [-30, 30]."""
    args = case.make_args(torch.float16, torch.Generator().manual_seed(7))
    outputs = set(case.reference(args))
    for key, v in args.items():
        if isinstance(v, torch.Tensor) and v.is_floating_point() and key not in outputs:
            args[key] = (v.float() * (30.0 / v.float().abs().max())).to(v.dtype)
    module = rs2triton.load(case.file)
    dev_args = {k: v.to(DEVICE) if isinstance(v, torch.Tensor) else v for k, v in args.items()}
    getattr(module, case.kernel)[case.grid(args)](*dev_args.values(), **case.consts)
    for name, want in case.reference(args).items():
        got = dev_args[name].cpu()
        assert_no_spurious_inf_or_zero(got, want, name)
        scale = max(1.0, want.float().abs().max().item())  # the tolerances were set for unit-sized data
        assert_matches(name, got.float(), want.float(), atol=case.atol[torch.float16] * scale,
                       rtol=case.rtol[torch.float16])


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


TTIR_BASELINE = Path(__file__).parent / "ttir_ops.json"


def test_ttir_op_counts_do_not_grow(compiled):
    """The TTIR of every bundled kernel (sm_90) is no bigger than recorded in tests/ttir_ops.json
    for this Triton version. After an intended change: RS2TRITON_UPDATE_GOLDEN=1, review the diff."""
    import triton

    version = ".".join(triton.__version__.split(".")[:2])
    counts = {f"{c.id}-{DTYPE_NAMES[dt]}": compiled[(c.id, DTYPE_NAMES[dt], "cuda:90")]["ttir_ops"]
              for c in CASES for dt in c.dtypes}
    recorded = json.loads(TTIR_BASELINE.read_text()) if TTIR_BASELINE.exists() else {}
    if os.environ.get("RS2TRITON_UPDATE_GOLDEN") == "1":
        recorded[version] = counts
        TTIR_BASELINE.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
    baseline = recorded.get(version)
    assert baseline is not None, f"no TTIR op counts recorded for Triton {version}"
    grown = {k: (baseline[k], n) for k, n in counts.items() if k in baseline and n > baseline[k]}
    assert not grown, f"TTIR grew (recorded, now): {grown}"
    assert set(counts) <= set(baseline), f"kernels without recorded counts: {sorted(set(counts) - set(baseline))}"
