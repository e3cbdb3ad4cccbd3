"""scaled_dot_product_attention on flash-attention kernels used directly (no ``impl RuntimeOp``):
the rows' launches stated as data (``mapping_rules.Launch``), kernels_rs' flash_attention.rs
(causal or not) and teenygrad's flash_attn2.rs (no causal mask) where the tree has it; a float
mask on the add row; dropout on torch, with the reason."""


import pytest
import torch
import torch.nn.functional as F

import rs2triton
from rs2triton.backend.tree import kernel_struct, load_tree
from tests.conftest import DEVICE, ROOT, TEENYGRAD_SRC
from tests.numerics import assert_matches

TEENYGRAD_ATTENTION = TEENYGRAD_SRC / "nn" / "attention"


def _fallbacks(report) -> dict[str, list[str]]:
    return {op: list(report.fallbacks(op)) for op in report.rows if report.fallbacks(op)}


def _qkv(shape_q, shape_kv, dtype=torch.float32, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=gen).to(dtype).to(DEVICE).requires_grad_() for s in (shape_q, shape_kv, shape_kv)]


def _check(backend, fn, q, k, v, atol=1e-5, rtol=1e-4):
    """``fn`` compiled on ``backend`` against eager torch in f64: the output and q, k, v's gradients."""
    torch._dynamo.reset()
    got = torch.compile(fn, backend=backend)(q, k, v)
    ref = [t.detach().double().requires_grad_() for t in (q, k, v)]
    want = fn(*ref)
    assert_matches("attention", got.double(), want, atol=atol, rtol=rtol)
    dy = torch.randn(got.shape, generator=torch.Generator().manual_seed(9)).to(got.dtype).to(DEVICE)
    got.backward(dy)
    want.backward(dy.double())
    for n, a, b in zip("qkv", (q, k, v), ref, strict=True):
        assert_matches(f"attention: {n}.grad", a.grad.double(), b.grad, atol=atol, rtol=rtol)
    return backend.report()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_runs_forward_and_backward_on_the_flash_kernels(causal, dtype):
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"attn_{causal}_{dtype}")
    q, k, v = _qkv((2, 3, 7, 16), (2, 3, 7, 16), dtype)
    tol = {"atol": 1e-2, "rtol": 1e-2} if dtype == torch.float16 else {}
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=causal), q, k, v,
                    **tol)
    assert report.ran("attention", "forward") == 1 and report.ran("attention", "backward") == 1, str(report)
    assert report.rows["attention"].ran[("FlashAttentionForward", "forward")] == 1, str(report)
    # (a backward of two launches: the report names both kernels)
    assert report.rows["attention"].ran[("FlashAttentionBackwardDq + FlashAttentionBackwardDkv", "backward")] == 1
    assert not _fallbacks(report), str(report)
    assert not report.ran("bmm") and not report.ran("softmax"), str(report)  # (no math attention)


def test_causal_attention_with_more_keys_than_queries_is_torch_s_upper_left_triangle():
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_rect")
    q, k, v = _qkv((1, 2, 3, 8), (1, 2, 6, 8))
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3),
                    q, k, v)
    assert report.ran("attention", "forward") == 1 and not _fallbacks(report), str(report)


def test_grouped_heads_are_expanded_and_their_gradients_summed_on_the_rows():
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_gqa")
    q, k, v = _qkv((2, 4, 5, 8), (2, 2, 5, 8))
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
                    q, k, v)
    assert report.ran("attention", "backward") == 1 and report.ran("sum_rows", "backward") == 2, str(report)
    assert not _fallbacks(report), str(report)


def test_a_head_dimension_not_a_power_of_two_is_padded_with_zeros():
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_pad")
    q, k, v = _qkv((2, 2, 5, 6), (2, 2, 4, 6))
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v), q, k, v)
    assert report.ran("attention", "forward") == 1 and not _fallbacks(report), str(report)


