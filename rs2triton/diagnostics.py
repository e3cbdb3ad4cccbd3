"""Diagnostics: located, rustc-style error reports.

Every user-facing error is a :class:`Diagnostic` carrying the file, 1-based line
and column, the span length, a stable code, a message and a hint. They are raised
inside :class:`TranspileError` and printed by :func:`render`; the CLI never shows
a Python traceback for them.
"""

from __future__ import annotations

from dataclasses import dataclass

# Stable codes; docs/diagnostics.md documents each one.
CODES = {
    "E0001": "syntax error",
    "E0002": "unsupported construct",
    "E0003": "unknown DSL method",
    "E0004": "wrong number of arguments",
    "E0005": "unresolved dtype",
    "E0006": "unknown name",
    "E0007": "invalid kernel signature",
    "E0008": "unsupported argument",
    "E0009": "no kernels found",
    "E0010": "I/O error",
    "E0011": "Triton rejected the generated kernel",
    "E0012": "Rust rejects this constant",
    "W0001": "item not translated",
}


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    path: str
    line: int  # 1-based
    col: int  # 1-based, in characters
    length: int = 1
    hint: str | None = None
    source_line: str | None = None
    severity: str = "error"  # or "warning": printed, but nothing fails

    def render(self) -> str:
        title = f"{self.severity}[{self.code}]: {self.message}"
        loc = f"{self.path}:{self.line}:{self.col}"
        if self.source_line is None:
            out = [title, f"  --> {loc}"]
        else:
            gutter = " " * len(str(self.line))
            text = self.source_line.rstrip("\n").expandtabs(4)
            caret_len = max(1, min(self.length, len(text) - (self.col - 1)))
            out = [
                title,
                f"{gutter}--> {loc}",
                f"{gutter} |",
                f"{self.line} | {text}",
                f"{gutter} | {' ' * (self.col - 1)}{'^' * caret_len}",
            ]
        if self.hint:
            pad = " " * len(str(self.line)) if self.source_line is not None else " "
            out.append(f"{pad} = help: {self.hint}")
        return "\n".join(out)


class TranspileError(Exception):
    """One or more diagnostics; nothing was written."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n\n".join(d.render() for d in diagnostics))


class SourceMap:
    """Turns tree-sitter nodes into diagnostics for one source file."""

    def __init__(self, path: str, source: bytes):
        self.path = path
        self.source = source
        self.lines = source.decode("utf-8", errors="replace").splitlines()

    def diag(self, node, code: str, message: str, hint: str | None = None, severity: str = "error") -> Diagnostic:
        row, byte_col = node.start_point
        line_bytes = self.source.splitlines()[row] if row < len(self.lines) else b""
        col = len(line_bytes[:byte_col].decode("utf-8", errors="replace")) + 1
        if node.start_point[0] == node.end_point[0]:
            length = len(line_bytes[byte_col:node.end_point[1]].decode("utf-8", errors="replace"))
        else:
            length = len(line_bytes[byte_col:].decode("utf-8", errors="replace"))
        src_line = self.lines[row] if row < len(self.lines) else ""
        return Diagnostic(code, message, self.path, row + 1, col, max(1, length), hint, src_line, severity)

    def error(self, node, code: str, message: str, hint: str | None = None) -> TranspileError:
        return TranspileError([self.diag(node, code, message, hint)])
