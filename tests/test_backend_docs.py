"""Every example of docs/torch-backend.md runs, in order, in one process, and prints what the doc shows."""

import os
import re
import subprocess
import sys

from tests.conftest import DEVICE, ROOT

DOC = (ROOT / "docs" / "torch-backend.md").read_text()


def test_examples_run_and_print_what_the_doc_shows():
    blocks = re.findall(r"```python\n(.*?)```", DOC, re.S)
    shown = re.findall(r"```text\n(.*?)```", DOC, re.S)
    assert len(blocks) == 5 and len(shown) == 2
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    if DEVICE == "cpu":
        env["TRITON_INTERPRET"] = "1"
    env["PYTHONPATH"] = str(ROOT)
    code = "\n".join(blocks) + "\nprint('DOC EXAMPLES OK')\n"
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.stdout.strip().endswith("DOC EXAMPLES OK"), proc.stdout + proc.stderr
    for text in shown:
        assert text.strip() in proc.stdout, (text, proc.stdout)
