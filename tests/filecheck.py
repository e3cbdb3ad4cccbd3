"""A small FileCheck: `// CHECK:` lines in a Rust file, matched in order against generated text.

Directives (in ``//`` comments of the input; the rest of the comment is the pattern):

- ``CHECK: p`` - ``p`` occurs at or after the end of the previous match.
- ``CHECK-NEXT: p`` - ``p`` occurs on the line right after the previous match's line.
- ``CHECK-SAME: p`` - ``p`` occurs on the previous match's line, after it.
- ``CHECK-NOT: p`` - ``p`` does not occur between the previous match and the next positive
  match (or the end of the text).
- ``CHECK-LABEL: p`` - like ``CHECK``, and the text is split there: a ``CHECK-NOT`` never
  looks past the next label, and a failure is reported in the label's block.

A pattern is literal text, except that ``{{regex}}`` is a Python regular expression and a
run of spaces matches any run of spaces or tabs (as LLVM's FileCheck).

The text is matched as *logical* lines: a statement the formatter spread over several
lines (``tl.load(\n    x_ptr + offs,\n    mask=m,\n)``) is joined back into one
(``tl.load(x_ptr + offs, mask=m)``), so checks do not depend on the line width. Comment
lines that repeat a directive (the transpiler copies ``//`` comments into the output) are
dropped, so a pattern never matches itself.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

_DIRECTIVE = re.compile(r"//\s*(CHECK(?:-NEXT|-SAME|-NOT|-LABEL)?):(.*)$")
_ECHOED = re.compile(r"^\s*#\s*CHECK(?:-NEXT|-SAME|-NOT|-LABEL)?:")


@dataclass(frozen=True)
class Check:
    kind: str  # CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT or CHECK-LABEL
    pattern: str
    line: int  # 1-based line of the directive in its file
    regex: re.Pattern


class FileCheckError(AssertionError):
    pass


def compile_pattern(pattern: str) -> re.Pattern:
    parts = re.split(r"(\{\{.*?\}\})", pattern.strip())
    out = []
    for part in parts:
        if part.startswith("{{") and part.endswith("}}"):
            out.append(f"(?:{part[2:-2]})")
        else:
            out.append(r"[ \t]+".join(re.escape(w) for w in re.split(r" +", part)))
    return re.compile("".join(out))


def parse_checks(source: str) -> list[Check]:
    checks = []
    for n, line in enumerate(source.splitlines(), 1):
        m = _DIRECTIVE.search(line)
        if m:
            if not m.group(2).strip():
                raise FileCheckError(f"line {n}: empty {m.group(1)} pattern")
            checks.append(Check(m.group(1), m.group(2).strip(), n, compile_pattern(m.group(2))))
    return checks


def _line_span(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _context(text: str, pos: int, lines: int = 6) -> str:
    start, _ = _line_span(text, pos)
    lineno = text.count("\n", 0, start) + 1
    shown = text[start:].splitlines()[:lines]
    return "\n".join(f"  {lineno + i:4d} | {ln}" for i, ln in enumerate(shown)) or "  (end of text)"


def logical_lines(text: str) -> list[str]:
    """One line per logical Python line: bracketed continuation lines joined, as written on one line."""
    rows = text.split("\n")
    ends, depth = [], 0
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            if t.type == tokenize.OP and t.string in "([{":
                depth += 1
            elif t.type == tokenize.OP and t.string in ")]}":
                depth -= 1
            elif t.type == tokenize.NEWLINE or (t.type == tokenize.NL and depth == 0):
                ends.append(t.end[0])
    except (tokenize.TokenError, SyntaxError):
        return rows
    out, first = [], 1
    for end in ends:
        chunk = rows[first - 1:end]
        if len(chunk) > 1:
            indent = chunk[0][:len(chunk[0]) - len(chunk[0].lstrip())]
            joined = indent + " ".join(r.strip() for r in chunk)
            joined = re.sub(r"([(\[{]) ", r"\1", joined)
            joined = re.sub(r",? ([)\]}])", r"\1", joined)  # the formatter's trailing comma too
            out.append(joined)
        else:
            out.extend(chunk)
        first = end + 1
    return out + rows[first - 1:]


def filecheck(checks: list[Check], text: str, where: str = "input") -> None:
    """Raise FileCheckError, FileCheck-style, at the first check that does not hold."""
    text = "\n".join(ln for ln in logical_lines(text) if not _ECHOED.match(ln))
    if not checks:
        raise FileCheckError(f"{where}: no CHECK lines")
    # Labels cut the text into blocks first, so CHECK-NOT stays inside one block.
    label_pos: dict[int, tuple[int, int]] = {}
    pos = 0
    for i, c in enumerate(checks):
        if c.kind == "CHECK-LABEL":
            m = c.regex.search(text, pos)
            if m is None:
                _fail(c, where, "expected label not found in input", text, pos)
            label_pos[i] = (m.start(), m.end())
            pos = m.end()
    pos, prev_line_end, nots = 0, None, []
    for i, c in enumerate(checks):
        if c.kind == "CHECK-NOT":
            nots.append(c)
            continue
        if c.kind == "CHECK-LABEL":
            start, end = label_pos[i]
            _no_match(nots, text, pos, start, where)
            nots, pos = [], end
            prev_line_end = _line_span(text, start)[1]
            continue
        limit = min((s for j, (s, _) in label_pos.items() if j > i), default=len(text))
        if c.kind == "CHECK":
            m = c.regex.search(text, pos, limit)
        elif prev_line_end is None:
            raise FileCheckError(f"{where}:{c.line}: {c.kind} needs a match before it")
        elif c.kind == "CHECK-SAME":
            m = c.regex.search(text, pos, prev_line_end)
        else:  # CHECK-NEXT
            nxt_start = prev_line_end + 1
            nxt_end = _line_span(text, nxt_start)[1] if nxt_start <= len(text) else nxt_start
            m = c.regex.search(text, max(pos, nxt_start), nxt_end) if nxt_start <= len(text) else None
        if m is None:
            what = {"CHECK": "expected string not found in input",
                    "CHECK-NEXT": "expected string not found on the next line",
                    "CHECK-SAME": "expected string not found on the same line"}[c.kind]
            _fail(c, where, what, text, pos)
        _no_match(nots, text, pos, m.start(), where)
        nots = []
        pos, prev_line_end = m.end(), _line_span(text, m.start())[1]
    _no_match(nots, text, pos, len(text), where)


def _no_match(nots: list[Check], text: str, start: int, end: int, where: str) -> None:
    for c in nots:
        m = c.regex.search(text, start, end)
        if m is not None:
            _fail(c, where, "excluded string found in input", text, m.start())


def _fail(c: Check, where: str, what: str, text: str, pos: int) -> None:
    raise FileCheckError(f"{where}:{c.line}: error: {c.kind}: {what}\n  {c.kind}: {c.pattern}\n"
                         f"scanning the generated module (logical lines) from here:\n{_context(text, pos)}")


def check_file(path: Path, text: str) -> None:
    filecheck(parse_checks(path.read_text()), text, path.as_posix())
