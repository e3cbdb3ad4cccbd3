"""Python's literals as ``ruff format`` writes them: strings in its quotes, numbers, docstrings in
every form, plain data (a launcher's keywords) laid out over lines; and how wide a line is."""

from __future__ import annotations

import re
import unicodedata

INDENT = "    "
LINE_LENGTH = 88  # ruff format's default
INFINITY = "1e309"  # a float infinity as Python source: 1e(max_10_exp + 1)


class PrinterError(Exception):
    """A node or value the printer does not know: the lowering built something it never builds (a bug)."""


def width(text: str) -> int:
    """The columns ``text`` takes, as ruff counts them: wide East Asian characters two,
    combining marks none."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fits(line: str) -> bool:
    return width(line) <= LINE_LENGTH


# Characters some tool takes for the end of a line (Python's tokenizer: \n and \r; editors and
# str.splitlines: the others). Inside a comment each is written as its escape, so no text of a
# comment can end it and become code, or look as if it did.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# And the codepoints that turn text around (a source file's path may hold them): written as
# escapes in a comment, they cannot make code read otherwise than it runs.
TEXT_DIRECTION = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# What a generated module never holds as itself (but the line feeds between its lines): every
# control character but tab (ESC, which a terminal acts on when the module is printed, included),
# the line and paragraph separators, and the format characters (the text-direction codepoints,
# zero-width ones, a byte-order mark), by their Unicode category. A comment, the header and a
# docstring write each as Python's escape (``\x1b``, ``\u2028``), strings as ``repr`` does.
_HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp"))
_ASCII_HIDDEN = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
_ASCII_HIDDEN_BUT_NEWLINE = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_NON_ASCII = re.compile("[^\x00-\x7f]")


def hidden(text: str, *, newlines: bool = True) -> str | None:
    """A character of ``text`` a module may not hold as itself (see above), or None;
    ``newlines=False``: a line feed is allowed (a module's text)."""
    m = (_ASCII_HIDDEN if newlines else _ASCII_HIDDEN_BUT_NEWLINE).search(text)
    if m is not None:
        return m.group()
    if not text.isascii():
        for m in _NON_ASCII.finditer(text):
            if unicodedata.category(m.group()) in _HIDDEN_CATEGORIES:
                return m.group()
    return None


def one_line(text: str) -> str:
    """``text`` with every character a module may not hold as itself written as Python's escape
    (``\r``, ``\x1b``, ``\u2028``, ``\u202e``): one line, nothing a terminal or an editor acts on."""
    if hidden(text) is None:
        return text
    return "".join(repr(c)[1:-1] if c != "\t" and unicodedata.category(c) in _HIDDEN_CATEGORIES else c
                   for c in text)


def comment(text: str) -> str:
    """``text`` as a ``#`` comment (no trailing blanks; control characters escaped: see :func:`one_line`)."""
    return f"# {one_line(text)}".rstrip() if text else "#"


def constant_text(value: object) -> str:
    """A constant as ruff writes it: strings in its quotes, floats without ``+`` in the
    exponent, an infinity as ``1e309``."""
    if type(value) is str:
        return string_literal(value)
    if type(value) is float:
        if value != value:
            return 'float("nan")'
        text = repr(value).replace("e+", "e")
        return text.replace("inf", INFINITY)
    if type(value) in (int, bool) or value is None:
        return repr(value)
    raise PrinterError(f"the printer has no rule for {type(value).__name__} constants")


def _units(body: str) -> list[str]:
    """A string literal's body as its characters and escapes (``\\x00``, ``\\'``: one unit each)."""
    out, i = [], 0
    while i < len(body):
        step = 2 if body[i] == "\\" else 1
        out.append(body[i:i + step])
        i += step
    return out


def string_literal(value: str) -> str:
    """``value`` in ruff's quotes: double ones, unless that needs more escapes than single ones."""
    text = repr(value)
    if text[0] == '"':  # repr chose double quotes: the value has a ' and no "
        return text
    if "'" not in value and '"' not in value:  # the usual case: no quote to look at
        return f'"{text[1:-1]}"'
    units = _units(text[1:-1])
    if '"' not in value:
        return '"' + "".join("'" if u == "\\'" else u for u in units) + '"'
    swapped = ["'" if u == "\\'" else '\\"' if u == '"' else u for u in units]
    if swapped.count('\\"') > units.count("\\'"):
        return text
    return '"' + "".join(swapped) + '"'


def _escape_docstring(text: str) -> str:
    """A docstring's text as the characters between its quotes, so that its value is ``text``:
    backslashes, tabs and unprintable characters escaped, a run of three quotes or more too."""
    if "\\" in text or not text.replace("\n", "").isprintable():
        text = "".join(c if c == "\n" or (c != "\\" and c.isprintable())
                       else c.encode("unicode_escape").decode("ascii") for c in text)
    if '"""' in text:
        text = re.sub('"{3,}', lambda m: '\\"' * len(m.group()), text)
    return text


def docstring_lines(text: str, indent: str) -> list[str]:
    """A docstring as ruff lays it out at ``indent``: in triple double quotes, the first line
    stripped, the others without their common indentation and stripped at the end, trailing
    blank lines dropped, the closing quotes on a line of their own when the text spans several
    lines and ended with a line break; a space after the opening quotes where the text starts
    with a quote, and a quote just before the closing quotes escaped."""
    lines = _escape_docstring(text).split("\n")
    rest = [line.rstrip(" ") for line in lines[1:]]
    margin = min((len(line) - len(line.lstrip(" ")) for line in rest if line), default=0)
    body = [lines[0].strip(" ")] + [line[margin:] for line in rest]
    own_line = False  # the closing quotes on a line of their own
    while len(body) > 1 and not body[-1]:
        body.pop()
        own_line = len(body) > 1
    if body == [""]:
        return [indent + ('""""""' if not text else '""" """')]
    last = body[-1]
    if not own_line and last.endswith('"') and (len(last) - 1 - len(last[:-1].rstrip("\\"))) % 2 == 0:
        body[-1] = last[:-1] + '\\"'  # an unescaped quote would end the docstring early
    if body[0].startswith('"'):
        body[0] = " " + body[0]
    out = [indent + '"""' + body[0]] + [indent + line if line else "" for line in body[1:]]
    if own_line:
        return [*out, indent + '"""']
    out[-1] += '"""'
    return out


def literal_text(value: object) -> str:
    """Plain data (dicts, lists, tuples, strings, numbers, booleans, None) as ruff writes it on one line."""
    if type(value) is dict:
        return "{" + ", ".join(f"{literal_text(k)}: {literal_text(v)}" for k, v in value.items()) + "}"
    if type(value) is list:
        return "[" + ", ".join(map(literal_text, value)) + "]"
    if type(value) is tuple:
        return "(" + (literal_text(value[0]) + "," if len(value) == 1 else ", ".join(map(literal_text, value))) + ")"
    return constant_text(value)


def literal_lines(prefix: str, value: object, indent: str, suffix: str) -> list[str]:
    """``prefix``, plain data and ``suffix`` laid out as ruff would: on one line if it fits,
    else a dict or list one item a line, each with a trailing comma when there are several."""
    line = f"{indent}{prefix}{literal_text(value)}{suffix}"
    if fits(line) or not value:
        return [line]
    items: list[tuple[str, object]]
    if type(value) is dict:
        items = [(f"{literal_text(k)}: ", v) for k, v in value.items()]
    elif type(value) is list:
        items = [("", v) for v in value]
    else:
        return [line]
    inner = indent + INDENT
    comma = "," if len(items) > 1 else ""  # one item alone on its line takes no trailing comma
    body = [lines for key, v in items for lines in literal_lines(key, v, inner, comma)]
    opening, closing = ("{", "}") if type(value) is dict else ("[", "]")
    return [f"{indent}{prefix}{opening}", *body, f"{indent}{closing}{suffix}"]
