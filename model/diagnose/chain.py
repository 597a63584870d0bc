"""The diagnosis itself: resolve the inputs, run the limit steps, pick the binding one, judge.

The binding ceiling is the lowest; efficiency = measured / binding; the verdict is
``at-ceiling`` (efficiency >= 0.9), ``below-ceiling`` (0.5 .. 0.9), ``far-below-all`` (< 0.5) or
``above-ceiling`` (more than 5 % above a bound the figure cannot exceed); a receiver's figure of
zero is ``nothing-arrived``.  An estimate the figure clearly exceeds (a rule of thumb, a loss
ceiling from the retransmit rate) is refuted and set aside, not taken as binding: it leaves the
table for a note.  Sampled TCP_INFO limits, where given, name what bound the run.
"""

from __future__ import annotations

from pinchpoint.physics import framing, tcp
from pinchpoint.errors import InputError
from pinchpoint.diagnose.advice import LIMITED_BY as _LIMITED_BY
from pinchpoint.diagnose.advice import advise as _advise
from pinchpoint.diagnose.advice import wrong_inputs as _wrong_inputs
from pinchpoint.diagnose.hypotheses import hypotheses as _hypotheses
from pinchpoint.diagnose.inputs import DiagnoseInputs
from pinchpoint.diagnose.evidence import loss_figures_note, tcp_info_notes
from pinchpoint.diagnose.resolve import buffer_defaults, host_profile, resolve_line, resolve_mtu
from pinchpoint.diagnose.results import Limit, Verdict
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
    if measured == 0:
        return _nothing_arrived(inputs, limits, notes, _summary(inputs, line, line_from, mtu, mtu_from, payload,
                                                                profile))
    if not limits:
        raise InputError("nothing to compare the figure with: give the line rate, or a profile and flow, "
                         "or an RTT with a window or a loss rate", file=inputs.origin, key="line_bytes_per_s")

    limits.sort(key=lambda x: x.ceiling_bytes_per_s)
    refuted = [x for x in limits if x.estimate and measured > ABOVE_CEILING * x.ceiling_bytes_per_s]
    standing = [x for x in limits if x not in refuted]
    if not standing:
        raise InputError(f"nothing bounds the figure: {_set_aside_note(refuted[0], measured)}; give the line rate "
                         "(--link) or another ceiling", file=inputs.origin, key=refuted[0].kind)
    notes += [_set_aside_note(x, measured) for x in refuted]
    binding = standing[0]
    efficiency = measured / binding.ceiling_bytes_per_s
    exceeded = [x for x in standing if measured > ABOVE_CEILING * x.ceiling_bytes_per_s]
    verdict = verdict_for(efficiency, bool(exceeded))
    limited_by = _limited_by(verdict, binding)
    evidence, evidence_notes = tcp_info_notes(inputs.tcp_info, binding.kind)
    if evidence:  # direct evidence outranks the model; an exceeded ceiling says an input is off
        limited_by = evidence
        if verdict == "above-ceiling":
            notes.append("the figure exceeds a modelled ceiling while TCP_INFO shows what bound the run: an input "
                         "of that ceiling (the RTT, the window) is off; the TCP_INFO evidence stands")
    notes += evidence_notes

    # Hypotheses only where the ceilings leave the figure unexplained.
    hyps = _hypotheses(inputs, payload, measured) if verdict not in ("at-ceiling", "above-ceiling") else []
    if verdict == "above-ceiling":
        causes, advice = _wrong_inputs(inputs, exceeded, measured, mtu, profile), []
    else:
        causes, advice = _advise(inputs, verdict, binding, standing, measured, efficiency, line, mtu, profile,
                                 run.throttle, run.cpu_nominal, hyps)
    if 1.02 < efficiency <= ABOVE_CEILING:
        notes.append(f"the figure is {efficiency - 1:.0%} above the {binding.name} ceiling: an input is off "
                     "(a larger window, another MTU or header options) or the model's overhead is pessimistic")
    notes += _protocol_notes(inputs, standing, payload)
    summary = _summary(inputs, line, line_from, mtu, mtu_from, payload, profile)
    return Verdict(measured, inputs.protocol, inputs.side, tuple(standing), binding, efficiency, verdict, limited_by,
                   tuple(causes), tuple(advice), tuple(hyps), tuple(notes), summary, tuple(refuted))


