"""The teenygrad torch.compile backend on the project's own kernels (kernels_rs/), under the interpreter.

Op by op, like PyTorch's OpInfo tests: every row of the mapping against eager torch over
several shapes (1, odd, non-power-of-two, 3-d, non-contiguous, broadcast), f32 and f16, forward
and, where the op has a backward, backward — and the kernels that ran are counted by a spy on
the launches, not only by the backend's own report. Then whole models: compiled, trained with
Adam, under ``strict=True``.
"""

import logging
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import rs2triton
from rs2triton.backend.compiler import StrictFallback, register
from rs2triton.backend.plan import _reference
from rs2triton.runtime.torch_mapping import TABLE
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

NAME = "rs2triton_tests"


@pytest.fixture(scope="module")
def backend():
    return rs2triton.torch_backend(ROOT / "kernels_rs", name=NAME)


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


def _randn(shape, dtype, contiguous=True, seed=0):
    if contiguous or len(shape) < 2:
        return torch.randn(shape, generator=_gen(seed)).to(dtype).to(DEVICE)
    t = torch.randn(tuple(reversed(shape)), generator=_gen(seed)).to(dtype).to(DEVICE)
    return t.permute(*reversed(range(len(shape))))  # the same shape, not contiguous


POSITIVE = {"log", "sqrt", "rsqrt"}


def sample(name, shape, dtype, contiguous):
    """(args, kwargs) of one call of the operation ``name`` on a tensor of ``shape``."""
    if name == "conv2d":
        return _conv_sample(shape, dtype, contiguous)
    if name in ("max_pool2d", "avg_pool2d"):
        x_shape, kwargs = POOLS[shape]
        return (_randn(x_shape, dtype, contiguous),), kwargs
    x = _randn(shape, dtype, contiguous)
    if name in POSITIVE:
        x = x.abs() + 0.1
    if name == "reciprocal":
        x = torch.where(x >= 0, x + 0.5, x - 0.5)
    if name in ("add", "sub", "mul", "div", "maximum", "minimum"):
        y = _randn(shape, dtype, contiguous, seed=1)
        if name == "div":
            y = torch.where(y >= 0, y + 0.5, y - 0.5)
        return (x, y), {}
    if name in ("tanh_backward", "sigmoid_backward"):  # (a gradient, and the output it is of)
        return (_randn(shape, dtype, contiguous, seed=1), x.tanh() if name == "tanh_backward" else x.sigmoid()), {}
    if name == "gelu":
        return (x,), {"approximate": "tanh"}
    if name == "gelu_erf":
        return (x,), {}
    if name in ("softmax", "log_softmax", "cumsum"):
        return (x,), {"dim": -1}
    if name == "softplus":
        return (x,), {"beta": 2.0}
    if name in ("elu", "celu"):
        return (x,), {"alpha": 0.7}
    if name == "layer_norm":
        n = shape[-1]
        return (x, [n], _randn((n,), dtype, seed=2), _randn((n,), dtype, seed=3)), {}
    if name == "linear":
        return (x, _randn((5, shape[-1]), dtype, seed=2), _randn((5,), dtype, seed=3)), {}
    return _model_sample(name, x, shape, dtype, contiguous)


def _model_sample(name, x, shape, dtype, contiguous):
    """The rows a model's graphs add (kernels_rs' bmm, embedding, reductions, pow, NLL)."""
    if name == "pow":
        return (x, 3), {}
    if name == "cat":  # (two tensors along the last dimension, the second 3 wider)
        return ([x, _randn((*shape[:-1], shape[-1] + 3), dtype, contiguous, seed=1)],), {"dim": -1}
    if name == "bmm":  # ([b, m, k] @ [b, k, 5])
        b, m = (shape[0], shape[1] if len(shape) > 2 else 3) if len(shape) > 1 else (1, 2)
        a = _randn((b, m, shape[-1]), dtype, contiguous)
        return (a, _randn((b, shape[-1], 5), dtype, contiguous, seed=1)), {}
    if name == "embedding":  # (a table of 11 rows of shape[-1], indices of shape[:-1] with repeats)
        indices = torch.randint(0, 11, shape[:-1] or (4,), generator=torch.Generator().manual_seed(2))
        return (_randn((11, shape[-1]), dtype, contiguous), indices.to(DEVICE)), {}
    if name == "sum_rows":  # (a sum over the leading dimension, keeping it)
        return (_randn((2, *shape), dtype, contiguous),), {"dim": [0], "keepdim": True}
    if name in ("sum", "mean") and len(shape) > 1:
        return (x,), {"dim": -1}
    if name == "nll_loss":  # (log-probabilities of [rows, classes], a target per row, one ignored)
        rows = math.prod(shape[:-1]) if len(shape) > 1 else 4
        target = torch.randint(0, shape[-1], (rows,), generator=torch.Generator().manual_seed(2))
        target[-1] = -100
        return (_randn((rows, shape[-1]), dtype, contiguous).log_softmax(-1), target.to(DEVICE), None, 1, -100), {}
    return (x,), {}


