"""Launches on Triton's interpreter that cannot read or write outside their tensors.

On the interpreter a load or store is a plain host memory access: an address past a tensor's
end reads garbage or corrupts the heap, and the process may die. While a launcher's launch
runs on the interpreter, every load, store and atomic of the kernel is checked first against
the storage of the tensors passed to it: an access outside all of them is a
:class:`OutOfBounds` error (a ``ValueError``) naming the kernel, the pointer argument whose
tensor the address is nearest to, the Rust ``file:line`` of the access, the program and the
first offending lane, and nothing is read or written. A launch that reaches a `loop {}`
placeholder (the generated ``_loop_forever``) is a :class:`NeverReturns` error there instead of
a hang. ``RuntimeOp.apply``'s launches (within :func:`own_elements`) are held to each tensor's
own elements instead of its storage: teenygrad's buffers are each their own allocation.

The check wraps four methods of the interpreter's builder (masked load and store, atomic
compare-and-swap and read-modify-write; every other access goes through them), once, when
the first checked launch runs; outside a launcher's launch they do what they always did.
Set ``RS2TRITON_BOUNDS_CHECK=0`` to launch unchecked. Tensors on a GPU run by the
interpreter are copies the launcher never sees, so only CPU tensors are checked.
"""

from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeAlias

from rs2triton.runtime.errors import module_of, rust_lines

if TYPE_CHECKING:  # (torch, triton and numpy are not followed by mypy: these are Any to it)
    from torch import Tensor
    from triton.runtime.interpreter import TensorHandle

# a numpy array (numpy's own stubs differ between its releases: 2.3 gave ndarray default type arguments)
Array: TypeAlias = Any

_ACTIVE: contextvars.ContextVar[_Launch | None] = contextvars.ContextVar("rs2triton_bounds", default=None)
# Within `own_elements()` (RuntimeOp.apply's launches) each tensor is held to its own elements,
# not to the storage it is a view of: teenygrad's buffers are each their own allocation.
_OWN: contextvars.ContextVar[bool] = contextvars.ContextVar("rs2triton_own_elements", default=False)
_INSTALLED = False


class OutOfBounds(ValueError):
    """A kernel launched on the interpreter accessed memory outside the tensors it was given."""


class NeverReturns(RuntimeError):
    """A kernel launched on the interpreter reached a `loop {}` placeholder: Rust's endless loop.
    On a GPU it would spin for ever; the interpreter says so instead."""


LOOP_HELPER = "_loop_forever"  # the generated helper that is Rust's `loop {}` (lowering/helpers.py)


def enabled() -> bool:
    return os.environ.get("RS2TRITON_BOUNDS_CHECK", "1") != "0"


