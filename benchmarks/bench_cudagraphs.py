"""What ``mode="reduce-overhead"`` saves on a GPU: a small MLP's training step (forward, backward,
no optimizer) under torch.compile, per call, four ways in one run:

    python benchmarks/bench_cudagraphs.py [--steps N] [--rounds N] [--batch B] [--width W]

``eager`` (no compile); ``teenygrad`` (the backend over kernels_rs: a generated wrapper per graph
launching Triton kernels); ``teenygrad+cudagraphs`` (the same under ``mode="reduce-overhead"``:
the wrappers recorded in CUDA graphs by torch's CUDA-graph trees, ``rs2triton/backend/cudagraphs.py``);
``inductor+cudagraphs`` (torch's own compiler under the same mode), for scale. Microseconds per
step, the best of ``--rounds`` batches of ``--steps`` (synchronised), and whether the backend's
graphs were recorded (its report). Small shapes on purpose: this measures launch overhead, which
CUDA graphs remove. Needs a CUDA device (run by benchmarks/gpu_checks.sh).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import rs2triton  # noqa: E402


def model(width: int) -> torch.nn.Module:
    torch.manual_seed(0)
    layers: list[torch.nn.Module] = []
    for _ in range(4):
        layers += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers, torch.nn.Linear(width, 8)).cuda()


def per_step_us(run, x: torch.Tensor, steps: int, rounds: int) -> float:
    for _ in range(3):  # (warm-up: compiles, records the CUDA graphs)
        run(x).square().mean().backward()
    best = float("inf")
    for _ in range(rounds):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(steps):
            run(x).square().mean().backward()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t) / steps * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--width", type=int, default=64)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench_cudagraphs.py needs a CUDA device")
    backend = rs2triton.torch_backend(ROOT / "kernels_rs")
    x = torch.randn(args.batch, args.width, device="cuda")
    ways = {
        "eager": lambda m: m,
        "teenygrad": lambda m: torch.compile(m, backend="teenygrad"),
        "teenygrad+cudagraphs": lambda m: torch.compile(m, backend="teenygrad", mode="reduce-overhead"),
        "inductor+cudagraphs": lambda m: torch.compile(m, mode="reduce-overhead"),
    }
    times = {}
    for name, make in ways.items():
        torch._dynamo.reset()
        backend.reset_report()
        times[name] = per_step_us(make(model(args.width)), x, args.steps, args.rounds)
        recorded = dict(backend.report().cuda_graphs) if name.startswith("teenygrad") else ""
        print(f"{name:22s} {times[name]:9.1f} us/step  {recorded}")
    print(f"teenygrad+cudagraphs / teenygrad: {times['teenygrad+cudagraphs'] / times['teenygrad']:.2f}x; "
          f"/ eager: {times['teenygrad+cudagraphs'] / times['eager']:.2f}x; "
          f"/ inductor+cudagraphs: {times['teenygrad+cudagraphs'] / times['inductor+cudagraphs']:.2f}x")


if __name__ == "__main__":
    main()
