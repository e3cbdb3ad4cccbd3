"""The kernels_rs ops a model's training needs beyond teenygrad's (bmm.rs, embedding.rs, reduce.rs,
pow.rs, nll.rs, cross_entropy.rs, cat.rs, bias.rs): each op's translated `impl RuntimeOp` run through `apply`, forward and backward,
against torch's own op and autograd."""

import pytest
import torch
import torch.nn.functional as F

import rs2triton
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

bmm = rs2triton.load(ROOT / "kernels_rs" / "bmm.rs")
embedding = rs2triton.load(ROOT / "kernels_rs" / "embedding.rs")
reduce = rs2triton.load(ROOT / "kernels_rs" / "reduce.rs")
pow_ = rs2triton.load(ROOT / "kernels_rs" / "pow.rs")
nll = rs2triton.load(ROOT / "kernels_rs" / "nll.rs")
cross_entropy = rs2triton.load(ROOT / "kernels_rs" / "cross_entropy.rs")
cat = rs2triton.load(ROOT / "kernels_rs" / "cat.rs")
bias = rs2triton.load(ROOT / "kernels_rs" / "bias.rs")

TOL = {torch.float32: {"atol": 1e-4, "rtol": 1e-4}, torch.float16: {"atol": 2e-2, "rtol": 1e-2}}
DTYPES = [pytest.param(torch.float32, id="f32"), pytest.param(torch.float16, id="f16")]


def _randn(*shape, dtype, seed, scale=1.0):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale
    return x.to(dtype).to(DEVICE).requires_grad_()


