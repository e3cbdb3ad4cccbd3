"""The ``rs2triton`` command and ``python -m rs2triton``: :func:`main`."""

import sys

from rs2triton.transpiler.driver import lead


def main() -> None:
    """Start the lead worker of a ``transpile`` or ``check`` (:mod:`rs2triton.transpiler.driver.lead`), so
    that it loads the lowering stages while this process loads the command line (click)
    and plans the run; then run the command (``cli.console``)."""
    lead.start_for(sys.argv[1:])
    from rs2triton.cli import console

    console()


if __name__ == "__main__":
    main()
