"""A source file's text as diagnostics need it: tree-sitter nodes -> located :class:`Diagnostic` s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol

from rs2triton.diagnostics import ICE_CODE, Diagnostic, Lines, TranspileError, internal_error

if TYPE_CHECKING:
    from tree_sitter import Node


class Appended(Protocol):
    """Text appended past a file's end (frontend/macros.Appended): where each byte came from."""

    start: int

    def place(self, offset: int) -> tuple[int, str | None] | None: ...


class SourceMap:
    """Turns tree-sitter nodes into diagnostics for one source file."""

    def __init__(self, path: str, source: bytes, shown: str | None = None):
        self.path = path  # as the user gave it: what diagnostics say
        self.shown = shown or path  # what generated text calls the file (its header, docstrings)
        self.source = source  # as the parser read it: CR LFs made LFs (diagnostics.normalize_newlines)
        # Lines as rustc and tree-sitter count them (only `\n` ends one: diagnostics.Lines),
        # divided when the first diagnostic needs them.
        self._index: Lines | None = None
        self._lines: list[str] | None = None
        # Items a macro of the file writes, appended past its end (frontend/macros.py: an
        # `Appended`): what lies there is reported where it came from in the file.
        self.appended: Appended | None = None

    @property
    def index(self) -> Lines:
        if self._index is None:
            self._index = Lines(self.source)
        return self._index

    @property
    def lines(self) -> list[str]:
        """The text of each line (0-based)."""
        if self._lines is None:
            index = self.index
            self._lines = [index.bytes_of(row).decode("utf-8", errors="replace") for row in range(len(index))]
        return self._lines

    def diag(self, node: Node, code: str, message: str, hint: str | None = None, severity: str = "error") -> Diagnostic:
        if self.appended is not None and node.start_byte >= self.appended.start:
            return self._appended_diag(self.appended, node, code, message, hint, severity)
        return self.span_diag(node.start_byte, node.end_byte, code, message, hint, severity)

    def span_diag(self, start: int, end: int, code: str, message: str, hint: str | None = None,
                  severity: str = "error", notes: tuple[str, ...] = ()) -> Diagnostic:
        """A diagnostic at the bytes ``start:end`` of the file (marked up to its first line's end)."""
        index = self.index
        row = index.row(start)
        line_start = index.starts[row]
        line_bytes = index.bytes_of(row)
        col = len(line_bytes[:start - line_start].decode("utf-8", errors="replace")) + 1
        length = len(line_bytes[start - line_start:max(start, end) - line_start].decode("utf-8", errors="replace"))
        return Diagnostic(code, message, self.path, row + 1, col, max(1, length), hint, self.lines[row], severity,
                          notes)

    def _appended_diag(self, appended: Appended, node: Node, code: str, message: str, hint: str | None,
                       severity: str) -> Diagnostic:
        """A diagnostic at appended text: at the bytes of the file it came from (the macro's body, or
        the invocation's tokens), noting the invocation."""
        place = appended.place(node.start_byte)
        start, note = place if place is not None else (appended.start, None)
        end_place = appended.place(max(node.start_byte, node.end_byte - 1))
        end = end_place[0] + 1 if end_place is not None and end_place[0] >= start else start + 1
        return self.span_diag(start, end, code, message, hint, severity, (note,) if note else ())

    def _row_of(self, offset: int) -> tuple[int, int]:
        """The 0-based row of a byte of the file and the offset its line starts at."""
        row = self.index.row(offset)
        return row, self.index.starts[row]

    def rust_line(self, line: int) -> int:
        """The file's line (1-based) that line ``line`` of the text stands for: itself, or for
        appended text, the line its first token came from."""
        if self.appended is None:
            return line
        starts = self.index.starts
        if not 0 < line <= len(starts) or starts[line - 1] < self.appended.start:
            return line
        row_text = self.index.bytes_of(line - 1)
        place = self.appended.place(starts[line - 1] + len(row_text) - len(row_text.lstrip()))
        return self.index.row(place[0]) + 1 if place is not None else line

    def offset_diag(self, offset: int, code: str, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic at a byte offset of the file."""
        return self.line_diag(*self.index.position(offset), code, message, hint)

    def error(self, node: Node, code: str, message: str, hint: str | None = None) -> TranspileError:
        return TranspileError([self.diag(node, code, message, hint)])

    def line_diag(self, line: int, col: int, code: str, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic at a 1-based line and character column, with that line's text."""
        src = self.lines[line - 1] if 0 < line <= len(self.lines) else None
        return Diagnostic(code, message, self.path, line, col, 1, hint, src)

    @contextmanager
    def guard(self, node: Node | None, what: str) -> Iterator[None]:
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

    def ice(self, node: Node | None, what: str, exc: BaseException) -> Diagnostic:
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
