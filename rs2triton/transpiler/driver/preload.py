"""What a worker process starts with: imported once by the forkserver (see :mod:`.workers`),
before it forks the workers, so each inherits the lowering stages, the parser and the
compiled module template instead of loading them itself."""

from rs2triton.transpiler.driver import pipeline  # noqa: F401 - the stages come with it
from rs2triton.transpiler.emit.module import template
from rs2triton.transpiler.frontend.parse import parser

parser()
template()
