"""A source file's text as diagnostics need it: tree-sitter nodes -> located :class:`Diagnostic` s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rs2triton.diagnostics import ICE_CODE, Diagnostic, TranspileError, internal_error


class SourceMap:
    """Turns tree-sitter nodes into diagnostics for one source file."""

    def __init__(self, path: str, source: bytes, shown: str | None = None):
        self.path = path  # as the user gave it: what diagnostics say
        self.shown = shown or path  # what generated text calls the file (its header, docstrings)
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
        except (TranspileError, RecursionError):  # (too deeply nested source: see driver/pipeline.py)
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
