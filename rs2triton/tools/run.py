"""Running a kernel from the command line: build inputs, launch, summarise.

``rs2triton run FILE.rs KERNEL --grid ... --const ... --arg ...``: pointer
arguments get generated tensors of the given shape, scalars the given values.
The backend (CUDA / ROCm / the CPU interpreter) is chosen before the kernels
are imported, see :mod:`rs2triton.loading.loader`.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rs2triton.rust.types import FLOAT_TYPES, TORCH_DTYPES
from rs2triton.transpiler.frontend.items import Kernel
from rs2triton.transpiler.pyast import python_name

# Accept torch spellings on the command line too.
DTYPE_ALIASES = {v: k for k, v in TORCH_DTYPES.items()} | {"half": "f16", "float": "f32", "double": "f64"}


Scalar = bool | int | float  # a scalar argument's or a const generic's value, as the command line gives it


class RunError(Exception):
    """A mistake in the run request (missing argument, bad value): exit code 1."""


_DEBUG_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}


def quoted(text: str) -> str:
    """``text`` as Rust's ``{:?}`` shows a string: in double quotes, with ``"``, ``\\``, tab, CR,
    LF and NUL escaped and every other character that is not printable written ``\\u{1b}``, so
    nothing a user typed acts on the terminal or passes for another line of the message."""
    return '"' + "".join(_DEBUG_ESCAPES.get(c) or (c if c.isprintable() else f"\\u{{{ord(c):x}}}")
                         for c in text) + '"'


@dataclass
class Backend:
    kind: str  # "cuda" | "hip" | "interpreter"
    name: str
    device: str  # torch device string

    def describe(self) -> str:
        if self.kind == "interpreter":
            return "Triton CPU interpreter (TRITON_INTERPRET=1; no GPU visible to torch)"
        return f"{'ROCm' if self.kind == 'hip' else 'CUDA'} GPU: {self.name}"


def detect_backend(interpret: bool | None = None) -> Backend:
    from rs2triton.loading.loader import use_interpreter

    if use_interpreter(interpret):
        return Backend("interpreter", "cpu", "cpu")
    import torch

    kind = "hip" if getattr(torch.version, "hip", None) else "cuda"
    return Backend(kind, torch.cuda.get_device_name(0), "cuda")


@dataclass
class RunReport:
    backend: Backend
    kernel: str
    grid: tuple[int, ...]
    seconds: float
    outputs: dict[str, Any] = field(default_factory=dict)  # name -> tensor (after the launch)
    inputs: dict[str, Any] = field(default_factory=dict)  # name -> tensor/scalar (before)
    changed: set[str] = field(default_factory=set)


def parse_kv(items: tuple[str, ...], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        if "=" not in item:
            raise RunError(f"{what} {quoted(item)} must look like NAME=VALUE")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def parse_grid(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in text.replace("x", ",").split(",") if x.strip())
    except ValueError:
        raise RunError(f"--grid `{text}` must be 1 to 3 positive integers, e.g. 8 or 4,2") from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise RunError(f"--grid `{text}` must be 1 to 3 positive integers, e.g. 8 or 4,2")
    return dims


def _shape(text: str, name: str) -> tuple[int, ...]:
    spelled = text.strip().lower()
    if not re.fullmatch(r"[1-9][0-9]*(?:[x,][1-9][0-9]*)*", spelled):
        raise RunError(f"pointer argument `{name}` needs a tensor size such as 1000 or 64x32, got `{text}`")
    return tuple(int(x) for x in re.split(r"[x,]", spelled))


def _scalar(text: str, rust_type: str, name: str) -> Scalar:
    try:
        if rust_type == "bool":
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError
            return text.lower() in ("true", "1")
        if rust_type in FLOAT_TYPES:
            return float(text)
        return int(text, 0)
    except ValueError:
        raise RunError(f"scalar argument `{name}: {rust_type}` cannot take the value `{text}`") from None


def build_args(kernel: Kernel, specs: dict[str, str], dtype: str | None, device: str, seed: int) -> dict[str, Any]:
    """Each parameter's argument by its Rust name: a generated tensor for a pointer, else a :data:`Scalar`."""
    import torch

    unknown = set(specs) - {p.name for p in kernel.params}
    if unknown:
        raise RunError(f"`{kernel.name}` has no parameter {', '.join(sorted(unknown))}; "
                       f"its parameters are {', '.join(p.name for p in kernel.params)}")
    missing = [p.name for p in kernel.params if p.name not in specs]
    if missing:
        raise RunError("missing --arg for " + ", ".join(missing)
                       + " (pointers take a size such as 1000 or 64x32, scalars a value)")
    gen = torch.Generator().manual_seed(seed)
    bound = {}
    for d in kernel.dtype_params:
        choice = DTYPE_ALIASES.get(dtype, dtype) if dtype else kernel.accepted_dtypes(d.name)[0]
        if choice not in kernel.accepted_dtypes(d.name):
            raise RunError(f"dtype `{dtype}` is not accepted for `{d.name}: {d.bound}`; "
                           f"choose one of {', '.join(kernel.accepted_dtypes(d.name))}")
        bound[d.name] = choice
    args = {}
    for p in kernel.params:
        if p.kind == "pointer":
            elem = bound.get(p.elem, p.elem)
            tdt = getattr(torch, TORCH_DTYPES[elem])
            shape = _shape(specs[p.name], p.name)
            if elem in FLOAT_TYPES:
                t = torch.randn(shape, generator=gen).to(tdt)
            elif elem == "bool":
                t = torch.randint(0, 2, shape, generator=gen).bool()
            else:
                t = torch.randint(-100, 100, shape, generator=gen).to(tdt)
            args[p.name] = t.to(device)
        else:
            args[p.name] = _scalar(specs[p.name], bound.get(p.elem, p.elem), p.name)
    return args


