"""``rs2triton tune FILE.rs KERNEL``: run a kernel over a sweep of configs.

Every config launches on the same generated inputs (``rs2triton run``'s
options) through the kernel's launcher, and must give the same outputs as the
first config that ran. On a GPU each config is then timed and the table names
the best; on Triton's CPU interpreter the timings mean nothing, so the table
only reports that the configs agree. A config that fails (Triton cannot
compile it, say) is reported and the sweep goes on.
"""

from __future__ import annotations

import ast
import itertools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rs2triton.runtime.launcher import LAUNCH_OPTIONS
from rs2triton.tools.run import Backend, RunError, Scalar, _scalar, build_args, detect_backend, load_kernel


@dataclass
class ConfigResult:
    config: dict[str, Scalar]
    ok: bool
    error: str | None = None
    ms: float | None = None
    max_diff: float = 0.0
    matches: bool = True


@dataclass
class TuneReport:
    kernel: str
    backend: Backend
    results: list[ConfigResult] = field(default_factory=list)

    @property
    def best(self) -> ConfigResult | None:
        timed = [(r.ms, i, r) for i, r in enumerate(self.results) if r.ok and r.matches and r.ms is not None]
        return min(timed)[2] if timed and self.backend.kind != "interpreter" else None

    @property
    def mismatches(self) -> list[ConfigResult]:
        return [r for r in self.results if r.ok and not r.matches]


def parse_sweep(items: tuple[str, ...], consts: dict[str, str]) -> dict[str, list[str]]:
    """``-s BLOCK_SIZE=64,128 -s num_warps=2,4`` -> {name: [values]} (const generics checked later)."""
    out: dict[str, list[str]] = {}
    for item in items:
        name, _, values = item.partition("=")
        name = name.strip()
        if not values or not name:
            raise RunError(f"--sweep `{item}` must look like NAME=V1,V2,... (e.g. BLOCK_SIZE=64,128,256)")
        if name in out or name in consts:
            raise RunError(f"`{name}` is given twice (by --sweep and --const, or two --sweep)")
        out[name] = [v.strip() for v in values.split(",") if v.strip()]
    if not out:
        raise RunError("give at least one --sweep NAME=V1,V2,... (const generics, num_warps, num_stages)")
    return out


_GRID_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
             ast.Mod: operator.mod}


def grid_of(text: str, names: dict[str, Any]) -> tuple[int, ...]:
    """``--grid`` (``8``, ``4,2``, ``cdiv(n_elements, BLOCK_SIZE)``) for one config: integer
    arithmetic (``+ - * // %``) on numbers and the launch's names, and ``cdiv``/``min``/``max``.
    It is read, not run: nothing else is allowed, so no text can do anything but compute a grid."""
    functions: dict[str, Callable[..., int]] = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}

    def value(node: ast.expr) -> Any:  # an int or a tuple: anything else raises, and the result is checked
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in names and type(names[node.id]) is int:
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _GRID_OPS:
            return _GRID_OPS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                and not node.keywords:
            return functions[node.func.id](*(value(a) for a in node.args))
        if isinstance(node, ast.Tuple):
            return tuple(value(e) for e in node.elts)
        raise ValueError(f"`{ast.unparse(node)}` is not integer arithmetic on the launch's names")

    try:
        result = value(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError, TypeError, ZeroDivisionError, RecursionError) as e:
        raise RunError(f"--grid `{text}`: cannot evaluate: {e}") from None
    value_ = result
    grid = value_ if isinstance(value_, tuple) else (value_,)
    if not 1 <= len(grid) <= 3 or not all(isinstance(g, int) and g > 0 for g in grid):
        raise RunError(f"--grid `{text}` gave {value_!r}; it must give 1 to 3 positive ints")
    return grid


