"""``python -m rs2triton``: the command line."""

from .cli import console

console()
