"""torch.optim's per-parameter updates on teenygrad's optimizer kernels (``nn/optim/``): the
rows, as data. ``backend/optim.py`` finds each parameter's update in a compiled step's graph,
reads the row's hyperparameters from it by the row's probes, confirms the row's formula on
random inputs, and launches the row's kernel with the scalars the row computes on the host.

A row names: the kernel (a plain ``#[kernel]`` fn, found by name in the kernel tree); the
kernel's state pointers, in its order (torch's state tensors, by role); whether torch keeps a
step count (a 0-d tensor, incremented in the graph: the row reads the new count); the
hyperparameters, each read from the update evaluated on one probe (every input a constant:
``probes`` maps a role to its value, ``read`` a hyperparameter to its value from the outputs
``o``, the hyperparameters read before ``h`` and the step count ``t``); ``update``: the kernel's
maths in float64 (what the graph must compute, on random inputs, to take the row); ``scalars``:
the kernel's scalar arguments after ``n_elements``, in its order, from ``h`` and ``t`` (as
torch's single-tensor step computes them: bias corrections from the step count as a Python
float).

Roles: ``param``, ``grad``, the row's ``state`` names (torch's state keys), ``step``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Values = Mapping[str, Any]  # role -> a value (a float64 tensor, or a float in a probe)
Read = Callable[[Values, dict[str, float], float], float]


@dataclass(frozen=True)
class Probe:
    inputs: dict[str, float]  # role -> the constant every element of it is
    read: dict[str, Read]  # hyperparameter -> its value from the outputs


@dataclass(frozen=True)
class OptimRow:
    optimizer: str  # what torch calls the update (for the report and the docs)
    kernel: str  # the #[kernel] fn
    state: tuple[str, ...]  # torch's state tensors the kernel updates, in the kernel's pointer order
    pointers: tuple[str, ...]  # the kernel's pointer parameters: param, grad, then the state's
    step: bool  # torch keeps a step count (the bias corrections read it)
    probes: tuple[Probe, ...]
    update: Callable[[Values, dict[str, float], float], dict[str, Any]]  # role -> its new value
    scalars: tuple[tuple[str, Callable[[dict[str, float], float], float]], ...]  # kernel scalar -> value
    covers: str = ""  # the options of torch's optimizer the row takes (docs)
    notes: tuple[str, ...] = field(default=())


def _adam(v: Values, h: dict[str, float], t: float, *, decoupled: bool) -> dict[str, Any]:
    p, g = v["param"], v["grad"]
    if decoupled:
        p = p * (1 - h["lr"] * h["weight_decay"])
    else:
        g = g + h["weight_decay"] * p
    m = h["beta1"] * v["exp_avg"] + (1 - h["beta1"]) * g
    s = h["beta2"] * v["exp_avg_sq"] + (1 - h["beta2"]) * g * g
    step_size = h["lr"] / (1 - h["beta1"] ** t)
    denom = s.sqrt() / math.sqrt(1 - h["beta2"] ** t) + h["eps"]
    return {"param": p - step_size * m / denom, "exp_avg": m, "exp_avg_sq": s}


def _sgd_momentum(v: Values, h: dict[str, float], t: float, *, nesterov: bool) -> dict[str, Any]:
    p = v["param"]
    g = v["grad"] + h["weight_decay"] * p
    buf = h["momentum"] * v["momentum_buffer"] + (1 - h["dampening"]) * g
    return {"param": p - h["lr"] * (g + h["momentum"] * buf if nesterov else buf), "momentum_buffer": buf}


# Adam's probes: (1) the gradient alone gives the betas; (2) the first moment alone (no second)
# gives step_size * beta1 / eps, (3) with the second moment 1 too, step_size * beta1 / (a + eps),
# a = sqrt(beta2) / sqrt(1 - beta2^t): eps and lr follow; (4) the parameter alone gives the weight
# decay (Adam: in the first moment; AdamW: in the parameter).
def _a(h: dict[str, float], t: float) -> float:
    return math.sqrt(h["beta2"]) / math.sqrt(1 - h["beta2"] ** t)


_ADAM_MOMENTS = (
    Probe({"param": 0.0, "grad": 1.0, "exp_avg": 0.0, "exp_avg_sq": 0.0},
          {"beta1": lambda o, h, t: 1 - float(o["exp_avg"]), "beta2": lambda o, h, t: 1 - float(o["exp_avg_sq"])}),
    Probe({"param": 0.0, "grad": 0.0, "exp_avg": 1.0, "exp_avg_sq": 0.0},
          {"_p_eps": lambda o, h, t: float(o["param"])}),
    Probe({"param": 0.0, "grad": 0.0, "exp_avg": 1.0, "exp_avg_sq": 1.0},
          {"eps": lambda o, h, t: float(o["param"]) * _a(h, t) / (h["_p_eps"] - float(o["param"])),
           "lr": lambda o, h, t: -h["_p_eps"] * h["eps"] / h["beta1"] * (1 - h["beta1"] ** t)}),
)

_ADAM_SCALARS: tuple[tuple[str, Callable[[dict[str, float], float], float]], ...] = (
    ("step_size", lambda h, t: h["lr"] / (1 - h["beta1"] ** t)),
    ("bias_corr2_sqrt", lambda h, t: math.sqrt(1 - h["beta2"] ** t)),
    ("beta1", lambda h, t: h["beta1"]),
    ("beta2", lambda h, t: h["beta2"]),
    ("eps", lambda h, t: h["eps"]),
    ("weight_decay", lambda h, t: h["weight_decay"]),
)

_SGD_MOMENTUM = (
    Probe({"param": 0.0, "grad": 0.0, "momentum_buffer": 1.0},
          {"momentum": lambda o, h, t: float(o["momentum_buffer"])}),
    Probe({"param": 0.0, "grad": 1.0, "momentum_buffer": 0.0},
          {"dampening": lambda o, h, t: 1 - float(o["momentum_buffer"])}),
    Probe({"param": 1.0, "grad": 0.0, "momentum_buffer": 0.0},
          {"weight_decay": lambda o, h, t: float(o["momentum_buffer"]) / (1 - h["dampening"])}),
)

_SGD_MOMENTUM_SCALARS: tuple[tuple[str, Callable[[dict[str, float], float], float]], ...] = (
    ("lr", lambda h, t: h["lr"]),
    ("momentum", lambda h, t: h["momentum"]),
    ("dampening", lambda h, t: h["dampening"]),
    ("weight_decay", lambda h, t: h["weight_decay"]),
)

ROWS: tuple[OptimRow, ...] = (
    OptimRow(
        "Adam", "adam_step", ("exp_avg", "exp_avg_sq"), ("params_ptr", "grad_ptr", "exp_avg_ptr", "exp_avg_sq_ptr"),
        True,
        (*_ADAM_MOMENTS,
         Probe({"param": 1.0, "grad": 0.0, "exp_avg": 0.0, "exp_avg_sq": 0.0},
               {"weight_decay": lambda o, h, t: float(o["exp_avg"]) / (1 - h["beta1"])})),
        lambda v, h, t: _adam(v, h, t, decoupled=False),
        _ADAM_SCALARS,
        covers="lr, betas, eps, weight_decay (L2, into the gradient); amsgrad=False, maximize=False",
    ),
    OptimRow(
        "AdamW", "adamw_step", ("exp_avg", "exp_avg_sq"), ("params_ptr", "grad_ptr", "exp_avg_ptr", "exp_avg_sq_ptr"),
        True,
        (*_ADAM_MOMENTS,
         Probe({"param": 1.0, "grad": 0.0, "exp_avg": 0.0, "exp_avg_sq": 0.0},
               {"weight_decay": lambda o, h, t: (1 - float(o["param"])) / h["lr"]})),
        lambda v, h, t: _adam(v, h, t, decoupled=True),
        (*_ADAM_SCALARS, ("lr", lambda h, t: h["lr"])),
        covers="lr, betas, eps, weight_decay (decoupled); amsgrad=False, maximize=False",
    ),
    OptimRow(
        "SGD", "sgd_step", (), ("params_ptr", "grad_ptr"), False,
        (Probe({"param": 0.0, "grad": 1.0}, {"lr": lambda o, h, t: -float(o["param"])}),
         Probe({"param": 1.0, "grad": 0.0}, {"weight_decay": lambda o, h, t: (1 - float(o["param"])) / h["lr"]})),
        lambda v, h, t: {"param": v["param"] - h["lr"] * (v["grad"] + h["weight_decay"] * v["param"])},
        (("lr", lambda h, t: h["lr"]), ("weight_decay", lambda h, t: h["weight_decay"])),
        covers="lr, weight_decay; momentum=0 (and a momentum step's first, whose buffer is the gradient), "
               "maximize=False",
    ),
    OptimRow(
        "SGD (momentum)", "sgd_momentum_step", ("momentum_buffer",), ("params_ptr", "grad_ptr", "buf_ptr"), False,
        (*_SGD_MOMENTUM[:2],
         Probe({"param": 0.0, "grad": 1.0, "momentum_buffer": 0.0},
               {"lr": lambda o, h, t: -float(o["param"]) / (1 - h["dampening"])}),
         _SGD_MOMENTUM[2]),
        lambda v, h, t: _sgd_momentum(v, h, t, nesterov=False),
        _SGD_MOMENTUM_SCALARS,
        covers="lr, momentum, dampening, weight_decay (from the second step: the first makes the buffer)",
    ),
    OptimRow(
        "SGD (Nesterov)", "sgd_nesterov_step", ("momentum_buffer",), ("params_ptr", "grad_ptr", "buf_ptr"), False,
        (*_SGD_MOMENTUM[:2],
         Probe({"param": 0.0, "grad": 1.0, "momentum_buffer": 0.0},
               {"lr": lambda o, h, t: -float(o["param"]) / (1 + h["momentum"] * (1 - h["dampening"]))}),
         _SGD_MOMENTUM[2]),
        lambda v, h, t: _sgd_momentum(v, h, t, nesterov=True),
        _SGD_MOMENTUM_SCALARS,
        covers="lr, momentum, weight_decay, nesterov=True (from the second step)",
    ),
)