# A convolution for each of the shapes above: (input, weight, bias, keyword arguments). One
# pixel; an odd image padded by 1; an unbatched image strided by 2; grouped, with a
# rectangular kernel, unequal strides and paddings.
CONVS = {
    (1,): ((1, 1, 1, 1), (1, 1, 1, 1), False, {}),
    (7,): ((1, 2, 7, 5), (3, 2, 3, 3), True, {"padding": 1}),
    (3, 5): ((3, 5, 6), (2, 3, 2, 2), True, {"stride": 2}),
    (2, 3, 17): ((2, 4, 17, 6), (6, 2, 3, 2), True, {"stride": (2, 1), "padding": (1, 0), "groups": 2}),
}


# A pooling for each of the shapes above: (input shape, keyword arguments). One pixel; an odd
# image padded by 1 (max pooling's padding is -inf, average pooling's counts as zeros); an
# unbatched image with overlapping windows (stride 1 under a 2x2 kernel); a rectangular window
# with unequal strides and paddings, the stride left to default to the kernel size elsewhere.
POOLS = {
    (1,): ((1, 1, 1, 1), {"kernel_size": 1}),
    (7,): ((1, 2, 7, 5), {"kernel_size": 3, "stride": 2, "padding": 1}),
    (3, 5): ((3, 5, 6), {"kernel_size": 2, "stride": 1}),
    (2, 3, 17): ((2, 3, 17, 6), {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 1)}),
}


def _conv_sample(shape, dtype, contiguous):
    x_shape, w_shape, bias, kwargs = CONVS[shape]
    x = _randn(x_shape, dtype, contiguous)
    w = _randn(w_shape, dtype, seed=2)
    return (x, w, _randn((w_shape[0],), dtype, seed=3) if bias else None), kwargs


SHAPES = [(1,), (7,), (3, 5), (2, 3, 17)]
# (a row that launches kernels directly maps the backend's own attention operators: tests/test_attention.py)
ENTRIES = {e.name: e for e in TABLE if not e.launched}


def _map_tensors(fn, args) -> tuple:
    return tuple([fn(t) for t in a] if isinstance(a, list) else fn(a) for a in args)


def _floating(a) -> bool:
    return isinstance(a, torch.Tensor) and a.is_floating_point()  # (not an embedding's indices, a loss's targets)


def _grad_inputs(args):
    flat = [t for a in args for t in (a if isinstance(a, list) else [a])]  # (cat's list of tensors)
    return [a for a in flat if isinstance(a, torch.Tensor) and a.is_floating_point()]


def _n_launches(name, args) -> int:
    """The op's launches each way: cat makes one per input."""
    return len(args[0]) if name == "cat" else 1


def _tolerance(dtype):
    return {"atol": 2e-2, "rtol": 2e-2} if dtype == torch.float16 else {"atol": 2e-5, "rtol": 2e-5}


def _struct(backend, entry):
    return next((s for s in entry.op if s in backend.tree.ops), None)


def _compare(entry, out, want, dtype):
    if entry.name == "log_softmax" or dtype == torch.float16:
        assert_matches(entry.name, out.float(), want.float(), **_tolerance(dtype))
    else:
        assert_matches(entry.name, out, want, **_tolerance(dtype))