def load_kernel(path: str, kernel_name: str, backend: Backend, debug: bool | None = None) -> tuple[ModuleType, Kernel]:
    """(the loaded module, the kernel's signature) for ``run`` and ``tune``."""
    from rs2triton.loading.loader import load

    module = load(path, interpret=backend.kind == "interpreter", debug=debug)
    kernels = getattr(module, "__rs2triton_kernels__", {})
    if kernel_name not in kernels:
        raise RunError(f"{path} has no kernel `{kernel_name}`; it has: {', '.join(kernels) or 'none'}")
    return module, kernels[kernel_name]


def run(path: str, kernel_name: str, grid: tuple[int, ...], consts: dict[str, str],
        specs: dict[str, str], dtype: str | None = None, seed: int = 0,
        interpret: bool | None = None, debug: bool = False) -> RunReport:
    """``debug``: the kernel with Rust's debug-build checks (a failed one is a RunError)."""
    from rs2triton.loading.loader import require_run_extra
    from rs2triton.runtime.panics import interpreter_debug, kernel_panic

    require_run_extra("rs2triton run")
    backend = detect_backend(interpret)
    from rs2triton.transpiler.driver.pipeline import debug_build

    debug = debug_build(True if debug else None, "rs2triton run")  # (--debug, or RS2TRITON_PROFILE=debug)
    module, kernel = load_kernel(path, kernel_name, backend, debug)
    options = {"debug": True, "sanitize_overflow": False} if debug and backend.kind != "interpreter" else {}
    const_values = {}
    for c in kernel.consts:
        if c.name not in consts:
            raise RunError(f"missing --const {c.name}=VALUE (a `{c.rust_type}` const generic)")
        const_values[python_name(c.name)] = _scalar(consts[c.name], c.rust_type, c.name)
    extra = set(consts) - {c.name for c in kernel.consts}
    if extra:
        raise RunError(f"`{kernel_name}` has no const generic {', '.join(sorted(extra))}")
    args = build_args(kernel, specs, dtype, backend.device, seed)
    before = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in args.items()}
    fn = getattr(module, python_name(kernel_name))
    start = time.perf_counter()
    try:
        if backend.kind == "interpreter":  # no access outside the tensors (runtime/bounds.py)
            from rs2triton.runtime import bounds

            pointers = [(p.name, args[p.name]) for p in kernel.params if p.kind == "pointer"]
            try:
                with bounds.checked_launch(kernel_name, fn, pointers), interpreter_debug(debug):
                    fn[grid](*args.values(), **const_values)
            except (bounds.OutOfBounds, bounds.NeverReturns) as e:
                raise RunError(str(e)) from None
        else:
            fn[grid](*args.values(), **const_values, **options)
        if backend.kind != "interpreter":
            import torch

            torch.cuda.synchronize()
    except Exception as e:  # a Triton error: point at the Rust line when we can
        panic = kernel_panic(e, kernel_name) if debug else None
        if panic is not None:
            raise RunError(str(panic)) from None
        from rs2triton.diagnostics import TranspileError
        from rs2triton.runtime.errors import triton_diagnostic

        diag = triton_diagnostic(e, module)
        if diag is None:
            raise
        raise TranspileError([diag]) from e
    seconds = time.perf_counter() - start
    import torch

    changed = {k for k, v in args.items() if isinstance(v, torch.Tensor) and not torch.equal(v, before[k])}
    return RunReport(backend, kernel_name, grid, seconds,
                     {k: v for k, v in args.items() if isinstance(v, torch.Tensor)}, before, changed)


