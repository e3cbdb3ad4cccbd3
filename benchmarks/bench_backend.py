"""What the teenygrad torch.compile backend costs per call of a graph, against ``backend="eager"``.

    python benchmarks/bench_backend.py [--calls N] [--rounds N] [--shape 4 8] [--only WAY]

A 20-node elementwise graph (relu, add, mul, tanh, five times over; x and y 4x8 f32 unless
``--shape`` says otherwise), compiled two ways and run three: ``backend="eager"`` (Dynamo's
graph run node by node on torch's CPU kernels); the teenygrad backend as it runs (its generated
wrapper per graph and shape set: ``rs2triton/backend/wrapper.py``); and the teenygrad backend
with the wrapper's generation off (``wrapper.GENERATE = False``), so that every call runs node
by node through the rows' plans and the ops' host logic, as the backend did before the wrapper.
The teenygrad kernels' launches are no-ops (a Triton ``KernelInterface`` whose ``run`` returns
at once, as ``bench_launch.py`` stands in for the jit function; the launchers take their
generated fast path, as on a GPU), so what the teenygrad figures measure is the backend's own
Python; eager's includes torch's CPU arithmetic, on 32 elements a node: next to nothing.
No-grad calls. Microseconds per call of the whole graph: the best of ``--rounds`` batches of
``--calls``, the ways alternated. ``--only`` runs one way (eager, generated, per-node), for a
profiler (callgrind: docs/benchmarks.md).
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
from triton.runtime.jit import KernelInterface  # noqa: E402

import rs2triton  # noqa: E402
from rs2triton.backend import wrapper  # noqa: E402
from rs2triton.runtime import Launcher  # noqa: E402


class NoLaunch(KernelInterface):
    def run(self, *args, grid, warmup, **kwargs):
        return None


def graph(x, y):
    for _ in range(5):
        x = torch.relu(x)
        x = x + y
        x = x * y
        x = torch.tanh(x)
    return x


def per_call_us(fn, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--only", choices=("eager", "generated", "per-node"))
    ap.add_argument("--shape", type=int, nargs="+", default=[4, 8])
    args = ap.parse_args()
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="bench_backend")
    for op in backend.tree.ops.values():
        if isinstance(op, Launcher):  # the launches: no-ops, through the launcher's fast path
            op.fn, op.checks_accesses = NoLaunch(), False
    x, y = torch.randn(*args.shape), torch.randn(*args.shape)
    ways = {}
    with torch.no_grad():
        if args.only in (None, "eager"):
            ways["eager"] = torch.compile(graph, backend="eager")
        ours = torch.compile(graph, backend="bench_backend")  # (one graph: GENERATE says how it runs)
        if args.only in (None, "generated"):
            ways["generated"] = ours
        if args.only in (None, "per-node"):
            ways["per-node"] = ours
        for name, fn in ways.items():
            wrapper.GENERATE = name != "per-node"
            fn(x, y)
            fn(x, y)
        report = backend.report()
        assert report.total_fallbacks == 0 and report.ran("relu", "forward") >= 5, report
        best = dict.fromkeys(ways, float("inf"))
        for _ in range(args.rounds):
            for name, fn in ways.items():
                wrapper.GENERATE = name != "per-node"
                best[name] = min(best[name], per_call_us(lambda fn=fn: fn(x, y), args.calls))
    print(f"20-node elementwise graph, us per call (best of {args.rounds} x {args.calls}; teenygrad launches no-ops)")
    for name, us in best.items():
        ratio = f"{us / best['eager']:6.2f}x eager" if "eager" in best else ""
        print(f"{name:<10} {us:9.1f} us  {us / 20:6.2f} us/node  {ratio}")


if __name__ == "__main__":
    main()
