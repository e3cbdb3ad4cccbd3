"""`mode="reduce-overhead"`: each graph's generated wrapper recorded in CUDA graphs by torch's own
CUDA-graph trees (rs2triton/backend/cudagraphs.py), or run as it is with the reason in the report."""

import pytest
import torch

import rs2triton
from rs2triton.backend import cudagraphs
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


def _mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4)).to(DEVICE)


def _train(model: torch.nn.Module, run, steps: int = 3) -> list[torch.Tensor]:
    torch.manual_seed(1)
    xs = [torch.randn(5, 8, device=DEVICE) for _ in range(steps)]
    losses = []
    for x in xs:
        loss = run(x).square().mean()
        loss.backward()
        losses.append(loss.detach().clone())
    return losses + [p.grad.clone() for p in model.parameters()]


def _backend(name: str):
    torch._dynamo.reset()
    return rs2triton.torch_backend(ROOT / "kernels_rs", name=name)


def test_without_cuda_the_mode_runs_the_graphs_as_they_are_and_says_why():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: tests/test_backend_cudagraphs.py::test_on_cuda covers it")
    backend = _backend("rs2triton_cg_cpu")
    eager, compiled = _mlp(), _mlp()
    want = _train(eager, eager)
    got = _train(compiled, torch.compile(compiled, backend="rs2triton_cg_cpu", mode="reduce-overhead"))
    for a, b in zip(got, want, strict=True):
        assert_matches("reduce-overhead without CUDA", a, b)
    report = backend.report()
    assert report.cuda_graphs == {"not recorded: CUDA is not available on this machine": 1}
    assert "not recorded: CUDA is not available on this machine" in str(report)
    assert report.ran("linear") and not report.total_fallbacks


def test_the_wrappers_are_what_the_trees_record_with_the_parameters_static(monkeypatch):
    """With CUDA-graph trees stood in for (this machine has no GPU), the forward and the backward
    wrappers are handed to them with the right flags; the inputs held static are exactly the
    parameters (the activations are copied in each call); the numbers are still eager's."""
    calls = []
    parts, missing = cudagraphs._torch_parts()
    assert missing is None, missing  # (the names used exist in this torch)

    def record(model, inputs, static, **kw):
        calls.append((list(static), list(inputs), kw))

        entry = calls[-1]

        def replay(new_inputs):
            entry[2]["replays"] = entry[2].get("replays", 0) + 1
            entry[1][:] = list(new_inputs)  # (the real tensors of the last call)
            return model(new_inputs)

        return replay

    fake = dict(parts, cudagraphify_impl=record, check_for_skip=lambda g, fixed: None,
                device_index=lambda g: 0)
    monkeypatch.setattr(cudagraphs, "_torch_parts", lambda: (fake, None))
    monkeypatch.setattr(cudagraphs, "_cuda_available", lambda: True)
    backend = _backend("rs2triton_cg_fake")
    eager, compiled = _mlp(), _mlp()
    want = _train(eager, eager)
    got = _train(compiled, torch.compile(compiled, backend="rs2triton_cg_fake", mode="reduce-overhead"))
    for a, b in zip(got, want, strict=True):
        assert_matches("reduce-overhead, trees stood in for", a, b)
    assert [kw["is_backward"] for _, _, kw in calls] == [False, True]
    (static, inputs, forward), (_, _, backward) = calls
    params = {p.data_ptr() for p in compiled.parameters()}
    assert static and {inputs[i].data_ptr() for i in static} == params
    assert all(inputs[i].data_ptr() not in params for i in range(len(inputs)) if i not in static)
    assert forward["replays"] == 3 and backward["replays"] == 3 and forward["device_index"] == 0
    assert backend.report().cuda_graphs == {"forward recorded": 1, "backward recorded": 1}


def test_a_graph_torch_would_not_record_runs_as_it_is_and_its_backward_too(monkeypatch):
    parts, _ = cudagraphs._torch_parts()
    recorded = []
    fake = dict(parts, cudagraphify_impl=lambda *a, **k: recorded.append(a) or a[0],
                check_for_skip=lambda g, fixed: "skipping cudagraphs due to mutated inputs (1 instances)\nstack",
                device_index=lambda g: 0, get_manager=lambda *a, **k: None)
    monkeypatch.setattr(cudagraphs, "_torch_parts", lambda: (fake, None))
    monkeypatch.setattr(cudagraphs, "_cuda_available", lambda: True)
    backend = _backend("rs2triton_cg_skip")
    eager, compiled = _mlp(), _mlp()
    want = _train(eager, eager, steps=1)
    got = _train(compiled, torch.compile(compiled, backend="rs2triton_cg_skip", mode="reduce-overhead"), steps=1)
    for a, b in zip(got, want, strict=True):
        assert_matches("a graph not recorded", a, b)
    assert not recorded
    assert backend.report().cuda_graphs == {"not recorded: skipping cudagraphs due to mutated inputs (1 instances)": 1}


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (CUDA graphs)")
def test_on_cuda():
    """On a GPU: a model trained under mode="reduce-overhead" matches eager, its forward and
    backward recorded in CUDA graphs and replayed."""
    backend = _backend("rs2triton_cg_cuda")
    eager, compiled = _mlp(), _mlp()
    want = _train(eager, eager, steps=4)
    got = _train(compiled, torch.compile(compiled, backend="rs2triton_cg_cuda", mode="reduce-overhead"), steps=4)
    for a, b in zip(got, want, strict=True):
        assert_matches("reduce-overhead on CUDA", a, b)
    report = backend.report()
    assert report.cuda_graphs == {"forward recorded": 1, "backward recorded": 1}, str(report)
    assert report.ran("linear") and not report.total_fallbacks
