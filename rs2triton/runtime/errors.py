"""Triton's errors in a generated kernel, reported at the Rust line the failing statement came from.

A generated module carries its generated-line -> Rust-line map (``__rs2triton_line_map__``,
recorded by the printer as it wrote the module) and the path of its Rust source
(``__rs2triton_source__``); :func:`triton_diagnostic` finds the generated line a Triton
compile or interpreter error is about and makes an E0011 diagnostic at the Rust line.
"""

from __future__ import annotations

from collections.abc import Iterator

from rs2triton.diagnostics import Diagnostic


def _chain(exc: BaseException | None) -> Iterator[BaseException]:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def generated_line(exc: BaseException, path: str, text: str) -> int | None:
    """The line of the generated module ``path`` that a Triton error is about."""
    for e in _chain(exc):
        node, src = getattr(e, "node", None), getattr(e, "src", None)
        if node is not None and hasattr(node, "lineno") and src:
            # CompilationError: node.lineno counts from the kernel's decorator line.
            head = "\n".join(src.split("\n")[:2])
            at = text.find(head)
            if at >= 0:
                return text.count("\n", 0, at) + node.lineno
    line = None
    for e in _chain(exc):  # the interpreter: the deepest frame inside the generated file
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == path:
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is not None:
            return line
    return None


# Triton messages that do not say what is wrong in DSL terms: (text in the Rust line,
# text in Triton's message) -> a hint.
KNOWN_ERRORS = [
    ("make_tensor_descriptor", "_semantic", "a tensor descriptor's last stride must be the compile-time constant 1: "
     "pass `1` there, not a runtime stride"),
    ("arange", "constexpr", "`T::arange` bounds must be compile-time values: const generics or literals"),
    ("zeros", "constexpr", "shapes must be compile-time values: const generics or literals"),
    ("full", "constexpr", "shapes must be compile-time values: const generics or literals"),
]


def _hint(source_line: str, message: str) -> str | None:
    for in_line, in_message, hint in KNOWN_ERRORS:
        if in_line in source_line and in_message in message:
            return hint
    return None


def triton_diagnostic(exc: BaseException, module) -> Diagnostic | None:
    """A Triton error in a generated kernel, reported at the Rust line it came from."""
    path = getattr(module, "__file__", None)
    rust_path = getattr(module, "__rs2triton_source__", None)
    mapping = getattr(module, "__rs2triton_line_map__", None)
    if not path or not rust_path or not mapping:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        with open(rust_path, encoding="utf-8") as f:
            rust_lines = f.read().splitlines()
    except OSError:
        return None
    line = generated_line(exc, path, text)
    rust = mapping.get(line) if line is not None else None
    if rust is None:
        return None
    source_line = rust_lines[rust - 1] if rust - 1 < len(rust_lines) else ""
    col = len(source_line) - len(source_line.lstrip()) + 1
    message = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
    where = f"the generated Python is {path}:{line}"
    hint = _hint(source_line, str(exc))
    return Diagnostic("E0011", f"Triton rejected this kernel: {message}", rust_path, rust, col,
                      max(1, len(source_line.strip())), f"{hint} ({where})" if hint else where, source_line)
