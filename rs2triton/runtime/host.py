"""What generated host code imports: Rust's meaning for the ``impl RuntimeOp`` logic it translates.

Host methods compute with Python ints and floats; where Python's answer differs from Rust's,
they call these, which are :mod:`rs2triton.rust.std` (the one home of Rust's scalar
semantics, also used to fold constants at transpile time):

- one object per scalar type with Rust's methods, receiver first, as Rust's path form reads:
  ``i32.saturating_sub(a, b)``, ``usize.next_multiple_of(n, m)``, ``f32.max(a, b)``; and the
  operators Python gets wrong: ``i32.div(a, b)`` truncates and panics on ``MIN / -1``,
  ``f64.div(a, b)`` gives an infinity for a zero divisor;
- ``as`` casts: ``as_i32(3_000_000_000) == -1_294_967_296`` (wrapping), ``as_u32(-1.5) == 0``
  (saturating), ``as_f32(x)`` (rounding once); ``f32(x)`` rounds an f32 result;
- the ``Option`` and slice methods (``unwrap``, ``first``...) and ``ptr_add``.

The profile is rustc's release build: integer overflow wraps (the translation wraps a result
where it is observed: ``as_usize(a * b)``), shift amounts are masked. Where Rust panics in
every build, the call raises :class:`Panic`, a ``RuntimeError`` whose message is Rust's; the
generated class's methods give it the Rust ``file:line`` (:func:`rust_panics`).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterable, Sequence
from types import CodeType, SimpleNamespace
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from rs2triton.rust.floats import FLOATS
from rs2triton.rust.semantics import NotImplementedPanic, Panic
from rs2triton.rust.std import DIV_ZERO, INTS, REM_ZERO, cast, display

if TYPE_CHECKING:
    from _typeshed import SupportsDunderGE, SupportsDunderLT
    from torch import Tensor  # (not followed by mypy: Any)

T = TypeVar("T")
U = TypeVar("U")
P = ParamSpec("P")
R = TypeVar("R")
Ge = TypeVar("Ge", bound="SupportsDunderGE[Any]")
Lt = TypeVar("Lt", bound="SupportsDunderLT[Any]")

i8, i16, i32, i64, isize = (INTS[t] for t in ("i8", "i16", "i32", "i64", "isize"))
u8, u16, u32, u64, usize = (INTS[t] for t in ("u8", "u16", "u32", "u64", "usize"))
f32, f64 = FLOATS["f32"], FLOATS["f64"]


def _cast(elem: str) -> Callable[[int | float | bool], int | float | bool]:
    def cast_to(value: int | float | bool) -> int | float | bool:
        return cast(value, elem)

    cast_to.__name__ = cast_to.__qualname__ = f"as_{elem}"
    cast_to.__doc__ = f"Rust's ``value as {elem}``."
    return cast_to


as_i8, as_i16, as_i32, as_i64, as_isize = (_cast(t) for t in ("i8", "i16", "i32", "i64", "isize"))
as_u8, as_u16, as_u32, as_u64, as_usize = (_cast(t) for t in ("u8", "u16", "u32", "u64", "usize"))
as_f32, as_f64 = _cast("f32"), _cast("f64")


# ---------------------------------------------------------------- Option, slices, pointers


def unwrap(value: T | None, message: str = "called `Option::unwrap()` on a `None` value") -> T:
    """``option.unwrap()`` / ``.expect(message)``: the value, or Rust's panic on ``None``."""
    if value is None:
        raise Panic(message)
    return value


def unwrap_or(value: T | None, default: T) -> T:
    return default if value is None else value


def and_then(value: T | None, f: Callable[[T], U | None]) -> U | None:
    return None if value is None else f(value)


def map_option(value: T | None, f: Callable[[T], U]) -> U | None:
    return None if value is None else f(value)


def or_option(value: T | None, other: T | None) -> T | None:
    """``option.or(other)``."""
    return other if value is None else value


def zip_option(value: T | None, other: U | None) -> tuple[T, U] | None:
    """``option.zip(other)``: the pair, or None."""
    return None if value is None or other is None else (value, other)


