"""The opt-in import hook: `import pkg.relu` finds pkg/relu.rs and follows edits to it."""

import importlib
import shutil
import sys

import pytest
import torch

import rs2triton
from rs2triton.loading import hook
from tests.conftest import DEVICE, ROOT
from tests.numerics import assert_matches


@pytest.fixture
def package(tmp_path, monkeypatch):
    pkg = tmp_path / "hooked_kernels"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    shutil.copy(ROOT / "kernels_rs" / "relu.rs", pkg / "relu.rs")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield pkg
    hook.remove()
    for name in [m for m in sys.modules if m.startswith("hooked_kernels")]:
        del sys.modules[name]


def _relu(mod, x):
    y = torch.empty_like(x)
    mod.ReluForward(BLOCK_SIZE=64)[(2,)](x, y, x.numel())
    return y


def test_without_the_hook_rs_files_are_not_modules(package):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("hooked_kernels.relu")


def test_import_finds_the_rs_file_and_follows_edits(package):
    rs2triton.install_import_hook("hooked_kernels")
    mod = importlib.import_module("hooked_kernels.relu")
    x = torch.randn(100, device=DEVICE)
    assert_matches("y_ptr", _relu(mod, x), x.relu())
    assert mod.__rs2triton_source__ == str(package / "relu.rs")
    assert mod.__spec__.origin == str(package / "relu.rs")
    assert mod.ReluForward.backward is mod.ReluBackward
    # Edit the Rust source: the next import (here a reload) transpiles it again.
    rs = package / "relu.rs"
    edited = rs.read_text().replace("let y = T::where_(x.lt(zero), zero, x);", "let y = T::minimum(x, zero);")
    assert edited != rs.read_text()
    rs.write_text(edited)
    mod = importlib.reload(mod)
    assert_matches("y_ptr", _relu(mod, x), x.clamp(max=0))


def test_only_the_named_packages_and_python_modules_first(package):
    (package / "softmax.py").write_text("WHO = 'python'\n")
    shutil.copy(ROOT / "kernels_rs" / "softmax.rs", package / "softmax.rs")
    rs2triton.install_import_hook("some_other_package")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("hooked_kernels.relu")
    rs2triton.install_import_hook()  # every package
    assert importlib.import_module("hooked_kernels.softmax").WHO == "python"
    assert importlib.import_module("hooked_kernels.relu").ReluForward.name == "ReluForward"
    assert sum(isinstance(f, hook.RustKernelFinder) for f in sys.meta_path) == 1


def test_namespace_packages_work_too():
    # kernels_rs/ has no __init__.py: a namespace package on sys.path (the repository root).
    rs2triton.install_import_hook("kernels_rs")
    try:
        mod = importlib.import_module("kernels_rs.vector_add")
        a = torch.arange(10.0, device=DEVICE)
        out = torch.empty_like(a)
        mod.VectorAdd(BLOCK_SIZE=16)[(1,)](a, a, out, 10)
        assert_matches("out_ptr", out, 2 * a)
    finally:
        hook.remove()
        sys.modules.pop("kernels_rs.vector_add", None)
