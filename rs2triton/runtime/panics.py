"""Rust's panics in kernels of a debug build (``transpile --debug``, ``load(..., debug=True)``).

Such a kernel asserts what Rust's debug build checks (lowering/kernel/debug.py), each assertion's
message the Rust ``file:line:col`` and Rust's panic message. Triton's interpreter ignores
``tl.device_assert`` unless its options say debug: :class:`interpreter_debug` says so while a
debug build's kernel runs; :func:`kernel_panic` turns the assertion that failed into a
:class:`KernelPanic` naming the kernel. (On a GPU the launcher compiles the kernel with Triton's
``debug`` option, and a failed assertion stops it with the same text.)
"""

from __future__ import annotations

import re
from typing import Any

from rs2triton.rust.semantics import Panic


class KernelPanic(Panic):
    """A kernel of a debug build (``transpile --debug``) failed one of Rust's debug-build checks on
    Triton's interpreter: ``message`` is Rust's panic message, ``location`` the Rust
    ``file:line:col``, ``kernel`` the launcher's name. (On a GPU a failed check stops the kernel
    with a device-side assertion that prints the same text.)"""

    def __init__(self, kernel: str, message: str, location: str):
        super().__init__(message, location)
        self.kernel = kernel

    def __str__(self) -> str:
        return f"{self.kernel}: the kernel panicked at {self.location}: {self.message}"


_PANIC_TEXT = re.compile(r"(.+:\d+:\d+): (attempt to [a-z ]+)")  # what the checks assert (lowering/kernel/debug.py)


def kernel_panic(exc: BaseException, kernel: str) -> KernelPanic | None:
    """The failed check of a debug build behind ``exc`` (the interpreter raises the assertion,
    Triton 3.6 wrapped in an InterpreterError), as a :class:`KernelPanic`; None for other errors."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, AssertionError):
            m = _PANIC_TEXT.fullmatch(str(e))
            if m is not None:
                return KernelPanic(kernel, m.group(2), m.group(1))
        e = e.__cause__ or e.__context__
    return None


class interpreter_debug:  # noqa: N801 - a context manager, used as a function
    """While a debug build's kernel runs on Triton's interpreter, the interpreter honours
    ``tl.device_assert`` (its options are otherwise fixed to a release build), without Triton's
    own overflow checks."""

    def __init__(self, on: bool):
        self.on = on
        self.saved: Any = None

    def __enter__(self) -> None:
        if self.on:
            import dataclasses

            from triton.runtime import interpreter

            builder = interpreter.interpreter_builder
            self.saved = builder.options
            builder.options = dataclasses.replace(self.saved, debug=True, sanitize_overflow=False)

    def __exit__(self, *exc: object) -> None:
        if self.saved is not None:
            from triton.runtime import interpreter

            interpreter.interpreter_builder.options = self.saved
