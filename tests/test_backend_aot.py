"""The backend through AOTAutograd: what torch decides (in-place updates, SymInt arithmetic,
autocast's casts, what the backward saves) stays torch's, and the ATen nodes run on the ops.

On the project's own kernels (kernels_rs/), under the interpreter; the kernels that ran are
counted by a spy on the launches.
"""

import pytest
import torch
import torch.nn as nn

import rs2triton
from rs2triton.runtime.torch_mapping import TABLE
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


@pytest.fixture(scope="module")
def strict():
    return rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_aot_strict", strict=True)


@pytest.fixture(scope="module")
def backend():
    return rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_aot_tests")


def _randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)).to(DEVICE)


class InPlace(nn.Module):
    """A ReLU(inplace=True) and a `y += 1` after teenygrad nodes (autograd's "Output 0 of
    NodeFunction is a view" before: the backend's own autograd.Function)."""

    def __init__(self):
        super().__init__()
        self.a, self.relu, self.b = nn.Linear(6, 8), nn.ReLU(inplace=True), nn.Linear(8, 3)

    def forward(self, x):
        y = self.a(x)
        y += 1
        y = self.relu(y)
        return torch.softmax(self.b(y), dim=-1)


def test_in_place_updates_after_a_node_train_as_in_eager_torch(strict, launches):
    torch.manual_seed(0)
    model, eager = InPlace(), InPlace()
    eager.load_state_dict(model.state_dict())
    strict.reset_report()
    compiled = torch.compile(model, backend="rs2triton_aot_strict")
    x = _randn(5, 6)
    got, want = compiled(x), eager(x)
    assert_matches("forward", got, want, atol=1e-6, rtol=1e-5)
    g = _randn(5, 3, seed=1)
    got.backward(g)
    want.backward(g)
    for p, q in zip(model.parameters(), eager.parameters(), strict=True):
        assert_matches("gradient", p.grad, q.grad, atol=1e-6, rtol=1e-5)
    report = strict.report()
    assert report.total_fallbacks == 0
    assert report.ran("relu", "forward") == 1 and report.ran("relu", "backward") == 1
    assert report.ran("add", "forward") == 1  # (the `+= 1`, functionalized)
    assert launches.count("ReluBackward") == 1 and launches.count("SoftmaxBackward") == 1


class Tokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        B, T, C = x.shape
        return torch.relu(self.proj(x.view(B * T, C))).view(B, T, C)


def test_symint_arithmetic_is_never_a_kernel(strict):
    """Under dynamic shapes `B * T` is SymInt arithmetic, torch's: strict accepts the graph,
    and no multiplication ran on a kernel."""
    torch._dynamo.reset()
    strict.reset_report()
    model = Tokens()
    compiled = torch.compile(model, backend="rs2triton_aot_strict", dynamic=True)
    for b in (2, 3, 5):
        x = _randn(b, 4, 8, seed=b).requires_grad_()
        out = compiled(x)
        out.sum().backward()
        assert_matches(f"B={b}", out, model(x), atol=1e-6, rtol=1e-5)
    report = strict.report()
    assert report.ran("mul") == 0 and report.total_fallbacks == 0
    assert report.ran("linear", "forward") == 3 and report.ran("relu", "backward") == 3


def test_autocast_gives_torch_dtypes(backend):
    """The casts autocast makes are in the ATen graph: the result's dtype is eager's."""
    torch._dynamo.reset()
    model = Tokens()
    x = _randn(2, 4, 8)
    backend.reset_report()
    with torch.autocast("cpu", dtype=torch.float16):
        got = torch.compile(model, backend="rs2triton_aot_tests")(x)
        want = model(x)
    assert got.dtype == want.dtype == torch.float16
    assert_matches("autocast", got.float(), want.float(), atol=2e-2, rtol=2e-2)
    assert backend.report().ran("linear", "forward") == 1 and backend.report().ran("relu", "forward") == 1


