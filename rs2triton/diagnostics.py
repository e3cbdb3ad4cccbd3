"""Diagnostics: located, rustc-style error reports.

Every user-facing error is a :class:`Diagnostic` carrying the file, 1-based line
and column, the span length, a stable code, a message and a hint. They are raised
inside :class:`TranspileError` and printed by :func:`render`; the CLI never shows
a Python traceback for them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

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
    "E0013": "invalid tuning table",
    "E0999": "internal error in rs2triton",
    "W0001": "item not translated",
}
# An unexpected exception inside rs2triton (rustc's ICE): always a bug, never the user's.
ICE_CODE = "E0999"


class Diagnostic:
    """One located report: a file, a 1-based line and column (in characters), the span
    length, a stable code, a message and a hint; compared and hashed by value.

    (A plain class rather than a dataclass: this module is imported by every command,
    and ``dataclasses`` costs more to import than the rest of it.)
    """

    __match_args__ = ("code", "message", "path", "line", "col", "length", "hint", "source_line", "severity",
                      "notes")

    def __init__(self, code: str, message: str, path: str, line: int, col: int, length: int = 1,
                 hint: str | None = None, source_line: str | None = None, severity: str = "error",
                 notes: tuple[str, ...] = ()):
        self.code = code
        self.message = message
        self.path = path
        self.line = line  # 1-based
        self.col = col  # 1-based, in characters
        self.length = length
        self.hint = hint
        self.source_line = source_line
        self.severity = severity  # or "warning": printed, but nothing fails
        # Extra `= note:` lines (an internal error's traceback); a list (from JSON, say)
        # is kept as a tuple: hashable, comparable.
        self.notes = tuple(notes)

    def _key(self) -> tuple:
        return tuple(getattr(self, f) for f in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Diagnostic) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Diagnostic({', '.join(f'{f}={getattr(self, f)!r}' for f in self.__match_args__)})"

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
        pad = " " * len(str(self.line)) if self.source_line is not None else " "
        out.extend(f"{pad} = note: {n}" for n in self.notes)
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
        # Rows as tree-sitter counts them: only `\n` ends a line (a lone `\r`, a form feed
        # or U+2028 do not, whatever str.splitlines thinks).
        self._byte_lines: list[bytes] | None = None  # made when the first diagnostic needs them
        self._lines: list[str] | None = None

    @property
    def byte_lines(self) -> list[bytes]:
        if self._byte_lines is None:
            self._byte_lines = [ln.removesuffix(b"\r") for ln in self.source.split(b"\n")]
        return self._byte_lines

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = [ln.decode("utf-8", errors="replace") for ln in self.byte_lines]
        return self._lines

    def diag(self, node, code: str, message: str, hint: str | None = None, severity: str = "error") -> Diagnostic:
        row, byte_col = node.start_point
        line_bytes = self.byte_lines[row] if row < len(self.byte_lines) else b""
        col = len(line_bytes[:byte_col].decode("utf-8", errors="replace")) + 1
        if node.start_point[0] == node.end_point[0]:
            length = len(line_bytes[byte_col:node.end_point[1]].decode("utf-8", errors="replace"))
        else:
            length = len(line_bytes[byte_col:].decode("utf-8", errors="replace"))
        src_line = self.lines[row] if row < len(self.lines) else ""
        return Diagnostic(code, message, self.path, row + 1, col, max(1, length), hint, src_line, severity)

    def error(self, node, code: str, message: str, hint: str | None = None) -> TranspileError:
        return TranspileError([self.diag(node, code, message, hint)])

    def line_diag(self, line: int, col: int, code: str, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic at a 1-based line and character column, with that line's text."""
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return Diagnostic(code, message, self.path, line, col, 1, hint, src)

    @contextmanager
    def guard(self, node, what: str) -> Iterator[None]:
        """Turn an unexpected exception inside the block into an internal error at ``node``.

        ``node`` is a tree-sitter node, or None for the file as a whole; ``what`` says
        what was being done ("lowering", "rendering the module"). Diagnostics pass through.
        """
        try:
            yield
        except (TranspileError, RecursionError):  # (too deeply nested source: see pipeline.py)
            raise
        except Exception as exc:  # noqa: BLE001 - the safety net: never a bare traceback
            raise TranspileError([self.ice(node, what, exc)]) from exc

    def ice(self, node, what: str, exc: BaseException) -> Diagnostic:
        """The internal-error diagnostic for ``exc``, raised while ``what`` (-ing) ``node``."""
        if node is not None:
            d = self.diag(node, ICE_CODE, "")
            snippet = " ".join(d.source_line[d.col - 1:d.col - 1 + d.length].split()) if d.source_line else ""
            kind = node.type.replace("_", " ")
            subject = f"{kind} `{snippet[:40]}{'...' if len(snippet) > 40 else ''}`" if snippet else kind
            where = (d.line, d.col, d.length, d.source_line)
        else:
            subject, where = "this file", (1, 1, 1, self.lines[0] if self.lines else None)
        return internal_error(self.path, where, f"{what} {subject}", exc)


def internal_error(path: str, where: tuple[int, int, int, str | None], doing: str,
                   exc: BaseException) -> Diagnostic:
    """rustc's ICE as a diagnostic: where it happened, what rs2triton was doing, "please report"."""
    line, col, length, source_line = where
    detail = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:200]
    notes = ["this is a bug in rs2triton, not in your code; please report it with this input file",
             f"unexpected {detail}"]
    if os.environ.get("RS2TRITON_DEBUG") == "1":
        import traceback

        notes.append("Python traceback:\n" + "".join(traceback.format_exception(exc)).rstrip())
    else:
        notes.append("run with RS2TRITON_DEBUG=1 to see the Python traceback")
    return Diagnostic(ICE_CODE, f"internal error in rs2triton while {doing}", path, line, col, length,
                      None, source_line, notes=tuple(notes))