def summarize(report: RunReport) -> str:
    lines = [f"ran `{report.kernel}` on {report.backend.describe()}",
             f"grid {report.grid}, {report.seconds * 1000:.1f} ms (first launch, includes compilation)"]
    for name, t in report.outputs.items():
        tag = "written" if name in report.changed else "unchanged"
        flat = t.detach().float().flatten().cpu()
        stats = ""
        if flat.numel():
            finite = flat[flat.isfinite()]
            mean = finite.mean().item() if finite.numel() else math.nan
            stats = (f" min {flat.min().item():.4g} max {flat.max().item():.4g} mean {mean:.4g}"
                     f" first {[round(x, 4) for x in flat[:4].tolist()]}")
        lines.append(f"  {name:<12} {tag:<9} {str(tuple(t.shape)):<12} {str(t.dtype).removeprefix('torch.'):<8}{stats}")
    return "\n".join(lines)


def check_expressions(expects: dict[str, str], names: set[str] | None = None) -> None:
    """Every ``--expect`` expression is one :func:`check_expectations` will evaluate (a RunError if not)."""
    from rs2triton.tools.expect import check

    for name, expression in expects.items():
        try:
            check(expression, names)
        except (SyntaxError, ValueError) as e:
            raise RunError(f"--expect {name}: cannot evaluate `{expression}`: {e}") from None


def check_expectations(report: RunReport, expects: dict[str, str]) -> list[str]:
    """``--expect out_ptr='a_ptr + b_ptr'``: compare outputs with torch expressions of the inputs."""
    import torch

    from rs2triton.tools.expect import evaluate

    failures = []
    inputs = {k: (v.float() if isinstance(v, torch.Tensor) and v.is_floating_point() else v)
              for k, v in report.inputs.items()}
    for name, expression in expects.items():
        if name not in report.outputs:
            raise RunError(f"--expect names `{name}`, which is not a pointer argument")
        try:
            expected = evaluate(expression, dict(inputs))  # (an allow-list: tools/expect.py)
        except Exception as e:  # the user's expression is wrong: report, don't crash
            raise RunError(f"--expect {name}: cannot evaluate `{expression}`: {e}") from None
        got = report.outputs[name].detach().cpu()
        expected = torch.as_tensor(expected).to(got.dtype).cpu()
        tol = {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(got.dtype, 1e-4)
        if got.shape != expected.shape or not torch.allclose(got.float(), expected.float(), atol=tol, rtol=tol):
            err = (got.float() - expected.float()).abs().max().item() if got.shape == expected.shape else "shape"
            failures.append(f"{name}: does not match `{expression}` (max abs error {err})")
    return failures