@pytest.mark.parametrize("contiguous", [True, False], ids=["contiguous", "strided"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_row_forward_matches_torch(backend, launches, name, shape, dtype, contiguous):
    entry = ENTRIES[name]
    args, kwargs = sample(name, shape, dtype, contiguous)
    reference = _reference(entry.reference)
    backend.reset_report()
    with torch.no_grad():
        out = getattr(backend.functional, name)(*args, **kwargs)
        want = reference(*args, **kwargs)
    _compare(entry, out, want, dtype)
    report = backend.report()
    struct = _struct(backend, entry)
    if struct is None:  # not in this tree: the call ran on torch, and the report says why
        assert report.fallbacks(name) == {f"the kernel tree has no {' or '.join(entry.op)}": 1}
        assert launches == []
        return
    assert not report.fallbacks(name), str(report)
    assert report.ran(name, "forward") == 1
    launcher = backend.tree.ops[struct]
    assert launches == [getattr(launcher, "name", None) or _kernel_of(launcher)] * _n_launches(name, args)


def _kernel_of(wrapper_class):
    """The kernel a wrapper op launches (its ``kernel`` or ``fwd`` field's type)."""
    field = "kernel" if "kernel" in wrapper_class.FIELDS else "fwd"
    return wrapper_class.FIELDS[field].removeprefix("kernel:")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 17)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_each_row_backward_matches_torch(backend, launches, name, shape, dtype):
    entry = ENTRIES[name]
    args, kwargs = sample(name, shape, dtype, contiguous=False)
    args = _map_tensors(lambda a: a.detach().requires_grad_() if _floating(a) else a, args)
    ref_args = _map_tensors(lambda a: a.detach().double().requires_grad_() if _floating(a) else a, args)
    reference = _reference(entry.reference)
    backend.reset_report()
    out = getattr(backend.functional, name)(*args, **kwargs)
    want = reference(*ref_args, **kwargs)
    grad = _randn(tuple(out.shape), dtype, seed=7)
    out.backward(grad)
    want.backward(grad.double())
    report = backend.report()  # (every row's op in kernels_rs has a backward kernel)
    assert report.ran(name, "forward") == 1 and report.ran(name, "backward") == 1, str(report)
    n = _n_launches(name, args)
    assert len(launches) == 2 * n and launches[n] != launches[0]  # the op's own backward kernel ran
    tol = _tolerance(dtype)
    for a, r in zip(_grad_inputs(args), _grad_inputs(ref_args), strict=True):
        assert_matches(f"{name}: grad", a.grad.double(), r.grad, **tol)


def test_an_op_without_a_backward_falls_back_where_a_gradient_is_needed(launches):
    """kernels_rs' VectorAdd has no backward: over a tree where it is the only add, a call that
    needs a gradient runs on torch, and the report says why; one that needs none runs on it."""
    only = rs2triton.torch_backend(ROOT / "kernels_rs" / "vector_add.rs", name="rs2triton_tests_vadd")
    x, y = _randn((3, 5), torch.float32), _randn((3, 5), torch.float32, seed=1).requires_grad_()
    out = only.functional.add(x, y)
    out.sum().backward()
    assert torch.equal(y.grad, torch.ones_like(y)) and launches == []
    assert only.report().fallbacks("add") == {
        "VectorAdd has no backward in teenygrad (has_backward() is false), and a gradient is needed": 1}
    with torch.no_grad():
        assert_matches("x + y", only.functional.add(x, y), x + y)
    assert launches == ["VectorAdd"] and only.report().ran("add", "forward") == 1


@pytest.mark.parametrize("name", ["linear", "layer_norm"])
def test_a_parameter_left_out_is_made_of_what_its_absence_means(backend, launches, name):
    """kernels_rs' linear always adds a bias and its layer norm always scales and shifts: a call
    without them runs on the kernels with zeros (and ones) made for them, and their gradients
    are not returned."""
    x = _randn((5, 7), torch.float32, seed=1).requires_grad_()
    w = _randn((3, 7), torch.float32, seed=2).requires_grad_()
    backend.reset_report()
    if name == "linear":
        got, want = backend.functional.linear(x, w), F.linear(x, w)
    else:
        got, want = backend.functional.layer_norm(x, [7]), F.layer_norm(x, [7])
    assert_matches(name, got, want, atol=1e-5, rtol=1e-5)
    g = _randn(tuple(got.shape), torch.float32, seed=3)
    mine = torch.autograd.grad(got, [x, w] if name == "linear" else [x], g)
    theirs = torch.autograd.grad(want, [x, w] if name == "linear" else [x], g)
    for a, b in zip(mine, theirs, strict=True):
        assert_matches(f"{name}: grad", a, b, atol=1e-4, rtol=1e-4)
    report = backend.report()
    assert report.ran(name, "forward") == 1 and report.ran(name, "backward") == 1, str(report)
    notes = "zeros" if name == "linear" else "ones"
    assert f"{notes} passed" in str(report), str(report)
    assert len(launches) == 2


def test_a_number_operand_is_made_a_tensor_and_runs_on_the_kernel(backend, launches):
    def f(x):
        return (x + 1.5) + (2 + x)  # `2 + x` is aten's add(x, 2) in the graph

    x = _randn((5, 3), torch.float16, contiguous=False)
    backend.reset_report()
    got = torch.compile(f, backend=NAME)(x)
    assert_matches("f(x)", got.float(), f(x).float(), atol=2e-3, rtol=2e-3)
    report = backend.report()
    assert report.ran("add", "forward") == 3 and report.total_fallbacks == 0, str(report)
    assert "`other` = 1.5 made a tensor on torch" in str(report) and "`other` = 2 made a tensor" in str(report)
    assert launches == ["AddForward"] * 3
    backend.reset_report()
    i = torch.arange(6, dtype=torch.int32)
    assert torch.equal(torch.compile(lambda t: t + 0.5, backend=NAME)(i), i + 0.5)  # torch promotes to float
    assert backend.report().fallbacks("add") == {
        "torch's result is torch.float32, and AddForward returns its inputs' dtype torch.int32": 1}


# ---------------------------------------------------------------------- whole models


class Classifier(nn.Module):
    def __init__(self, d_in=10, hidden=16, d_out=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))

    def forward(self, x):
        return torch.softmax(self.net(x), dim=-1)


