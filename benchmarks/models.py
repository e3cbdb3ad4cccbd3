"""Whole models on teenygrad's kernels: a 1-layer GPT-2 and a tiny Qwen3 (transformers configs,
nothing downloaded), forward and one training step under torch.compile with the teenygrad
backend, against the same models run eagerly.

    python benchmarks/models.py [--tree PATH] [--only gpt2|qwen3] [--batch 2] [--seq 8] [--steps 1]

``--tree``: teenygrad's ``kernels/teeny-kernels/src`` (the feature branch; export it with
``git -C /work/.mirror/teenygrad+teenygrad/repo archive feature/3w0-tile-dsl-welder-scheduler |
tar -x -C /tmp/tg-feat``, the default path): the backend is set up with
``kernels=[tree, "kernels_rs"]``, teenygrad's ops first and the project's own for what teenygrad
lacks (docs/kernels.md); ``--tree none`` runs on kernels_rs alone (what tests/test_models.py
checks). On a CPU the kernels run under Triton's interpreter (``TRITON_INTERPRET=1``, set here
where no GPU is found). For each model it prints the backend's report (per torch operation, which
tree's op ran it forward and backward, and what ran on torch and why), the largest absolute
difference from eager of the logits, the loss, the gradients and the parameters after an SGD
step, and the wall time of the compiled and the eager step.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TREE = Path("/tmp/tg-feat/kernels/teeny-kernels/src")


def _device() -> str:
    import torch

    if torch.cuda.is_available():
        return "cuda"
    os.environ.setdefault("TRITON_INTERPRET", "1")
    return "cpu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=str(TREE), help="teeny-kernels/src of teenygrad's feature branch, or none")
    parser.add_argument("--only", choices=("gpt2", "qwen3"))
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seq", type=int, default=8)
    parser.add_argument("--steps", type=int, default=1)
    args = parser.parse_args(argv)
    device = _device()

    import torch

    import rs2triton
    from tests.test_models import VOCAB, gpt2, qwen3

    kernels: list = [str(ROOT / "kernels_rs")]
    if args.tree != "none":
        if not Path(args.tree).is_dir():
            print(f"models.py: {args.tree} is no folder: export teenygrad's feature branch there (see --help), "
                  "or give --tree none", file=sys.stderr)
            return 1
        kernels.insert(0, args.tree)
    print(f"kernels={kernels}, device {device}{' (Triton interpreter)' if device == 'cpu' else ''}, "
          f"torch {torch.__version__}")
    for name, make in (("gpt2", gpt2), ("qwen3", qwen3)):
        if args.only and name != args.only:
            continue
        torch.manual_seed(0)
        torch._dynamo.reset()
        eager = make().to(device).float()
        model = copy.deepcopy(eager)
        backend = rs2triton.torch_backend(kernels, name=f"models_{name}")
        compiled = torch.compile(model, backend=backend)
        optimizers = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (eager, model)]
        errors: dict[str, float] = {}
        times = {"compiled": 0.0, "eager": 0.0}
        for step in range(args.steps):
            ids = torch.randint(0, VOCAB, (args.batch, args.seq), generator=torch.Generator().manual_seed(step))
            ids = ids.to(device)
            outs = {}
            for way, fn in (("compiled", compiled), ("eager", eager)):
                start = time.perf_counter()
                out = fn(input_ids=ids, labels=ids)
                out.loss.backward()
                optimizers[way == "compiled"].step()
                if device == "cuda":
                    torch.cuda.synchronize()
                times[way] += time.perf_counter() - start
                outs[way] = out
            _worst(errors, "logits", outs["compiled"].logits, outs["eager"].logits)
            _worst(errors, "loss", outs["compiled"].loss, outs["eager"].loss)
            for p, q in zip(model.parameters(), eager.parameters(), strict=True):
                _worst(errors, "gradients", p.grad, q.grad)
                _worst(errors, "parameters after the step", p, q)
            for opt in optimizers:
                opt.zero_grad()
        report = backend.report()
        print(f"\n== {name}: {sum(p.numel() for p in eager.parameters())} parameters, batch {args.batch}, "
              f"sequence {args.seq}, {args.steps} step(s)")
        print(report)
        print(f"nodes on kernels: {_calls(report)}; calls on torch: {report.total_fallbacks}")
        print("max abs error vs eager: " + ", ".join(f"{k} {v:.3g}" for k, v in errors.items()))
        print(f"wall time: compiled {times['compiled']:.2f} s (the first step compiles), eager {times['eager']:.3f} s")
    return 0


def _worst(errors: dict, what: str, got, want) -> None:
    if got is None or want is None:
        errors[what] = float("inf")
        return
    errors[what] = max(errors.get(what, 0.0), float((got.detach().float() - want.detach().float()).abs().max()))


def _calls(report) -> int:
    return sum(sum(row.ran.values()) for row in report.rows.values())


if __name__ == "__main__":
    sys.exit(main())
