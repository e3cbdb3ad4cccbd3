"""The host target: Rust host code (teenygrad's ``impl RuntimeOp``, ``new``, the inherent methods
of the structs around kernels) lowered by the same front end as kernels, to plain Python with
Rust's meaning.

The literals, names, paths, operators, casts and scoping are the shared rules of
:mod:`rs2triton.transpiler.lowering`; what host code has and kernels do not is here:

- :mod:`.lowerer`: the host lowerer (the state of one method) and its sinks: Rust is
  expression-oriented, so a block, ``if``, ``match`` or ``loop`` in value position is lowered
  *into* a sink (a ``return``, an assignment, nothing) that each branch ends with;
- :mod:`.builder`: the Python for the shared rules' decisions (wrapping where an integer is
  observed, f32 rounding, Rust's division and casts) and what names, paths and fields mean;
- :mod:`.statements` (``let`` with patterns, assignments, ``if``/``match``, panics and
  assertions), :mod:`.loops` (``for``/``while``/``loop``, labelled jumps) and :mod:`.expressions`
  (indexing, arrays, struct literals, closures, macros);
- :mod:`.calls`: method and path calls, through the standard library's tables (:mod:`.std`);
- :mod:`.classes`: one Python class per ``impl RuntimeOp``, its methods lowered here.
"""
