"""What the backend ran: per torch operation, the calls each teenygrad op ran (forward and
backward) and the calls that fell back to torch, with the reason."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Row:
    operation: str
    ran: Counter[tuple[str, str]] = field(default_factory=Counter)  # (Rust struct, "forward" | "backward") -> calls
    fell_back: Counter[str] = field(default_factory=Counter)  # reason -> calls
    notes: Counter[str] = field(default_factory=Counter)  # what the backend did around the op -> calls

    @property
    def structs(self) -> list[str]:
        return sorted({s for s, _ in self.ran})

    def calls(self, struct: str, direction: str) -> int:
        return self.ran[(struct, direction)]


class Report:
    """A snapshot (``backend.report()``) or the backend's live record. ``rows`` maps a torch
    operation to its :class:`Row`; ``ran(op)`` / ``fallbacks(op)`` read one; ``str()`` is a
    table."""

    def __init__(self) -> None:
        self.rows: dict[str, Row] = {}
        # Dynamo's graph breaks meanwhile (what ran on Python, outside any graph, and why: the
        # first line of its reason -> times), in the process: Dynamo counts them for all backends
        self.graph_breaks: Counter[str] = Counter()
        # mode="reduce-overhead": per graph (forward, backward, inference), recorded in a CUDA
        # graph or why not -> graphs (backend/cudagraphs.py)
        self.cuda_graphs: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _row(self, operation: str) -> Row:
        row = self.rows.get(operation)
        if row is None:
            row = self.rows[operation] = Row(operation)
        return row

    def record_run(self, operation: str, struct: str, direction: str, notes: tuple[str, ...] = (), times: int = 1) -> None:
        with self._lock:
            row = self._row(operation)
            row.ran[(struct, direction)] += times
            for n in notes:
                row.notes[n] += times

    def record_fallback(self, operation: str, reason: str, times: int = 1) -> None:
        with self._lock:
            self._row(operation).fell_back[reason] += times

    def record_cuda_graph(self, what: str) -> None:
        with self._lock:
            self.cuda_graphs[what] += 1

    def copy(self) -> Report:
        out = Report()
        with self._lock:
            for k, r in self.rows.items():
                out.rows[k] = Row(k, Counter(r.ran), Counter(r.fell_back), Counter(r.notes))
        out.graph_breaks = Counter(self.graph_breaks)
        out.cuda_graphs = Counter(self.cuda_graphs)
        return out

    def clear(self) -> None:
        with self._lock:
            self.rows.clear()
            self.cuda_graphs.clear()

    def ran(self, operation: str, direction: str | None = None) -> int:
        row = self.rows.get(operation)
        if row is None:
            return 0
        return sum(n for (_, d), n in row.ran.items() if direction in (None, d))

    def fallbacks(self, operation: str) -> Counter[str]:
        row = self.rows.get(operation)
        return Counter(row.fell_back) if row else Counter()

    @property
    def total_fallbacks(self) -> int:
        return sum(sum(r.fell_back.values()) for r in self.rows.values())

    def __str__(self) -> str:
        header = ("torch operation", "teenygrad op", "forward", "backward", "on torch", "why / notes")
        lines: list[tuple[str, ...]] = []
        for name in sorted(self.rows):
            row = self.rows[name]
            structs = row.structs or ["-"]
            for i, s in enumerate(structs):
                fwd, bwd = row.calls(s, "forward"), row.calls(s, "backward")
                notes = "; ".join(row.notes) if i == 0 else ""
                fb = sum(row.fell_back.values()) if i == 0 else 0
                lines.append((name if i == 0 else "", s, str(fwd), str(bwd), str(fb) if i == 0 else "", notes))
            for reason, n in row.fell_back.most_common():
                lines.append(("", "", "", "", "", f"{n} x {reason}"))
        widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(header)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
        out = [fmt.format(*header), fmt.format(*("-" * w for w in widths[:-1]), "-" * len(header[-1]))]
        out += [fmt.format(*line).rstrip() for line in lines]
        if self.graph_breaks:
            out += ["", "graph breaks (Dynamo ran this code on Python, outside any graph the backend saw):"]
            out += [f"  {n} x {reason}" for reason, n in self.graph_breaks.most_common()]
        if self.cuda_graphs:
            out += ["", 'CUDA graphs (mode="reduce-overhead"), graphs:']
            out += [f"  {n} x {what}" for what, n in sorted(self.cuda_graphs.items())]
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"<rs2triton.backend.Report: {len(self.rows)} operations, {self.total_fallbacks} fallbacks>"
