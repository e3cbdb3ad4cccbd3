"""Whole models on the backend (issue 33 part 3): a 1-layer GPT-2 and a tiny Qwen3, built from
transformers configs (nothing downloaded), forward and one training step (the loss's backward
and an optimizer step) under torch.compile on the project's own kernels (kernels_rs/), against
the same model run eagerly; every compute node of their graphs runs on a kernel (``ON_TORCH`` would list
any that may not, each with its reason: none does).

The same run on teenygrad's feature-branch tree (with kernels_rs for what it lacks) is
``benchmarks/models.py``; one Qwen3 step on it is tested here where the tree is exported.
"""

import copy

import pytest
import torch

import rs2triton
from tests.conftest import DEVICE, ROOT, TEENYGRAD_SRC
from tests.numerics import assert_matches

transformers = pytest.importorskip("transformers")

BATCH, SEQ, VOCAB = 2, 8, 64

# The nodes that run on torch, by case, with why (the report's reasons must be these alone: none
# does). (With an attention mask transformers gives Qwen3's key/value heads to each query head by
# expanding them, `repeat_kv`: the expansion's gradient, a sum over a middle dimension, is a sum
# over leading ones of its input permuted, on SumColsForward.)
ON_TORCH: dict[str, dict[str, str]] = {"gpt2": {}, "gpt2_gelu_new_masked": {}, "qwen3": {}, "qwen3_masked": {}}


def gpt2(activation: str | None = "gelu_pytorch_tanh"):
    """A 1-layer GPT-2; ``activation=None``: the config's default, ``gelu_new`` (tanh's GELU
    written as elementwise math, whose gradient has ATen's ``tanh_backward``)."""
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=16,
                                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
                                     **({"activation_function": activation} if activation else {}))
    assert config.activation_function == (activation or "gelu_new")
    return transformers.GPT2LMHeadModel(config)


def qwen3():
    config = transformers.Qwen3Config(num_hidden_layers=1, hidden_size=32, intermediate_size=64,
                                      num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                                      vocab_size=VOCAB, max_position_embeddings=16, tie_word_embeddings=False)
    return transformers.Qwen3ForCausalLM(config)


def padding_mask():
    """The second sequence padded on the left by 3: under the causal mask its first 3 queries
    attend to no key (torch's softmax gives such a row zeros)."""
    mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    mask[1, :3] = 0
    return mask.to(DEVICE)


@pytest.mark.parametrize("name, make, masked", [("gpt2", gpt2, False), ("gpt2_gelu_new_masked", lambda: gpt2(None), True),
                                                ("qwen3", qwen3, False), ("qwen3_masked", qwen3, True)])
