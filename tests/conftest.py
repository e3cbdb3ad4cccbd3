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
