"""Launchers: named and positional launches match torch; every bad launch is an error, and nothing runs."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest
import torch
import triton

import rs2triton
from rs2triton.transpiler.pyast import launcher_name
from tests.cases import CASES
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches

LAUNCH_RS = ROOT / "tests" / "kernels" / "launch.rs"


def _dev(args):
    return {k: v.to(DEVICE) if isinstance(v, torch.Tensor) else v for k, v in args.items()}


def _check(case, dtype, args, dev_args):
    for name, want in case.reference(args).items():
        assert_matches(name, dev_args[name], want, atol=case.atol[dtype], rtol=case.rtol[dtype])


@pytest.mark.parametrize("by", ["position", "name"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_launcher_matches_torch(case, by):
    module = rs2triton.load(case.file)
    launcher = getattr(module, launcher_name(case.kernel))
    dtype = case.dtypes[0]
    args = case.make_args(dtype, torch.Generator().manual_seed(7))
    dev_args = _dev(args)
    launch = launcher(**case.consts)[case.grid(args)]
    if by == "position":
        launch(*dev_args.values())
    else:  # by Rust name, in reverse order
        launch(**dict(reversed(dev_args.items())))
    _check(case, dtype, args, dev_args)


def test_grid_callable_sees_arguments_and_constants():
    mod = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    x = torch.randn(1000, device=DEVICE)
    y = torch.empty_like(x)
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton.cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)

    mod.ReluForward(BLOCK_SIZE=128, num_warps=2)[grid](x, y_ptr=y, n_elements=1000)
    assert seen["n_elements"] == 1000 and seen["BLOCK_SIZE"] == 128
    assert_matches("y_ptr", y, x.relu())


@pytest.fixture(scope="module")
def axpy():
    return rs2triton.load(LAUNCH_RS).Axpy


def _axpy_args(dtype=torch.float32, n=100):
    x = torch.arange(n, dtype=dtype, device=DEVICE)
    return {"x_ptr": x, "y_ptr": torch.ones(n, dtype=dtype, device=DEVICE),
            "index_ptr": torch.zeros(n, dtype=torch.int32, device=DEVICE), "alpha": 2, "n": n, "accumulate": True}


@pytest.mark.xfail(DEVICE == "cpu" and tuple(int(v) for v in triton.__version__.split(".")[:2]) < (3, 7),
                   strict=True, reason="Triton 3.6's interpreter cannot take bool scalar arguments (it can from 3.9)")
def test_scalars_typed_by_the_dtype_parameter_and_bools(axpy):
    args = _axpy_args()
    axpy(BLOCK=64)[(2,)](**args)  # alpha=2 (an int) is passed as a float: D is f32
    assert_matches("y_ptr", args["y_ptr"], [2 * i + 1 for i in range(100)])
    assert_matches("index_ptr", args["index_ptr"], list(range(100)))
    iargs = _axpy_args(torch.int32)
    axpy(BLOCK=64)[(2,)](*iargs.values())
    assert_matches("y_ptr", iargs["y_ptr"], [2 * i + 1 for i in range(100)])


def test_signature_metadata(axpy):
    assert axpy.access == {"x_ptr": "in", "y_ptr": "inout", "index_ptr": "out"}
    assert axpy.consts == {"BLOCK": "i32"}
    assert axpy.params["index_ptr"] == "*i32" and axpy.params["alpha"] == "D"
    assert "i32" in axpy.dtypes["D"] and "bool" not in axpy.dtypes["D"]
    with pytest.raises(AttributeError, match="`AxpyBackward` is not defined in the module that defines Axpy"):
        _ = axpy.backward


def test_backward_pairs_resolve_to_launchers():
    mod = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    assert mod.ReluForward.backward is mod.ReluBackward
    assert mod.ReluBackward.backward is None


def test_backward_pairs_resolve_in_a_module_never_registered(tmp_path):
    # spec_from_file_location + exec_module, no sys.modules entry: the pair is found through the
    # jit function's globals, which are the module's however it was imported.
    gen = tmp_path / "relu_unregistered.py"
    gen.write_text(rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs").text)
    spec = importlib.util.spec_from_file_location("relu_unregistered", gen)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert "relu_unregistered" not in sys.modules
    assert module.ReluForward.backward is module.ReluBackward
    assert repr(module.ReluForward(BLOCK_SIZE=64).backward_kernel()) == "<ReluBackward(BLOCK_SIZE=64)>"


# (what to change in the Axpy arguments, the error type, a piece of the message)
BAD_ARGS = {
    "missing": (lambda a: a.pop("n"), TypeError, "Axpy: missing argument `n: i32`"),
    "unknown": (lambda a: a.update(acumulate=True), TypeError, "no parameter `acumulate` (did you mean `accumulate`?)"),
    "const at launch": (lambda a: a.update(BLOCK=64), TypeError, "`BLOCK` is a const generic; give it when building"),
    "not a tensor": (lambda a: a.update(x_ptr=[1.0] * 100), TypeError, "`x_ptr: T::Pointer<D>` must be a torch.Tensor (or an object with data_ptr() and a torch dtype), got list"),
    "dtypes differ": (lambda a: a.update(y_ptr=a["y_ptr"].double()), TypeError,
                      "`y_ptr` has dtype torch.float64 but `x_ptr` has torch.float32; both are `T::Pointer<D>`"),
    "dtype not accepted": (lambda a: a.update(x_ptr=a["x_ptr"].bool(), y_ptr=a["y_ptr"].bool()), TypeError,
                           "`x_ptr: T::Pointer<D>` has dtype torch.bool, but `D` accepts f32"),
    "concrete pointer dtype": (lambda a: a.update(index_ptr=a["index_ptr"].long()), TypeError,
                               "`index_ptr: T::Pointer<i32>` must have dtype torch.int32, got torch.int64"),
    "devices differ": (lambda a: a.update(index_ptr=torch.empty(100, dtype=torch.int32, device="meta")), ValueError,
                       "`index_ptr` is on meta but `x_ptr` is on"),
    "all on meta": (lambda a: a.update({k: torch.empty_like(v, device="meta") for k, v in a.items()
                                        if isinstance(v, torch.Tensor)}), ValueError,
                    "`x_ptr` is a meta tensor (a shape with no data)"),
    "i32 out of range": (lambda a: a.update(n=2**31), ValueError, "`n: i32` must be in i32 range [-2147483648, 2147483647], got 2147483648"),
    "i32 not an int": (lambda a: a.update(n=100.0), TypeError, "`n: i32` must be an int, got float 100.0"),
    "bool given an int": (lambda a: a.update(accumulate=1), TypeError, "`accumulate: bool` must be a bool, got int 1"),
    "f32 out of range": (lambda a: a.update(alpha=1e39), ValueError, "`alpha: D` is out of f32 range"),
    # (past f32::MAX by half a unit or more: Rust's `3.4028236e38f32` is infinity, and rustc refuses it)
    "f32 just out of range": (lambda a: a.update(alpha=3.4028236e38), ValueError, "`alpha: D` is out of f32 range"),
    "float for an int D": (lambda a: a.update(x_ptr=a["x_ptr"].int(), y_ptr=a["y_ptr"].int(), alpha=0.5), TypeError,
                           "`alpha: D` must be an int, got float 0.5"),
    "bool is not an int": (lambda a: a.update(n=True), TypeError, "`n: i32` must be an int, got bool True"),
}


def test_f32_max_as_rust_writes_it_is_f32_max():
    """`3.4028235e38` (f32::MAX as Rust prints it, a little above it as a double) rounds to
    f32::MAX, as Rust rounds it; the kernel gets exactly that."""
    from rs2triton.runtime.values import check_scalar

    assert check_scalar("f32", 3.4028235e38, "alpha") == 3.4028234663852886e38
    assert check_scalar("f32", -3.4028235e38, "alpha") == -3.4028234663852886e38
    assert check_scalar("f32", float("inf"), "alpha") == float("inf")


@pytest.mark.parametrize("change", BAD_ARGS.values(), ids=BAD_ARGS.keys())
def test_bad_arguments_are_errors_and_nothing_runs(axpy, change):
    edit, error, message = change
    args = _axpy_args()
    edit(args)
    y_before = args["y_ptr"].clone() if isinstance(args.get("y_ptr"), torch.Tensor) else None
    with pytest.raises(error) as info:
        axpy(BLOCK=64)[(2,)](**args)
    assert message in str(info.value)
    if y_before is not None and args["y_ptr"].device.type != "meta":
        assert torch.equal(args["y_ptr"], y_before), "a failed check must launch nothing"


def test_positional_errors(axpy):
    a = list(_axpy_args().values())
    with pytest.raises(TypeError, match=r"Axpy: takes 6 arguments \(x_ptr, y_ptr, index_ptr, alpha, n, accumulate\) but 7"):
        axpy(BLOCK=64)[(2,)](*a, 1)
    with pytest.raises(TypeError, match="Axpy: got argument `x_ptr` twice"):
        axpy(BLOCK=64)[(2,)](*a[:5], accumulate=True, x_ptr=a[0])
    with pytest.raises(TypeError, match="missing arguments `n: i32`, `accumulate: bool`"):
        axpy(BLOCK=64)[(2,)](*a[:4])
    named = _axpy_args()
    named["count"] = named.pop("n")  # as many names as parameters, one of them wrong
    with pytest.raises(TypeError, match="Axpy: no parameter `count`"):
        axpy(BLOCK=64)[(2,)](**named)


@pytest.mark.parametrize("consts,error,message", [
    ({}, TypeError, "Axpy(): missing const generic `BLOCK: i32`"),
    ({"BLOCK": 2**31}, ValueError, "const generic `BLOCK: i32` must be in i32 range"),
    ({"BLOCK": 64.0}, TypeError, "const generic `BLOCK: i32` must be an int, got float"),
    ({"BLOCK": 64, "BLOK": 1}, TypeError, "unexpected keyword `BLOK` (did you mean `BLOCK`?)"),
    ({"BLOCK": 64, "num_wraps": 4}, TypeError, "unexpected keyword `num_wraps` (did you mean `num_warps`?)"),
    ({"BLOCK": 64, "num_stages": 10**9}, ValueError, "`num_stages` must be from 0 to 16, got 1000000000"),
    ({"BLOCK": 64, "maxnreg": 4096}, ValueError, "`maxnreg` must be from 1 to 255, got 4096"),
])
def test_bad_construction(axpy, consts, error, message):
    with pytest.raises(error) as info:
        axpy(**consts)
    assert message in str(info.value)


@pytest.mark.parametrize("grid", [(), (1, 2, 3, 4), (1.5,), "8", (True,)])
def test_bad_grid(axpy, grid):
    with pytest.raises(TypeError, match="Axpy: the grid must be 1 to 3 ints or a callable"):
        axpy(BLOCK=64)[grid]


def test_bind_shows_what_would_be_launched(axpy):
    args = _axpy_args()
    values, keywords = axpy(BLOCK=64, num_warps=2).bind(**args, num_stages=1)
    assert values[3] == 2.0 and isinstance(values[3], float)
    assert keywords == {"BLOCK": 64, "num_warps": 2, "num_stages": 1}


def _python(code: str, env_extra: dict):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"} | env_extra
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


@pytest.mark.skipif(DEVICE != "cpu", reason="needs a machine without a GPU")
def test_cpu_tensors_for_a_gpu_kernel_are_an_error(tmp_path):
    # Triton imported for compilation: launchers target the GPU, so CPU tensors are refused before launch.
    gen = tmp_path / "relu_gen.py"
    gen.write_text(rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs").text)
    proc = _python(f"""
        import importlib.util, torch
        spec = importlib.util.spec_from_file_location("relu_gen", {str(gen)!r})
        mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
        x = torch.randn(10)
        try:
            mod.ReluForward(BLOCK_SIZE=16)[(1,)](x, x, 10)
        except ValueError as e:
            print("ValueError:", e)
    """, {})
    assert ("ValueError: ReluForward: argument `x_ptr` is a CPU tensor, but ReluForward runs on the GPU"
            in proc.stdout), proc.stdout + proc.stderr


def test_plain_output_has_no_launchers():
    plain = rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs", launchers=False).text
    assert "rs2triton" not in plain.split("\n", 1)[1] and "Launcher" not in plain
    full = rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs").text
    for fn in plain.split("\n\n\n@triton.jit")[1:]:  # the same kernels, with launchers (and host logic) after
        assert "\n\n\n@triton.jit" + fn.split("\n\n\n")[0] in full
    assert "ReluForward = Launcher(" in full and "op=ReluForwardOp" in full


def test_launcher_name_clash_is_a_diagnostic():
    src = LAUNCH_RS.read_text().replace("pub fn axpy<", "pub fn launcher<")
    with pytest.raises(rs2triton.TranspileError) as info:
        rs2triton.transpile_source(src, "clash.rs")
    d = info.value.diagnostics[0]
    assert d.code == "E0007" and "launcher `Launcher` would clash" in d.message and d.line == 9
    assert rs2triton.transpile_source(src, "clash.rs", launchers=False).text


def test_launcher_names_follow_teenygrad():
    assert launcher_name("relu_forward") == "ReluForward"
    assert launcher_name("conv2d_bn_silu_gemm") == "Conv2dBnSiluGemm"
    assert launcher_name("matmul") == "Matmul"


def test_kernels_command_lists_launchers_and_backward_pairs():
    from click.testing import CliRunner

    from rs2triton.cli import main

    res = CliRunner().invoke(main, ["kernels", str(ROOT / "kernels_rs" / "relu.rs"), str(LAUNCH_RS)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "ReluForward(BLOCK_SIZE: i32) -> relu_forward(x_ptr: *D, y_ptr: *D, n_elements: i32)" in out
    assert out.count("backward: ReluBackward") == 1 and "backward: AxpyBackward" in out
    assert "axpy(in x_ptr: *D, inout y_ptr: *D, out index_ptr: *i32, alpha: D, n: i32, accumulate: bool)" in out


def test_rust_names_that_are_python_keywords(tmp_path):
    # Lowering renames `from` / `lambda` / `tl` (from_, lambda_, tl_); launchers keep the Rust names.
    rs = tmp_path / "keywords.rs"
    rs.write_text("#[kernel]\npub fn kw<T: Triton, const lambda: i32>(tl: T::Pointer<f32>, from: i32) {\n"
                  "    T::store(tl.add_offsets(0), (from + lambda) as f32, None, &[], None, None);\n}\n")
    mod = rs2triton.load(rs)
    assert mod.Kw.names == {"tl": "tl_", "from": "from_", "lambda": "lambda_"}
    out = torch.zeros(1, device=DEVICE)
    mod.Kw(**{"lambda": 5})[lambda meta: (meta["lambda"] - 4,)](tl=out, **{"from": 3})
    assert out.item() == 8
    tuned = mod.Kw.autotune([{"lambda": 1}, {"lambda": 2}], key=["from"])
    tuned()[(1,)](out, 100)
    assert out.item() == 100 + tuned.best_config["lambda"]
    # Raw identifiers: `r#type` is `type` to a caller (and to the jit function).
    raw = tmp_path / "raw.rs"
    raw.write_text("#[kernel]\npub fn raw<T: Triton, const r#BLOCK: i32>(out: T::Pointer<f32>, r#type: i32) {\n"
                   "    T::store(out.add_offsets(0), (r#type + r#BLOCK) as f32, None, &[], None, None);\n}\n")
    rmod = rs2triton.load(raw)
    assert rmod.Raw.params == {"out": "*f32", "type": "i32"} and rmod.Raw.names == {}
    rmod.Raw(BLOCK=4)[(1,)](out=out, type=3)
    assert out.item() == 7
    # A kernel named like a Python keyword: the jit function is `pass_`, the launcher `Pass`.
    text = rs2triton.transpile_source(rs.read_text().replace("pub fn kw<", "pub fn pass<"), "pass.rs").text
    assert "def pass_(" in text and "Pass = Launcher(\n    pass_,\n" in text


def test_kernel_dtypes_attribute_limits_the_accepted_dtypes(tmp_path):
    rs = tmp_path / "only_f16.rs"
    rs.write_text((ROOT / "kernels_rs" / "relu.rs").read_text().replace(
        "#[kernel(backward = ReluBackward)]", "#[kernel(dtypes = [f16, bf16], backward = ReluBackward)]"))
    mod = rs2triton.load(rs)
    assert mod.ReluForward.dtypes == {"D": ("f16", "bf16")} and mod.ReluBackward.dtypes["D"][0] == "f32"
    x = torch.randn(10, device=DEVICE)
    with pytest.raises(TypeError, match=r"`x_ptr: T::Pointer<D>` has dtype torch.float32, but `D` accepts f16, bf16"):
        mod.ReluForward(BLOCK_SIZE=16)[(1,)](x, torch.empty_like(x), 10)
    h = x.half()
    y = torch.empty_like(h)
    mod.ReluForward(BLOCK_SIZE=16)[(1,)](h, y, 10)
    assert torch.equal(y, h.relu())


def _matmul_launch(mm, dtype):
    a, b = torch.randn(20, 16, device=DEVICE).to(dtype), torch.randn(16, 24, device=DEVICE).to(dtype)
    c = torch.full((20, 24), 7.0, device=DEVICE, dtype=dtype)
    mm.Matmul(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)[(2, 2)](a, b, c, 20, 24, 16, *a.stride(), *b.stride(), *c.stride())
    return a, b, c


def test_the_interpreter_refuses_the_dtypes_it_computes_wrongly():
    """Triton's interpreter (3.6 and 3.9) computes bf16 arithmetic wrongly in any kernel (relu returns
    its input) and `tl.dot` of f64 tensors wrongly (1e296): a launch there is refused, naming the
    kernel, the parameter, the dtype, why and what to do, and nothing runs; an f64 kernel without a
    dot (relu) runs, and compiled (on a GPU) nothing is refused."""
    from rs2triton.runtime.values import interpreter_dtype_problem

    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    mm = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs")
    assert mm.Matmul.uses == {"dot"} and relu.ReluForward.uses == frozenset()  # (the transpiler's fact)
    x = torch.linspace(-3, 3, 8, device=DEVICE)
    y = torch.linspace(-3, 3, 8, device=DEVICE).double()
    relu.ReluForward(BLOCK_SIZE=8)[(1,)](x.double(), y, 8)
    assert torch.equal(y, x.double().relu())
    if DEVICE != "cpu":  # compiled: nothing to refuse
        assert interpreter_dtype_problem(relu.ReluForward, torch.bfloat16) is None
        assert interpreter_dtype_problem(mm.Matmul, torch.float64) is None
        return
    for by_name in (False, True):
        out = torch.full((8,), 5.0, dtype=torch.bfloat16)
        with pytest.raises(TypeError, match=r"ReluForward: argument `x_ptr: T::Pointer<D>` has dtype torch.bfloat16: "
                                            r"Triton's CPU interpreter \(TRITON_INTERPRET=1\) cannot run ReluForward in "
                                            r"torch.bfloat16: its bfloat16 arithmetic is wrong .*run it on a GPU, or in "
                                            r"another dtype here"):
            if by_name:
                relu.ReluForward(BLOCK_SIZE=8)[(1,)](x_ptr=x.bfloat16(), y_ptr=out, n_elements=8)
            else:
                relu.ReluForward(BLOCK_SIZE=8)[(1,)](x.bfloat16(), out, 8)
        assert torch.equal(out, torch.full((8,), 5.0, dtype=torch.bfloat16))  # nothing ran
    with pytest.raises(TypeError, match=r"Matmul: argument `a_ptr: T::Pointer<D>` has dtype torch.float64: .*its "
                                        r"`tl.dot` of float64 tensors is wrong"):
        _matmul_launch(mm, torch.float64)
    a, b, c = _matmul_launch(mm, torch.float32)
    assert torch.allclose(c, a @ b, atol=1e-4)
    # the helper the torch backend asks before a launch: of a configured kernel or of its launcher
    assert "tl.dot" in interpreter_dtype_problem(mm.Matmul(BLOCK_M=16, BLOCK_N=16, BLOCK_K=16), torch.float64)
    assert interpreter_dtype_problem(mm.Matmul, torch.float32) is None
    assert interpreter_dtype_problem(relu.ReluForward, torch.float64) is None
    assert "bfloat16 arithmetic" in interpreter_dtype_problem(relu.ReluBackward, torch.bfloat16)
    assert mm.Matmul.autotune([{"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}]).uses == {"dot"}


def test_the_fast_path_leaves_a_dtype_the_interpreter_computes_wrongly_to_the_general_path():
    """Where a launcher on the interpreter takes the generated binder (no access checks), a bf16
    tensor still reaches the general path's refusal."""
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    launcher = relu.ReluForward.autotune([{"BLOCK_SIZE": 8}])  # (a launcher of its own: its flag is its own)
    if not launcher.interpreted:
        pytest.skip("compiled: nothing is refused")
    launcher.checks_accesses = False
    kernel = launcher(BLOCK_SIZE=8)
    assert not kernel._general
    f = torch.linspace(-1, 1, 8)
    out = torch.empty_like(f)
    kernel[(1,)](f, out, 8)  # the fast path, which f32 takes
    assert torch.equal(out, f.relu()) and kernel._checked is not None
    with pytest.raises(TypeError, match="has dtype torch.bfloat16: Triton's CPU interpreter"):
        kernel[(1,)](f.bfloat16(), out.bfloat16(), 8)