class _Launch:
    """The storage ranges of one launch's tensors, and what an error about them needs to say."""

    def __init__(self, kernel: str, jit_fn: Any, tensors: list[tuple[str, Tensor]]) -> None:
        import numpy as np

        self.kernel = kernel
        fn = getattr(jit_fn, "fn", jit_fn)
        self.path = getattr(getattr(fn, "__code__", None), "co_filename", None)
        module = module_of(fn)
        lines = rust_lines(module) if module is not None else None
        self.line_map = lines.mapping if lines is not None else {}
        self.rust_path = lines.path if lines is not None else None
        rows: list[tuple[int, int, str, Tensor]] = []
        self.own = _OWN.get()
        for name, t in tensors:
            if self.own:
                rows.append((*own_extent(t), name, t))
                continue
            storage = t.untyped_storage()
            rows.append((storage.data_ptr(), storage.data_ptr() + storage.nbytes(), name, t))
        rows.sort(key=lambda r: r[0])
        self.rows = rows
        self.starts = np.array([r[0] for r in rows], dtype=np.uint64)
        self.ends = np.array([r[1] for r in rows], dtype=np.uint64)

    def check(self, ptrs: TensorHandle, mask: TensorHandle | None, what: str) -> None:
        import numpy as np

        addrs = np.asarray(ptrs.data, dtype=np.uint64)
        size = max(1, ptrs.get_element_ty().primitive_bitwidth // 8)
        active = np.ones(addrs.shape, dtype=bool) if mask is None else np.asarray(mask.data, dtype=bool)
        active = np.broadcast_to(active, addrs.shape)
        at = np.searchsorted(self.starts, addrs, side="right").astype(np.int64) - 1
        inside = (at >= 0) & (addrs + np.uint64(size) <= self.ends[np.maximum(at, 0)]) if len(self.rows) \
            else np.zeros(addrs.shape, dtype=bool)
        bad = active & ~inside
        if bad.any():
            raise self._error(addrs, bad, size, what)

    def _error(self, addrs: Array, bad: Array, size: int, what: str) -> OutOfBounds:
        import numpy as np

        lane = int(np.flatnonzero(bad.ravel())[0])
        addr = int(addrs.ravel()[lane])
        where = self._rust_line()
        if not self.rows:
            return OutOfBounds(f"{self.kernel}: {what}{where} at address {addr:#x} (lane {lane}{self._program()}), "
                               "but the launch was given no tensor")
        # the tensor the address is nearest to: the one the kernel's pointer arithmetic started from
        start, end, name, t = min(self.rows, key=lambda r: r[0] - addr if addr < r[0] else max(0, addr + size - r[1]))
        shape = "x".join(str(d) for d in t.shape)
        if addr < start:
            place = f"{(start - addr) // size} elements before the start"
        else:
            place = f"element {(addr - start) // size}, past the end"
        return OutOfBounds(
            f"{self.kernel}: {what}{where} reaches outside the tensor `{name}` "
            f"({shape} {str(t.dtype).removeprefix('torch.')}, {(end - start) // size} elements): "
            f"lane {lane}{self._program()} accesses {place}; nothing was read or written. The tensor is "
            "smaller than the launch addresses: check the sizes and scalars passed, the grid and the mask"
            + (" (RuntimeOp.apply holds each tensor to its own elements, not the storage it is a view of: "
               "teenygrad's buffers are each their own allocation)" if self.own else ""))

    def _rust_line(self) -> str:
        """Where the innermost statement of the generated file that has a Rust line is."""
        frame: FrameType | None = sys._getframe(2)
        first = None
        while frame is not None:
            if frame.f_code.co_filename == self.path:
                rust = self.line_map.get(frame.f_lineno)
                if rust is not None and self.rust_path:
                    return f" at {self.rust_path}:{rust}"
                first = first or f" at {self.path}:{frame.f_lineno}"
            frame = frame.f_back
        return first or ""

    def in_endless_loop(self) -> bool:
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == LOOP_HELPER and frame.f_code.co_filename == self.path:
                return True
            frame = frame.f_back
        return False

    def never_returns(self) -> NeverReturns:
        return NeverReturns(f"{self.kernel}: the launch reached a `loop {{}}`{self._rust_line()}{self._program()}: "
                            "it never returns (on a GPU it would spin for ever); nothing after it runs. "
                            "A placeholder helper such as `fn dummy() -> D { loop {} }` is meant never to be called")

    @staticmethod
    def _program() -> str:
        from triton.runtime import interpreter

        idx = getattr(interpreter.interpreter_builder, "grid_idx", None)
        return f", program {tuple(int(i) for i in idx)}" if idx is not None else ""


def _install() -> None:
    """Wrap the interpreter builder's memory accesses (once)."""
    global _INSTALLED
    if _INSTALLED:
        return
    from triton.runtime.interpreter import InterpreterBuilder

    def wrap(method: str, ptr_at: int, mask_at: int | None, what: str) -> None:
        original = getattr(InterpreterBuilder, method)

        def checked(self: Any, *args: Any, **kwargs: Any) -> Any:  # (self: the InterpreterBuilder)
            launch = _ACTIVE.get()
            if launch is not None:
                launch.check(args[ptr_at], args[mask_at] if mask_at is not None else None, what)
            return original(self, *args, **kwargs)

        checked.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(InterpreterBuilder, method, checked)

    barrier = InterpreterBuilder.create_barrier

    def checked_barrier(self: Any, *args: Any, **kwargs: Any) -> Any:  # (the barrier in `_loop_forever`'s body)
        launch = _ACTIVE.get()
        if launch is not None and launch.in_endless_loop():
            raise launch.never_returns()
        return barrier(self, *args, **kwargs)

    checked_barrier.__wrapped__ = barrier  # type: ignore[attr-defined]
    InterpreterBuilder.create_barrier = checked_barrier
    # positions after `self`: the same on Triton 3.6 and 3.9
    wrap("create_masked_load", 0, 1, "a load")
    wrap("create_masked_store", 0, 2, "a store")
    wrap("create_atomic_cas", 0, None, "an atomic compare-and-swap")
    wrap("create_atomic_rmw", 1, 3, "an atomic read-modify-write")
    _INSTALLED = True


def own_extent(t: Tensor) -> tuple[int, int]:
    """The addresses ``t``'s own elements span: [first byte, end) over its strides."""
    start = t.data_ptr()
    if t.numel() == 0:
        return (start, start)
    span = sum((size - 1) * abs(stride) for size, stride in zip(t.shape, t.stride(), strict=True)) + 1
    return (start, start + span * t.element_size())


@contextmanager
def own_elements() -> Iterator[None]:
    """Launches in the block that are checked are held to each tensor's own elements (a view's,
    not its storage's): what ``RuntimeOp.apply`` asks, where every buffer stands for one of
    teenygrad's, each its own allocation."""
    token = _OWN.set(True)
    try:
        yield
    finally:
        _OWN.reset(token)


@contextmanager
def checked_launch(kernel: str, jit_fn: Any, tensors: list[tuple[str, Tensor | None]]) -> Iterator[None]:
    """While the block runs, the interpreter's accesses must stay inside ``tensors`` (CPU ones),
    unless ``RS2TRITON_BOUNDS_CHECK=0``."""
    cpu = [(n, t) for n, t in tensors if getattr(getattr(t, "device", None), "type", None) == "cpu"]
    if not enabled() or len(cpu) != len(tensors):  # (the interpreter copies GPU tensors: other addresses)
        yield
        return
    _install()
    token = _ACTIVE.set(_Launch(kernel, jit_fn, cpu))
    try:
        yield
    except Exception as e:  # Triton 3.6 wraps what a kernel raises in an InterpreterError
        cause: BaseException | None = e
        while cause is not None and not isinstance(cause, (OutOfBounds, NeverReturns)):
            cause = cause.__cause__ or cause.__context__
        if cause is not None and cause is not e:
            raise cause.with_traceback(None) from None
        raise
    finally:
        _ACTIVE.reset(token)
