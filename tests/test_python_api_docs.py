"""Every example in docs/python-api.md runs: Python blocks in order in one fresh process, shell commands, TOML."""

import os
import re
import shlex
import subprocess
import sys

import pytest

import rs2triton
from tests.conftest import DEVICE, ROOT

DOC = (ROOT / "docs" / "python-api.md").read_text()
GPU_MARK = "# needs a GPU"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)


def _env(interpret_env: bool = True):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if DEVICE == "cpu" and interpret_env:
        env["TRITON_INTERPRET"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.mark.parametrize("interpret_env", [True, False], ids=["TRITON_INTERPRET=1", "verbatim"])
def test_python_examples_run(interpret_env):
    # Verbatim: no TRITON_INTERPRET, and the examples import triton before rs2triton loads a
    # kernel; on a machine without a GPU they still run (on the interpreter).
    blocks = _blocks("python")
    assert len(blocks) >= 7
    gpu = [b for b in blocks if b.startswith(GPU_MARK)]
    assert len(gpu) == 1, "the torch.compile example is the one block that needs a GPU"
    run = [b for b in blocks if DEVICE != "cpu" or not b.startswith(GPU_MARK)]
    code = "\n".join(run) + "\nprint('DOC EXAMPLES OK')\n"
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=ROOT, env=_env(interpret_env),
                          capture_output=True, text=True, timeout=600)
    assert proc.stdout.strip().endswith("DOC EXAMPLES OK"), proc.stdout + proc.stderr


def test_shell_examples_run():
    (block,) = _blocks("sh")
    command = shlex.split(block.replace("\\\n", " "))
    assert command[0] == "rs2triton"
    proc = subprocess.run([sys.executable, "-W", "ignore", "-m", "rs2triton", *command[1:]], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = _blocks("text")[0]
    for line in shown.splitlines():
        if line.strip() != "..." and (DEVICE == "cpu" or "interpreter" not in line):
            assert line in proc.stdout, (line, proc.stdout)


def test_toml_example_is_a_valid_tuning_table(tmp_path):
    (block,) = _blocks("toml")
    (tmp_path / "pyproject.toml").write_text(block)
    (tmp_path / "vector_add.rs").write_text((ROOT / "kernels_rs" / "vector_add.rs").read_text())
    text = rs2triton.transpile_file(tmp_path / "vector_add.rs").text
    assert '{"BLOCK_SIZE": 1024, "num_warps": 8}' in text
    sweep = re.search(r"# or: (sweep = \{.*\})", block).group(1)  # the alternative in the comment
    (tmp_path / "pyproject.toml").write_text(f"[tool.rs2triton.tune.vector_add]\n{sweep}\n")
    text = rs2triton.transpile_file(tmp_path / "vector_add.rs").text
    assert text.count('"num_warps"') == 4  # 2 x 2 combinations

