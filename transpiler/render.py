"""Rendering: Python AST -> the text of a generated module.

Function bodies are printed with ``ast.unparse`` (so they always parse); the
module around them comes from ``templates/module.py.j2``; ``ruff format`` gives
the final layout. The result is re-parsed before anyone may write it.
"""

from __future__ import annotations

import ast
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import jinja2

from .pyast import COMMENT_CALL

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    if TEMPLATE_DIR.is_dir():
        loader: jinja2.BaseLoader = jinja2.FileSystemLoader(str(TEMPLATE_DIR))
    else:  # installed as a wheel: templates is a package
        loader = jinja2.PackageLoader("templates", ".")
    return jinja2.Environment(loader=loader, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, autoescape=False,
                              undefined=jinja2.StrictUndefined)


_COMMENT_RE = re.compile(rf"^(\s*){COMMENT_CALL}\((.*)\)$", re.M)


def unparse(node: ast.AST) -> str:
    ast.fix_missing_locations(node)
    src = ast.unparse(node)

    def repl(m: re.Match) -> str:
        body = ast.literal_eval(m.group(2))
        return f"{m.group(1)}# {body}".rstrip() if body else f"{m.group(1)}#"

    return _COMMENT_RE.sub(repl, src)


def render_module(source: str, doc: str | None, imports: list[str], consts: list[str],
                  functions: list[str]) -> str:
    doc_text = None
    if doc:
        doc_text = ast.unparse(ast.Module(body=[ast.Expr(ast.Constant(doc + ("\n" if "\n" in doc else "")))],
                                          type_ignores=[]))
    text = _env().get_template("module.py.j2").render(
        source=_safe_comment(source), doc=doc_text, imports=sorted(imports), consts=consts,
        functions=functions)
    return format_code(text)


def _safe_comment(s: str) -> str:
    # A path is printed in a comment: no newline may end the comment early.
    return s.replace("\r", "\\r").replace("\n", "\\n")


@lru_cache(maxsize=1)
def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin

    return find_ruff_bin()


def format_code(text: str) -> str:
    """Format with ruff (isolated from any project config, so output is the same everywhere)."""
    proc = subprocess.run(
        [_ruff(), "format", "--isolated", "--stdin-filename", "generated.py", "-"],
        input=text.encode(), capture_output=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"ruff could not format generated code (a bug in rs2triton):\n"
                           f"{proc.stderr.decode()}\n{text}")
    return proc.stdout.decode()