def test_the_transpiler_records_a_dot_its_kernel_reaches_through_helpers():
    import ast

    from rs2triton.transpiler.emit.facts import kernel_uses

    module = ast.parse("def k(a):\n    return h(a)\n\ndef h(a):\n    return g(a) + tl.sum(a)\n\n"
                       "def g(a):\n    return tl.dot(a, a)\n\ndef r(a):\n    return r(a) + tl.sum(a)\n")
    fns = {f.name: f for f in module.body}
    assert kernel_uses(fns["k"], fns) == ["dot"] and kernel_uses(fns["g"], fns) == ["dot"]
    assert kernel_uses(fns["k"], {}) == [] and kernel_uses(fns["r"], fns) == []  # (a recursive helper ends)
    # written into the launcher's facts only where there is one
    text = rs2triton.transpile_source((ROOT / "kernels_rs" / "matmul.rs").read_text(), "matmul.rs").text
    assert '    facts={\n        "uses": ["dot"],\n        "stores": ["c_ptr"],\n' in text
    add = rs2triton.transpile_source((ROOT / "kernels_rs" / "vector_add.rs").read_text(), "vector_add.rs").text
    assert '"uses"' not in add and '"stores": ["out_ptr"]' in add


class _Pointer:
    """What Triton takes for a pointer: an object with data_ptr() and a torch dtype (and here a device)."""

    def __init__(self, t, device=True):
        self.t, self.dtype = t, t.dtype
        if device:
            self.device = t.device

    def data_ptr(self):
        return self.t.data_ptr()