def test_saved_tensors_are_what_the_partitioner_keeps(backend):
    """The backward saves what AOTAutograd's partitioner decides, no more than eager torch (the
    backend's own autograd.Function saved every input, parameter and output: about 7x)."""
    torch._dynamo.reset()
    model = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
    compiled = torch.compile(model, backend="rs2triton_aot_tests")
    x = _randn(32, 10)

    def saved(fn) -> int:
        total = [0]

        def pack(t):
            total[0] += t.numel() * t.element_size()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            fn(x)
        return total[0]

    compiled(x)
    assert 0 < saved(compiled) <= saved(model)


@pytest.mark.parametrize("name", ["add", "sub", "div", "gelu"])
def test_functional_under_the_backend_with_grad(backend, name):
    """`functional.add/sub/div` (keyword-only `alpha`, `rounding_mode`) and `gelu` under
    torch.compile with a gradient (a TypeError about `keyword_only_inputs` before)."""
    torch._dynamo.reset()
    fn = getattr(backend.functional, name)
    x = (_randn(4, 5).abs() + 0.5).requires_grad_()
    y = (_randn(4, 5, seed=1).abs() + 0.5).requires_grad_()
    args = (x,) if name == "gelu" else (x, y)
    kwargs = {"approximate": "tanh"} if name == "gelu" else {}
    out = torch.compile(lambda *a: fn(*a, **kwargs), backend="rs2triton_aot_tests")(*args)
    ref = getattr(torch.nn.functional if name == "gelu" else torch, name)(*[a.detach().requires_grad_() for a in args],
                                                                          **kwargs)
    assert_matches(name, out, ref, atol=1e-5, rtol=1e-5)
    grads = torch.autograd.grad(out.sum(), args)
    ref_args = [a.detach().requires_grad_() for a in args]
    want = torch.autograd.grad(getattr(torch.nn.functional if name == "gelu" else torch, name)(*ref_args, **kwargs).sum(),
                               ref_args)
    for a, b in zip(grads, want, strict=True):
        assert_matches(f"{name}: grad", a, b, atol=1e-5, rtol=1e-5)


