"""What generated modules import at run time: launchers (``from rs2triton.runtime import Launcher``).

Nothing here imports the transpiler, tree-sitter or jinja2; torch and triton are imported
only when a kernel is launched or tuned.
"""

from rs2triton.runtime.launcher import Launcher, sweep
from rs2triton.runtime.locations import locate
from rs2triton.runtime.ops import ArgVisitor, RuntimeOp, Unsupported

__all__ = ["ArgVisitor", "Launcher", "RuntimeOp", "Unsupported", "locate", "sweep"]
