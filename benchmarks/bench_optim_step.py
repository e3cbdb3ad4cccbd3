"""What a compiled optimizer step costs per call on the teenygrad backend, against ``backend="eager"``.

    python benchmarks/bench_optim_step.py [--calls N] [--rounds N] [--params N] [--optimizer Adam|AdamW|SGD]

``torch.compile(opt.step)`` of an optimizer over ``--params`` parameter tensors (8 of 64 f32
elements by default), compiled two ways: ``backend="eager"`` (Dynamo's graph run node by node on
torch's CPU kernels: for Adam some 20 operators per parameter) and the teenygrad backend
(``rs2triton/backend/optim.py``: one launch of the optimizer kernel per parameter, its host
scalars computed from the step count). The kernel's launches are no-ops (a Triton
``KernelInterface`` whose ``run`` returns at once, as ``bench_backend.py`` does; the launcher
takes its fast path, as on a GPU), so the teenygrad figure is the backend's own Python per step,
the step count's increment and AOTAutograd's wrapper included; eager's includes torch's CPU
arithmetic on 64 elements a tensor: next to nothing. Microseconds per step: the best of
``--rounds`` batches of ``--calls``, the ways alternated.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402
from bench_backend import NoLaunch, per_call_us  # noqa: E402  (this folder: the launches made no-ops, the timer)

import rs2triton  # noqa: E402
from rs2triton.backend.optim import _KERNELS, OPERATION  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--params", type=int, default=8)
    ap.add_argument("--optimizer", default="Adam", choices=("Adam", "AdamW", "SGD"))
    args = ap.parse_args()
    backend = rs2triton.torch_backend(ROOT / "kernels_rs", name="bench_optim")
    steps = {}
    for name in ("eager", "teenygrad"):
        torch.manual_seed(0)
        params = [torch.nn.Parameter(torch.randn(64)) for _ in range(args.params)]
        for p in params:
            p.grad = torch.randn(64)
        opt = getattr(torch.optim, args.optimizer)(params, lr=1e-3)
        steps[name] = torch.compile(opt.step, backend="eager" if name == "eager" else backend)
    steps["eager"]()
    steps["teenygrad"]()  # (compiles, and finds the kernel: its launches are no-ops from here on)
    for configured, _ in (k for k in _KERNELS[backend].values() if isinstance(k, tuple)):
        configured.launcher.fn, configured.launcher.checks_accesses = NoLaunch(), False
        configured._checked, configured._grids = None, {}  # (the fast path is made at the next launch)
    steps["teenygrad"]()
    assert backend.report().ran(OPERATION) == 2 * args.params, backend.report()
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(args.rounds):
        for name, fn in steps.items():
            best[name] = min(best[name], per_call_us(fn, args.calls))
    print(f"compiled {args.optimizer} step over {args.params} parameters of 64 elements, us per step "
          f"(best of {args.rounds} x {args.calls}; teenygrad launches no-ops)")
    for name, us in best.items():
        print(f"{name:<10} {us:9.1f} us  {us / args.params:6.2f} us/parameter  {us / best['eager']:6.2f}x eager")


if __name__ == "__main__":
    main()