def test_a_backward_that_would_read_what_it_is_not_given_runs_on_torch(tmp_path):
    """`sigmoid_backward` is given the forward's output; kernels_rs' sigmoid backward reads the
    input (its pack_backward_args hands it to the kernel): on a tree without the gradient's own
    op (`SigmoidGradForward`), that gradient runs on torch, saying so, and is right; ReLU's
    backward reads the output only, and runs on its kernel."""
    text = (ROOT / "kernels_rs" / "elementwise.rs").read_text()
    own = "// The gradients of tanh and sigmoid from their output"
    assert own in text
    (tmp_path / "elementwise.rs").write_text(text[:text.index(own)])
    (tmp_path / "relu.rs").write_text((ROOT / "kernels_rs" / "relu.rs").read_text())
    backend = rs2triton.torch_backend(tmp_path, name="aot_without_grad_ops")
    torch._dynamo.reset()
    x = _randn(3, 7).requires_grad_()
    out = torch.compile(lambda t: torch.sigmoid(torch.relu(t)), backend=backend)(x)
    (g,) = torch.autograd.grad(out.sum(), x)
    ref = x.detach().requires_grad_()
    (want,) = torch.autograd.grad(torch.sigmoid(torch.relu(ref)).sum(), ref)
    assert_matches("grad", g, want, atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert report.fallbacks("sigmoid") == {
        "sigmoid: SigmoidForward's backward reads the forward's input, which the ATen operator is not given "
        "(its `pack_backward_args` hands it to the kernel); sigmoid_backward: the kernel tree has no "
        "SigmoidGradForward": 1}
    assert report.ran("sigmoid", "forward") == 1 and report.ran("relu", "backward") == 1


def test_a_gradient_given_the_output_runs_on_its_own_row(backend):
    """With kernels_rs' `SigmoidGradForward`, `sigmoid_backward` (refused by the sigmoid row, whose
    backward kernel reads the input) runs on the next row naming it: no fallback."""
    torch._dynamo.reset()
    backend.reset_report()
    x = _randn(3, 7).requires_grad_()
    out = torch.compile(lambda t: torch.sigmoid(torch.relu(t)), backend="rs2triton_aot_tests")(x)
    (g,) = torch.autograd.grad(out.sum(), x)
    ref = x.detach().requires_grad_()
    (want,) = torch.autograd.grad(torch.sigmoid(torch.relu(ref)).sum(), ref)
    assert_matches("grad", g, want, atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert not report.fallbacks("sigmoid") and not report.fallbacks("sigmoid_backward"), str(report)
    assert report.ran("sigmoid_backward", "backward") == 1 and report.ran("relu", "backward") == 1


def test_double_backward_is_torch_s_clear_error(backend):
    torch._dynamo.reset()
    x = _randn(4).requires_grad_()
    out = torch.compile(lambda t: torch.relu(t) * t, backend="rs2triton_aot_tests")(x)
    (g,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="double backward"):
        g.sum().backward()


def test_every_aten_operator_a_row_names_exists():
    from rs2triton.backend.aten import own_decompositions
    from rs2triton.backend.own_ops import define

    own_decompositions()  # (defines the backend's own operators)
    define()  # (and those of Dynamo's graph rewritten: layer norm, attention, RMS norm)
    for entry in TABLE:
        for aten in entry.aten:
            namespace, name, overload = aten.target.split(".")
            op = getattr(getattr(getattr(torch.ops, namespace), name), overload)
            arguments = {a.name for a in op._schema.arguments}
            named = {v for v in aten.args.values() if isinstance(v, str)} | set(aten.require)
            named |= {x for x in (aten.grad, aten.output, aten.mask) if x}
            assert named <= arguments, (aten.target, named - arguments)


# ---------------------------------------------------------------------- the generated wrapper


def test_a_shape_seen_before_runs_the_generated_wrapper(backend, launches, monkeypatch):
    """The second call with the same shapes is the graph's generated function: no host logic,
    no apply (its spy sees nothing), the kernels launched through the launcher (a spy on
    Configured.__getitem__ sees each), the result eager's, and the report counts both calls."""
    from rs2triton.runtime.launcher import Configured

    torch._dynamo.reset()
    grids: list[str] = []
    real = Configured.__getitem__

    def spy(self, grid):
        grids.append(self.launcher.name)
        return real(self, grid)

    monkeypatch.setattr(Configured, "__getitem__", spy)

    def f(x, y):
        return torch.softmax(torch.relu(x) * y + 1.0, dim=-1)

    compiled = torch.compile(f, backend="rs2triton_aot_tests")
    backend.reset_report()
    x, y = _randn(3, 7), _randn(3, 7, seed=1)
    with torch.no_grad():
        first = compiled(x, y)
        assert launches == ["ReluForward", "MulForward", "AddForward", "SoftmaxForward"]
        del launches[:], grids[:]
        x2 = _randn(3, 7, seed=2)
        second = compiled(x2, y)
    assert launches == [] and grids == ["ReluForward", "MulForward", "AddForward", "SoftmaxForward"]
    assert_matches("first", first, f(x, y), atol=1e-6, rtol=1e-5)
    assert_matches("second", second, f(x2, y), atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert [report.ran(n, "forward") for n in ("relu", "mul", "add", "softmax")] == [2, 2, 2, 2], str(report)
    assert "`other` = 1.0 made a tensor on torch" in str(report)


def test_the_generated_wrapper_takes_strided_and_broadcast_inputs(backend):
    torch._dynamo.reset()

    def f(x, b):
        return torch.tanh(x + b)  # b: [7], broadcast

    compiled = torch.compile(f, backend="rs2triton_aot_tests", dynamic=False)
    b = _randn(7, seed=1)
    with torch.no_grad():
        for seed in range(3):
            x = _randn(7, 3, seed=seed).t()  # not contiguous
            assert_matches(f"call {seed}", compiled(x, b), f(x, b), atol=1e-6, rtol=1e-5)


# ---------------------------------------------------------------------- the PyTorch user's contract


def test_a_dtype_the_kernels_generics_do_not_take_runs_on_torch(backend):
    """kernels_rs' ReLU and AddForward take D: Float: an int or a bool tensor runs on torch (it
    raised a TypeError), and the report names the kernel and the dtypes it takes; where a row's
    next op takes the dtype (kernels_rs' VectorAdd takes int32), the call runs on that one."""
    torch._dynamo.reset()
    backend.reset_report()
    i = torch.arange(-3, 5, dtype=torch.int32).to(DEVICE)
    b = (i > 0)
    got = torch.compile(lambda t, m: (torch.relu(t) + t, torch.maximum(m, m)), backend="rs2triton_aot_tests")(i, b)
    assert torch.equal(got[0], torch.relu(i) + i) and torch.equal(got[1], b)
    report = backend.report()
    assert report.fallbacks("relu") == {"ReluForward takes D = f32, f64, f16, bf16; the tensors are int32": 1}, \
        str(report)
    assert not report.fallbacks("add") and report.rows["add"].calls("VectorAdd", "forward") == 1, str(report)
    assert "the tensors are bool" in next(iter(report.fallbacks("maximum")))


@pytest.mark.skipif(DEVICE != "cpu", reason="the rule is the CPU interpreter's: a GPU computes bf16 and f64 right")
def test_dtypes_the_interpreter_computes_wrong_run_on_torch_with_the_reason(backend):
    """On Triton's interpreter a bf16 node (any kernel) and an f64 one whose kernel uses `tl.dot`
    (linear) run on torch, with runtime.values.interpreter_dtype_problem's reason: they gave wrong
    numbers (relu returned its input, the f64 matmul ~1e296). f64 elementwise stays on its kernel."""
    import torch.nn.functional as F

    torch._dynamo.reset()
    backend.reset_report()
    x = torch.randn(4, 8, dtype=torch.bfloat16)
    got = torch.compile(lambda t: torch.relu(t) * 2, backend="rs2triton_aot_tests")(x)
    torch.testing.assert_close(got, torch.relu(x) * 2)
    w, x64 = torch.randn(3, 8, dtype=torch.float64), torch.randn(4, 8, dtype=torch.float64)
    got = torch.compile(lambda t: torch.relu(F.linear(t, w)), backend="rs2triton_aot_tests")(x64)
    torch.testing.assert_close(got, torch.relu(F.linear(x64, w)))
    report = backend.report()
    (why,) = report.fallbacks("relu")
    assert "cannot run ReluForward in torch.bfloat16" in why and "run it on a GPU" in why, str(report)
    assert any("cannot run LinearForward in torch.float64" in w for r in ("linear", "addmm", "mm")
               for w in report.fallbacks(r)), str(report)
    assert report.ran("relu", "forward") == 1, str(report)  # the f64 relu: its kernel has no dot


def test_a_channels_last_output_keeps_its_memory_format(backend):
    torch._dynamo.reset()
    backend.reset_report()
    conv = torch.nn.Conv2d(3, 4, 3, padding=1).to(DEVICE).to(memory_format=torch.channels_last)
    x = _randn(2, 3, 6, 5).contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        got = torch.compile(lambda t: torch.relu(conv(t)), backend="rs2triton_aot_tests")(x)
        want = torch.relu(conv(x))
    assert want.is_contiguous(memory_format=torch.channels_last)
    assert got.stride() == want.stride()
    assert_matches("conv + relu", got, want, atol=1e-5, rtol=1e-5)
    assert backend.report().ran("conv2d") == 1 and backend.report().ran("relu") == 1


def test_graph_breaks_show_in_the_report(backend):
    """An LSTM never reaches the backend (Dynamo does not trace it): the report says why,
    rather than being empty."""
    torch._dynamo.reset()
    backend.reset_report()
    lstm = nn.LSTM(4, 8).to(DEVICE)
    x = _randn(3, 2, 4)
    with torch.no_grad():
        out, _ = torch.compile(lstm, backend="rs2triton_aot_tests")(x)
        assert_matches("lstm", out, lstm(x)[0], atol=1e-6, rtol=1e-5)
    report = backend.report()
    assert report.graph_breaks == {"Attempted to wrap RNN, GRU, or LSTM": 1}
    assert "graph breaks (Dynamo ran this code on Python" in str(report)
    assert "1 x Attempted to wrap RNN, GRU, or LSTM" in str(report)
    backend.reset_report()
    assert backend.report().graph_breaks == {}


def test_nan_and_inf_follow_torch(backend):
    """kernels_rs' maximum and minimum take Triton's maximum, which drops NaN (as Rust's f32::max
    does): the NaN torch keeps is put back, noted in the report, in the node-by-node call and in
    the generated wrapper alike; kernels_rs' ReLU keeps NaN itself (`x < 0` is false for it), so
    nothing is put back there; infinities are the kernels' own."""
    torch._dynamo.reset()
    backend.reset_report()
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([nan, -1.0, 2.0, inf, -inf, nan]).to(DEVICE)
    y = torch.tensor([1.0, nan, 0.0, 1.0, 1.0, nan]).to(DEVICE)

    def f(a, b):
        return torch.relu(a), torch.maximum(a, b), torch.minimum(a, b), torch.exp(a) + b

    compiled = torch.compile(f, backend="rs2triton_aot_tests")
    with torch.no_grad():
        for call in range(2):  # (the second: the generated wrapper)
            for got, want in zip(compiled(x, y), f(x, y), strict=True):
                torch.testing.assert_close(got, want, equal_nan=True, msg=f"call {call}")
    report = backend.report()
    assert report.ran("relu") == 2 and report.total_fallbacks == 0
    assert "NaN put back on torch where an input has one (MaximumForward takes a maximum" in str(report)
    assert all("NaN put back" not in "".join(report.rows[op].notes) for op in ("exp", "relu"))


def test_the_generated_wrapper_writes_an_infinity_as_a_constant(backend):
    """A node's argument with no Python literal (-inf, in a masked fill) is a constant of the
    generated source, not `-inf` (a NameError at the second call)."""
    torch._dynamo.reset()

    def f(x):
        return torch.softmax(x.masked_fill(x > 1, float("-inf")), dim=-1) + 1

    compiled = torch.compile(f, backend="rs2triton_aot_tests")
    x = _randn(3, 5)
    with torch.no_grad():
        for call in range(2):
            assert_matches(f"call {call}", compiled(x), f(x), atol=1e-6, rtol=1e-5)


def test_a_node_that_runs_on_torch_is_torch_s_operator_in_the_generated_wrapper(backend, monkeypatch):
    """A node no row maps (lgamma) and one whose plan runs on torch (a floor division) are, from
    the second call with a shape set, torch's operators called directly (no node's plan is
    consulted again), and the report counts each call's fallbacks."""
    from rs2triton.backend import aten

    torch._dynamo.reset()
    backend.reset_report()

    def f(x):
        return torch.div(x, 3.0, rounding_mode="floor") + torch.sigmoid(x).lgamma() + torch.relu(x)

    compiled = torch.compile(f, backend="rs2triton_aot_tests")
    x = _randn(4, 6)
    runs = []
    real = aten._NodeRun.__call__

    def spy(self, *args, **kwargs):
        runs.append(self.node_name)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(aten._NodeRun, "__call__", spy)
    with torch.no_grad():
        compiled(x)
        assert sorted(runs) == ["add", "add_1", "div", "relu", "sigmoid"]
        del runs[:]
        assert_matches("second call", compiled(x), f(x), atol=1e-6, rtol=1e-5)
    assert runs == []
    report = backend.report()
    assert sum(report.fallbacks("div").values()) == 2 and sum(report.fallbacks("Tensor.lgamma").values()) == 2
    assert report.ran("relu") == 2 and report.ran("add") == 4


def test_training_with_one_shape_runs_the_generated_functions_as_eager_torch(strict, launches, monkeypatch):
    """Fixed shapes: from the second step the forward and backward graphs are their generated
    functions (apply's launch path is left after the first step: its spy sees one step), the
    losses and parameters stay eager's, and the kernels keep running (a spy on the launchers
    sees every step)."""
    from rs2triton.runtime.launcher import Configured

    grids: list[str] = []
    real = Configured.__getitem__

    def spy(self, grid):
        grids.append(self.launcher.name)
        return real(self, grid)

    monkeypatch.setattr(Configured, "__getitem__", spy)
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=-1))
    eager = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=-1))
    eager.load_state_dict(model.state_dict())
    compiled = torch.compile(model, backend="rs2triton_aot_strict")
    opt, opt_eager = torch.optim.SGD(model.parameters(), lr=0.1), torch.optim.SGD(eager.parameters(), lr=0.1)
    strict.reset_report()
    x = _randn(5, 6)
    for step in range(4):
        losses = []
        for m, o in ((compiled, opt), (eager, opt_eager)):
            o.zero_grad()
            loss = m(x).square().mean()
            loss.backward()
            o.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5, abs=1e-7), step
    for p, q in zip(model.parameters(), eager.parameters(), strict=True):
        assert_matches("parameter after 4 steps", p.detach(), q.detach(), atol=1e-6, rtol=1e-5)
    report = strict.report()
    assert report.total_fallbacks == 0
    assert report.ran("linear", "forward") == 8 and report.ran("relu", "backward") == 4
    assert report.ran("softmax", "backward") == 4
    assert launches.count("ReluBackward") == 1 and launches.count("SoftmaxBackward") == 1
    assert grids.count("ReluBackward") == 4 and grids.count("SoftmaxBackward") == 4 and grids.count("ReluForward") == 4


