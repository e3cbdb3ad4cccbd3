"""rs2triton.load: importing .rs files, caching, and the interpreter/GPU decision."""

import os
import subprocess
import sys
import textwrap

import pytest

import rs2triton
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


def _python(code: str, interpret: bool | None):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if interpret:
        env["TRITON_INTERPRET"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-W", "ignore", "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


def test_load_returns_the_cached_module_with_kernel_signatures():
    first = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs")
    assert rs2triton.load(ROOT / "kernels_rs" / "matmul.rs") is first
    info = first.__rs2triton_kernels__["matmul"]
    assert [p.name for p in info.params][:3] == ["a_ptr", "b_ptr", "c_ptr"]
    assert [c.name for c in info.consts] == ["BLOCK_M", "BLOCK_N", "BLOCK_K"]
    assert info.accepted_dtypes("D")[:2] == ("f32", "f64")


def test_load_imports_a_generated_py_file(tmp_path):
    res = rs2triton.transpile_file(ROOT / "kernels_rs" / "relu.rs")
    path = tmp_path / "relu_gen.py"
    path.write_text(res.text)
    mod = rs2triton.load(path)
    import torch

    dy, y = torch.randn(50), torch.randn(50)
    dx = torch.empty(50)
    mod.relu_backward[(1,)](dy.to(DEVICE), y.to(DEVICE), dx_dev := dx.to(DEVICE), 50, BLOCK_SIZE=64)
    assert_matches("dx_ptr", dx_dev, torch.where(y > 0, dy, 0.0))


def test_a_file_without_kernels_is_an_error(tmp_path):
    path = tmp_path / "empty.rs"
    path.write_text("pub struct S;\n")
    with pytest.raises(ValueError, match="no #\\[kernel\\]"):
        rs2triton.load(path)


@pytest.mark.skipif(DEVICE != "cpu", reason="the case is a machine without a GPU (this one has one)")
def test_triton_imported_first_on_a_machine_without_gpu_still_runs_kernels():
    # `import triton` before `rs2triton.load`, no GPU: Triton's Python modules are imported again
    # for the interpreter, and a kernel that uses Triton's standard library (tl.max, tl.sum) runs.
    proc = _python("""
        import torch, triton
        import rs2triton
        softmax = rs2triton.load("kernels_rs/softmax.rs")
        x = torch.randn(4, 64)
        y = torch.empty_like(x)
        softmax.SoftmaxForward(BLOCK_SIZE=64)[(4,)](x, y, 4, 64, 64)
        print(torch.allclose(y, torch.softmax(x, 1), atol=1e-6), triton.cdiv(10, 3))
    """, interpret=False)
    assert proc.stdout.split() == ["True", "4"], proc.stdout + proc.stderr


def test_asking_for_the_other_mode_after_import_is_explained():
    proc = _python("""
        import triton, rs2triton
        try:
            rs2triton.load("kernels_rs/relu.rs", interpret=False)
        except rs2triton.loading.loader.BackendError as e:
            print("BackendError:", e)
    """, interpret=True)
    assert "already imported for the CPU interpreter" in proc.stdout, proc.stderr


def test_load_picks_the_interpreter_before_triton_is_imported():
    proc = _python("""
        import sys, torch, rs2triton
        assert "triton" not in sys.modules
        mod = rs2triton.load("kernels_rs/vector_add.rs")
        a = torch.arange(10.0); out = torch.empty(10)
        mod.vector_add[(1,)](a, a, out, 10, BLOCK_SIZE=16)
        print(out.tolist() == (2 * a).tolist(), rs2triton.loading.loader.triton_mode())
    """, interpret=None)
    if DEVICE == "cpu":
        assert proc.stdout.split() == ["True", "True"], proc.stderr
