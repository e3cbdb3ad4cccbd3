"""ruff, the reference the printer's layout is held to (a development dependency only).

:func:`reformat` runs ``ruff format --isolated`` over many texts in one process and returns
what ruff makes of each; with ``magic_trailing_comma=False`` ruff ignores trailing commas, so
its layout depends on the code alone and not on where the printer put line breaks: a text
that ruff leaves as it is in both modes is laid out exactly as ruff lays that code out.
"""

from __future__ import annotations

import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=1)
def ruff() -> str:
    from ruff import find_ruff_bin

    return find_ruff_bin()


def reformat(texts: list[str], magic_trailing_comma: bool = True) -> list[str]:
    """What ``ruff format`` writes for each text (one ruff process for all of them)."""
    if not texts:
        return []
    options = [] if magic_trailing_comma else ["--config", "format.skip-magic-trailing-comma = true"]
    with tempfile.TemporaryDirectory(prefix="rs2triton-ruff-") as tmp:
        paths = [Path(tmp) / f"m{i}.py" for i in range(len(texts))]
        for p, t in zip(paths, texts, strict=True):
            p.write_bytes(t.encode())
        proc = subprocess.run([ruff(), "format", "--isolated", "--no-cache", "--quiet", *options, *map(str, paths)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"ruff could not format:\n{proc.stderr}")
        return [p.read_bytes().decode() for p in paths]


LAUNCHERS = "\n\n\n# Launchers (rs2triton.runtime)"


def without_launchers(text: str) -> str:
    """A generated module without its launchers, which are written one keyword a line by design
    (ruff keeps them so, for their trailing commas)."""
    return text.split(LAUNCHERS)[0] + "\n" if LAUNCHERS in text else text


def not_as_ruff_lays_out(texts: list[str]) -> list[int]:
    """The indices of the texts that ruff would lay out otherwise: the whole text as ruff keeps
    it, and the code without launchers as ruff lays it out whatever the trailing commas."""
    code = [without_launchers(t) for t in texts]
    normal, plain = reformat(texts), reformat(code, magic_trailing_comma=False)
    return [i for i in range(len(texts)) if texts[i] != normal[i] or code[i] != plain[i]]