GRADIENTS = {
    "gelu": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
    "mish": torch.nn.functional.mish,
    "softplus": lambda t: torch.nn.functional.softplus(t, beta=2.0),
    "log_softmax": lambda t: torch.log_softmax(t, dim=-1),
    "max_pool2d": lambda t: torch.nn.functional.max_pool2d(t.view(2, 3, 4, 5), 2, stride=1, padding=1),
    "avg_pool2d": lambda t: torch.nn.functional.avg_pool2d(t.view(2, 3, 4, 5), 3, stride=2, padding=1),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_nodes_in_the_generated_function_match_torch(backend, name):
    """Each gradient operator a row maps, called three times with one shape (the second and
    third: the backward graph's generated function), against eager torch."""
    torch._dynamo.reset()
    backend.reset_report()
    f = GRADIENTS[name]
    compiled = torch.compile(f, backend="rs2triton_aot_tests")
    for call in range(3):
        x = _randn(6, 20, seed=call).requires_grad_()
        g = _randn(*f(x).shape, seed=10 + call)
        (got,) = torch.autograd.grad(compiled(x), x, g)
        ref = x.detach().requires_grad_()
        (want,) = torch.autograd.grad(f(ref), ref, g)
        assert_matches(f"{name}, call {call}", got, want, atol=1e-5, rtol=1e-5)
    assert backend.report().ran(name, "backward") >= 3, str(backend.report())


def test_an_unmapped_python_operator_is_named_as_python_names_it(backend):
    torch._dynamo.reset()
    backend.reset_report()
    a, b = _randn(2, 3, 4), _randn(2, 3, 4, seed=1).abs() + 0.5  # (a remainder, which no row maps)
    with torch.no_grad():
        assert_matches("a % b", torch.compile(lambda x, y: x % y, backend="rs2triton_aot_tests")(a, b), a % b)
    assert backend.report().fallbacks("operator.mod") == {"no teenygrad op implements it (no row of the mapping)": 1}