def filter_option(value: T | None, keep: Callable[[T], bool]) -> T | None:
    """``option.filter(f)``."""
    return value if value is not None and keep(value) else None


def first(seq: Sequence[T]) -> T | None:
    """``seq.first()``: the first item or ``None``."""
    return seq[0] if len(seq) else None


def last(seq: Sequence[T]) -> T | None:
    return seq[-1] if len(seq) else None


def get(seq: Sequence[T], i: int) -> T | None:
    return seq[i] if 0 <= i < len(seq) else None


def subslice(seq: Sequence[T], lo: int | None, hi: int | None) -> Sequence[T]:
    """``&seq[lo..hi]`` (either bound may be None): Rust's panics for a bound past the end or a start
    after the end, where Python's slice would quietly be shorter."""
    n = len(seq)
    start = 0 if lo is None else lo
    end = n if hi is None else hi
    if end > n:
        if start > n:
            raise Panic(f"range start index {start} out of range for slice of length {n}")
        raise Panic(f"range end index {end} out of range for slice of length {n}")
    if start > end:
        raise Panic(f"slice index starts at {start} but ends at {end}")
    return seq[start:end]


def insert(seq: list[T], i: int, item: T) -> None:
    """``v.insert(i, x)``: Rust's panic past the end."""
    if i > len(seq):
        raise Panic(f"insertion index (is {i}) should be <= len (is {len(seq)})")
    seq.insert(i, item)


def pop(seq: list[T]) -> T | None:
    """``v.pop()``: the last item, or None."""
    return seq.pop() if seq else None


def dedup(seq: list[T]) -> None:
    """``v.dedup()``: consecutive repeats removed, in place."""
    seq[:] = [x for i, x in enumerate(seq) if i == 0 or x != seq[i - 1]]


def chunks(seq: Sequence[T], n: int) -> list[Sequence[T]]:
    if n == 0:
        raise Panic("chunk size must be non-zero")
    return [seq[i:i + n] for i in range(0, len(seq), n)]


def windows(seq: Sequence[T], n: int) -> list[Sequence[T]]:
    if n == 0:
        raise Panic("window size must be non-zero")
    return [seq[i:i + n] for i in range(len(seq) - n + 1)]


def max_by_key(items: Iterable[T], key: Callable[[T], Ge]) -> T | None:
    """``iter.max_by_key(f)``: the last of the largest, or None."""
    best: tuple[T, Ge] | None = None
    for x in items:
        k = key(x)
        if best is None or k >= best[1]:
            best = (x, k)
    return best[0] if best is not None else None


def min_by_key(items: Iterable[T], key: Callable[[T], Lt]) -> T | None:
    """``iter.min_by_key(f)``: the first of the smallest, or None."""
    best: tuple[T, Lt] | None = None
    for x in items:
        k = key(x)
        if best is None or k < best[1]:
            best = (x, k)
    return best[0] if best is not None else None


def ptr_add(ptr: Tensor | None, count: int) -> Tensor:
    """``(ptr as *mut D).add(count)``: the tensor's elements from ``count`` on, a view."""
    if ptr is None:
        raise Panic("pointer arithmetic on a null pointer")
    offset_by = getattr(ptr, "offset_by", None)  # apply's stand-in for an output not yet allocated
    if offset_by is not None:
        return offset_by(count)
    flat = ptr.reshape(-1)
    if not 0 <= count <= flat.numel():  # past one beyond the end: undefined behaviour in Rust
        raise Panic(f"pointer offset by {count} elements past a buffer of {flat.numel()}")
    return flat[count:]


# ---------------------------------------------------------------- panics at the Rust line