def tune(path: str, kernel_name: str, grid: str, consts: dict[str, str], specs: dict[str, str],
         sweeps: dict[str, list[str]], dtype: str | None = None, seed: int = 0,
         interpret: bool | None = None) -> TuneReport:
    from rs2triton.loading.loader import require_run_extra
    from rs2triton.transpiler.pyast import launcher_name

    require_run_extra("rs2triton tune")
    backend = detect_backend(interpret)
    module, kernel = load_kernel(path, kernel_name, backend)
    launcher = getattr(module, launcher_name(kernel_name))
    const_types = {c.name: c.rust_type for c in kernel.consts}
    fixed: dict[str, Scalar] = {}
    for name, value in consts.items():
        if name not in const_types:
            raise RunError(f"`{kernel_name}` has no const generic {name}")
        fixed[name] = _scalar(value, const_types[name], name)
    values: dict[str, list[Scalar]] = {}
    for name, vals in sweeps.items():
        if name in const_types:
            values[name] = [_scalar(v, const_types[name], name) for v in vals]
        elif name in LAUNCH_OPTIONS:
            values[name] = [_scalar(v, "i32", name) for v in vals]
        else:
            raise RunError(f"--sweep `{name}` is neither a const generic of `{kernel_name}` "
                           f"({', '.join(const_types) or 'none'}) nor a launch option (num_warps, num_stages, ...)")
    missing = [c for c in const_types if c not in fixed and c not in values]
    if missing:
        raise RunError(f"give every const generic by --const or --sweep; missing {', '.join(missing)}")
    inputs = build_args(kernel, specs, dtype, backend.device, seed)
    scalars = {k: v for k, v in inputs.items() if not hasattr(v, "data_ptr")}
    report = TuneReport(kernel_name, backend)
    reference: dict[str, Any] | None = None  # the first config's outputs (tensors)
    names = list(values)
    for combo in itertools.product(*(values[n] for n in names)):
        config = {**fixed, **dict(zip(names, combo, strict=True))}
        cgrid = grid_of(grid, {**scalars, **config})
        args = {k: (v.clone() if hasattr(v, "clone") else v) for k, v in inputs.items()}
        result = ConfigResult(config, ok=False)
        report.results.append(result)
        try:
            launch = launcher(**config)[cgrid]
            launch(**args)
            _sync(backend)
            if backend.kind != "interpreter":
                import triton.testing

                result.ms = triton.testing.do_bench(lambda: launch(**args))  # noqa: B023 - used at once
        except Exception as e:  # noqa: BLE001 - a config Triton cannot compile or run is reported
            result.error = _first_line(e, module)
            continue
        result.ok = True
        outputs = {k: v.detach().cpu() for k, v in args.items() if hasattr(v, "data_ptr")}
        if reference is None:
            reference = outputs
            continue
        for name, got in outputs.items():
            diff, same = _compare(got, reference[name])
            result.max_diff = max(result.max_diff, diff)
            result.matches = result.matches and same
    return report


def _sync(backend: Backend) -> None:
    if backend.kind != "interpreter":
        import torch

        torch.cuda.synchronize()


def _first_line(e: Exception, module: ModuleType) -> str:
    from rs2triton.diagnostics import TranspileError
    from rs2triton.runtime.errors import triton_diagnostic

    # (a launcher reports Triton's errors as E0011 at the Rust line already)
    diag = e.diagnostics[0] if isinstance(e, TranspileError) and e.diagnostics else triton_diagnostic(e, module)
    if diag is not None:
        return f"{diag.message} ({diag.path}:{diag.line})"
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[-1] if text else ''}"


def _compare(got: Any, want: Any) -> tuple[float, bool]:  # (tensors)
    import torch

    if got.dtype.is_floating_point:
        tol = {torch.float16: 1e-2, torch.bfloat16: 5e-2}.get(got.dtype, 1e-5)
        g, w = got.double(), want.double()
        both_nan = g.isnan() & w.isnan()
        diff = (g - w).abs().masked_fill(both_nan, 0).nan_to_num(math.inf)
        return (diff.max().item() if diff.numel() else 0.0,
                bool(torch.allclose(g, w, atol=tol, rtol=tol, equal_nan=True)))
    same = torch.equal(got, want)
    return (0.0 if same else (got.long() - want.long()).abs().max().item()), same


def summarize(report: TuneReport) -> str:
    interp = report.backend.kind == "interpreter"
    lines = [f"tuning `{report.kernel}` on {report.backend.describe()}"]
    if interp:
        lines.append("timings on the interpreter mean nothing: every config is run and checked against the first")
    width = max(len(_fmt(r.config)) for r in report.results)
    for r in report.results:
        cfg = _fmt(r.config).ljust(width)
        if not r.ok:
            lines.append(f"  {cfg}  FAILED  {r.error}")
            continue
        status = "same" if r.matches else f"DIFFERS (max abs diff {r.max_diff:.3g})"
        parts = [cfg, "ok    "] + ([f"{r.ms:9.4f} ms"] if r.ms is not None else []) + [status]
        lines.append("  " + "  ".join(parts) + ("  <- best" if report.best is r else ""))
    ok = sum(r.ok for r in report.results)
    lines.append(f"{ok} of {len(report.results)} configs ran; "
                 + ("all gave the same result" if not report.mismatches else
                    f"{len(report.mismatches)} gave different results from the first"))
    if report.best is not None:
        lines.append(f"best: {_fmt(report.best.config)} ({report.best.ms:.4f} ms)")
    return "\n".join(lines)


def _fmt(config: dict[str, Scalar]) -> str:
    return " ".join(f"{k}={v}" for k, v in config.items())