def test_a_model_trains_as_in_eager_torch_and_strict_proves_the_kernels_ran(backend, launches):
    torch.manual_seed(0)
    model, eager = Classifier(), Classifier()
    eager.load_state_dict(model.state_dict())
    strict = rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_strict", strict=True)
    compiled = torch.compile(model, backend="rs2triton_tests_strict", dynamic=True)
    opt, opt_eager = torch.optim.Adam(model.parameters(), lr=1e-2), torch.optim.Adam(eager.parameters(), lr=1e-2)
    loss_fn = nn.NLLLoss()
    for step in range(5):
        x = torch.randn(9 + step, 10, generator=_gen(step)).to(DEVICE)  # a new batch size each step
        y = torch.randint(0, 3, (9 + step,), generator=_gen(step)).to(DEVICE)
        losses = []
        for m, o in ((compiled, opt), (eager, opt_eager)):
            o.zero_grad()
            loss = loss_fn(torch.log(m(x)), y)
            loss.backward()
            o.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5, abs=1e-6), step
    report = strict.report()
    assert report.total_fallbacks == 0
    # AOTAutograd's gradients of a linear layer are matrix products (two for the second layer,
    # one for the first, whose input needs none) and a sum over the rows for each bias: all run
    # on the linear op's kernel, as teenygrad's matmul would
    assert report.ran("linear", "forward") == 10 and report.ran("linear", "backward") == 25
    assert report.ran("relu", "backward") == 5 and report.ran("softmax", "backward") == 5
    assert launches.count("LinearForward") == 35 and launches.count("SoftmaxBackward") == 5
    assert launches.count("ReluBackward") == 5
    for p, q in zip(model.parameters(), eager.parameters(), strict=True):
        assert_matches("parameter after 5 steps", p.detach(), q.detach(), atol=1e-5, rtol=1e-5)


