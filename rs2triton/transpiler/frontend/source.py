"""A source file's text as diagnostics need it: tree-sitter nodes -> located :class:`Diagnostic` s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from rs2triton.diagnostics import ICE_CODE, Diagnostic, TranspileError, internal_error


class Appended(Protocol):
    """Text appended past a file's end (frontend/macros.Appended): where each byte came from."""

    start: int

    def place(self, offset: int) -> tuple[int, str | None] | None: ...


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
        # Items a macro of the file writes, appended past its end (frontend/macros.py: an
        # `Appended`): what lies there is reported where it came from in the file.
        self.appended: Appended | None = None
        self._line_starts: list[int] | None = None

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
        if self.appended is not None and node.start_byte >= self.appended.start:
            return self._appended_diag(self.appended, node, code, message, hint, severity)
        row, byte_col = node.start_point
        line_bytes = self.byte_lines[row] if row < len(self.byte_lines) else b""
        col = len(line_bytes[:byte_col].decode("utf-8", errors="replace")) + 1
        if node.start_point[0] == node.end_point[0]:
            length = len(line_bytes[byte_col:node.end_point[1]].decode("utf-8", errors="replace"))
        else:
            length = len(line_bytes[byte_col:].decode("utf-8", errors="replace"))
        src_line = self.lines[row] if row < len(self.lines) else ""
        return Diagnostic(code, message, self.path, row + 1, col, max(1, length), hint, src_line, severity)

    def _appended_diag(self, appended: Appended, node, code: str, message: str, hint: str | None,
                       severity: str) -> Diagnostic:
        """A diagnostic at appended text: at the bytes of the file it came from (the macro's body, or
        the invocation's tokens), noting the invocation."""
        place = appended.place(node.start_byte)
        start, note = place if place is not None else (appended.start, None)
        end_place = appended.place(max(node.start_byte, node.end_byte - 1))
        end = end_place[0] + 1 if end_place is not None and end_place[0] >= start else start + 1
        row, line_start = self._row_of(start)
        line_bytes = self.byte_lines[row]
        col = len(line_bytes[:start - line_start].decode("utf-8", errors="replace")) + 1
        length = len(line_bytes[start - line_start:end - line_start].decode("utf-8", errors="replace"))
        return Diagnostic(code, message, self.path, row + 1, col, max(1, length), hint, self.lines[row], severity,
                          (note,) if note else ())

    def _row_of(self, offset: int) -> tuple[int, int]:
        """The 0-based row of a byte of the file and the offset its line starts at."""
        row = self.source.count(b"\n", 0, offset)
        return row, self.source.rfind(b"\n", 0, offset) + 1

    def rust_line(self, line: int) -> int:
        """The file's line (1-based) that line ``line`` of the text stands for: itself, or for
        appended text, the line its first token came from."""
        if self.appended is None:
            return line
        if self._line_starts is None:
            starts, at = [], 0
            for ln in self.source.split(b"\n"):
                starts.append(at)
                at += len(ln) + 1
            self._line_starts = starts
        starts = self._line_starts
        if not 0 < line <= len(starts) or starts[line - 1] < self.appended.start:
            return line
        row_text = self.byte_lines[line - 1]
        place = self.appended.place(starts[line - 1] + len(row_text) - len(row_text.lstrip()))
        return self._row_of(place[0])[0] + 1 if place is not None else line

    def offset_diag(self, offset: int, code: str, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic at a byte offset of the file."""
        row, start = self._row_of(offset)
        col = len(self.source[start:offset].decode("utf-8", "replace")) + 1
        return self.line_diag(row + 1, col, code, message, hint)

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
