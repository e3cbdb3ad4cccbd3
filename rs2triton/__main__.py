"""``python -m rs2triton``: the command line."""

from .cli import main

main(prog_name="rs2triton")
