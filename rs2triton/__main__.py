"""The ``rs2triton`` command and ``python -m rs2triton``."""

from rs2triton.cli import main

if __name__ == "__main__":
    main(prog_name="rs2triton")