def test_model_trains_on_the_kernels_as_eager(name, make, masked):
    torch.manual_seed(0)
    eager = make().to(DEVICE).float()
    compiled_model = copy.deepcopy(eager)
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"models_{name}")
    compiled = torch.compile(compiled_model, backend=backend)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1)).to(DEVICE)
    extra = {"attention_mask": padding_mask()} if masked else {}

    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, compiled_model)]
    got = compiled(input_ids=ids, labels=ids, **extra)
    want = eager(input_ids=ids, labels=ids, **extra)
    assert_matches(f"{name}: logits", got.logits, want.logits, atol=1e-4, rtol=1e-4)
    assert_matches(f"{name}: loss", got.loss, want.loss, atol=1e-5, rtol=1e-5)
    got.loss.backward()
    want.loss.backward()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        assert p.grad is not None, f"{name}: {n} has no gradient"
        assert_matches(f"{name}: {n}.grad", p.grad, q.grad, atol=1e-4, rtol=1e-3)
    for opt in optimizers:
        opt.step()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        assert_matches(f"{name}: {n} after a step", p, q, atol=1e-5, rtol=1e-4)
    # a second step, on the graphs' generated functions (the same shapes), still matches
    for opt in optimizers:
        opt.zero_grad()
    got, want = compiled(input_ids=ids, labels=ids, **extra), eager(input_ids=ids, labels=ids, **extra)
    assert_matches(f"{name}: loss after a step", got.loss, want.loss, atol=1e-5, rtol=1e-5)
    got.loss.backward()
    want.loss.backward()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        assert_matches(f"{name}: {n}.grad at the second step", p.grad, q.grad, atol=1e-4, rtol=1e-3)

    report = backend.report()
    if name.startswith("gpt2_gelu_new"):  # (tanh's gradient from its output: ATen's tanh_backward)
        assert report.ran("tanh", "forward") == 2 and report.ran("tanh_backward", "backward") == 2, str(report)
    if masked:  # (the padding mask added as log(0/1): 0 or -inf; the softmax on the kernel)
        assert report.ran("log", "forward") == 2 and report.ran("softmax", "forward") == 2, str(report)
    if name.startswith("qwen3"):  # (SiluForward's backward kernel reads its output: the forward is run again for it)
        assert report.ran("silu", "backward") == 2 and any("forward run again" in n for n in report.rows["silu"].notes)
    # (the attention: without a mask on the flash-attention kernels, causal; with one, matrix products)
    attention = "bmm" if masked else "attention"
    # (Qwen3's RMSNorm, found as its pattern in Dynamo's graph, on kernels_rs' rmsnorm.rs)
    for operation in ("embedding", attention, "layer_norm" if name.startswith("gpt2") else "rms_norm_rows",
                      "log_softmax", "nll_loss"):
        assert report.ran(operation, "forward") and report.ran(operation, "backward"), f"{name}: {operation}\n{report}"
    assert report.ran("cat"), str(report)  # (the key/value cache, GPT-2's fused q/k/v split's gradient, rotary halves)
    allowed = ON_TORCH[name]
    for operation, reasons in _fallbacks(report).items():
        assert operation in allowed and all(allowed[operation] in r for r in reasons), \
            f"{name}: {operation} ran on torch: {reasons}\n{report}"


def _fallbacks(report) -> dict[str, list[str]]:
    """operation -> the reasons it ran on torch."""
    out: dict[str, list[str]] = {}
    for operation in report.rows:
        reasons = list(report.fallbacks(operation))
        if reasons:
            out[operation] = reasons
    return out