def _rust_location(exc: BaseException, code: CodeType) -> str | None:
    """``file.rs:LINE`` of the innermost frame of the generated function ``code`` in ``exc``'s
    traceback (the Rust line its statement came from), or the generated line without a map."""
    from rs2triton.runtime.errors import module_of, rust_lines

    line, globals_ = None, None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == code.co_filename:
            line, globals_ = tb.tb_lineno, tb.tb_frame.f_globals
        tb = tb.tb_next
    if line is None or globals_ is None:
        return None
    lines = rust_lines(module_of(SimpleNamespace(__globals__=globals_, __module__=globals_.get("__name__"))))
    rust = lines.mapping.get(line) if lines is not None else None
    if lines is None or rust is None:
        return f"{code.co_filename}:{line}"
    return f"{lines.path}:{rust}"


_PYTHON_PANICS = (ZeroDivisionError, IndexError, RecursionError, ValueError)
_SAFE = (ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Load, ast.operator,
         ast.unaryop, ast.Slice, ast.Tuple)


def _index_message(exc: BaseException, code: CodeType) -> str:
    """Rust's message for an index out of range, ``the len is 3 but the index is 5``: the failing
    subscript of the generated line (from the instruction's position), its sequence and index read
    again from the frame (only names, fields, elements and arithmetic: nothing is called)."""
    tb, frame_tb = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == code.co_filename:
            frame_tb = tb
        tb = tb.tb_next
    try:
        assert frame_tb is not None
        frame = frame_tb.tb_frame
        positions = list(frame.f_code.co_positions())[frame_tb.tb_lasti // 2]
        line, end_line, col, end_col = positions
        with open(code.co_filename, encoding="utf-8") as f:
            lines = f.read().splitlines()
        assert line == end_line and line is not None and col is not None and end_col is not None
        subscript = ast.parse(lines[line - 1][col:end_col], mode="eval").body
        assert isinstance(subscript, ast.Subscript) and all(
            isinstance(n, _SAFE) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.keywords
                                     and (n.func.id.startswith("as_") or n.func.id == "len"))
            for n in ast.walk(subscript))
        scope = {**frame.f_globals, **frame.f_locals}
        seq = eval(compile(ast.Expression(subscript.value), "<index>", "eval"), {"__builtins__": {"len": len}}, scope)  # noqa: S307
        index = eval(compile(ast.Expression(subscript.slice), "<index>", "eval"), {"__builtins__": {"len": len}}, scope)  # noqa: S307
        return f"index out of bounds: the len is {len(seq)} but the index is {index}"
    except Exception:  # noqa: BLE001 - the message only: Python's, where the expression cannot be read again
        return f"index out of bounds ({exc})"


def rust_panics(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` (a generated host method) with its panics located: a :class:`Panic`, or the Python
    error that is Rust's panic there (a zero divisor, an index out of range), is a :class:`Panic`
    naming the Rust ``file:line`` it happened at."""

    @functools.wraps(fn)
    def located(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Panic as e:
            if e.location is None:
                e.location = _rust_location(e, fn.__code__)
            raise
        except _PYTHON_PANICS as e:
            if isinstance(e, RecursionError):
                message = "stack overflow"
            elif isinstance(e, ZeroDivisionError):
                message = REM_ZERO if "modulo" in str(e) and "division" not in str(e) else DIV_ZERO
            elif isinstance(e, ValueError):
                if "arg 3 must not be zero" not in str(e):  # `(0..n).step_by(0)`
                    raise
                message = "assertion failed: step != 0"
            else:
                message = _index_message(e, fn.__code__)
            raise Panic(message, _rust_location(e, fn.__code__)) from e

    located.__rust_panics__ = True  # type: ignore[attr-defined]
    return located


__all__ = [
    "NotImplementedPanic", "Panic", "and_then", "as_f32", "as_f64", "as_i16", "as_i32", "as_i64", "as_i8",
    "as_isize", "as_u16", "as_u32", "as_u64", "as_u8", "as_usize", "chunks", "dedup", "display", "f32",
    "f64", "filter_option", "first", "get", "i16", "i32", "i64", "i8", "insert", "isize", "last",
    "map_option", "max_by_key", "min_by_key", "or_option", "pop", "ptr_add", "rust_panics", "subslice",
    "u16", "u32", "u64", "u8", "unwrap", "unwrap_or", "usize", "windows", "zip_option"
]
