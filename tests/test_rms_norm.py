"""RMSNorm written out (Qwen3's ``Qwen3RMSNorm``) found in Dynamo's graph and run on RMS-norm
kernels used directly (``mapping_rules.Launch``): kernels_rs' rmsnorm.rs, or teenygrad's
rmsnorm.rs forward where the tree has it; the backward is kernels_rs' (each row's dx alone), the
weight's gradient a product and a sum over rows on the rows' ops."""


import pytest
import torch

import rs2triton
from tests.conftest import DEVICE, ROOT, TEENYGRAD_SRC
from tests.numerics import assert_matches

TEENYGRAD_NORM = TEENYGRAD_SRC / "nn" / "norm"


class RMSNorm(torch.nn.Module):
    """Qwen3's RMSNorm, as transformers writes it."""

    def __init__(self, n: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n, generator=torch.Generator().manual_seed(5)))
        self.eps = eps

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        dtype = h.dtype
        h = h.to(torch.float32)
        variance = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(variance + self.eps)
        return self.weight * h.to(dtype)


def _fallbacks(report) -> dict[str, list[str]]:
    return {op: list(report.fallbacks(op)) for op in report.rows if report.fallbacks(op)}


def _run(backend, shape=(2, 3, 20)):
    torch._dynamo.reset()
    model, ref = RMSNorm(shape[-1]).to(DEVICE), RMSNorm(shape[-1]).to(DEVICE)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1)).to(DEVICE).requires_grad_()
    x_ref = x.detach().clone().requires_grad_()
    got = torch.compile(model, backend=backend)(x)
    want = ref(x_ref)
    assert_matches("rms_norm", got, want, atol=1e-5, rtol=1e-5)
    dy = torch.randn(got.shape, generator=torch.Generator().manual_seed(2)).to(DEVICE)
    got.backward(dy)
    want.backward(dy)
    assert_matches("rms_norm: x.grad", x.grad, x_ref.grad, atol=1e-5, rtol=1e-4)
    assert_matches("rms_norm: weight.grad", model.weight.grad, ref.weight.grad, atol=1e-5, rtol=1e-4)
    return backend.report()


def test_qwen3_s_rms_norm_runs_on_the_rms_norm_rows():
    report = _run(rs2triton.torch_backend(ROOT / "kernels_rs", name="rms_kernels_rs"))
    rows = report.rows["rms_norm_rows"].ran
    assert rows[("RmsNormRowsForward", "forward")] == 1 and rows[("RmsNormRowsBackward", "backward")] == 1, str(report)
    assert not report.ran("rsqrt") and not report.ran("mean") and not report.ran("pow"), str(report)
    assert report.ran("sum_rows", "backward") == 1, str(report)  # (the weight's gradient: a sum over rows)
    assert not _fallbacks(report), str(report)


def test_a_pattern_that_is_not_rms_norm_is_left_as_it_is():
    """A mean over another dimension is no RMS normalisation: its parts run on their rows."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="rms_not")
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    torch._dynamo.reset()
    got = torch.compile(lambda x: x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-6), backend=backend)(x)
    assert_matches("not rms", got, x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-6), atol=1e-5, rtol=1e-5)
    report = backend.report()
    assert report.ran("rsqrt") and not report.ran("rms_norm_rows"), str(report)


@pytest.mark.teenygrad
def test_teenygrad_s_rms_norm_forward_runs_with_kernels_rs_backward():
    report = _run(rs2triton.torch_backend([TEENYGRAD_NORM, ROOT / "kernels_rs"], name="rms_teenygrad"))
    assert report.rows["rms_norm"].ran[("RmsNormForward", "forward")] == 1, str(report)
    assert report.rows["rms_norm_rows"].ran == {("RmsNormRowsBackward", "backward"): 1}, str(report)
    assert not _fallbacks(report), str(report)


@pytest.mark.parametrize("eps", [None, 1e-5], ids=["dtype_eps", "given_eps"])
def test_torch_s_rms_norm_runs_on_the_rms_norm_rows(eps):
    """``F.rms_norm`` over the last dimension (``eps=None``: the dtype's epsilon, as torch's)."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"rms_functional_{eps}")
    gen = torch.Generator().manual_seed(4)
    x, w = (torch.randn(s, generator=gen).to(DEVICE).requires_grad_() for s in ((3, 4, 12), (12,)))
    ref = [t.detach().clone().requires_grad_() for t in (x, w)]
    torch._dynamo.reset()

    def norm(x, w):
        return torch.nn.functional.rms_norm(x, [12], w, eps)

    got, want = torch.compile(norm, backend=backend)(x, w), norm(*ref)
    assert_matches("rms_norm", got, want, atol=1e-5, rtol=1e-5)
    got.sum().backward()
    want.sum().backward()
    for n, a, b in zip(("x", "weight"), (x, w), ref, strict=True):
        assert_matches(f"rms_norm: {n}.grad", a.grad, b.grad, atol=1e-5, rtol=1e-4)
    report = backend.report()
    assert report.ran("rms_norm_rows", "forward") == 1 and report.ran("rms_norm_rows", "backward") == 1, str(report)
    assert not _fallbacks(report), str(report)