def test_a_graph_with_a_tensor_constant_runs_again_generated():
    """A tensor the graph holds (a ``get_attr`` node: a constant AOTAutograd lifted) is read from
    the graph in the generated function (it called the attribute's name before: 'str' object is
    not callable, on a model's second call)."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="models_constant")

    def f(x):
        return torch.relu(x * torch.tensor([1.0, -2.0, 3.0], device=x.device))

    compiled = torch.compile(f, backend=backend)
    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    for _ in range(3):
        assert_matches("relu(x * c)", compiled(x), f(x))
    assert backend.report().ran("mul", "forward") == 3


def test_a_later_tree_s_op_of_the_same_name_takes_what_the_first_does_not(tmp_path):
    """Trees given as a list may define one op name twice (teenygrad's SoftmaxForward has no
    backward, kernels_rs' has one): a call the first definition does not take (a gradient) runs
    on the later one, noted (the softmax's gradient ran on torch)."""
    text = (ROOT / "kernels_rs" / "softmax.rs").read_text()
    no_backward = "fn has_backward(&self) -> bool {\n                true"
    assert no_backward in text
    (tmp_path / "softmax.rs").write_text(text.replace(no_backward, no_backward.replace("true", "false")))
    backend = rs2triton.torch_backend([tmp_path, ROOT / "kernels_rs"], name="models_two_trees")
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0)).to(DEVICE).requires_grad_()
    x_ref = x.detach().clone().requires_grad_()
    dy = torch.randn(4, 6, generator=torch.Generator().manual_seed(1)).to(DEVICE)
    torch.compile(lambda t: torch.softmax(t, dim=-1), backend=backend)(x).backward(dy)
    torch.softmax(x_ref, dim=-1).backward(dy)
    assert_matches("softmax: grad", x.grad, x_ref.grad, atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert report.ran("softmax", "forward") == 1 and report.ran("softmax", "backward") == 1, str(report)
    assert not report.fallbacks("softmax")
    assert backend.tree.files["SoftmaxForward"] == (tmp_path / "softmax.rs").resolve()  # (the first: the forward's)
    assert any("SoftmaxForward of kernels_rs/softmax.rs" in n for n in report.rows["softmax"].notes), str(report)


@pytest.mark.parametrize("gqa", [False, True], ids=["heads", "grouped"])
def test_attention_with_a_boolean_mask_runs_on_the_kernels_as_torch(gqa):
    """A boolean attention mask (True: attended) is added to the scores as 0 or -inf, on the ops,
    and a query it masks wholly gives zeros, as torch's softmax (`_safe_softmax`) does: it was
    added as the numbers 1 and 0 (an `add` of a bool tensor, on torch), and the result was wrong.
    The mask's own logic (`any`, `|`, `~` on bool tensors) runs on torch, counted as nothing."""
    gen = torch.Generator().manual_seed(0)
    heads, kv_heads = (4, 2) if gqa else (2, 2)
    q, k, v = (torch.randn(2, h, 5, 8, generator=gen).to(DEVICE).requires_grad_() for h in (heads, kv_heads, kv_heads))
    mask = torch.rand(2, 1, 5, 5, generator=gen) > 0.4
    mask[1, 0, 2] = False  # (a query that attends to no key)
    mask = mask.to(DEVICE)
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"models_mask_{gqa}")

    def attention(q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=gqa)

    got = torch.compile(attention, backend=backend)(q, k, v)
    ref = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    want = attention(*ref)
    assert_matches("attention", got, want, atol=1e-5, rtol=1e-5)
    assert torch.all(got[1, :, 2] == 0)
    dy = torch.randn(got.shape, generator=gen).to(DEVICE)
    got.backward(dy)
    want.backward(dy)
    for n, a, b in zip("qkv", (q, k, v), ref, strict=True):
        assert_matches(f"attention: {n}.grad", a.grad, b.grad, atol=1e-5, rtol=1e-4)
    report = backend.report()
    assert report.ran("softmax", "forward") == 1 and report.ran("log", "forward") == 1, str(report)
    assert not _fallbacks(report), str(report)


