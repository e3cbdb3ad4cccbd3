"""Compiled optimizer steps on the optimizer kernels (issue 33: ``torch.compile(opt.step)``):
each parameter's update runs one launch of adam_step / adamw_step / sgd_*_step
(``rs2triton/backend/optim.py``, the rows in ``optim_rows.py``), and the parameters and the
optimizer's state match eager ``opt.step()`` over several steps; an update no kernel computes
(amsgrad, maximize) runs on torch, with why in the report, and still matches. On the project's
own kernels (kernels_rs/optim.rs, teenygrad's signatures) and, where it is exported, on
teenygrad's feature-branch tree."""

from __future__ import annotations

import copy

import pytest
import torch

import rs2triton
from rs2triton.backend.optim import OPERATION
from tests.conftest import DEVICE, ROOT, TEENYGRAD_SRC
from tests.numerics import assert_matches

STEPS = 3
FEATURE_TREE = TEENYGRAD_SRC


def mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3)).to(DEVICE)


def train(make, optimizer, kwargs: dict, backend, inputs, *, same_grads: bool = False) -> tuple[torch.nn.Module, torch.optim.Optimizer]:
    """``STEPS`` steps of ``optimizer`` on a copy of the model compiled by ``backend`` and on one run
    eagerly, compared after each: the parameters and every state tensor (the step count too).
    ``same_grads``: the copy is given the eager model's gradients (a gradient that is rounding
    noise, as that of GPT-2's key bias, differs at the next step once the parameters differ by
    a rounding, and Adam makes noise a step of lr)."""
    torch._dynamo.reset()  # (a recompiled step makes its changed floats inputs: a test of its own below)
    eager_model = make()
    model = copy.deepcopy(eager_model)
    eager = optimizer(eager_model.parameters(), **kwargs)
    compiled = optimizer(model.parameters(), **kwargs)
    step = torch.compile(compiled.step, backend=backend)
    for i in range(STEPS):
        for m in (model, eager_model):
            m.zero_grad()
            loss = inputs(m)
            loss.backward()
        if same_grads:
            for p, q in zip(model.parameters(), eager_model.parameters(), strict=True):
                p.grad.copy_(q.grad)
        step()
        eager.step()
        for (name, p), q in zip(model.named_parameters(), eager_model.parameters(), strict=True):
            assert_matches(f"step {i}: {name}", p, q, atol=1e-6, rtol=1e-5)
            state, want = compiled.state[p], eager.state[q]
            assert sorted(state) == sorted(want)
            for key, value in want.items():
                assert_matches(f"step {i}: {name}'s {key}", state[key], value, atol=1e-6, rtol=1e-5)
    return model, compiled


def mlp_loss(m: torch.nn.Module) -> torch.Tensor:
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(len(list(m.parameters())))).to(DEVICE)
    return (m(x) ** 2).mean()


@pytest.fixture(scope="module")
def backend():
    return rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_optim")


CASES = [  # (optimizer, its options, the kernels the updates ran on)
    (torch.optim.Adam, {"lr": 0.01, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}, {"adam_step"}),
    (torch.optim.AdamW, {"lr": 0.02, "weight_decay": 0.05}, {"adamw_step"}),
    (torch.optim.SGD, {"lr": 0.1}, {"sgd_step"}),
    (torch.optim.SGD, {"lr": 0.1, "weight_decay": 0.01}, {"sgd_step"}),
    # (torch makes a momentum buffer at the first step, the gradient itself: that step's update is
    # plain SGD's; the next ones run on the momentum kernels)
    (torch.optim.SGD, {"lr": 0.1, "momentum": 0.9, "dampening": 0.25}, {"sgd_step", "sgd_momentum_step"}),
    (torch.optim.SGD, {"lr": 0.1, "momentum": 0.8, "nesterov": True, "weight_decay": 0.01},
     {"sgd_step", "sgd_nesterov_step"}),
    (torch.optim.Adam, {"lr": 0.01, "foreach": True}, {"adam_step"}),  # (torch's for-each graph, as on a GPU)
    (torch.optim.Adam, {"lr": torch.tensor(0.01), "foreach": False}, {"adam_step"}),  # (an input of the graph)
]


