"""Triton's errors in a generated kernel, reported at the Rust line the failing statement came from.

A module ``rs2triton.load`` made carries its generated-line -> Rust-line map
(``__rs2triton_line_map__``, recorded by the printer as it wrote the module) and the path of its
Rust source (``__rs2triton_source__``). A module ``rs2triton transpile --line-comments`` wrote
carries the same in its comments (``# kernels_rs/relu.rs:41`` after each statement, or on the
line above a statement that spans several), read back here with ``tokenize`` and ``ast``.
:func:`rust_lines` gives either; :func:`triton_diagnostic` finds the generated line a Triton
compile or interpreter error is about and makes an E0011 diagnostic at the Rust line.
"""

from __future__ import annotations

import ast
import functools
import io
import os
import re
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, NamedTuple

from rs2triton.diagnostics import Diagnostic, Lines, TranspileError
from rs2triton.runtime.locations import find_source


class RustLines(NamedTuple):
    """Where a generated module's lines came from."""

    path: str  # the Rust source, as the module names it
    file: str | None  # the same, where it can be read (None: it cannot be found)
    mapping: dict[int, int]  # generated line -> Rust line


# A generated module: imported, or (executed without registering it) the attributes of its globals
# that :func:`rust_lines` reads
GeneratedModule = ModuleType | SimpleNamespace

_LINE_COMMENT = re.compile(r"#\s*(\S+\.rs):(\d+)\s*$")


def module_of(fn: object) -> GeneratedModule | None:
    """The module a jit function was defined in: the registered module, or (a module executed
    without registering it) its globals, which hold what :func:`rust_lines` reads."""
    fn = getattr(fn, "fn", fn)
    module = sys.modules.get(getattr(fn, "__module__", None) or "", None)
    globals_ = getattr(fn, "__globals__", None)
    if globals_ is not None and (module is None or vars(module) is not globals_):
        return SimpleNamespace(**{k: globals_[k] for k in ("__file__", "__rs2triton_source__",
                                                            "__rs2triton_line_map__") if k in globals_})
    return module


def rust_lines(module: GeneratedModule | None) -> RustLines | None:
    """The generated module's map to its Rust source, from the attributes ``rs2triton.load`` or the
    module's own last statement (:func:`rs2triton.runtime.locations.locate`) recorded, or from its
    line comments; None where it has none of them."""
    path = getattr(module, "__rs2triton_source__", None)
    mapping = getattr(module, "__rs2triton_line_map__", None)
    if path and mapping:
        file = getattr(module, "__file__", None)
        found = find_source(str(path), Path(file).parent) if file else None
        return RustLines(str(path), found or str(path), mapping)
    file = getattr(module, "__file__", None)
    if not file or not str(file).endswith(".py"):
        return None
    try:
        stamp = os.stat(file).st_mtime_ns
    except OSError:
        return None
    return _from_comments(str(file), stamp)


@functools.lru_cache(maxsize=64)
def _from_comments(file: str, stamp: int) -> RustLines | None:
    try:
        with open(file, encoding="utf-8") as f:
            text = f.read()
        comments: dict[int, tuple[str, int, bool]] = {}  # line -> (Rust path, Rust line, alone on its line)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                m = _LINE_COMMENT.search(tok.string)
                if m is not None:
                    comments[tok.start[0]] = (m.group(1), int(m.group(2)), not tok.line[:tok.start[1]].strip())
        if not comments:
            return None
        tree = ast.parse(text)
    except (OSError, SyntaxError, tokenize.TokenError, ValueError):
        return None
    mapping: dict[int, int] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        at = comments.get(node.lineno)
        if at is None or at[2]:  # not on the statement's line: the line above it, alone
            above = comments.get(node.lineno - 1)
            at = above if above is not None and above[2] else None
        if at is None:
            continue
        body = getattr(node, "body", None)
        last = body[0].lineno - 1 if isinstance(body, list) and body else (node.end_lineno or node.lineno)
        for line in range(node.lineno, max(last, node.lineno) + 1):
            mapping[line] = at[1]
    shown = next(iter(comments.values()))[0]
    return RustLines(shown, find_source(shown, Path(file).parent), mapping)


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
        located = getattr(node, "rs2triton_line", None)  # a located kernel's node (runtime/locations.py)
        if isinstance(located, int):
            return located
        lineno = getattr(node, "lineno", None)
        if node is not None and isinstance(lineno, int) and src:
            # CompilationError: node.lineno counts from the kernel's decorator line.
            head = "\n".join(src.split("\n")[:2])
            at = text.find(head)
            if at >= 0:
                return text.count("\n", 0, at) + lineno
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
    ("make_tensor_descriptor", "16-byte aligned", "a tensor descriptor's base and row strides must be multiples "
     "of 16 bytes (4 f32, 8 f16 items): pad the rows, or use a kernel that loads with masks"),
    ("arange", "constexpr", "`T::arange` bounds must be compile-time values: const generics or literals"),
    ("zeros", "constexpr", "shapes must be compile-time values: const generics or literals"),
    ("full", "constexpr", "shapes must be compile-time values: const generics or literals"),
]


def _hint(source_line: str, message: str) -> str | None:
    for in_line, in_message, hint in KNOWN_ERRORS:
        if in_line in source_line and in_message in message:
            return hint
    return None


def triton_diagnostic(exc: BaseException, module: GeneratedModule) -> Diagnostic | None:
    """A Triton error in a generated kernel, reported at the Rust line it came from."""
    path = getattr(module, "__file__", None)
    lines = rust_lines(module)
    if not path or lines is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    line = generated_line(exc, path, text)
    rust = lines.mapping.get(line) if line is not None else None
    if rust is None:
        return None
    source = Lines.read(lines.file or "")  # (None where the Rust file is not where the module says)
    source_line = (source.text(rust) if source is not None else None) or ""
    rust_path = lines.path
    col = len(source_line) - len(source_line.lstrip()) + 1
    message = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
    where = f"the generated Python is {path}:{line}"
    hint = _hint(source_line, str(exc))
    return Diagnostic("E0011", f"Triton rejected this kernel: {message}", rust_path, rust, col,
                      max(1, len(source_line.strip())), f"{hint} ({where})" if hint else where, source_line)


def at_rust_line(exc: BaseException, fn: Any) -> TranspileError | None:
    """Triton's error about the generated kernel (a compile error, or one the interpreter raised
    running it) as rs2triton's E0011 at the Rust line it came from, as `rs2triton run` reports
    it; None for anything else (an argument error, an access outside the tensors). ``fn``: the
    kernel's ``@triton.jit`` function (a launcher's ``fn``)."""
    if not from_triton(exc):
        return None
    module = module_of(fn)
    diag = triton_diagnostic(exc, module) if module is not None else None
    return TranspileError([diag]) if diag is not None else None


def from_triton(exc: BaseException) -> bool:
    """Whether Triton raised ``exc`` about the kernel (its compiler's or interpreter's errors)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if type(e).__module__.startswith("triton"):
            return True
        e = e.__cause__ or e.__context__
    return False
