"""The kernel target: what lowering does only for ``#[kernel]`` fns and the ``@triton.jit``
helpers they call (DSL calls through the op table, Triton control flow, counted loops)."""
