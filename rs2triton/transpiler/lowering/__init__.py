"""Lowering: a kernel's tree-sitter tree -> a Python ``ast.FunctionDef`` for Triton, and host
code's -> Python classes (:mod:`.host`).

- :mod:`.lowerer`: the state of one function's lowering and the one dispatch every node goes
  through (rules registered per tree-sitter node kind in :mod:`.registry`);
- the rules both targets share, by concern: :mod:`.statements`, :mod:`.expressions`,
  :mod:`.operators` (Rust's operators and casts on values), :mod:`.typeck` (Rust's operand type
  rules), :mod:`.rustc` (what else rustc rejects); they import no target;
- the kernel target's (:mod:`.kernel`): its statements and expressions, :mod:`.kernel.control`
  (if, for, while; :mod:`.kernel.loops` finds counted loops), :mod:`.kernel.calls` (DSL methods
  through the op table), :mod:`.kernel.rules` (how each op-table row builds its call),
  :mod:`.kernel.helpers` (``@triton.jit`` helpers);
- :mod:`.values` (the typed values lowering tracks), :mod:`.names` (Rust scopes -> Python
  names), :mod:`.context` (what one file's lowering gathers), :mod:`.kernel` (a kernel fn
  -> its jit function).
"""

from rs2triton.transpiler.dsl.ops import METHODS, OPS
from rs2triton.transpiler.lowering import expressions, statements  # noqa: F401 - register
from rs2triton.transpiler.lowering.context import ModuleContext
from rs2triton.transpiler.lowering.host import builder as host_builder  # noqa: F401 - register
from rs2triton.transpiler.lowering.host import calls as host_calls  # noqa: F401 - register
from rs2triton.transpiler.lowering.host import expressions as host_expressions  # noqa: F401 - register
from rs2triton.transpiler.lowering.host import loops as host_loops  # noqa: F401 - register
from rs2triton.transpiler.lowering.host import statements as host_statements  # noqa: F401 - register
from rs2triton.transpiler.lowering.kernel import builder, calls, control, paths, rules  # noqa: F401 - register
from rs2triton.transpiler.lowering.kernel import expressions as kernel_expressions  # noqa: F401 - register
from rs2triton.transpiler.lowering.kernel import statements as kernel_statements  # noqa: F401 - register
from rs2triton.transpiler.lowering.kernel.function import lower_kernel
from rs2triton.transpiler.lowering.registry import check_op_table

check_op_table([*OPS.values(), *METHODS.values()])

__all__ = ["ModuleContext", "lower_kernel"]
