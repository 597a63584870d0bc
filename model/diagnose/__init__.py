"""Diagnose a measured throughput: every ceiling that could apply, the binding one, a verdict.

Orchestration (layer 3).  Given a measured figure (payload bytes per second, as iperf reports
it) and what is known about the path and the host, :func:`diagnose` runs the limit providers of
:data:`~.steps.LIMIT_STEPS` in order, each adding the ceilings it can:

- ``line``: the raw line rate (the figure can never exceed it);
- ``framing``: the goodput the line carries after Ethernet / ATM / FDDI / DDP overhead
  (:mod:`pinchpoint.physics.framing`);
- ``window``: N x window / RTT, the window given directly or derived from a Linux socket buffer
  (:mod:`pinchpoint.physics.tcp`);
- ``loss``: by the loss model named in the inputs (:mod:`.loss_models`; default CUBIC, RFC 9438,
  as Linux runs it; Reno (Mathis et al.), PFTK and BBR by name; PFTK above 1 % loss);
- ``target``: a sender's rate limit (iperf3 -b, per stream);
- ``shaper``: a token-bucket shaper's rate (tc tbf, as ``pinchpoint probe`` reads it);
- ``host_path``: the host path of a profile flow, one ceiling per link at its EFFECTIVE capacity
  (kinds ``pci-x``, ``pcie``, ``hypertransport``, ``memory``, ``fsb`` ...), with the raw capacity
  beside it (:mod:`pinchpoint.solve.ceilings`);
- ``cpu``: cycles per byte and per packet at the current clock and the cores in use
  (:mod:`pinchpoint.physics.hostcpu`).

The binding ceiling is the lowest; efficiency = measured / binding; the verdict is
``at-ceiling`` (efficiency >= 0.9), ``below-ceiling`` (0.5 .. 0.9: likely causes listed),
``far-below-all`` (< 0.5: software, or something not modelled) or ``above-ceiling`` (the figure is
more than 5 % above a bound it cannot exceed: an input is wrong, and the verdict says which and by
how much).  A rule-of-thumb estimate (the CPU ceiling without measured costs) that the figure
clearly exceeds is refuted by it and set aside, not taken as binding.  Advice carries concrete
values; where inputs are missing, hypotheses list what would explain the figure (the window at
plausible RTTs, the loss-event rate by the loss model) instead of guessing.  A receiver's figure
of zero is the verdict ``nothing-arrived``; TCP_INFO limit times from a live run name what bound
it (:mod:`.evidence`, :mod:`.live`).

The approach follows the legacy NDT (web100) heuristics, one ceiling per cause with advice,
and RFC 6349's framing and BDP reasoning (RFC 6349, Framework for TCP Throughput Testing, 2011).

Modules: :mod:`.inputs` (the inputs and their validation), :mod:`.results` (Limit, Hypothesis,
Verdict), :mod:`.resolve` (line rate, MTU, window, host profile), :mod:`.steps` with
:mod:`.limits_network` and :mod:`.limits_host` (the limit providers), :mod:`.loss_models` (the
TCP loss model registry), :mod:`.hypotheses`, :mod:`.advice` (the prose), :mod:`.chain`
(:func:`diagnose`).
"""

from pinchpoint.diagnose.advice import JUMBO_MIN_LINE, LIMITED_BY
from pinchpoint.diagnose.chain import ABOVE_CEILING, AT_CEILING, FAR_BELOW, diagnose
from pinchpoint.diagnose.hypotheses import KNOWN_WINDOWS, PLAUSIBLE_RTTS
from pinchpoint.diagnose.inputs import DEFAULT_C, DEFAULT_MTU, MEDIA, MMRBC_VALUES, DiagnoseInputs
from pinchpoint.diagnose.limits_host import HOST_KINDS
from pinchpoint.diagnose.limits_network import rough_window_ceiling
from pinchpoint.diagnose.loss_models import LOSS_MODELS, LossCeiling, LossModel, register_loss_model
from pinchpoint.diagnose.results import Hypothesis, Limit, Verdict
from pinchpoint.diagnose.steps import LIMIT_STEPS, LimitStep, Run

__all__ = [
    "ABOVE_CEILING", "AT_CEILING", "DEFAULT_C", "DEFAULT_MTU", "FAR_BELOW", "HOST_KINDS", "JUMBO_MIN_LINE",
    "KNOWN_WINDOWS", "LIMITED_BY", "LIMIT_STEPS", "LOSS_MODELS", "MEDIA", "MMRBC_VALUES", "PLAUSIBLE_RTTS",
    "DiagnoseInputs", "Hypothesis", "Limit", "LimitStep", "LossCeiling", "LossModel", "Run", "Verdict",
    "diagnose", "register_loss_model", "rough_window_ceiling",
]
