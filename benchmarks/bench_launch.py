"""What a launcher adds per call: its checks and argument binding, against calling the jit function.

    python benchmarks/bench_launch.py [--gpu]

Without a GPU (any machine): both paths end in a stand-in for the ``@triton.jit``
function that launches nothing -- a Triton ``KernelInterface`` whose ``run`` returns
at once, so ``fn[grid](...)`` goes through Triton's own grid proxy as a real
launch does -- and the difference is exactly the launcher's own Python work
(building the launch, binding and checking every argument), free of interpreter
or driver noise. With ``--gpu`` (torch sees a GPU): real launches of the compiled
kernels, synchronised at the end of each batch, both ways.

Prints microseconds per call: the best of 300 batches of 200 calls, the ways
measured in turn within each round (in an order shuffled per round), so that a
noisy machine, which only ever adds time, slows them alike and the best batches
compare. (On a shared machine a whole run is at times about 1.5x slower, the
jit function too; the overhead grows with it: rerun and read the quicker run.)
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GPU = "--gpu" in sys.argv
if not GPU:
    os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402
from triton.runtime.jit import KernelInterface  # noqa: E402

import rs2triton  # noqa: E402
from rs2triton.runtime import Launcher  # noqa: E402

CALLS, ROUNDS = 200, 300


class NoLaunch(KernelInterface):
    """Stands in for a ``@triton.jit`` function: ``fn[grid](*args, **kw)`` goes through Triton's
    grid proxy (``KernelInterface.__getitem__``) to a ``run`` that returns at once."""

    def run(self, *args, grid, warmup, **kwargs):
        return None


def stand_in(launcher: Launcher) -> Launcher:
    out = Launcher(NoLaunch(), launcher.name, params=launcher.params, consts=launcher.consts,
                   dtypes=launcher.dtypes, access=launcher.access)
    out.interpreted = True  # the stand-in takes CPU tensors, as the interpreter does
    return out


def per_call_us(*ways) -> list[float]:
    """Each way's best time per call, over rounds that run every way once, in turn."""
    best = [float("inf")] * len(ways)
    order = list(enumerate(ways))
    shuffle = random.Random(0).shuffle
    for _ in range(ROUNDS):
        shuffle(order)  # (so that no periodic noise keeps landing on one way)
        for i, fn in order:
            start = time.perf_counter()
            for _ in range(CALLS):
                fn()
            if GPU:
                torch.cuda.synchronize()
            best[i] = min(best[i], (time.perf_counter() - start) / CALLS * 1e6)
    return best


def cases(device: str):
    vadd = rs2triton.load(ROOT / "kernels_rs" / "vector_add.rs")
    n = 4096
    a, b, out = (torch.randn(n, device=device) for _ in range(3))
    yield ("vector_add, 4 args", vadd.vector_add, vadd.VectorAdd, (a, b, out, n), {"BLOCK_SIZE": 1024},
           {"a_ptr": a, "b_ptr": b, "out_ptr": out, "n_elements": n}, (4,))
    mm = rs2triton.load(ROOT / "kernels_rs" / "matmul.rs")
    m = 64
    x, y, z = (torch.randn(m, m, device=device) for _ in range(3))
    margs = (x, y, z, m, m, m, m, 1, m, 1, m, 1)
    consts = {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}
    yield ("matmul, 12 args", mm.matmul, mm.Matmul, margs, consts,
           dict(zip(mm.Matmul.params, margs, strict=True)), (2, 2))


def main() -> None:
    device = "cuda" if GPU else "cpu"
    if GPU and not torch.cuda.is_available():
        sys.exit("--gpu: torch sees no GPU")
    what = "real launches on " + torch.cuda.get_device_name(0) if GPU else "launch replaced by a no-op"
    print(f"launcher overhead ({what}); us per call, best of {ROUNDS} x {CALLS} calls")
    print(f"{'kernel':<20} {'jit fn':>8} {'positional':>11} {'by name':>8} {'overhead':>9}")
    for label, jit, launcher, args, consts, named, grid in cases(device):
        if not GPU:
            jit, launcher = NoLaunch(), stand_in(launcher)
        configured = launcher(**consts)
        direct, positional, by_name = per_call_us(lambda: jit[grid](*args, **consts),
                                                  lambda: configured[grid](*args),
                                                  lambda: configured[grid](**named))
        print(f"{label:<20} {direct:8.2f} {positional:11.2f} {by_name:8.2f} {positional - direct:+8.2f}")


if __name__ == "__main__":
    main()
