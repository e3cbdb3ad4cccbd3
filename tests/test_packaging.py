"""Packaging: one top-level package in the wheel, and a light install that transpiles without torch/triton."""

import email
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

import rs2triton
from tests.conftest import ROOT

HEAVY = ("torch", "triton", "numpy")


def _python(code: str, cwd, **env) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    full_env.pop("TRITON_INTERPRET", None)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=full_env, capture_output=True, text=True)


def test_transpile_check_and_show_import_no_torch_triton_or_numpy(tmp_path):
    shutil.copytree(ROOT / "kernels_rs", tmp_path / "src")
    code = f"""
import sys
from rs2triton.cli import main
for args in (["transpile", "src", "-o", "out"], ["check", "src", "-o", "out"], ["show", "src/matmul.rs"]):
    try:
        main(args, standalone_mode=False)
    except SystemExit as e:
        assert not e.code, (args, e.code)
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})
print("HEAVY:", heavy, file=sys.stderr)
"""
    proc = _python(code, tmp_path, RS2TRITON_NO_CACHE="1")  # cold: every stage of lowering runs
    assert proc.returncode == 0, proc.stderr
    assert "HEAVY: []" in proc.stderr
    assert (tmp_path / "out" / "matmul.py").read_text() in proc.stdout  # show printed the module


BLOCK_RUN_EXTRA = "import sys\nfor m in ('torch', 'triton'):\n    sys.modules[m] = None  # as if not installed\n"


def test_run_names_the_missing_extra(tmp_path):
    code = BLOCK_RUN_EXTRA + f"""
from rs2triton.cli import main
main(["run", {str(ROOT / "kernels_rs" / "relu.rs")!r}, "relu_forward", "--grid", "1", "-c", "BLOCK_SIZE=16",
      "-a", "x_ptr=16", "-a", "y_ptr=16", "-a", "n_elements=16"])
"""
    proc = _python(code, tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "error: rs2triton run needs triton, torch" in proc.stderr
    assert "pip install 'rs2triton[run]'" in proc.stderr


def test_load_names_the_missing_extra(tmp_path):
    code = BLOCK_RUN_EXTRA + f"""
import rs2triton
from rs2triton.loading.loader import MissingExtraError
try:
    rs2triton.load({str(ROOT / "kernels_rs" / "relu.rs")!r})
except MissingExtraError as e:
    assert isinstance(e, ImportError)
    print(e)
"""
    proc = _python(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "rs2triton.load needs triton, torch" in proc.stdout and "pip install 'rs2triton[run]'" in proc.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel `pip wheel` builds from a clean copy of the project."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "rs2triton", src / "rs2triton", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                           "-w", str(tmp / "dist"), str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (whl,) = (tmp / "dist").glob("*.whl")
    return whl


def test_wheel_installs_one_top_level_package_with_its_template(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"rs2triton-{rs2triton.__version__}.dist-info"
    assert {n.split("/")[0] for n in names} == {"rs2triton", dist_info}
    assert "rs2triton/templates/module.py.j2" in names
    assert "rs2triton/__main__.py" in names and "rs2triton/cli.py" in names
    assert f"{dist_info}/top_level.txt" not in names or zipfile.ZipFile(wheel).read(
        f"{dist_info}/top_level.txt").decode().split() == ["rs2triton"]


def test_wheel_metadata_light_dependencies_run_extra_and_version(wheel):
    zf = zipfile.ZipFile(wheel)
    dist_info = f"rs2triton-{rs2triton.__version__}.dist-info"
    meta = email.message_from_bytes(zf.read(f"{dist_info}/METADATA"))
    assert meta["Version"] == rs2triton.__version__
    requires = meta.get_all("Requires-Dist")
    light = [r for r in requires if "extra ==" not in r]
    assert sorted(r.split(">")[0].split("=")[0].split("<")[0].strip() for r in light) == [
        "click", "jinja2", "tomli", "tree-sitter", "tree-sitter-rust"]  # tomli: Python 3.10 only
    run = [r for r in requires if 'extra == "run"' in r]
    assert sorted(r.split(">")[0].strip() for r in run) == ["numpy", "torch", "triton"]
    assert "rs2triton = rs2triton.__main__:main" in zf.read(f"{dist_info}/entry_points.txt").decode()
