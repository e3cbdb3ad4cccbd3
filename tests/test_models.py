"""Whole models on the backend (issue 33 part 3): a 1-layer GPT-2 and a tiny Qwen3, built from
transformers configs (nothing downloaded), forward and one training step (the loss's backward
and an optimizer step) under torch.compile on the project's own kernels (kernels_rs/), against
the same model run eagerly; every compute node of their graphs runs on a kernel (``ON_TORCH`` would list
any that may not, each with its reason: none does).

The same run on teenygrad's feature-branch tree (with kernels_rs for what it lacks) is
``benchmarks/models.py``.
"""

import copy

import pytest
import torch

import rs2triton
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

transformers = pytest.importorskip("transformers")

BATCH, SEQ, VOCAB = 2, 8, 64

# The nodes that run on torch, by model, with why (the report's reasons must be these alone):
ON_TORCH: dict[str, dict[str, str]] = {"gpt2": {}, "qwen3": {}}


def gpt2():
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=VOCAB, n_positions=16,
                                     activation_function="gelu_pytorch_tanh", resid_pdrop=0.0, embd_pdrop=0.0,
                                     attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    return transformers.GPT2LMHeadModel(config)


def qwen3():
    config = transformers.Qwen3Config(num_hidden_layers=1, hidden_size=32, intermediate_size=64,
                                      num_attention_heads=2, num_key_value_heads=1, head_dim=16,
                                      vocab_size=VOCAB, max_position_embeddings=16, tie_word_embeddings=False)
    return transformers.Qwen3ForCausalLM(config)


@pytest.mark.parametrize("name, make", [("gpt2", gpt2), ("qwen3", qwen3)])
def test_model_trains_on_the_kernels_as_eager(name, make):
    torch.manual_seed(0)
    eager = make().to(DEVICE).float()
    compiled_model = copy.deepcopy(eager)
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name=f"models_{name}")
    compiled = torch.compile(compiled_model, backend=backend)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1)).to(DEVICE)

    optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, compiled_model)]
    got = compiled(input_ids=ids, labels=ids)
    want = eager(input_ids=ids, labels=ids)
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
    got, want = compiled(input_ids=ids, labels=ids), eager(input_ids=ids, labels=ids)
    assert_matches(f"{name}: loss after a step", got.loss, want.loss, atol=1e-5, rtol=1e-5)
    got.loss.backward()
    want.loss.backward()
    for (n, p), q in zip(compiled_model.named_parameters(), eager.parameters(), strict=True):
        assert_matches(f"{name}: {n}.grad at the second step", p.grad, q.grad, atol=1e-4, rtol=1e-3)

    report = backend.report()
    if name == "qwen3":  # (SiluForward's backward kernel reads its output: the forward is run again for it)
        assert report.ran("silu", "backward") == 2 and any("forward run again" in n for n in report.rows["silu"].notes)
    for operation in ("embedding", "bmm", "layer_norm" if name == "gpt2" else "rsqrt", "log_softmax", "nll_loss"):
        assert report.ran(operation, "forward") and report.ran(operation, "backward") or operation == "rsqrt", \
            f"{name}: {operation}\n{report}"
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
