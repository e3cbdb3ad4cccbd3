"""What generated modules import at run time: launchers (``from rs2triton.runtime import Launcher``).

Nothing here imports the transpiler, tree-sitter or jinja2; torch and triton are imported
only when a kernel is launched or tuned.
"""

from rs2triton.runtime.launcher import Launcher, sweep

__all__ = ["Launcher", "sweep"]
