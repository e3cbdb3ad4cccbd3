"""The values a launch takes, checked against their Rust types: scalars and torch dtypes.

Used by the launchers and by the translated host logic; torch and triton are imported only
when a value is checked against a tensor.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

from rs2triton.rust.types import SCALARS, TORCH_DTYPES, Class

if TYPE_CHECKING:
    from rs2triton.runtime.protocols import Kernel, Scalar

RUN_EXTRA = "pip install 'rs2triton[run]'"


def _torch() -> Any:  # the torch module (mypy does not follow torch: its types are Any)
    try:
        import torch
    except ImportError:  # pragma: no cover - the base install
        raise ImportError(f"launching kernels needs torch and triton: {RUN_EXTRA}") from None
    return torch


def _triton() -> Any:  # the triton module (not followed either)
    try:
        import triton
    except ImportError:  # pragma: no cover - the base install
        raise ImportError(f"launching kernels needs torch and triton: {RUN_EXTRA}") from None
    return triton


_RUST_OF_TORCH: dict[Any, str] = {}  # torch.dtype -> Rust element type
_TENSOR: type | None = None  # torch.Tensor, once torch is imported


def rust_dtype_of(torch_dtype: object) -> str | None:
    """The Rust element type of a torch dtype (``torch.float32`` -> ``"f32"``), or None."""
    if not _RUST_OF_TORCH:
        global _TENSOR
        torch = _torch()
        _TENSOR = torch.Tensor
        for rust, attr in TORCH_DTYPES.items():
            dt = getattr(torch, attr, None)
            if dt is not None:
                _RUST_OF_TORCH[dt] = rust
    return _RUST_OF_TORCH.get(torch_dtype)


# What Triton's CPU interpreter (TRITON_INTERPRET=1) computes wrongly, found on Triton 3.6 and 3.9
# (docs/usage.md): each dtype, the kernel fact (Launcher(uses=...)) it needs to be wrong, or None
# where any kernel is, and why.
_INTERPRETER_WRONG = {
    "bf16": (None, "its bfloat16 arithmetic is wrong (relu returns its input, `x * 2.0` gives zeros, "
                   "`x + x` garbage)"),
    "f64": ("dot", "its `tl.dot` of float64 tensors is wrong (garbage near 1e300 into a float32 "
                   "accumulator)"),
}


def interpreter_dtype_problem(launcher: Kernel, dtype: object) -> str | None:
    """Why ``launcher`` (a kernel's launcher, or one of its configured kernels) cannot be trusted
    with tensors of torch ``dtype`` on Triton's interpreter, or None: the reason where the
    interpreter computes what the kernel does in that dtype wrongly (bfloat16 in any kernel,
    float64 in one that uses ``tl.dot``), None where it does not, or where the launcher runs
    compiled. Nothing is launched: the torch backend asks it to fall back before a launch."""
    kernel: Kernel = getattr(launcher, "launcher", launcher)  # (a configured kernel's launcher)
    if not getattr(kernel, "interpreted", False):
        return None
    wrong = _INTERPRETER_WRONG.get(rust_dtype_of(dtype) or "")
    if wrong is None or wrong[0] is not None and wrong[0] not in kernel.uses:
        return None
    return (f"Triton's CPU interpreter (TRITON_INTERPRET=1) cannot run {kernel.name} in {dtype}: {wrong[1]}; "
            "run it on a GPU, or in another dtype here (float32)")


def _type_name(value: object) -> str:
    return type(value).__name__


def check_scalar(rust_type: str, value: object, what: str) -> Scalar:
    """``value`` converted for a Rust scalar type, or a TypeError/ValueError about ``what``.

    Integers must be ints in range (never silently widened), floats take ints
    or floats (passed as float, so Triton never specialises an f32 parameter as
    an integer), bools must be bools.
    """
    s = SCALARS.get(rust_type)
    if s is None:
        raise TypeError(f"{what} has Rust type `{rust_type}`, which a launcher cannot check")
    if s.cls is Class.BOOL:
        if type(value) is bool:
            return value
        raise TypeError(f"{what} must be a bool, got {_type_name(value)} {value!r}")
    if s.cls is Class.INT:
        if type(value) is not int:
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{what} must be an int, got {_type_name(value)} {value!r}")
            value = int(value)
        if not s.min <= value <= s.max:
            raise ValueError(f"{what} must be in {rust_type} range [{s.min}, {s.max}], got {value}")
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a float, got {_type_name(value)} {value!r}")
    value = float(value)
    if math.isfinite(value) and abs(value) > s.max_finite:
        # Rust rounds to the nearest value of the type: up to half a unit past the largest finite
        # value, that is the largest (`3.4028235e38` is f32::MAX); from there on, infinity.
        if abs(value) >= s.max_finite + 2.0 ** (s.max_exponent - s.significand):
            raise ValueError(f"{what} is out of {rust_type} range (largest {s.max_finite!r}), got {value!r}")
        value = math.copysign(s.max_finite, value)
    return value


def check_field(rust_type: str, value: object, what: str) -> object:
    """A wrapper struct's field value checked against its Rust type: a scalar by
    :func:`check_scalar`, a kernel struct (``"kernel:Name"``) by the launcher it must come from."""
    if rust_type in SCALARS:
        checked = check_scalar(rust_type, value, what)
        if rust_type in ("f32", "f16", "bf16") and isinstance(checked, float):
            from rs2triton.rust.semantics import round_float

            checked = round_float(checked, rust_type)  # the field holds an f32, as in Rust
        return checked
    if rust_type.startswith("kernel:"):
        want = rust_type.removeprefix("kernel:")
        launcher = getattr(value, "launcher", None)
        if getattr(launcher, "name", None) != want or not hasattr(value, "consts"):
            raise TypeError(f"{what} must be a configured {want} kernel ({want}(...)), got {value!r}")
    return value


# Launch options and what Triton makes of them: a wrong one is refused before anything runs.
_POWERS_OF_TWO = {"num_warps": (1, 32), "num_ctas": (1, 16)}
# Counts and their bounds: software-pipelining stages (Triton's pipeliner uses a handful; more
# only multiplies shared memory), registers a thread may use (the hardware's 255), waves per
# execution unit on AMD (0: the compiler's choice, up to 10).
_COUNTS = {"num_stages": (0, 16), "maxnreg": (1, 255), "waves_per_eu": (0, 10)}
_CHOICES = {"kpack": (1, 2), "matrix_instr_nonkdim": (0, 4, 16, 32)}
_FLAGS = ("enable_fp_fusion", "launch_cooperative_grid", "launch_pdl")


def check_option(key: str, value: object, what: str) -> bool | int:
    """A launch option (``num_warps=4``...) checked: powers of two where Triton needs them, counts
    in their bounds, flags that are bools."""
    if key in _FLAGS:
        if type(value) is not bool:
            raise TypeError(f"{what}: `{key}` must be a bool, got {_type_name(value)} {value!r}")
        return value
    if type(value) is not int:
        raise TypeError(f"{what}: `{key}` must be an int, got {_type_name(value)} {value!r}")
    if key in _POWERS_OF_TWO:
        lo, hi = _POWERS_OF_TWO[key]
        if not lo <= value <= hi or value & (value - 1):
            raise ValueError(f"{what}: `{key}` must be a power of two from {lo} to {hi}, got {value}")
    elif key in _COUNTS and not _COUNTS[key][0] <= value <= _COUNTS[key][1]:
        lo, hi = _COUNTS[key]
        raise ValueError(f"{what}: `{key}` must be from {lo} to {hi}, got {value}")
    elif key in _CHOICES and value not in _CHOICES[key]:
        raise ValueError(f"{what}: `{key}` must be one of {', '.join(map(str, _CHOICES[key]))}, got {value}")
    return value


# The largest grid a launch may have (CUDA's limits; AMD's are wider on x): x, y, z.
GRID_LIMITS = (2 ** 31 - 1, 65535, 65535)


def check_grid(grid: tuple[int, ...], what: str) -> tuple[int, ...]:
    """A grid of 1 to 3 ints, none negative and each within the backend's limit."""
    for axis, (g, limit) in enumerate(zip(grid, GRID_LIMITS, strict=False)):
        if not 0 <= g <= limit:
            raise ValueError(f"{what}: grid axis {'xyz'[axis]} must be from 0 to {limit}, got {g}")
    return grid
