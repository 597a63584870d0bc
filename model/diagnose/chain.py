"""The diagnosis itself: resolve the inputs, run the limit steps, pick the binding one, judge.

The binding ceiling is the lowest; efficiency = measured / binding; the verdict is
``at-ceiling`` (efficiency >= 0.9), ``below-ceiling`` (0.5 .. 0.9), ``far-below-all`` (< 0.5) or
``above-ceiling`` (more than 5 % above a bound the figure cannot exceed).  A rule-of-thumb
estimate the figure clearly exceeds is refuted and set aside, not taken as binding.
"""

from __future__ import annotations

from pinchpoint.physics import framing, tcp
from pinchpoint.errors import InputError
from pinchpoint.diagnose.advice import LIMITED_BY as _LIMITED_BY
from pinchpoint.diagnose.advice import advise as _advise
from pinchpoint.diagnose.advice import wrong_inputs as _wrong_inputs
from pinchpoint.diagnose.hypotheses import hypotheses as _hypotheses
from pinchpoint.diagnose.inputs import DiagnoseInputs
from pinchpoint.diagnose.resolve import host_profile, resolve_line, resolve_mtu
from pinchpoint.diagnose.results import Verdict
from pinchpoint.diagnose.steps import Run, run_steps
from pinchpoint.diagnose.wording import net as _net
from pinchpoint.diagnose.wording import time as _time

# The verdicts and their thresholds, shared with `classify` (one vocabulary): pinchpoint.solve.verdicts
from pinchpoint.solve.verdicts import ABOVE_CEILING, AT_CEILING, FAR_BELOW, verdict_for  # noqa: F401


def diagnose(inputs: DiagnoseInputs) -> Verdict:
    """Every ceiling, the binding one, efficiency, verdict, advice and hypotheses for a figure."""
    inputs.validate()
    measured = float(inputs.measured_bytes_per_s)
    profile = host_profile(inputs)
    line, line_from = resolve_line(inputs, profile)
    mtu, mtu_from = resolve_mtu(inputs, profile)
    headers = framing.transport_headers(inputs.protocol, inputs.ip_version, inputs.timestamps)
    payload = inputs.mss_bytes or (mtu - headers)
    run = Run(inputs, measured, profile, line, line_from, mtu, mtu_from, payload)
    limits = run_steps(run)
    notes = run.notes
    throttle, cpu_nominal = run.throttle, run.cpu_nominal
    if not limits:
        raise InputError("nothing to compare the figure with: give the line rate, or a profile and flow, "
                         "or an RTT with a window or a loss rate", file=inputs.origin, key="line_bytes_per_s")

    limits.sort(key=lambda x: x.ceiling_bytes_per_s)
    refuted = [x for x in limits if x.estimate and measured > ABOVE_CEILING * x.ceiling_bytes_per_s]
    standing = [x for x in limits if x not in refuted] or limits
    for x in refuted:
        notes.append(f"the figure is {measured / x.ceiling_bytes_per_s:.0%} of the {x.name} "
                     f"({_net(x.ceiling_bytes_per_s)}), an estimate the figure refutes: this host needs fewer "
                     "cycles per byte and per packet than the rule of thumb; set aside (measure the costs "
                     "and put them in the profile)")
    binding = standing[0]
    efficiency = measured / binding.ceiling_bytes_per_s
    exceeded = [x for x in standing if measured > ABOVE_CEILING * x.ceiling_bytes_per_s]
    verdict = verdict_for(efficiency, bool(exceeded))
    if verdict == "above-ceiling":
        limited_by = "nothing modelled: an input is wrong"
    elif verdict == "far-below-all":
        limited_by = "software or something not modelled"
    elif binding.kind in _LIMITED_BY:
        limited_by = _LIMITED_BY[binding.kind]
    else:
        limited_by = f"hardware ({binding.kind})"
    if binding.estimate:
        limited_by += " (estimate)"

    # Hypotheses only where the ceilings leave the figure unexplained.
    hyps = _hypotheses(inputs, payload, measured) if verdict not in ("at-ceiling", "above-ceiling") else []
    if verdict == "above-ceiling":
        causes, advice = _wrong_inputs(inputs, exceeded, measured, mtu, profile), []
    else:
        causes, advice = _advise(inputs, verdict, binding, limits, measured, efficiency, line, mtu, profile,
                                 throttle, cpu_nominal, hyps)

    if 1.02 < efficiency <= ABOVE_CEILING:
        notes.append(f"the figure is {efficiency - 1:.0%} above the {binding.name} ceiling: an input is off "
                     "(a larger window, another MTU or header options) or the model's overhead is pessimistic")
    if inputs.protocol == "udp":
        if inputs.sent_bytes_per_s and inputs.received_bytes_per_s:
            share = tcp.udp_delivered_share(inputs.sent_bytes_per_s, inputs.received_bytes_per_s)
            notes.append(f"UDP: the sender reported {_net(inputs.sent_bytes_per_s)}, the receiver "
                         f"{_net(inputs.received_bytes_per_s)} ({share:.0%} delivered)")
        if inputs.side == "sender":
            notes.append("a UDP sender's figure counts what it handed to the stack, not what arrived: judge the "
                         "path by the receiver's figure (seed 000: 7.8 Gbit/s sent, 4.1 Gbit/s received)")
        elif inputs.side is None:
            notes.append("say which side the UDP figure is from (--side): a sender can report far more than "
                         "the receiver gets")
    if inputs.protocol == "tcp" and inputs.rtt_s is not None and inputs.duration_s:
        target = min(x.ceiling_bytes_per_s for x in limits)
        ramp = tcp.slow_start_ramp_time(target, inputs.rtt_s, payload)
        if ramp > 0.05 * inputs.duration_s:
            notes.append(f"slow start needs about {ramp:.2g} s to reach {_net(target)} at {_time(inputs.rtt_s)} "
                         f"(IW 10): {ramp / inputs.duration_s:.0%} of the {inputs.duration_s:g} s test")
    if inputs.retransmits:
        notes.append(f"the sender retransmitted {inputs.retransmits} segments: loss is present")

    summary = {"line_bytes_per_s": line, "line_from": line_from or None, "mtu_bytes": mtu, "mtu_from": mtu_from,
               "payload_per_packet_bytes": payload, "rtt_s": inputs.rtt_s, "streams": inputs.streams,
               "medium": inputs.medium, "profile": profile.name if profile is not None else None,
               "flow": inputs.flow, "origin": inputs.origin}
    return Verdict(measured, inputs.protocol, inputs.side, tuple(limits), binding, efficiency, verdict, limited_by,
                   tuple(causes), tuple(advice), tuple(hyps), tuple(notes), summary)