@pytest.mark.parametrize("optimizer, kwargs, kernels", CASES,
                         ids=[f"{o.__name__}-{'-'.join(map(str, k))}" for o, k, _ in CASES])
def test_a_compiled_step_runs_on_the_optimizer_kernels_as_eager(backend, optimizer, kwargs, kernels):
    backend.reset_report()
    model, _ = train(mlp, optimizer, kwargs, backend, mlp_loss)
    report = backend.report()
    n = len(list(model.parameters()))
    assert report.ran(OPERATION) == n * STEPS, str(report)  # one launch per parameter and step
    assert set(report.rows[OPERATION].structs) == kernels, str(report)
    assert not report.fallbacks(OPERATION), str(report)
    assert sorted(report.rows[OPERATION].notes) == [f"{k} of {ROOT / 'kernels_rs' / 'optim.rs'}" for k in sorted(kernels)]


@pytest.mark.parametrize("kwargs, why", [
    ({"amsgrad": True}, "no optimizer kernel keeps its state (3 tensor(s)"),
    # (the inputs of Adam's kernels, a formula of neither: found by the confirmation on random inputs)
    ({"maximize": True}, "has the inputs of adam_step and adamw_step but computes another formula"),
])
def test_an_update_no_kernel_computes_runs_on_torch_with_why(backend, kwargs, why):
    backend.reset_report()
    model, _ = train(mlp, torch.optim.Adam, {"lr": 0.01, **kwargs}, backend, mlp_loss)
    report = backend.report()
    assert report.ran(OPERATION) == 0, str(report)
    reasons = report.fallbacks(OPERATION)
    assert sum(reasons.values()) == len(list(model.parameters())) * STEPS, str(report)
    assert all(why in r for r in reasons), str(report)


def test_a_float64_parameter_runs_on_torch_with_why(backend):
    """The kernels take f32: a float64 model's update (SGD's maths, confirmed) runs on torch."""
    backend.reset_report()
    train(lambda: mlp().double(), torch.optim.SGD, {"lr": 0.1}, backend, lambda m: mlp_loss_double(m))
    report = backend.report()
    assert report.ran(OPERATION) == 0
    assert all("sgd_step takes float32 tensors" in r for r in report.fallbacks(OPERATION)), str(report)


def mlp_loss_double(m: torch.nn.Module) -> torch.Tensor:
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(1), dtype=torch.float64).to(DEVICE)
    return (m(x) ** 2).mean()


@pytest.mark.teenygrad
def test_teenygrads_own_optimizer_kernels_run_the_step():
    """teenygrad's nn/optim kernels (first in the trees) take the updates."""
    backend = rs2triton.torch_backend([FEATURE_TREE, ROOT / "kernels_rs"], name="rs2triton_tests_optim_feature")
    train(mlp, torch.optim.AdamW, {"lr": 0.01, "weight_decay": 0.1}, backend, mlp_loss)
    report = backend.report()
    assert report.rows[OPERATION].structs == ["adamw_step"] and report.ran(OPERATION) == 4 * STEPS, str(report)
    assert list(report.rows[OPERATION].notes) == [f"adamw_step of {FEATURE_TREE / 'nn' / 'optim' / 'adam.rs'}"]


