"""The project's own code is ruff-clean (pyproject.toml's rules)."""

import subprocess

from tests.conftest import ROOT
from tests.ruff_format import ruff as _ruff


def test_project_is_ruff_clean():
    proc = subprocess.run([_ruff(), "check", "--output-format", "concise", "."], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
