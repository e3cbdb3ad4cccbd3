"""Compile batches of kernels for GPU targets in a subprocess (Triton in compile mode)."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT


def compile_in_subprocess(requests: list[dict]) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-W", "ignore", "-m", "rs2triton.tools.aot"],
                          input=json.dumps(requests), capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout)
