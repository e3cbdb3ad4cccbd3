"""benchmarks/bench_transpile.py runs: one tiny round, two checkouts taking turns."""

import subprocess
import sys

from tests.conftest import ROOT


def test_the_transpile_benchmark_runs_and_compares_two_checkouts():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_transpile.py"), "--rounds", "1",
                          "--files", "2", "--against", str(ROOT)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    rows = {line.split("  ")[0].strip() for line in res.stdout.splitlines()}
    assert {"parse", "cold transpile", "incremental check", "cold transpile (against)",
            "incremental check (against)"} <= rows