def _check(name, fn, ref_fn, inputs, dtype, grad_scale=1.0):
    """``fn(*inputs)`` and its gradients against ``ref_fn`` computed in f32 from the same values."""
    out = fn(*inputs)
    ref_inputs = [x.detach().float().requires_grad_(x.requires_grad) for x in inputs]
    ref = ref_fn(*ref_inputs)
    assert out.shape == ref.shape and out.dtype == dtype
    assert_matches(name, out.float(), ref, **TOL[dtype])
    dy = torch.randn(ref.shape, generator=torch.Generator().manual_seed(99)).to(DEVICE) * grad_scale
    needs = [x for x in inputs if x.requires_grad]
    grads = torch.autograd.grad(out, needs, dy.to(dtype))
    ref_grads = torch.autograd.grad(ref, [r for r in ref_inputs if r.requires_grad], dy)
    for i, (g, r) in enumerate(zip(grads, ref_grads, strict=True)):
        assert_matches(f"{name}: grad {i}", g.float(), r, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape,b_shape", [
    ((3, 20, 37), (3, 37, 19)),   # bmm
    ((20, 37), (37, 19)),         # mm
    ((2, 5, 20, 17), (17, 33)),   # matmul with a weight shared by the batch: its dB sums the batch
    ((20, 17), (4, 17, 9)),       # the other operand broadcast
], ids=["bmm", "mm", "batch-by-matrix", "matrix-by-batch"])
def test_bmm_forward_and_both_gradients(a_shape, b_shape, dtype):
    op = bmm.BmmForward(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    a, b = _randn(*a_shape, dtype=dtype, seed=1), _randn(*b_shape, dtype=dtype, seed=2)
    _check("bmm", lambda x, y: op.apply(x, y), torch.matmul, [a, b], dtype)


def test_bmm_output_shape_and_refusals():
    op = bmm.BmmForward(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    assert op.compute_concrete_output_shape([(2, 5, 20, 17), (17, 33)], []) == [2, 5, 20, 33]
    assert op.grid((2, 5, 20, 33)) == (2, 3, 10)
    assert op.backward_grid([(2, 5, 20, 17), (17, 33)], (2, 5, 20, 33)) == (3 * 2, 2, 10)
    a, b = torch.randn(4, 5, device=DEVICE), torch.randn(6, 7, device=DEVICE)
    with pytest.raises(ValueError, match="the inner dimensions differ"):
        op.apply(a, b)
    with pytest.raises(ValueError, match="B's batch does not fit the output's"):
        op.apply(torch.randn(2, 4, 5, device=DEVICE), torch.randn(3, 5, 6, device=DEVICE))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padding_idx", [-1, 7, 0])
def test_embedding_forward_and_table_gradient(dtype, padding_idx):
    """A padding row (`nn.Embedding(padding_idx=..)`; -1: none) is read as any other and gets no
    gradient, as torch's; 7 is also the repeated index."""
    op = embedding.Embedding.new(16, 32, padding_idx)
    w = _randn(50, 45, dtype=dtype, seed=3)
    idx = torch.randint(0, 50, (3, 23), generator=torch.Generator().manual_seed(4))
    idx[0, :6] = 7  # repeated: the gradients of one row add up
    idx = idx.to(DEVICE)
    out = op.apply(w, idx)
    assert out.shape == (3, 23, 45)
    assert torch.equal(out, F.embedding(idx, w))
    dy = torch.randn(out.shape, generator=torch.Generator().manual_seed(5)).to(DEVICE)
    (gw,) = torch.autograd.grad(out, [w], dy.to(dtype))
    w_ref = w.detach().float().requires_grad_()
    (rw,) = torch.autograd.grad(F.embedding(idx, w_ref, padding_idx=None if padding_idx < 0 else padding_idx),
                                [w_ref], dy)
    assert_matches("embedding: dweight", gw.float(), rw, **TOL[dtype])
    if padding_idx >= 0:
        assert not gw[padding_idx].any() and (padding_idx != 7 or rw[7].eq(0).all())


def test_embedding_reads_no_row_outside_the_table():
    op = embedding.Embedding.new(16, 32, -1)
    w = torch.randn(10, 8, device=DEVICE)
    idx = torch.tensor([0, 9, 10, -1, 3], device=DEVICE)
    out = op.apply(w, idx)
    assert torch.equal(out[[0, 1, 4]], w[[0, 9, 3]]) and not out[2:4].any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", ["sum", "mean"])
@pytest.mark.parametrize("shape,keepdim,whole", [((3, 7, 150), True, False), ((5, 33), False, False),
                                                 ((4, 9), False, True)], ids=["keepdim", "last-dim", "all"])
def test_row_reductions_and_their_gradients(kind, shape, keepdim, whole, dtype):
    op = (reduce.SumRowsForward if kind == "sum" else reduce.MeanRowsForward)(BLOCK_N=64)
    x = _randn(*shape, dtype=dtype, seed=6)

    def ref(t):
        f = getattr(torch, kind)
        return f(t) if whole else f(t, -1, keepdim=keepdim)

    out_shape = ref(x.detach().float()).shape
    _check(kind, lambda t: op.apply(t, out_shape=out_shape), ref, [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,keepdim", [((3, 37, 45), False), ((37, 45), True), ((1, 5), False)])
def test_column_sums_and_their_gradient(shape, keepdim, dtype):
    """Every dimension but the last reduced: the gradient of a weight broadcast over rows."""
    op = reduce.SumColsForward(BLOCK_R=16, BLOCK_N=32)
    x = _randn(*shape, dtype=dtype, seed=50)
    dims = tuple(range(len(shape) - 1))
    out_shape = x.detach().sum(dims, keepdim=keepdim).shape
    _check("sum_cols", lambda t: op.apply(t, out_shape=out_shape), lambda t: t.sum(dims, keepdim=keepdim), [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("exponent", [2.0, 3.0, 0.5, -1.0, 0.0, 1.0, -2.5])
def test_pow_by_a_scalar_as_torch(exponent, dtype):
    op = pow_.PowScalarRuntimeOp.new(256, exponent)
    x = torch.randn(1000, generator=torch.Generator().manual_seed(7)) * 2
    x[:4] = torch.tensor([0.0, -2.0, 1.0, -0.5])  # zero and negatives: torch.pow's sign rules
    if exponent != int(exponent) or exponent < 0:
        x = x.abs() + 0.25  # (NaN or infinity: checked below, not by autograd)
    x = x.to(dtype).to(DEVICE).requires_grad_()
    _check(f"pow {exponent}", lambda t: op.apply(t, out_shape=t.shape), lambda t: torch.pow(t, exponent), [x], dtype)


def test_pow_of_negatives_and_zero():
    x = torch.tensor([-2.0, -0.5, 0.0, 3.0], device=DEVICE)
    for p in (3.0, 2.0, 0.5, -1.0, 0.0):
        out = pow_.PowScalarRuntimeOp.new(64, p).apply(x, out_shape=x.shape)
        assert_matches(f"pow {p}", out, torch.pow(x, p), equal_nan=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rsqrt_and_its_gradient(dtype):
    op = pow_.RsqrtForward(BLOCK_SIZE=128)
    x = (torch.rand(1000, generator=torch.Generator().manual_seed(8)) * 4 + 0.1).to(dtype).to(DEVICE)
    _check("rsqrt", lambda t: op.apply(t, out_shape=t.shape), torch.rsqrt, [x.requires_grad_()], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_rows,n_cols", [(37, 11), (5, 300), (130, 7)])
def test_cross_entropy_as_log_softmax_then_nll(n_rows, n_cols, dtype):
    """The NLL op after kernels_rs' log-softmax, against F.cross_entropy (rows with the ignored
    target neither summed nor counted)."""
    softmax = rs2triton.load(ROOT / "kernels_rs" / "softmax.rs")
    log_softmax = softmax.LogSoftmaxForward(BLOCK_SIZE=512)
    loss = nll.NllMeanRuntimeOp.new(32, -100)
    logits = _randn(n_rows, n_cols, dtype=dtype, seed=9, scale=2.0)
    target = torch.randint(0, n_cols, (n_rows,), generator=torch.Generator().manual_seed(10))
    target[::4] = -100
    target = target.to(DEVICE)
    _check("cross_entropy", lambda t: loss.apply(log_softmax.apply(t, out_shape=t.shape), target),
           lambda t: F.cross_entropy(t, target), [logits], dtype, grad_scale=1.0)


def test_nll_with_every_row_ignored_is_nan_as_torch():
    lp = torch.log_softmax(torch.randn(4, 5, device=DEVICE), -1)
    target = torch.full((4,), -100, device=DEVICE)
    out = nll.NllMeanRuntimeOp.new(32, -100).apply(lp, target)
    assert out.isnan() and F.nll_loss(lp, target).isnan()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n_rows,n_cols", [(37, 11), (5, 3000), (130, 7)])
def test_fused_cross_entropy_over_rows_of_any_length(n_rows, n_cols, dtype):
    """Rows longer than a block (3000 classes, 256 a block), ignored rows, two forward launches."""
    op = cross_entropy.CrossEntropyMeanRuntimeOp.new(256, 32, -100)
    assert op.n_launches() == 2 and op.grid_for_launch(1, [(n_rows, n_cols), (n_rows,)], ()) == (n_rows, 1, 1)
    logits = _randn(n_rows, n_cols, dtype=dtype, seed=11, scale=3.0)
    target = torch.randint(0, n_cols, (n_rows,), generator=torch.Generator().manual_seed(12))
    target[::4] = -100
    target = target.to(DEVICE)
    _check("cross_entropy", lambda t: op.apply(t, target), lambda t: F.cross_entropy(t, target), [logits], dtype)


def test_fused_cross_entropy_starts_from_zero_whatever_the_output_held():
    op = cross_entropy.CrossEntropyMeanRuntimeOp.new(64, 32, -100)
    logits = torch.randn(9, 100, device=DEVICE)
    target = torch.arange(9, device=DEVICE)
    out = torch.full((), 123.0, device=DEVICE)
    op.apply(logits, target, out=out)
    assert_matches("cross_entropy", out, F.cross_entropy(logits, target), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,shapes", [
    (-1, [(2, 3, 5), (2, 3, 7)]),             # rotate_half's cat of two halves
    (1, [(2, 3, 5), (2, 1, 5), (2, 4, 5)]),   # three inputs along a middle dimension
    (0, [(3, 4), (2, 4)]),
], ids=["last", "middle", "first"])
def test_cat_along_any_dim_and_its_gradients(dim, shapes, dtype):
    op = cat.CatRuntimeOp.new(64, len(shapes), dim)
    xs = [_randn(*s, dtype=dtype, seed=20 + i) for i, s in enumerate(shapes)]
    out = op.apply(*xs)
    assert torch.equal(out, torch.cat(xs, dim))
    dy = torch.randn(out.shape, generator=torch.Generator().manual_seed(30)).to(dtype).to(DEVICE)
    for got, want in zip(torch.autograd.grad(out, xs, dy), torch.autograd.grad(torch.cat(xs, dim), xs, dy),
                         strict=True):
        assert torch.equal(got, want)


def test_cat_refuses_inputs_that_do_not_fit():
    op = cat.CatRuntimeOp.new(64, 2, 1)
    with pytest.raises(ValueError, match="cat: the inputs differ before dim"):
        op.apply(torch.randn(2, 3, device=DEVICE), torch.randn(3, 3, device=DEVICE))
    with pytest.raises(ValueError, match="cat: dim is out of range"):
        cat.CatRuntimeOp.new(64, 2, 2).apply(torch.randn(2, 3, device=DEVICE), torch.randn(2, 3, device=DEVICE))


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_as_a_matmul_then_a_bias_and_their_gradients(dtype):
    """GPT-2's Conv1D, `addmm(bias, x, w)` with `w: [K, N]`: BmmForward, then BiasAddForward."""
    mm = bmm.BmmForward(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    add = bias.BiasAddForward(BLOCK_R=16, BLOCK_N=32)
    assert add.param_names() == ("bias",) and add.param_shapes([(7, 45)], (7, 45)) == [[45]]
    x, w, b = _randn(37, 20, dtype=dtype, seed=40), _randn(20, 45, dtype=dtype, seed=41), _randn(45, dtype=dtype, seed=42)
    _check("addmm", lambda x, w, b: add.apply(mm.apply(x, w), params=[b]), lambda x, w, b: torch.addmm(b, x, w),
           [x, w, b], dtype)


def test_a_loss_registered_as_a_torch_op_differentiates_to_its_logits():
    """A scalar output (out_shape []) through register_op's autograd, as the torch backend runs a loss."""
    op = rs2triton.register_op(cross_entropy.CrossEntropyMeanRuntimeOp.new(64, 32, -100), "rs2triton_tests::ce_mean",
                               replace=True)
    logits = torch.randn(5, 7, device=DEVICE, requires_grad=True)
    target = torch.tensor([0, 6, -100, 3, 2], device=DEVICE)
    loss = op([logits, target], [], [])
    ref_logits = logits.detach().clone().requires_grad_()
    ref = F.cross_entropy(ref_logits, target)
    assert_matches("loss", loss, ref, atol=1e-6, rtol=1e-5)
    loss.backward()
    ref.backward()
    assert_matches("dlogits", logits.grad, ref_logits.grad, atol=1e-6, rtol=1e-5)