@pytest.mark.parametrize("device", [True, False])
def test_a_duck_typed_pointer_is_taken_as_triton_takes_it_or_refused_on_the_interpreter(device):
    relu = rs2triton.load(ROOT / "kernels_rs" / "relu.rs")
    x = torch.linspace(-1, 1, 8, device=DEVICE)
    y = torch.zeros(8, device=DEVICE)
    forward = relu.ReluForward(BLOCK_SIZE=8)
    if not forward.launcher.interpreted:  # compiled: Triton launches on its data_ptr()
        forward[(1,)](_Pointer(x, device), _Pointer(y, device), 8)
        assert torch.equal(y, x.relu())
        return
    with pytest.raises(TypeError, match=r"ReluForward: argument `x_ptr: T::Pointer<D>` is a _Pointer \(an object with "
                                        r"data_ptr\(\) and dtype\), which Triton's CPU interpreter cannot launch on: it "
                                        r"copies each pointer argument's storage .*pass a torch.Tensor, or launch on a GPU"):
        forward[(1,)](_Pointer(x, device), y, 8)
    with pytest.raises(TypeError, match=r"argument `y_ptr: T::Pointer<D>` is a _Pointer"):
        forward[(1,)](x_ptr=x, y_ptr=_Pointer(y, device), n_elements=8)
    assert torch.equal(y, torch.zeros(8))  # nothing ran
    with pytest.raises(TypeError, match=r"argument `x_ptr: T::Pointer<D>` must be a torch.Tensor \(or an object with "
                                        r"data_ptr\(\) and a torch dtype\), got list"):
        forward[(1,)]([1.0] * 8, y, 8)