class SmallCNN(nn.Module):
    """Convolutions with and without padding, max and average pooling, a flatten and a linear
    head: the nn modules of a small image classifier."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(4, 6, 3), nn.ReLU(), nn.AvgPool2d(2))
        self.head = nn.Linear(6, 5)

    def forward(self, x):
        return torch.softmax(self.head(torch.flatten(self.features(x), 1)), dim=-1)


def test_a_cnn_trains_on_the_kernels_as_in_eager_torch(launches):
    torch.manual_seed(0)
    model, eager = SmallCNN(), SmallCNN()
    eager.load_state_dict(model.state_dict())
    strict = rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_cnn", strict=True)
    compiled = torch.compile(model, backend="rs2triton_tests_cnn", dynamic=True)
    opt, opt_eager = torch.optim.Adam(model.parameters(), lr=1e-2), torch.optim.Adam(eager.parameters(), lr=1e-2)
    for step in range(2):
        x = torch.randn(2 + step, 3, 8, 8, generator=_gen(step)).to(DEVICE)  # a new batch size each step
        y = torch.randint(0, 5, (2 + step,), generator=_gen(step)).to(DEVICE)
        losses = []
        for m, o in ((compiled, opt), (eager, opt_eager)):
            o.zero_grad()
            loss = nn.NLLLoss()(torch.log(m(x)), y)
            loss.backward()
            o.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=1e-5, abs=1e-6), step
    report = strict.report()
    assert report.total_fallbacks == 0
    # (backward: the max pooling is computed again in the backward graph, on its forward kernel,
    # rather than saving indices the op does not make; the head's gradients are two matrix
    # products and a bias sum, on the linear op)
    backward = {"conv2d": 4, "max_pool2d": 4, "avg_pool2d": 2, "relu": 4, "linear": 6}
    for name, calls in {"conv2d": 4, "max_pool2d": 2, "avg_pool2d": 2, "relu": 4, "linear": 2}.items():
        assert report.ran(name, "forward") == calls and report.ran(name, "backward") == backward[name], name
    for kernel, calls in {"Conv2dBackward": 4, "MaxPool2dBackward": 2, "AvgPool2dBackward": 2}.items():
        assert launches.count(kernel) == calls, kernel
    for p, q in zip(model.parameters(), eager.parameters(), strict=True):
        assert_matches("parameter after 2 steps", p.detach(), q.detach(), atol=1e-5, rtol=1e-5)


def test_a_dropout_that_returns_its_input_is_no_fallback(launches):
    """Dropout with p = 0 (a module's p is a graph input under dynamic shapes: decided per call)
    or outside training computes nothing: strict accepts it; a real dropout is a fallback."""
    strict = rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_dropout", strict=True)
    model = nn.Sequential(nn.Linear(6, 5), nn.Dropout(0.0), nn.ReLU(), nn.Dropout(0.5))
    x = torch.randn(4, 6, generator=_gen(1)).to(DEVICE)
    model.eval()
    for dynamic in (True, False):
        torch._dynamo.reset()
        got = torch.compile(model, backend="rs2triton_tests_dropout", dynamic=dynamic)(x)
        assert_matches("eval", got, model(x), atol=1e-5, rtol=1e-5)
    model.train()
    model[3].p = 0.0
    got = torch.compile(model, backend="rs2triton_tests_dropout", dynamic=True)(x)
    assert_matches("p = 0", got, model(x), atol=1e-5, rtol=1e-5)
    assert strict.report().total_fallbacks == 0 and launches.count("LinearForward") == 3
    model[3].p = 0.5
    with pytest.raises(Exception, match=r"node `native_dropout` \(torch.nn.Dropout\) would run on torch: no teenygrad op"):
        torch.compile(model, backend="rs2triton_tests_dropout", dynamic=True)(x)
    torch._dynamo.reset()


def test_strict_names_the_node_that_would_run_on_torch():
    rs2triton.torch_backend(ROOT / "kernels_rs", name="rs2triton_tests_strict2", strict=True)

    def f(x):
        return torch.relu(x).lgamma()

    with pytest.raises(Exception, match=r"node `lgamma` \(Tensor.lgamma\) would run on torch: no teenygrad op"):
        torch.compile(f, backend="rs2triton_tests_strict2")(torch.randn(8))

    def g(x):
        return torch.div(x, 3.0, rounding_mode="floor")  # (the kernels divide exactly)

    with pytest.raises(StrictFallback, match=r"node `div` \(div\) would run on torch: \w+ implements "
                                             r"rounding_mode=None only; the call has rounding_mode='floor'"):
        torch.compile(g, backend="rs2triton_tests_strict2")(torch.randn(8))


def test_fallbacks_keep_torch_results_and_say_why(backend):
    def f(x, w):
        a = torch.softmax(x, dim=0)  # along the first dimension: the kernel works along the last
        b = F.layer_norm(x, [4, 6]) + w.sum()  # over two dimensions: the kernels normalize rows
        c = F.gelu(x, approximate="tanh") * 2  # (runs on a kernel)
        return a.sum() + b.sum() + c.sum() + x.lgamma().sum()

    backend.reset_report()
    x, w = torch.randn(4, 6).to(DEVICE), torch.randn(3, 6).to(DEVICE)
    got = torch.compile(f, backend=NAME)(x, w)
    assert_matches("f(x, w)", got, f(x, w), atol=1e-5, rtol=1e-5)
    report = backend.report()
    (reason,) = report.fallbacks("softmax")
    assert reason == "it works along the last dimension; the call has dim=0 on a 2-d tensor"
    (reason,) = report.fallbacks("layer_norm")
    assert reason == "it normalizes over the last dimension only; normalized_shape is [4, 6]"
    assert report.fallbacks("Tensor.lgamma") == {"no teenygrad op implements it (no row of the mapping)": 1}
    assert report.ran("gelu") and not report.fallbacks("gelu")
    text = str(report)
    assert text.splitlines()[0].split() == ["torch", "operation", "teenygrad", "op", "forward", "backward", "on",
                                            "torch", "why", "/", "notes"]
    assert "1 x it works along the last dimension" in text


def test_dynamic_shapes_plan_each_shape_without_recompiling(backend):
    compiles = []

    def counting(gm, example_inputs):
        compiles.append(gm)
        return backend(gm, example_inputs)

    f = torch.compile(lambda x: torch.relu(x) + x, backend=counting, dynamic=True)
    backend.reset_report()
    for n in (3, 17, 130, 1025):
        x = torch.randn(n).to(DEVICE)
        assert_matches(f"n={n}", f(x), torch.relu(x) + x)
    assert len(compiles) == 1
    assert backend.report().ran("relu") == 4 and backend.report().ran("add") == 4


def test_broadcasting_runs_on_the_kernel_with_torch_broadcasting_the_inputs(backend, launches):
    x = _randn((4, 5), torch.float32)
    y = _randn((5,), torch.float32, seed=1)
    backend.reset_report()
    out = backend.functional.add(x, y)
    assert_matches("x + y", out, x + y)
    assert launches == ["AddForward"] and backend.report().rows["add"].notes == {"inputs broadcast on torch": 1}


def test_the_graph_is_logged(backend, caplog):
    with caplog.at_level(logging.INFO, logger="rs2triton.backend"):
        torch.compile(lambda x: torch.relu(x).lgamma(), backend=NAME)(torch.randn(6).to(DEVICE))
    text = caplog.text
    assert "relu -> ReluForward (planned per shape)" in text
    assert "Tensor.lgamma -> on torch: no teenygrad op implements it" in text


def test_functional_under_torch_compile_fullgraph(backend):
    def f(x, w, b):
        return backend.functional.softmax(backend.functional.linear(x, w, b), -1)

    x = _randn((6, 10), torch.float32).requires_grad_()
    w, b = _randn((4, 10), torch.float32, seed=1).requires_grad_(), _randn((4,), torch.float32, seed=2)
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
    out = compiled(x, w, b)
    want = torch.softmax(F.linear(x, w, b), -1)
    assert_matches("softmax(linear(x))", out, want, atol=1e-6, rtol=1e-5)
    grad = _randn((6, 4), torch.float32, seed=3)
    gx, gw = torch.autograd.grad(out, (x, w), grad)
    rx, rw = torch.autograd.grad(want, (x, w), grad)
    assert_matches("dx", gx, rx, atol=1e-6, rtol=1e-5)
    assert_matches("dw", gw, rw, atol=1e-6, rtol=1e-5)


def test_apply_under_torch_compile_runs_outside_the_graph():
    """A function that calls RuntimeOp.apply compiles with a graph break around the call, which
    runs (and differentiates) as it does eagerly; fullgraph=True says why it cannot."""
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs").ReluForward(BLOCK_SIZE=64)

    def f(x):
        return relu.apply(x, out_shape=x.shape) * 2

    x = _randn((10,), torch.float32).requires_grad_()
    torch._dynamo.reset()
    y = torch.compile(f, backend="aot_eager")(x)
    y.sum().backward()
    assert_matches("relu(x) * 2", y, torch.relu(x.detach()) * 2)
    assert_matches("its gradient", x.grad, (x.detach() > 0) * 2.0)
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"RuntimeOp.apply launches its kernels eagerly.*register_op"):
        torch.compile(f, backend="aot_eager", fullgraph=True)(x)
    torch._dynamo.reset()


def test_backend_names(backend):
    from torch._dynamo import list_backends

    assert NAME in list_backends(exclude_tags=())
    again = rs2triton.torch_backend(ROOT / "kernels_rs", name=NAME)  # a later one takes the name
    try:
        torch.compile(lambda x: torch.relu(x), backend=NAME)(torch.randn(4).to(DEVICE))
        assert again.report().ran("relu") == 1
    finally:
        register(backend)
    with pytest.raises(ValueError, match="a torch.compile backend named 'inductor' is already registered"):
        rs2triton.torch_backend(ROOT / "kernels_rs", name="inductor")
    assert callable(backend) and "rs2triton teenygrad backend" in repr(backend)


def test_functional_names_the_mapped_operations(backend):
    assert set(dir(backend.functional)) == set(ENTRIES)
    with pytest.raises(AttributeError, match="backend.functional has no 'conv3d'"):
        backend.functional.conv3d  # noqa: B018


# ---------------------------------------------------------------------- apply, by the same rows


def test_apply_refuses_an_out_shape_or_a_block_the_mapping_knows_to_be_wrong():
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    softmax = rs2triton.load(ROOT / "kernels_rs" / "softmax.rs")
    x = _randn((3, 7), torch.float32)
    with pytest.raises(ValueError, match=r"ReluForward.apply: ReluForward is elementwise \(the mapping's row `relu`\): "
                                         r"its output has its input's shape \[3, 7\], not \[3, 5\]"):
        relu.ReluForward(BLOCK_SIZE=64).apply(x, out_shape=(3, 5))
    with pytest.raises(ValueError, match=r"BLOCK_SIZE=4 would drop data: SoftmaxForward reads a row in one block "
                                         r"\(the mapping's row `softmax`\), and the rows have 7 elements; give "
                                         r"BLOCK_SIZE >= 7 \(8\)"):
        softmax.SoftmaxForward(BLOCK_SIZE=4).apply(x, out_shape=(3, 7))
    op = rs2triton.register_op(softmax.SoftmaxForward(BLOCK_SIZE=4), "rs2triton_tests::narrow_softmax")
    with pytest.raises(ValueError, match="BLOCK_SIZE=4 would drop data"):
        op([x], [], [3, 7])
    assert_matches("softmax", softmax.SoftmaxForward(BLOCK_SIZE=8).apply(x, out_shape=(3, 7)), torch.softmax(x, -1),
                   atol=1e-6, rtol=1e-6)


UNMASKED = """
use teeny_core::dtype::Float;
use teeny_macros::kernel;
use teeny_triton::triton::{types::{AddOffsets, Comparison}, *};

/// Reads exactly `BLOCK_SIZE` elements of each row: no mask.
#[kernel]
pub fn row_copy<T: Triton, D: Float, const BLOCK_SIZE: i32>(x_ptr: T::Pointer<D>, y_ptr: T::Pointer<D>, n_cols: i32)
where
    T::I32Tensor: Comparison<i32, BoolTensor = T::BoolTensor>,
    T::Pointer<D>: AddOffsets<i32, 1, T::I32Tensor, Output = T::Tensor<T::Pointer<D>>>,
{
    let offsets = T::arange(0, BLOCK_SIZE) + T::program_id(Axis::X) * n_cols;
    let x = T::load(x_ptr.add_offsets(offsets), None, None, &[], None, None, None, false);
    T::store(y_ptr.add_offsets(offsets), x, None, &[], None, None);
}
"""


def test_a_kernel_that_masks_no_load_takes_exactly_its_row(tmp_path):
    from rs2triton.backend.plan import loads_masked
    from rs2triton.runtime.mapping_rules import Block, Cover

    (tmp_path / "row_copy.rs").write_text(UNMASKED)
    unmasked = rs2triton.load(tmp_path / "row_copy.rs").RowCopy
    masked = rs2triton.load(ROOT / "kernels_rs" / "softmax.rs").SoftmaxForward
    assert not loads_masked(unmasked) and loads_masked(masked)
    assert loads_masked(rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs").VectorAdd)  # (a masked tail)
    assert Cover("cols").choose({"cols": 7}) == (16, "") and Block("numel").choose({"numel": 3000}) == (1024, "")


# ---------------------------------------------------------------------- GPU targets

_IMAGE = {"KH": 3, "KW": 3, "STRIDE_H": 2, "STRIDE_W": 1, "PAD_H": 1, "PAD_W": 0}
# The kernels the rows launch on kernels_rs that no other test compiles, with consts a plan chooses.
BACKEND_KERNELS = {
    ("kernels_rs/conv2d.rs", "conv2d_forward"): {**_IMAGE, "G": 2, "BLOCK_P": 64},
    ("kernels_rs/conv2d.rs", "conv2d_backward"): {**_IMAGE, "G": 2, "BLOCK_P": 64},
    ("kernels_rs/pool2d.rs", "max_pool2d_forward"): {**_IMAGE, "BLOCK_P": 64},
    ("kernels_rs/pool2d.rs", "max_pool2d_backward"): {**_IMAGE, "BLOCK_P": 64},
    ("kernels_rs/pool2d.rs", "avg_pool2d_forward"): {**_IMAGE, "BLOCK_P": 64},
    ("kernels_rs/pool2d.rs", "avg_pool2d_backward"): {**_IMAGE, "BLOCK_P": 64},
    ("kernels_rs/layernorm.rs", "layer_norm_rows_forward"): {"BLOCK_N": 256},
    ("kernels_rs/layernorm.rs", "layer_norm_rows_backward"): {"BLOCK_N": 256},
    ("kernels_rs/softmax.rs", "softmax_backward"): {"BLOCK_SIZE": 128},
    ("kernels_rs/softmax.rs", "log_softmax_forward"): {"BLOCK_SIZE": 128},
    ("kernels_rs/softmax.rs", "log_softmax_backward"): {"BLOCK_SIZE": 128},
    **{("kernels_rs/activations.rs", f"{a}_backward"): {"BLOCK_SIZE": 256}
       for a in ("softplus", "logsigmoid", "mish", "gelu_tanh", "gelu_erf", "elu", "celu")},
    ("kernels_rs/linear.rs", "linear_backward"): {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32},
    ("kernels_rs/activations.rs", "gelu_erf_forward"): {"BLOCK_SIZE": 256},
    ("kernels_rs/cumsum.rs", "cumsum_rows_forward"): {"BLOCK_N": 128},
    ("kernels_rs/cumsum.rs", "cumsum_rows_backward"): {"BLOCK_N": 128},
}


ELEMENTWISE = [f"{name}_{side}" for name in ("add", "sub", "mul", "div", "maximum", "minimum", "exp", "log", "sqrt",
                                              "abs", "neg", "sin", "cos", "erf", "reciprocal", "sigmoid", "tanh", "silu",
                                              "tanh_grad", "sigmoid_grad")
               for side in ("forward", "backward")]


def test_the_backends_kernels_compile_for_sm90_and_gfx942():
    from tests.compile_helper import compile_in_subprocess

    targets = ("cuda:90", "hip:gfx942")
    reqs = [{"file": f, "kernel": k, "target": t, "dtypes": {"D": d}, "consts": c}
            for (f, k), c in BACKEND_KERNELS.items() for t in targets for d in ("f32", "f16")]
    reqs += [{"file": "kernels_rs/elementwise.rs", "kernel": k, "target": t, "dtypes": {"D": "f32"},
              "consts": {"BLOCK_SIZE": 256}} for k in ELEMENTWISE for t in targets]
    results = compile_in_subprocess(reqs)
    failures = [f"{r['kernel']} {r['target']} {r['dtypes']}: {r.get('error')}" for r in results if not r["ok"]]
    assert not failures, "\n".join(failures)
    assert len(results) == len(reqs) == 4 * len(BACKEND_KERNELS) + 2 * len(ELEMENTWISE)
    assert all(r["entry"] for r in results)
