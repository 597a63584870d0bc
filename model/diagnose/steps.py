"""The limit providers diagnose runs, in order: named steps over one :class:`Run`.

As pvlib's ``ModelChain.run_model`` runs named steps in a fixed order, each writing to the chain's
results, diagnose runs :data:`LIMIT_STEPS`: each step reads the :class:`Run` (inputs, resolved
line rate, MTU, payload, host profile) and returns the limits it can put on the figure; it may
add notes (``run.notes``) or facts later stages use (``run.throttle``, ``run.cpu_nominal``).  The
order is the order of equal ceilings in a verdict and of the errors a bad input meets first.
A new limit is one more :class:`LimitStep` in the list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from pinchpoint.diagnose import limits_host, limits_network
from pinchpoint.diagnose.inputs import DiagnoseInputs
from pinchpoint.diagnose.results import Limit


@dataclass
class Run:
    """What one diagnosis has worked out so far (mutable, private to one call of diagnose)."""

    inputs: DiagnoseInputs
    measured: float  # [B/s] payload
    profile: Any  # the profile with the given MMRBC applied, or None
    line: float | None  # raw line rate [B/s]
    line_from: str
    mtu: float  # [B]
    mtu_from: str
    payload: float  # payload per packet [B] (the MSS)
    notes: list[str] = field(default_factory=list)
    throttle: str | None = None  # the CPU runs below its nominal clock
    cpu_nominal: float | None = None  # the CPU ceiling at the nominal clock [B/s]


@dataclass(frozen=True)
class LimitStep:
    """One named limit provider: ``provide(run)`` returns its limits (none when inputs are missing)."""

    name: str
    provide: Callable[[Run], list[Limit]]


#: The providers in the order diagnose runs them.
LIMIT_STEPS: list[LimitStep] = [
    LimitStep("line", limits_network.line_limit),
    LimitStep("framing", limits_network.framing_limit),
    LimitStep("window", limits_network.window_limit),
    LimitStep("loss", limits_network.loss_limit),
    LimitStep("target", limits_network.target_limit),
    LimitStep("shaper", limits_network.shaper_limit),
    LimitStep("host_path", limits_host.host_path_limits),
    LimitStep("cpu", limits_host.cpu_limit),
]


def run_steps(run: Run, steps: list[LimitStep] | None = None) -> list[Limit]:
    """Every limit the steps give, in step order."""
    limits: list[Limit] = []
    for step in LIMIT_STEPS if steps is None else steps:
        limits += step.provide(run)
    return limits