def test_a_node_on_bool_or_integer_tensors_alone_is_no_fallback():
    """Logic on masks and indices (no float read or made) runs on torch and is no fallback; a
    node that reads a float tensor still is one."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="models_no_float")

    def f(x, m, i):
        keep = (m & (i > 2)).any(-1, keepdim=True)  # (bool and integer tensors only)
        return torch.relu(x) * keep.to(x.dtype), torch.lgamma(x.sigmoid())

    x = torch.randn(4, 3, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    m = (torch.arange(12).reshape(4, 3) % 2 == 0).to(DEVICE)
    i = torch.arange(12).reshape(4, 3).to(DEVICE)
    got = torch.compile(f, backend=backend)(x, m, i)
    for g, w in zip(got, f(x, m, i), strict=True):
        assert_matches("f", g, w)
    assert list(_fallbacks(backend.report())) == ["torch.lgamma"], str(backend.report())


@pytest.mark.parametrize("keepdim", [False, True])
def test_a_sum_over_a_middle_dimension_runs_on_a_sum_row(keepdim):
    """A sum over middle dimensions (an expansion's gradient: transformers' `repeat_kv` under an
    attention mask) is a sum over leading dimensions of its input permuted: it runs on
    SumColsForward (it ran on torch: neither sum row takes a middle dimension)."""
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"models_middle_sum_{keepdim}")
    x = torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    for dims in ([2], [1, 2]):
        torch._dynamo.reset()
        got = torch.compile(lambda t, d=dims: t.sum(d, keepdim=keepdim), backend=backend)(x)
        assert_matches(f"sum over {dims}", got, x.sum(dims, keepdim=keepdim), atol=1e-5, rtol=1e-5)
    report = backend.report()
    assert report.ran("sum_rows", "forward") == 2 and not _fallbacks(report), str(report)


def _bert():
    config = transformers.BertConfig(num_hidden_layers=1, hidden_size=32, intermediate_size=64, num_attention_heads=2,
                                     vocab_size=VOCAB, max_position_embeddings=16, hidden_dropout_prob=0.0,
                                     attention_probs_dropout_prob=0.0)
    assert config.hidden_act == "gelu" and config.pad_token_id == 0  # (the exact GELU; a padding row)
    return transformers.BertForMaskedLM(config)


def _opt():
    config = transformers.OPTConfig(num_hidden_layers=1, hidden_size=32, ffn_dim=64, num_attention_heads=2,
                                    vocab_size=VOCAB, max_position_embeddings=16, word_embed_proj_dim=32, dropout=0.0,
                                    attention_dropout=0.0)
    assert config.pad_token_id == 1
    return transformers.OPTForCausalLM(config)


@pytest.mark.parametrize("name, make, operations", [
    ("bert", _bert, ("gelu_erf", "embedding")),  # (the embedding's padding row gets no gradient)
    ("opt", _opt, ("cumsum", "embedding")),  # (positions from the mask's cumulative sum)
])
def test_models_no_one_wrote_rows_for_run_on_the_kernels(name, make, operations):
    """BERT (the exact GELU, a padding token's embedding row) and OPT (positions as a cumulative
    sum): a forward and backward under the backend match eager with every compute node on a
    kernel."""
    torch.manual_seed(0)
    eager = make().to(DEVICE).float()
    compiled_model = copy.deepcopy(eager)
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"models_more_{name}")
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1)).to(DEVICE)
    ids[0, :2] = eager.config.pad_token_id  # (padding tokens read: their row's gradient is zero)
    got = torch.compile(compiled_model, backend=backend)(input_ids=ids, labels=ids)
    want = eager(input_ids=ids, labels=ids)
    assert_matches(f"{name}: loss", got.loss, want.loss, atol=1e-5, rtol=1e-5)
    got.loss.backward()
    want.loss.backward()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        if q.grad is not None:
            assert_matches(f"{name}: {n}.grad", p.grad, q.grad, atol=1e-4, rtol=1e-3)
    report = backend.report()
    for operation in operations:
        assert report.ran(operation, "forward"), f"{name}: {operation}\n{report}"
    assert not _fallbacks(report), str(report)


FEATURE_TREE = TEENYGRAD_SRC


@pytest.mark.teenygrad
def test_qwen3_on_teenygrad_s_tree_runs_attention_and_rms_norm_on_their_kernels():
    """On teenygrad's feature-branch tree + kernels_rs (what benchmarks/models.py runs): the
    RMSNorm's forward on teenygrad's rmsnorm.rs, its backward on kernels_rs' (teenygrad's races on
    dweight), the causal attention on kernels_rs' flash_attention.rs; nothing on torch."""
    torch.manual_seed(0)
    eager = qwen3().to(DEVICE).float()
    compiled_model = copy.deepcopy(eager)
    backend = rs2triton.torch_backend([FEATURE_TREE, ROOT / "kernels_rs"], name="models_qwen3_feature")
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1)).to(DEVICE)
    got = torch.compile(compiled_model, backend=backend)(input_ids=ids, labels=ids)
    want = eager(input_ids=ids, labels=ids)
    assert_matches("qwen3: loss", got.loss, want.loss, atol=1e-5, rtol=1e-5)
    got.loss.backward()
    want.loss.backward()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        assert_matches(f"qwen3: {n}.grad", p.grad, q.grad, atol=1e-4, rtol=1e-3)
    report = backend.report()
    assert report.rows["rms_norm"].ran[("RmsNormForward", "forward")], str(report)
    assert report.rows["rms_norm_rows"].ran[("RmsNormRowsBackward", "backward")], str(report)
    assert report.rows["attention"].ran[("FlashAttentionForward", "forward")] == 1, str(report)
    assert report.ran("attention", "backward") == 1 and not _fallbacks(report), str(report)
