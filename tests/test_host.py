"""The host side: `impl RuntimeOp` translated, run as teenygrad's executor runs it, against torch.

The ops are those of tests/kernels/host_ops.rs (kernels with their host logic, written in
teenygrad's style: a macro-written impl, wrapper structs with `new`, several launches, a
parameter, padded output rows, a pointer offset, a stub, `#[cfg]`-gated methods).
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import torch

import rs2triton
from rs2triton.runtime import torch_ops
from rs2triton.runtime.ops import ArgVisitor, RuntimeOp
from rs2triton.transpiler.lowering.host.classes import TRAIT
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

SOURCE = ROOT / "tests" / "kernels" / "host_ops.rs"
ops = rs2triton.load(SOURCE)


def _randn(*shape, dtype=torch.float32, seed=0, grad=False):
    t = torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed)).to(DEVICE)
    return t.requires_grad_() if grad else t


# ------------------------------------------------------------------ the trait, by Rust names


def test_the_trait_stated_in_rust_and_the_runtime_agree():
    assert len(TRAIT) == 19  # teenygrad's RuntimeOp, every method
    for method, spec in TRAIT.items():
        params = list(inspect.signature(getattr(RuntimeOp, method)).parameters)[1:]
        assert params == [n for n, _ in spec.params], method
    assert TRAIT["pack_args"].visitor and not TRAIT["grid"].visitor
    assert {m for m in vars(RuntimeOp) if not m.startswith("_") and callable(getattr(RuntimeOp, m))} >= set(TRAIT)


def test_methods_take_python_values_for_rust_ones():
    op = ops.SquareForward(BLOCK_SIZE=256)
    x, y = _randn(1000), torch.empty(1000, device=DEVICE)
    assert op.n_activation_inputs() == 1
    assert op.grid((1000,)) == (4, 1, 1)  # [n.div_ceil(block_size) as u32, 1, 1]
    args = op.pack_args([x], [], y, (1000,), 1000)
    assert args == [x, y, 1000] and isinstance(args, ArgVisitor) and args.kinds == ["ptr", "ptr", "i32"]
    assert op.block_size == 256 and op.name == "square_forward"  # the kernel struct's fields
    shapes = ops.WeighForward(BLOCK_SIZE=64).param_shapes([(3, 5)], (3, 5))
    assert shapes == [[3, 5]]


def test_vec_repeat_makes_copies_as_rust_clones():
    shapes = ops.WeighForward(BLOCK_SIZE=64).param_shapes([(3, 5)], (3, 5)) + \
        ops.WeighForward(BLOCK_SIZE=64).param_shapes([(3, 5)], (3, 5))
    shapes[0].append(7)
    assert shapes[1] == [3, 5]


def test_host_arithmetic_keeps_rust_meaning():
    join = ops.JoinRuntimeOp.new(64, 2)
    got = join.arithmetic(-7, 2, 3_000_000_000, 2.9)
    f = np.float32(2.9)
    want = (-3, -1, -1294967296, 4294967289, 2, 68, 0, float(f * np.float32(0.1)))
    assert got == want  # truncating / and %, wrapping and saturating `as`, f32 rounding
    assert [join.classify(n) for n in (0, 2, 5, 12)] == [-1, 1, 2, 3]
    assert join.unsigned_difference(5, 2) == 3
    assert join.unsigned_difference(2, 5) == 2**64 - 3  # usize underflow wraps in Rust's release builds


def test_a_wrapper_is_built_by_its_new_or_its_fields():
    join = ops.JoinRuntimeOp.new(64, 3)
    assert join.n_inputs == 3 and join.fwd.block_size == 64 and join.n_activation_inputs() == 3
    assert join.forward_kernel() is join.fwd and join.backward_kernel() is join.bwd  # forward_source()
    again = ops.JoinRuntimeOp(fwd=ops.JoinForward(BLOCK_SIZE=64), bwd=ops.JoinBackward(BLOCK_SIZE=64), n_inputs=3)
    assert again.n_launches() == 3
    with pytest.raises(TypeError, match="JoinRuntimeOp: field `fwd` must be a configured JoinForward kernel"):
        ops.JoinRuntimeOp(fwd=ops.JoinBackward(BLOCK_SIZE=64), bwd=ops.JoinBackward(BLOCK_SIZE=64), n_inputs=3)
    with pytest.raises(ValueError, match="field `n_inputs` must be in usize range"):
        ops.JoinRuntimeOp.new(64, -1)
    with pytest.raises(TypeError, match="missing field `bwd: kernel:JoinBackward`"):
        ops.JoinRuntimeOp(fwd=ops.JoinForward(BLOCK_SIZE=64), n_inputs=1)
    moments = ops.MomentsRuntimeOp.new(32, 0.1)
    assert moments.eps == float(np.float32(0.1))  # an f32 field holds an f32
    assert repr(moments.forward_kernel()) == "<MomentsForward(BLOCK_N=32)>"  # paired by name


def test_fields_named_as_methods_stay_fields():
    # Rust keeps a struct's fields and its methods apart: `backward_kernel` and `grid` are both
    op = ops.SquareRuntimeOp.new(64, 5)
    assert op.backward_kernel() is op.backward_kernel_field and repr(op.backward_kernel()) == "<SquareBackward(BLOCK_SIZE=64)>"
    assert op.grid((100,)) == (5, 1, 1) and op.grid((1000,)) == (16, 1, 1) and op.grid_field == 5
    assert repr(op) == ("SquareRuntimeOp(kernel=<SquareForward(BLOCK_SIZE=64)>, "
                        "backward_kernel=<SquareBackward(BLOCK_SIZE=64)>, grid=5, "
                        "backward_text=<SquareBackward(BLOCK_SIZE=64)>)")
    again = ops.SquareRuntimeOp(kernel=ops.SquareForward(BLOCK_SIZE=64), backward_kernel=ops.SquareBackward(BLOCK_SIZE=64),
                                grid=5, backward_text=ops.SquareBackward(BLOCK_SIZE=64))  # by the Rust names
    # a `String` field that `new` gives a kernel's source holds that kernel, and is checked as one
    assert ops.SquareRuntimeOp.FIELDS["backward_text"] == "kernel:SquareBackward"
    with pytest.raises(TypeError, match="field `backward_text` must be a configured SquareBackward kernel"):
        ops.SquareRuntimeOp(kernel=ops.SquareForward(BLOCK_SIZE=64), backward_kernel=ops.SquareBackward(BLOCK_SIZE=64),
                            grid=5, backward_text="source")
    x = _randn(100, dtype=torch.float64, grad=True)
    assert_matches("square", again.apply(x, out_shape=(100,)), x * x)
    assert torch.autograd.gradcheck(lambda t: op.apply(t, out_shape=(100,)), (x,))


# ------------------------------------------------------------------ what is and is not translated


def test_macro_written_impls_are_translated_and_cfg_is_rustc_s():
    result = rs2triton.transpile_file(SOURCE)
    assert set(result.host) == {"SquareForward", "WeighForward", "PadRowsForward", "JoinRuntimeOp",
                                "MomentsRuntimeOp", "SquareRuntimeOp", "TallyForward", "LaterForward"}
    assert ops.SquareForward(BLOCK_SIZE=64).has_backward()  # `#[cfg(feature = "training")]`: a default feature
    assert not ops.MomentsRuntimeOp.new(32, 0.1).has_backward()  # `#[cfg(feature = "no_such_feature")]`: gone


def test_the_crate_s_features_decide_cfg(tmp_path):
    crate = tmp_path / "crate"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\n\n[features]\ndefault = []\n'
                                      'training = []\n')
    shutil.copy(SOURCE, crate / "src" / "host_ops.rs")
    module = rs2triton.load(crate / "src" / "host_ops.rs")
    assert not module.SquareForward(BLOCK_SIZE=64).has_backward()  # no `training` here


def test_an_edited_manifest_is_read_again(tmp_path):
    """The manifest is read once while it is unchanged (a crate's files share it), and again once
    it is edited: a later transpile in the same process sees the features it enables now."""
    crate = tmp_path / "crate"
    (crate / "src").mkdir(parents=True)
    manifest = crate / "Cargo.toml"
    manifest.write_text('[package]\nname = "k"\n\n[features]\ndefault = []\ntraining = []\n')
    shutil.copy(SOURCE, crate / "src" / "host_ops.rs")
    assert "has_backward" not in rs2triton.transpile_file(crate / "src" / "host_ops.rs").text.split("class SquareForward")[1].split("\nclass ")[0]
    manifest.write_text('[package]\nname = "k"\n\n[features]\ndefault = ["training"]\ntraining = []\n')
    assert "has_backward" in rs2triton.transpile_file(crate / "src" / "host_ops.rs").text.split("class SquareForward")[1].split("\nclass ")[0]
    manifest.write_text('[package]\nname = "k"\n[features\n')
    from rs2triton.rust.cfg import manifest_problem

    problem = manifest_problem(str(crate / "src"))
    assert problem is not None and problem[0] == str(manifest) and "not valid TOML" in problem[3]


def test_a_stub_and_an_untranslated_method_raise_saying_why():
    result = rs2triton.transpile_file(SOURCE)
    [warning] = [w for w in result.warnings if w.code == "W0010"]
    assert "`LaterForward::grid` is not translated: `.try_fold()` of an iterator" in warning.message
    assert warning.line == SOURCE.read_text().splitlines().index(
        "        let n = output_shape.iter().try_fold(1usize, |a, &b| a.checked_mul(b)).unwrap();") + 1
    op = ops.LaterForward(BLOCK_SIZE=16)
    with pytest.raises(NotImplementedError, match="not implemented: LaterForward has no runtime support yet$"):
        op.n_activation_inputs()
    with pytest.raises(NotImplementedError, match="LaterForward.grid: not translated from Rust"):
        op.grid((4,))
    x = _randn(10)
    op[(1,)](x, 10)  # the kernel's launcher still works


def test_a_macro_that_cannot_be_expanded_is_a_located_warning():
    src = SOURCE.read_text() + "\nmacro_rules! odd { ($i:ident) => { struct $i; }; }\nodd!(1 + 2);\n"
    result = rs2triton.transpile_source(src, "odd.rs")
    [w] = [w for w in result.warnings if "odd!" in w.message]
    assert "no rule of `odd!` matches this invocation" in w.message and w.line == len(src.splitlines())


def test_a_kernel_without_impl_says_so():
    with pytest.raises(NotImplementedError, match="SquareBackward has no `impl RuntimeOp`"):
        ops.SquareBackward(BLOCK_SIZE=64).grid((10,))


# ------------------------------------------------------------------ apply, against torch


def test_apply_an_elementwise_op_and_its_gradient():
    op = ops.SquareForward(BLOCK_SIZE=128)
    x = _randn(1000)
    assert_matches("square", op.apply(x, out_shape=x.shape), x * x)
    xd = _randn(200, dtype=torch.float64, grad=True)
    assert torch.autograd.gradcheck(lambda t: op.apply(t, out_shape=t.shape), (xd,))


def test_apply_with_a_parameter_and_its_gradient():
    op = ops.WeighForward(BLOCK_SIZE=64)
    x, w = _randn(4, 25), _randn(4, 25, seed=1)
    assert_matches("weigh", op.apply(x, params=[w], out_shape=x.shape), x * w)
    xd, wd = _randn(3, 7, dtype=torch.float64, grad=True), _randn(3, 7, dtype=torch.float64, seed=2, grad=True)
    assert torch.autograd.gradcheck(lambda a, b: op.apply(a, params=[b], out_shape=(3, 7)), (xd, wd))


def test_apply_pads_output_rows_as_the_executor_does():
    op = ops.PadRowsForward(BLOCK_N=8)
    x = _randn(3, 5)
    assert op.forward_output_row_stride((3, 5)) == 8
    assert_matches("pad_rows", op.apply(x, out_shape=(3, 5)), 2 * x)


def test_apply_several_launches_and_their_gradients():
    op = ops.JoinRuntimeOp.new(64, 3)
    parts = [_randn(4, w, seed=i) for i, w in enumerate((2, 3, 5))]
    assert_matches("join", op.apply(*parts, out_shape=(4, 10)), torch.cat(parts, 1))
    grads = [p.double().requires_grad_() for p in parts]
    assert torch.autograd.gradcheck(lambda *t: op.apply(*t, out_shape=(4, 10)), tuple(grads))


def test_apply_with_pointer_offsets_into_the_output():
    op = ops.MomentsRuntimeOp.new(64, 1e-5)
    x = _randn(40, 3)
    out = op.apply(x, out_shape=(6,))
    assert_matches("mean", out[:3], x.mean(0))
    assert_matches("rms", out[3:], torch.rsqrt((x * x).mean(0) + 1e-5))


def test_apply_checks_before_anything_runs():
    op = ops.WeighForward(BLOCK_SIZE=64)
    x = _randn(10)
    with pytest.raises(TypeError, match=r"WeighForward.apply: takes 1 input \(n_activation_inputs\), got 2"):
        op.apply(x, x, params=[x], out_shape=(10,))
    with pytest.raises(ValueError, match="give the output shape .* rs2triton never guesses one"):
        op.apply(x, params=[x])
    with pytest.raises(ValueError, match=r"parameter `params\[0\]` has shape \[9\], but param_shapes asks for \[10\]"):
        op.apply(x, params=[_randn(9)], out_shape=(10,))
    with pytest.raises(TypeError, match="takes 1 parameter tensor"):
        op.apply(x, out_shape=(10,))
    with pytest.raises(ValueError, match="out= cannot be used where gradients are needed"):
        op.apply(_randn(10, grad=True), params=[x], out=torch.empty(10, device=DEVICE))
    with pytest.raises(TypeError, match=r"WeighForward.apply: params\[0\] must be a torch.Tensor, got list"):
        op.apply(x, params=[x.tolist()], out_shape=(10,))
    with pytest.raises(TypeError, match=r"params must be a list or tuple of tensors \(params=\[w\]\), got Tensor"):
        op.apply(x, params=x, out_shape=(10,))
    with pytest.raises(TypeError, match=r"WeighForward.apply: out_shape must be a sequence of ints"):
        op.apply(x, params=[x], out_shape=10)
    with pytest.raises(ValueError, match=r"param_shapes asks for \[10\] \(for input shapes \[\[10\]\]\)"):
        op.apply(x, params=[_randn(9)], out_shape=(10,))


def test_host_code_that_panics_on_the_shapes_given_is_a_value_error():
    # JoinRuntimeOp reads each input's width, `inputs[i].1[1]`: 1-D inputs have none (Rust panics)
    with pytest.raises(ValueError, match=r"JoinRuntimeOp.apply: teenygrad's host code for JoinRuntimeOp fails on "
                                         r"input shapes \[\[4\], \[4\]\] and output shape \[4, 8\] "
                                         r"\(Rust's panic: panicked at .*host_ops.rs:383: index out of bounds"):
        ops.JoinRuntimeOp.new(64, 2).apply(_randn(4), _randn(4), out_shape=(4, 8))


def test_a_visit_of_the_wrong_kind_is_caught_before_the_launch():
    class Wrong(type(ops.SquareForward(BLOCK_SIZE=64))):
        def pack_args(self, inputs, params, output, output_shape, output_row_stride):
            v = ArgVisitor()
            v.visit_ptr(inputs[0])
            v.visit_ptr(output)
            v.visit_f32(1.0)
            return v

    op = Wrong(ops.SquareForward, {"BLOCK_SIZE": 64}, {}, False)
    with pytest.raises(TypeError, match=r"SquareForward.pack_args visits an f32 \(visit_f32\) for parameter `n: i32`"):
        op.apply(_randn(10), out_shape=(10,))


def test_a_gradient_the_backward_does_not_compute_is_an_error():
    class NoWeightGrad(type(ops.WeighForward(BLOCK_SIZE=64))):
        def pack_backward_args(self, inputs, params, output, output_shape, grad_output, grad_output_row_stride,
                               grad_inputs, grad_params):
            args = super().pack_backward_args(inputs, params, output, output_shape, grad_output,
                                              grad_output_row_stride, grad_inputs, grad_params)
            args[4] = torch.empty_like(grad_params[0])  # dw goes to a scratch buffer
            return args

    op = NoWeightGrad(ops.WeighForward, {"BLOCK_SIZE": 64}, {}, False)
    x, w = _randn(8, grad=True), _randn(8, grad=True)
    y = op.apply(x, params=[w], out_shape=(8,))
    with pytest.raises(NotImplementedError, match="computes no gradient for parameter `params\\[0\\]`"):
        y.sum().backward()


def test_an_op_without_backward_cannot_be_differentiated():
    y = ops.PadRowsForward(BLOCK_N=8).apply(_randn(2, 3, grad=True), out_shape=(2, 3))
    with pytest.raises(RuntimeError, match="PadRowsForward has no backward in teenygrad"):
        y.sum().backward()


# ------------------------------------------------------------------ torch.library, in one call


def test_register_op_with_fake_and_autograd():
    square = rs2triton.register_op(ops.SquareForward(BLOCK_SIZE=128), "rs2triton_host_tests::square")
    x = _randn(300, dtype=torch.float64)
    assert_matches("torch.ops square", square([x], [], [300]), x * x)
    torch.library.opcheck(square.default, ([x], [], [300]))
    assert torch.autograd.gradcheck(lambda t: square([t], [], [40]), (x[:40].clone().requires_grad_(),))


def test_a_registered_op_computes_only_the_gradients_needed():
    # a backward that computes dx only (its dw goes to a scratch buffer): fine while w needs none
    class OnlyDx(type(ops.WeighForward(BLOCK_SIZE=64))):
        def pack_backward_args(self, inputs, params, output, output_shape, grad_output, grad_output_row_stride,
                               grad_inputs, grad_params):
            args = super().pack_backward_args(inputs, params, output, output_shape, grad_output,
                                              grad_output_row_stride, grad_inputs, [torch.empty_like(params[0])])
            return args

    op = OnlyDx(ops.WeighForward, {"BLOCK_SIZE": 64}, {}, False)
    weigh = rs2triton.register_op(op, "rs2triton_host_tests::only_dx")
    x, w = _randn(50, dtype=torch.float64, grad=True), _randn(50, dtype=torch.float64, seed=2)
    weigh([x], [w], [50]).sum().backward()
    assert_matches("dx", x.grad, w)
    with pytest.raises(NotImplementedError, match="computes no gradient for parameter `params\\[0\\]`"):
        weigh([x], [w.clone().requires_grad_()], [50]).sum().backward()


def test_an_op_that_writes_its_params_is_registered_as_mutating_them():
    tally = ops.TallyForward(BLOCK_SIZE=64)
    assert torch_ops.writes_params(tally)  # `total_ptr: InOut<...>` gets params[0]
    assert not torch_ops.writes_params(ops.WeighForward(BLOCK_SIZE=64))
    registered = rs2triton.register_op(tally, "rs2triton_host_tests::tally")
    x, total = _randn(50), torch.zeros(50, device=DEVICE)
    assert_matches("y", registered([x], [total], [50]), x)
    assert_matches("total", total, x)  # written in place, as declared
    torch.library.opcheck(registered.default, ([x], [torch.zeros(50, device=DEVICE)], [50]))
    unsaid = rs2triton.register_op(tally, "rs2triton_host_tests::tally_unsaid", mutates_params=False)
    with pytest.raises(ValueError, match=r"kernel TallyForward writes parameter `params\[0\]` \(as `total_ptr`.*"
                                         r"register_op\(\.\.\., mutates_params=True\)"):
        unsaid([x], [total], [50])


def test_register_ops_of_a_module_and_compile_them():
    registered = rs2triton.register_ops(ops, namespace="rs2triton_host_tests_all", consts={"BLOCK_SIZE": 64})
    assert {"SquareForward", "WeighForward"} <= set(registered) and "PadRowsForward" not in registered
    weigh = registered["WeighForward"]
    x, w = _randn(50), _randn(50, seed=3)
    compiled = torch.compile(lambda a, b: weigh([a], [b], [50]) + 1, fullgraph=True)
    assert_matches("compiled weigh", compiled(x, w), x * w + 1)


# What torch.compile does with a registered op on a GPU, traced here with fake CUDA tensors (no
# GPU needed): AOTAutograd decomposes a `triton_op` into its Triton kernels, one
# `triton_kernel_wrapper_functional` per launch, with the grid and arguments the host logic gives.
# (Compiled Triton mode, so in a process of its own: this one runs kernels on the interpreter.)
TRACE = """
import logging, sys, torch, rs2triton
from torch._subclasses.fake_tensor import FakeTensorMode
from torch._functorch.aot_autograd import aot_export_module
from torch._higher_order_ops.triton_kernel_wrap import kernel_side_table
logging.getLogger("torch._higher_order_ops.triton_kernel_wrap").setLevel(logging.ERROR)  # (no driver here)
ops = rs2triton.load(sys.argv[1], interpret=False)
weigh = rs2triton.register_op(ops.WeighForward(BLOCK_SIZE=64), "trace_test::weigh")
join = rs2triton.register_op(ops.JoinRuntimeOp.new(64, 2), "trace_test::join")
def launches(module, *shapes):
    with FakeTensorMode(allow_non_fake_inputs=True):
        args = tuple(torch.empty(s, device="cuda") for s in shapes)
    gm, _ = aot_export_module(module, args, trace_joint=False)
    for n in gm.graph.nodes:
        if n.target is torch.ops.higher_order.triton_kernel_wrapper_functional:
            kw = {k: v if isinstance(v, int) else "T" for k, v in n.kwargs["kwargs"].items()}
            print(kernel_side_table.get_kernel(n.kwargs["kernel_idx"]).fn.__name__, n.kwargs["grid"], kw)
class Forward(torch.nn.Module):
    def forward(self, x, w, a, b):
        return weigh([x], [w], [200]) + 1, join([a, b], [], [4, 7])
class Backward(torch.nn.Module):
    def forward(self, x, w, y, g):
        return torch.ops.trace_test.weigh_backward([x], [w], y, g, [200], [True, True])
launches(Forward(), (200,), (200,), (4, 3), (4, 4))
launches(Backward(), (200,), (200,), (200,), (200,))
"""


def test_registered_ops_trace_into_their_triton_kernels_for_torch_compile():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", TRACE, str(SOURCE)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "weigh_forward [(4, 1, 1)] {'x_ptr': 'T', 'w_ptr': 'T', 'y_ptr': 'T', 'n': 200, 'BLOCK_SIZE': 64}",
        # the wrapper op's two launches, one per input, the second at its column offset
        "join_forward [(4, 1, 1)] {'x_ptr': 'T', 'y_ptr': 'T', 'width': 3, 'total': 7, 'offset': 0, 'BLOCK_SIZE': 64}",
        "join_forward [(4, 1, 1)] {'x_ptr': 'T', 'y_ptr': 'T', 'width': 4, 'total': 7, 'offset': 3, 'BLOCK_SIZE': 64}",
        "weigh_backward [(4, 1, 1)] {'dy_ptr': 'T', 'x_ptr': 'T', 'w_ptr': 'T', 'dx_ptr': 'T', 'dw_ptr': 'T', "
        "'n': 200, 'BLOCK_SIZE': 64}",
    ], proc.stdout


# ------------------------------------------------------------------ what users read


def test_help_shows_the_kernel_s_and_the_op_s_doc_comments():
    doc = ops.SquareForward.__doc__
    assert "`y = x * x`, element by element." in doc and "Grid: `[cdiv(n, BLOCK_SIZE)]`." in doc
    assert "`impl RuntimeOp for SquareForward`" in doc
    assert "Joins `n_inputs` `[rows, width_i]` matrices side by side." in ops.JoinRuntimeOp.__doc__
    assert "Rows rounded up to a multiple of `ROUND_TO` elements." in \
        type(ops.PadRowsForward(BLOCK_N=8)).forward_output_row_stride.__doc__


def test_rs2triton_kernels_shows_each_op_s_host_logic():
    from click.testing import CliRunner

    from rs2triton.cli import main

    res = CliRunner().invoke(main, ["kernels", str(SOURCE)])
    assert res.exit_code == 0, res.output
    lines = {line.split(": ", 2)[1].split(" ")[0]: line for line in res.output.splitlines()
             if "(an op holding kernels)" in line}
    join = lines["JoinRuntimeOp"]
    assert "built by new(block_size, n_inputs)" in join and "inputs self.n_inputs" in join
    assert "launches self.n_inputs" in join and "has a backward" in join
    assert "built by new(block_n, eps)" in lines["MomentsRuntimeOp"]
    assert "has a backward" not in lines["MomentsRuntimeOp"]  # its has_backward is cfg'd out
    square = next(line for line in res.output.splitlines() if "impl RuntimeOp" in line and "vec![input_shapes[0].to_vec(); 0]" in line)
    assert "param shapes vec![input_shapes[0].to_vec(); 0]" in square and "has a backward" in square  # macro-written