def test_a_float_mask_is_added_on_the_add_row():
    """A float mask was torch's math attention (`_safe_softmax` and the rest on torch): it is
    added to the scores, on the add row, and the softmax and products run on the rows' ops."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_float_mask")
    q, k, v = _qkv((2, 2, 5, 8), (2, 2, 5, 8))
    mask = torch.randn(2, 1, 5, 5, generator=torch.Generator().manual_seed(3)).to(DEVICE)
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask.to(q.dtype)),
                    q, k, v)
    assert report.ran("add", "forward") and report.ran("softmax", "forward") == 1, str(report)
    assert not _fallbacks(report), str(report)


def test_dropout_stays_on_torch_with_the_reason():
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_dropout")
    q, k, v = _qkv((1, 2, 4, 8), (1, 2, 4, 8))
    torch._dynamo.reset()
    torch.compile(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5), backend=backend)(q, k, v)
    report = backend.report()
    assert not report.ran("attention"), str(report)
    reasons = [r for rs in _fallbacks(report).values() for r in rs]
    assert any("it draws random numbers (a dropout's mask: attention's dropout stays on torch)" in r
               for r in reasons), str(report)


def test_the_launch_row_refuses_a_head_dimension_not_a_power_of_two_with_the_kernel_s_reason():
    """The backend's own attention operator called on a head dimension of 6 (scaled_dot_product_
    attention pads it; a direct call is not): the row's HEAD_DIM rule refuses it, and the call
    runs on torch (the operator's own math), with the reason."""
    from rs2triton.backend.own_ops import define

    define()
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_refuse")
    q, k, v = (t.detach() for t in _qkv((3, 4, 6), (3, 4, 6)))
    torch._dynamo.reset()
    out, _ = torch.compile(lambda q, k, v: torch.ops.rs2triton_aot.attention(q, k, v, 0.5, False),
                           backend=backend)(q, k, v)
    assert_matches("attention", out, torch.softmax(q @ k.transpose(1, 2) * 0.5, -1) @ v, atol=1e-5, rtol=1e-5)
    reasons = " ".join(r for rs in _fallbacks(backend.report()).values() for r in rs)
    assert "exactly one block of its head_dim with no mask, and 6 is not a power of two" in reasons, reasons


def test_a_tree_s_kernel_structs_are_found_with_or_without_runtime_op():
    tree = load_tree([ROOT / "kernels_rs" / "flash_attention.rs", ROOT / "kernels_rs" / "relu.rs"])
    assert "FlashAttentionForward" in tree.kernels and "FlashAttentionForward" not in tree.ops
    assert "ReluForward" in tree.kernels and "ReluForward" in tree.ops
    assert kernel_struct("flash_attention2_backward_dkv") == "FlashAttention2BackwardDkv"


@pytest.mark.teenygrad
def test_teenygrad_s_flash_attn2_runs_attention_without_a_causal_mask_and_kernels_rs_the_causal():
    backend = rs2triton.torch_backend([TEENYGRAD_ATTENTION, ROOT / "kernels_rs"], name="attn_teenygrad")
    q, k, v = _qkv((2, 2, 5, 8), (2, 2, 5, 8))
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v), q, k, v)
    assert report.rows["scaled_dot_product_attention"].ran[("FlashAttention2Forward", "forward")] == 1, str(report)
    backward = ("FlashAttention2BackwardDq + FlashAttention2BackwardDkv", "backward")  # (both kernels named)
    assert report.rows["scaled_dot_product_attention"].ran[backward] == 1
    backend.reset_report()
    q, k, v = _qkv((2, 2, 5, 8), (2, 2, 5, 8), seed=1)
    report = _check(backend, lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)
    assert report.ran("attention", "forward") == 1 and not report.ran("scaled_dot_product_attention"), str(report)
    assert not _fallbacks(report), str(report)


def test_dynamic_shapes_plan_each_sequence_length_once():
    """Under ``dynamic=True`` (the sizes symbolic in Dynamo's graph) the attention still runs on
    the kernels, for each sequence length, and matches torch."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="attn_dynamic")
    torch._dynamo.reset()

    def attention(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    compiled = torch.compile(attention, backend=backend, dynamic=True)
    for n in (5, 7):
        q, k, v = (t.detach() for t in _qkv((1, 2, n, 8), (1, 2, n, 8), seed=n))
        assert_matches(f"attention, {n} rows", compiled(q, k, v), attention(q, k, v), atol=1e-5, rtol=1e-5)
    report = backend.report()
    assert report.ran("attention", "forward") == 2 and not _fallbacks(report), str(report)
