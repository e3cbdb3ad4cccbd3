"""Diagnostics: located, rustc-style error reports.

Every user-facing error is a :class:`Diagnostic` carrying the file, 1-based line and column,
the span length, a stable code, a message and a hint. They are raised inside
:class:`TranspileError` and printed by :meth:`Diagnostic.render`; the CLI never shows a
Python traceback for them. Diagnostics at a tree-sitter node are made by
``transpiler/frontend/source.py``; the runtime makes them for Triton's errors.
"""

from __future__ import annotations

import bisect
import os
from pathlib import Path

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
    "E0014": "Rust's type rules reject this",
    "E0015": "Rust's borrow checker rejects this",
    "E0999": "internal error in rs2triton",
}
# An unexpected exception inside rs2triton (rustc's ICE): always a bug, never the user's.
ICE_CODE = "E0999"


# What a terminal acts on rather than shows: C0 controls (but tab and line feed), DEL, C1
# controls, the codepoints that turn text around, and the line and paragraph separators some
# terminals and viewers break lines at. Messages show them as Rust's `escape_debug` writes them
# (`\u{1b}`); a source line shows C0 controls and DEL as the Unicode control pictures rustc
# prints there (`␛`), the others escaped.
_ACTS = frozenset([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F,
                   0x2028, 0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_ESCAPED = {**{c: f"\\u{{{c:x}}}" for c in _ACTS}, 0x0D: "\\r", 0x00: "\\0"}  # (Rust's short escapes)
_PICTURES = {**_ESCAPED, **{c: chr(0x2400 + c) for c in range(0x20) if c not in (0x09, 0x0A)}, 0x7F: "\u2421"}


def terminal_text(text: str, *, keep_newlines: bool = False) -> str:
    r"""``text`` safe to print: every character a terminal would act on written out as Rust
    writes it (`\u{1b}`), line feeds too unless ``keep_newlines``."""
    out = text.translate(_ESCAPED)
    return out if keep_newlines else out.replace("\n", "\\n")


def debug_text(text: str) -> str:
    r"""``text`` as Rust's ``{:?}`` writes a string, where it holds anything :func:`terminal_text`
    would escape: in quotes, with ``\n``, ``\r``, ``\t``, ``\\``, ``\"`` and ``\u{..}`` escapes, so
    that a name with a line break or a text-direction codepoint in it reads as one name; any
    other text as it is."""
    if not any(ord(c) in _ACTS or c == "\n" for c in text):
        return text
    out = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t").replace("\n", "\\n")
    return '"' + out.translate(_ESCAPED) + '"'


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as messages show it: a string as given, a ``Path`` with forward slashes, and as
    Rust's ``{:?}`` writes it where it holds a line break, a control or a text-direction
    character (``"o\\nut/k.py"``): :func:`debug_text`."""
    return debug_text(path if isinstance(path, str) else Path(path).as_posix())


def _source_text(text: str) -> str:
    """A source line as rustc shows one: a tab as four spaces, control characters as their pictures."""
    return text.replace("\t", "    ").translate(_PICTURES)


def _columns(text: str) -> int:
    """The terminal columns ``text`` takes, as rustc counts them to place its carets: a wide
    East Asian character two, a combining mark or a format character none, others one."""
    if text.isascii():
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.category(c) in ("Mn", "Me", "Cf") else 1 for c in text)


class Lines:
    r"""A file's text divided into lines as rustc divides it (and as tree-sitter counts its rows):
    only a line feed ends a line. A CR, form feed, vertical tab, NEL (U+0085) or U+2028 is a
    character of its line, whatever ``str.splitlines`` thinks; a CR LF is one line end, as rustc
    reads it (:func:`normalize_newlines`). The one place byte offsets become (line, column) and
    lines become their text, for every diagnostic and the generated line map."""

    def __init__(self, data: bytes):
        self.data = data  # newlines normalized (the bytes the parser read)
        self._starts: list[int] | None = None

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Lines | None:
        """The lines of the file at ``path`` (None where it cannot be read)."""
        try:
            with open(path, "rb") as f:  # (bytes: text mode would end lines at a lone CR)
                data = f.read()
        except OSError:
            return None
        return cls(normalize_newlines(data))

    @property
    def starts(self) -> list[int]:
        """The byte offset each line starts at."""
        if self._starts is None:
            starts, at, find = [0], 0, self.data.find
            while (at := find(b"\n", at) + 1) > 0:
                starts.append(at)
            self._starts = starts
        return self._starts

    def __len__(self) -> int:
        return len(self.starts)

    def row(self, offset: int) -> int:
        """The 0-based line of a byte offset."""
        return bisect.bisect_right(self.starts, offset) - 1

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and character column of a byte offset."""
        row = self.row(offset)
        return row + 1, len(self.data[self.starts[row]:offset].decode("utf-8", "replace")) + 1

    def bytes_of(self, row: int) -> bytes:
        """The bytes of 0-based line ``row``, without its line feed."""
        starts = self.starts
        end = starts[row + 1] - 1 if row + 1 < len(starts) else len(self.data)
        return self.data[starts[row]:end]

    def text(self, line: int) -> str | None:
        """The text of 1-based line ``line`` (None past the file's end)."""
        if not 0 < line <= len(self.starts):
            return None
        return self.bytes_of(line - 1).decode("utf-8", "replace")


def normalize_newlines(data: bytes) -> bytes:
    r"""``data`` with each CR LF a LF, as rustc reads a source file (its ``normalize_newlines``):
    a file saved with Windows line ends (git's autocrlf) is the same program, line for line and
    column for column. A lone CR stays. Text that is not UTF-8 is left as it is, so the report
    of its first bad byte names the offset in the file."""
    if b"\r\n" not in data:
        return data
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return data.replace(b"\r\n", b"\n")


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

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, f) for f in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Diagnostic) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Diagnostic({', '.join(f'{f}={getattr(self, f)!r}' for f in self.__match_args__)})"

    def render(self) -> str:
        """The report as rustc prints one; nothing of the source, the message or the path can
        act on the terminal (:func:`terminal_text`)."""
        title = f"{self.severity}[{self.code}]: {terminal_text(self.message)}"
        loc = f"{debug_text(self.path)}:{self.line}:{self.col}"
        if self.source_line is None:
            out = [title, f"  --> {loc}"]
        else:
            gutter = " " * len(str(self.line))
            line = self.source_line.rstrip("\n")
            text = _source_text(line)
            # (the carets under the characters they mark, however wide each is shown)
            at = _columns(_source_text(line[:self.col - 1]))
            marked = _columns(_source_text(line[self.col - 1:self.col - 1 + self.length]))
            caret_len = max(1, min(marked, _columns(text) - at))
            out = [
                title,
                f"{gutter}--> {loc}",
                f"{gutter} |",
                f"{self.line} | {text}",
                f"{gutter} | {' ' * at}{'^' * caret_len}",
            ]
        if self.hint:
            pad = " " * len(str(self.line)) if self.source_line is not None else " "
            out.append(f"{pad} = help: {terminal_text(self.hint)}")
        pad = " " * len(str(self.line)) if self.source_line is not None else " "
        out.extend(f"{pad} = note: {terminal_text(n, keep_newlines=True)}" for n in self.notes)
        return "\n".join(out)


class TranspileError(Exception):
    """One or more diagnostics; nothing was written."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n\n".join(d.render() for d in diagnostics))


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