@pytest.mark.parametrize("confirmed", [True, False])
def test_a_scheduled_lr_an_input_of_the_recompiled_step_runs_on_the_kernels(monkeypatch, confirmed):
    """A changed lr recompiles the step with the lr an input of the graph (Dynamo's dynamic
    floats): the hyperparameters are read again for each lr (an lr of 0 too), and confirmed.
    ``confirmed=False``: no set of values is confirmed (as if the graph computed another formula
    for them): those steps run on torch, as the graph computes them, and still match."""
    from rs2triton.backend import optim

    if not confirmed:
        monkeypatch.setattr(optim._Dynamic, "_read", lambda self, unit, values: {})
    torch._dynamo.reset()
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_optim_lr")
    factors = [1.0, 0.5, 0.0, 0.2]
    eager_model = mlp()
    model = copy.deepcopy(eager_model)
    runs = []
    for m in (model, eager_model):
        opt = torch.optim.Adam(m.parameters(), lr=0.01, weight_decay=0.01)
        runs.append((m, opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda i: factors[min(i, len(factors) - 1)])))
    step = torch.compile(runs[0][1].step, backend=backend)
    for i in range(len(factors)):
        for m, _, _ in runs:
            m.zero_grad()
            mlp_loss(m).backward()
        step()
        runs[1][1].step()
        for _, _, schedule in runs:
            schedule.step()
        for (name, p), q in zip(model.named_parameters(), eager_model.parameters(), strict=True):
            assert_matches(f"step {i}: {name}", p, q, atol=1e-6, rtol=1e-5)
            for key, value in runs[1][1].state[q].items():
                assert_matches(f"step {i}: {name}'s {key}", runs[0][1].state[p][key], value, atol=1e-6, rtol=1e-5)
    report = backend.report()
    # (the first step's graph has lr a constant; the recompiled one, for the three steps after, an input)
    assert report.ran(OPERATION) == 4 * (4 if confirmed else 1), str(report)
    fallbacks = {} if confirmed else {"the update given these hyperparameters is not the kernel's formula": 4 * 3}
    assert report.fallbacks(OPERATION) == fallbacks, str(report)


def test_a_gpt2_trains_with_a_compiled_adamw_step_as_eager(backend):
    """The 1-layer GPT-2 of tests/test_models.py (run eagerly) stepped by a compiled AdamW: every
    parameter's update on adamw_step (the embeddings' too; GPT-2 ties its output to them)."""
    pytest.importorskip("transformers")
    from tests.test_models import BATCH, SEQ, VOCAB, gpt2

    ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=torch.Generator().manual_seed(1)).to(DEVICE)

    def make() -> torch.nn.Module:
        torch.manual_seed(0)
        return gpt2().to(DEVICE).float()

    backend.reset_report()
    model, _ = train(make, torch.optim.AdamW, {"lr": 1e-3, "weight_decay": 0.01}, backend,
                     lambda m: m(input_ids=ids, labels=ids).loss, same_grads=True)
    report = backend.report()
    assert report.ran(OPERATION) == len(list(model.parameters())) * STEPS, str(report)
    assert report.rows[OPERATION].structs == ["adamw_step"] and not report.fallbacks(OPERATION), str(report)


def test_strict_mode_refuses_an_update_on_torch():
    torch._dynamo.reset()
    strict = rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_optim_strict", strict=True)
    model = mlp()
    opt = torch.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    mlp_loss(model).backward()
    with pytest.raises(Exception, match=r"\(optimizer step of a parameter\) would run on torch: no optimizer kernel"):
        torch.compile(opt.step, backend=strict)()


def test_the_optimizer_kernels_compile_for_sm90_and_gfx942():
    """kernels_rs/optim.rs (teenygrad's nn/optim signatures): each kernel the rows launch compiles
    for the GPU targets, as the interpreter tests above check its numbers."""
    from tests.compile_helper import compile_in_subprocess

    kernels = ("adam_step", "adamw_step", "sgd_step", "sgd_momentum_step", "sgd_nesterov_step")
    reqs = [{"file": "kernels_rs/optim.rs", "kernel": k, "target": t, "dtypes": {}, "consts": {"BLOCK_SIZE": 1024}}
            for k in kernels for t in ("cuda:90", "hip:gfx942")]
    results = compile_in_subprocess(reqs)
    failures = [f"{r['kernel']} {r['target']}: {r.get('error')}" for r in results if not r["ok"]]
    assert not failures, "\n".join(failures)
    assert len(results) == len(reqs) and all(r["entry"] for r in results)
