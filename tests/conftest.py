import os
import sys
import tempfile
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# In-process kernels run on Triton's CPU interpreter unless RS2TRITON_TEST_DEVICE=cuda
# (a GPU machine). The mode is fixed when triton is first imported, so it is set here,
# before anything imports triton. GPU *compilation* checks run in a subprocess
# (see tests/compile_helper.py), so they work on any machine.
DEVICE = os.environ.get("RS2TRITON_TEST_DEVICE", "cpu")
if DEVICE == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"
else:
    os.environ.pop("TRITON_INTERPRET", None)
os.environ.setdefault("RS2TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="rs2triton-test-cache-"))
# teenygrad's feature-branch tree, exported (`git archive feature/3w0-tile-dsl-welder-scheduler`):
# the tests marked `teenygrad` run its kernels. They are opt-in (pyproject.toml deselects them:
# run `pytest -m teenygrad`), since a clean machine has no copy and the project ships none; selected
# without the tree they fail, saying how to export it (docs/testing.md).
TEENYGRAD_SRC = Path(os.environ.get("RS2TRITON_TEENYGRAD", "/tmp/tg-feat")) / "kernels" / "teeny-kernels" / "src"
warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")

# Property tests assert behaviour, not time: Hypothesis's per-example deadline (200 ms) failed a
# line-map round trip on a loaded 2-core machine. Timing lives in benchmarks/.
from hypothesis import settings  # noqa: E402

settings.register_profile("rs2triton", deadline=None)
settings.load_profile("rs2triton")


def jit_sources(text: str) -> dict[str, str]:
    """Each ``@triton.jit`` function of a generated module by name: its text up to the next one
    (the last one's runs to the end of the module)."""
    import re

    parts = re.split(r"\n(?=@triton\.jit\n)", text)
    return {re.search(r"def (\w+)\(", p).group(1): p for p in parts[1:]}


@pytest.fixture
def launches(monkeypatch):
    """The names of the kernels launched through ``apply``, in order (a spy on its one launch
    path), for the backend's tests."""
    from rs2triton.runtime import apply

    seen: list[str] = []
    real = apply._launch

    def spy(op, kernel, args, grid, method, torch_op=False, labels=None):
        seen.append(kernel.launcher.name)
        return real(op, kernel, args, grid, method, torch_op, labels)

    monkeypatch.setattr(apply, "_launch", spy)
    return seen


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "teenygrad: runs teenygrad's feature-branch kernels (opt-in: pytest -m teenygrad)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("teenygrad") and not TEENYGRAD_SRC.is_dir():
        pytest.fail(f"no teenygrad tree at {TEENYGRAD_SRC}: export the feature branch "
                    "(git -C <teenygrad clone> archive feature/3w0-tile-dsl-welder-scheduler | tar -x -C <dir>) "
                    "and set RS2TRITON_TEENYGRAD=<dir>", pytrace=False)