def _limited_by(verdict, binding) -> str:
    if verdict == "above-ceiling":
        limited_by = "nothing modelled: an input is wrong"
    elif verdict == "far-below-all":
        limited_by = "software or something not modelled"
    elif binding.kind in _LIMITED_BY:
        limited_by = _LIMITED_BY[binding.kind]
    else:
        limited_by = f"hardware ({binding.kind})"
    return limited_by + (" (estimate)" if binding.estimate else "")


def _set_aside_note(x, measured) -> str:
    head = (f"the figure is {measured / x.ceiling_bytes_per_s:.0%} of the {x.name} ({_net(x.ceiling_bytes_per_s)}), "
            "an estimate the figure refutes")
    if x.set_aside_reason:
        return f"{head}: {x.set_aside_reason}; set aside"
    return (f"{head}: this host needs fewer cycles per byte and per packet than the rule of thumb; set aside "
            "(measure the costs and put them in the profile)")


def _protocol_notes(inputs, limits, payload) -> list[str]:
    """Notes on UDP sides, slow start, retransmits and the loss figures."""
    notes = list(inputs.notes)
    if inputs.protocol == "udp":
        if inputs.sent_bytes_per_s and inputs.received_bytes_per_s:
            share = tcp.udp_delivered_share(inputs.sent_bytes_per_s, inputs.received_bytes_per_s)
            notes.append(f"UDP: the sender reported {_net(inputs.sent_bytes_per_s)}, the receiver "
                         f"{_net(inputs.received_bytes_per_s)} ({share:.0%} delivered)")
        if inputs.side == "sender":
            notes.append("a UDP sender's figure counts what it handed to the stack, not what arrived: judge the "
                         "path by the receiver's figure (a 10 GbE Power Mac G5 sent 7.8 Gbit/s and received "
                         "4.1 Gbit/s)")
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
    loss = loss_figures_note(inputs)
    if loss:
        notes.append(loss)
    if inputs.loss_model == "bbr":
        notes.append("BBR: its bound is the bottleneck rate and the BDP (a window below the bandwidth-delay "
                     "product binds), not the loss rate")
    return notes


def _nothing_arrived(inputs, limits, notes, summary) -> Verdict:
    """The receiver got nothing: a verdict, not a refusal."""
    limits.sort(key=lambda x: x.ceiling_bytes_per_s)
    sent = inputs.sent_bytes_per_s
    if limits:
        binding = limits[0]
    else:
        binding = Limit("what the sender sent", "sent", sent or 0.0,
                        f"the sender's figure = {_net(sent)}" if sent else "no figure from the sender either")
    what = f"the sender reported {_net(sent)}" if sent else "the sender reported nothing either"
    causes = (f"nothing arrived at the receiver: {what}",)
    advice = ("check that the receiver is reachable on the test's port (a firewall drops UDP silently), that "
              "the path's MTU passes the datagrams (iperf3 -l smaller than the MTU), and that the test ran "
              "long enough for data to arrive",)
    return Verdict(0.0, inputs.protocol, inputs.side, tuple(limits), binding, 0.0, "nothing-arrived",
                   "nothing arrived", causes, advice, (), tuple(notes), summary)


def _summary(inputs, line, line_from, mtu, mtu_from, payload, profile) -> dict:
    defaults = buffer_defaults(inputs)
    return {"line_bytes_per_s": line, "line_from": line_from or None, "mtu_bytes": mtu, "mtu_from": mtu_from,
            "payload_per_packet_bytes": payload, "rtt_s": inputs.rtt_s, "streams": inputs.streams,
            "medium": inputs.medium, "profile": profile.name if profile is not None else None,
            "flow": inputs.flow, "origin": inputs.origin, "loss_model": inputs.loss_model,
            "loss_event_rate": inputs.loss, "retransmit_rate": inputs.retransmit_rate,
            "loss_events": inputs.loss_events, "segments_sent": inputs.segments_sent,
            "loss_rate_used": ("loss_events" if inputs.loss is not None else
                               "retransmit_rate" if inputs.retransmit_rate is not None else None),
            "buffer_defaults": defaults.to_dict() if defaults is not None else None,
            "tcp_info": dict(inputs.tcp_info) if inputs.tcp_info else None}
