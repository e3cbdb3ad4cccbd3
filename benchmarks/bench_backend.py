"""What the teenygrad torch.compile backend adds per graph node, against torch's eager dispatch.

    python benchmarks/bench_backend.py [--calls N] [--rounds N]

Each node is run as the rewritten graph runs it (``Backend.run``: bind the call to the row's
schema, find the shape's plan, prepare the views, run the op's host logic — ``pack_args``,
``grid``, the launch checks), with the kernel launch itself replaced by a no-op (as
``bench_launch.py`` does), so what is measured is the backend's own Python work; beside it,
torch's eager call of the same operation (which computes on the CPU: the comparison says how
the backend's overhead compares with a dispatch, not with a kernel). No-grad forward calls.
Microseconds per call: the best of ``--rounds`` batches of ``--calls``, the ways alternated.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import rs2triton  # noqa: E402
from rs2triton.runtime import apply  # noqa: E402
from rs2triton.runtime.torch_mapping import TABLE  # noqa: E402


def best(fn, calls: int) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=30)
    args = ap.parse_args()
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="bench_backend", register=False)
    apply._launch = lambda *a, **k: None  # the kernels: no-ops
    rows = {e.name: e for e in TABLE}
    x, w, b = torch.randn(64, 256), torch.randn(128, 256), torch.randn(128)
    cases = [
        ("relu", (x,), {}, F.relu),
        ("add", (x, x), {}, torch.add),
        ("softmax", (x,), {"dim": -1}, torch.softmax),
        ("linear", (x, w, b), {}, F.linear),
    ]
    print(f"{'node':<10}{'backend us':>12}{'torch eager us':>16}{'ratio':>8}")
    with torch.no_grad():
        for name, a, kw, ref in cases:
            entry = rows[name]
            backend.run(entry, a, kw, ref, name)  # (plans the shape once)
            assert backend.report().ran(name) == 1, backend.report()
            ours, theirs = [], []
            for _ in range(args.rounds):
                ours.append(best(lambda: backend.run(entry, a, kw, ref, name), args.calls))
                theirs.append(best(lambda: ref(*a, **kw), args.calls))
            o, t = min(ours), min(theirs)
            print(f"{name:<10}{o:>12.1f}{t:>16.1f}{o / t:>8.2f}")


if __name__ == "__main__":
    main()
