"""Generated Python line -> Rust line, so Triton's errors can point at the Rust source.

Lowering tags every statement it builds with ``rs_line``. Formatting changes only the
layout, not the statements, so walking the tagged AST and the re-parsed final text in
the same order pairs each generated statement with its Rust line.
"""

from __future__ import annotations

import ast

from rs2triton.diagnostics import Diagnostic
from rs2triton.transpiler.pyast import is_comment_marker


def _walk(stmts: list[ast.stmt], skip_markers: bool):
    for stmt in stmts:
        if skip_markers and is_comment_marker(stmt):
            continue
        yield stmt
        for field in ("body", "orelse"):
            yield from _walk(getattr(stmt, field, []) or [], skip_markers)


def line_map(functions: list[ast.FunctionDef], text: str) -> dict[int, int]:
    """{generated line: Rust line} for every line of every statement that has a Rust line."""
    tagged = {f.name: f for f in functions}
    out: dict[int, int] = {}
    for node in ast.parse(text).body:
        src = tagged.get(getattr(node, "name", None))
        if not isinstance(node, ast.FunctionDef) or src is None:
            continue
        pairs = list(zip(_walk([src], True), _walk([node], False), strict=False))
        if len(pairs) != sum(1 for _ in _walk([node], False)):
            continue  # shapes differ: better no map than a wrong one
        for before, after in pairs:
            rust = getattr(before, "rs_line", None)
            if rust is None:
                continue
            first = after.lineno
            # a compound statement's own lines end where its body starts
            last = after.body[0].lineno - 1 if hasattr(after, "body") and after.body else after.end_lineno
            for line in range(first, max(first, last) + 1):
                out.setdefault(line, rust)
        for deco in node.decorator_list:  # errors reported at the decorator belong to the fn
            out.setdefault(deco.lineno, getattr(src, "rs_line", None) or 0)
    return {k: v for k, v in out.items() if v}


def add_line_comments(fn: ast.FunctionDef, path: str) -> None:
    """End every statement of ``fn`` that came from Rust with ``# path:LINE`` (a trailing
    comment; a block statement's goes on its header line, beside a comment already there)."""
    from rs2triton.transpiler.pyast import TRAILING_CALL, comment_marker

    def note(stmt: ast.stmt, body: list[ast.stmt], at: int) -> None:
        loc = f"{path}:{stmt.rs_line}"
        nxt = body[at] if at < len(body) else None
        if (nxt is not None and isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Call)
                and getattr(nxt.value.func, "id", None) == TRAILING_CALL):
            nxt.value.args[0] = ast.Constant(f"{loc}: {nxt.value.args[0].value}")
        else:
            body.insert(at, comment_marker(loc, trailing=True))

    def walk(body: list[ast.stmt]) -> None:
        i = 0
        while i < len(body):
            stmt = body[i]
            docstring = isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            if not is_comment_marker(stmt) and not docstring and getattr(stmt, "rs_line", None):
                if isinstance(stmt, (ast.If, ast.For, ast.While)):
                    note(stmt, stmt.body, 0)
                else:
                    note(stmt, body, i + 1)
            for field in ("body", "orelse"):
                walk(getattr(stmt, field, []) or [])
            i += 1

    walk(fn.body)


def _chain(exc: BaseException):
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
