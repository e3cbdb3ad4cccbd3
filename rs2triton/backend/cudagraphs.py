"""``mode="reduce-overhead"``: each graph's generated wrapper (``backend/wrapper.py``) recorded in
a CUDA graph and replayed, by torch's own CUDA-graph trees (``torch._inductor.cudagraph_trees``:
what Inductor's ``reduce-overhead`` and torch's ``cudagraphs`` backend use), so a call costs one
graph replay plus the copies of the inputs that are not static (parameters and buffers are).

The trees warm a graph up first (its first call runs as it is: Triton's kernels are compiled
and the wrapper's plans made then, outside any capture), record it on a later call, and replay it
after; the backward of a recorded forward is recorded too. A graph is not recorded, and runs as it
is, where torch's own ``cudagraphs`` backend would not record it (a CPU tensor or several devices in
it, an operator a CUDA graph cannot hold, an input the graph mutates): the reason is in the
report (``Report.cuda_graphs``). On a machine without CUDA the mode changes nothing and the report
says so.

Only names this module imports from torch's private modules are used, each looked up once; where
torch lacks one (another release), the mode runs without CUDA graphs and the report says why.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from rs2triton.backend.report import Report

Boxed = Callable[[list[Any]], Any]

MODE = "reduce-overhead"


def _torch_parts() -> tuple[dict[str, Any], str | None]:
    """torch's CUDA-graph machinery, or why it is not there."""
    try:
        from torch._dynamo.backends import cudagraphs as dynamo_cg
        from torch._inductor import compile_fx, cudagraph_trees, cudagraph_utils
        from torch._inductor import utils as inductor_utils

        parts = {
            "cudagraphify_impl": cudagraph_trees.cudagraphify_impl,
            "get_manager": cudagraph_trees.get_manager,
            "placeholders": cudagraph_utils.get_placeholder_info,
            "check_for_skip": dynamo_cg.check_for_skip,
            "device_index": dynamo_cg.get_device_index,
            "stack_traces": dynamo_cg.get_stack_traces,
            "mutations": dynamo_cg.find_input_mutations,
            "fixed_forward": inductor_utils.num_fw_fixed_arguments,
            "static_inputs": compile_fx.get_static_input_idxs,
            "fixed_backward": inductor_utils.count_tangents,
        }
    except (ImportError, AttributeError) as e:
        return {}, f"this torch has no CUDA-graph trees as torch 2.11 to 2.13 have them ({e})"
    return parts, None


class CudaGraphs:
    """One Dynamo graph's CUDA-graph state: its forward (or inference) graph and its backward
    graph are recorded together or not at all, as in torch's ``cudagraphs`` backend."""

    def __init__(self, report: Report, n_dynamo_inputs: int) -> None:
        self.report = report
        self.n_dynamo_inputs = n_dynamo_inputs
        self.recording = True
        self.device_index: int | None = None
        self.parts, self.missing = _torch_parts()

    def _skip(self, aot_model: Any, fixed: int) -> str | None:
        if self.missing:
            return self.missing
        if not _cuda_available():
            return "CUDA is not available on this machine"
        reason: str | None = self.parts["check_for_skip"](aot_model, fixed)
        return reason

    def forward(self, aot_model: Any, aot_inputs: list[Any], compile_fn: Callable[[], Boxed],
                is_inference: bool = False) -> Boxed:
        """The forward (or inference) graph: ``compile_fn`` makes its boxed wrapper; it is
        recorded unless a reason says not. ``aot_model`` must be AOTAutograd's graph as it came,
        before the backend rewrites it."""
        fixed = self.parts["fixed_forward"](self.n_dynamo_inputs, len(aot_inputs)) if not self.missing else 0
        skip = self._skip(aot_model, fixed)
        if skip is None:
            index = self.parts["device_index"](aot_model)
            traces = self.parts["stack_traces"](aot_model)
            placeholders = self.parts["placeholders"](aot_model.graph)
            mutated = self.parts["mutations"](aot_model.graph)
        compiled = compile_fn()
        if skip is not None:
            self.recording = False
            self.report.record_cuda_graph(f"not recorded: {_first_line(skip)}")
            return compiled
        self.device_index = index
        self.report.record_cuda_graph("forward recorded" if not is_inference else "inference recorded")
        # (the parameters and buffers, which AOTAutograd marks static: not copied in each call, as
        # Inductor's reduce-overhead does; a parameter that moves makes the trees record anew)
        static = list(self.parts["static_inputs"](fixed))
        return self._record(compiled, aot_inputs, static, index, False, is_inference, traces, placeholders, mutated)

    def inference(self, aot_model: Any, aot_inputs: list[Any], compile_fn: Callable[[], Boxed]) -> Boxed:
        return self.forward(aot_model, aot_inputs, compile_fn, is_inference=True)

    def backward(self, aot_model: Any, aot_inputs: list[Any], compile_fn: Callable[[], Boxed]) -> Boxed:
        """The backward graph: recorded where its forward was (and nothing in it says not)."""
        if not self.recording:
            return compile_fn()
        fixed = self.parts["fixed_backward"](aot_model)
        skip = self._skip(aot_model, fixed)
        if skip is None:
            traces = self.parts["stack_traces"](aot_model)
            placeholders = self.parts["placeholders"](aot_model.graph)
            mutated = self.parts["mutations"](aot_model.graph)
        compiled = compile_fn()
        if skip is not None:
            # the forward is in a tree: its backward, run as it is, tells the tree's manager
            # so (torch's own backend does the same)
            self.report.record_cuda_graph(f"backward not recorded: {_first_line(skip)}")
            manager = self.parts["get_manager"](self.device_index or 0, create_if_none_exists=False)
            if manager is None:
                return compiled

            def run(inputs: list[Any]) -> Any:
                manager.set_to_running_backward()
                return compiled(inputs)

            run._boxed_call = True  # type: ignore[attr-defined]
            return run
        self.report.record_cuda_graph("backward recorded")
        return self._record(compiled, aot_inputs, list(range(fixed)), self.parts["device_index"](aot_model), True, False,
                            traces, placeholders, mutated)

    def _record(self, compiled: Boxed, inputs: list[Any], static: list[int], index: int, is_backward: bool,
                is_inference: bool, traces: Any, placeholders: Any, mutated: Any) -> Boxed:
        out: Boxed = self.parts["cudagraphify_impl"](
            compiled, inputs, static, device_index=index, is_backward=is_backward, is_inference=is_inference,
            stack_traces=traces, placeholders=placeholders, mutated_input_idxs=mutated)
        out._boxed_call = True  # type: ignore[attr-defined]
        return out


def _cuda_available() -> bool:
    from rs2triton.runtime.values import _torch

    return bool(_torch().cuda.is_available())


def compilers(graphs: CudaGraphs, make: Callable[[Any, str], Boxed]) -> dict[str, Callable[..., Boxed]]:
    """AOTAutograd's three compilers for a graph whose ``make(graph, direction)`` builds its
    boxed wrapper; the graph handed to ``make`` is the one torch checked before any rewrite."""
    return {
        "fw_compiler": lambda g, inputs: graphs.forward(g, inputs, functools.partial(make, g, "forward")),
        "bw_compiler": lambda g, inputs: graphs.backward(g, inputs, functools.partial(make, g, "backward")),
        "inference_compiler": lambda g, inputs: graphs.inference(g, inputs, functools.partial(make, g, "forward")),
    }


def _first_line(text: str) -> str:
    return text.strip().split("\n")[0]
