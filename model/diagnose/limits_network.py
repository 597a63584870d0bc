"""Limit providers on the network side: the line, its framing, the TCP window and loss, a sender's target.

Each provider takes the :class:`~pinchpoint.diagnose.steps.Run` built so far and returns the
limits it can put on the figure (none when its inputs are missing).  The approach follows RFC
6349's framing and bandwidth-delay reasoning (RFC 6349, Framework for TCP Throughput Testing,
2011, section 3).
"""

from __future__ import annotations

import math

from pinchpoint.physics import framing, tcp
from pinchpoint.errors import InputError
from pinchpoint.diagnose.loss_models import LOSS_MODELS
from pinchpoint.diagnose.resolve import window as _window
from pinchpoint.diagnose.results import Limit
from pinchpoint.diagnose.wording import net as _net
from pinchpoint.diagnose.wording import round_sig as _round_sig
from pinchpoint.diagnose.wording import size as _size
from pinchpoint.diagnose.wording import time as _time


def line_limit(run) -> list[Limit]:
    """The raw line rate; a figure above it is refused (the figure or the link is wrong)."""
    line, measured = run.line, run.measured
    if line is None:
        return []
    if measured > line * (1 + 1e-9):
        raise InputError(f"the measured {_net(measured)} is above the raw line rate {_net(line)} "
                         f"({run.line_from}): the figure or the link must be wrong", file=run.inputs.origin,
                         key="measured_bytes_per_s")
    return [Limit("line rate", "line", line, f"raw line rate = {_net(line)}", f"from {run.line_from}")]


def framing_limit(run) -> list[Limit]:
    """The goodput the line carries after Ethernet / ATM / FDDI / DDP overhead (:mod:`pinchpoint.physics.framing`)."""
    if run.line is None:
        return []
    return [_framing_limit(run.inputs, run.line, run.mtu)]


def window_limit(run) -> list[Limit]:
    """N x window / RTT, the window given or derived from a Linux socket buffer (:mod:`pinchpoint.physics.tcp`)."""
    inputs = run.inputs
    n = inputs.streams
    rtt = inputs.rtt_s
    if inputs.protocol != "tcp" or rtt is None:
        return []
    window, wtext = _window(inputs)
    if window is None:
        return []
    value = _finite(tcp.window_ceiling(window, rtt, n), run, "rtt_s", "the window ceiling")
    stream_text = f"{n} x " if n > 1 else ""
    formula = f"{stream_text}W / RTT = {stream_text}{wtext} x 8 / {_time(rtt)} = {_net(value)}"
    rough = rough_window_ceiling(window, rtt)
    note, rough_value = "", None
    if rough is not None:
        rough_value = n * rough[0]
        note = (f"often worked out as {stream_text}{rough[1]} = {_net(rough_value)} "
                f"(decimal prefix, rounded RTT); exact: {_net(value)}")
    defaults = inputs.window_bytes is None and inputs.buffer_bytes is None
    suffix = (" (this host's buffers)" if inputs.buffer_defaults is not None else " (default buffers)") \
        if defaults else ""
    name = f"TCP window {_size(window)} at {_time(rtt)}{suffix}"
    reason = ("the receiver's buffers allow a larger window than the defaults assumed (its tcp_rmem max is "
              "raised, or its kernel advertises a larger share)") if defaults else ""
    return [Limit(name, "window", value, formula, note, rough_ceiling_bytes_per_s=rough_value,
                  estimate=defaults, set_aside_reason=reason)]


def _finite(value, run, key, what) -> float:
    """``value`` if finite; else one clear error naming the input (an RTT or loss at the edge of
    double precision)."""
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{what} is {value:g} B/s with these inputs (RTT {run.inputs.rtt_s!r} s, loss "
                         f"{run.inputs.loss!r}): beyond double precision, check them", file=run.inputs.origin,
                         key=key)
    return value


def loss_limit(run) -> list[Limit]:
    """The ceiling a loss rate puts on TCP, by the loss model the inputs name (:mod:`.loss_models`).

    The model takes the loss-event rate.  Given only the retransmit rate (which overstates it),
    the ceiling is a lower bound: marked an estimate, set aside with a note when the figure
    exceeds it.
    """
    inputs = run.inputs
    p = inputs.loss if inputs.loss is not None else inputs.retransmit_rate
    if inputs.protocol != "tcp" or inputs.rtt_s is None or p is None:
        return []
    model = LOSS_MODELS[inputs.loss_model]
    result = model({"mss_bytes": run.payload, "rtt_s": inputs.rtt_s, "loss": p,
                    "streams": inputs.streams, "mathis_c": inputs.mathis_c, "line_bytes_per_s": run.line})
    if result is None:
        run.notes.append(f"{model.description}: no ceiling from the loss rate; give the line rate (--link) "
                         "for the bottleneck")
        return []
    if result.warning:
        run.notes.append(result.warning)
    if not model.valid_for(p):
        lo, hi = model.valid_loss
        run.notes.append(f"p = {p:g} is outside the {model.name} model's range ({lo:g}, {hi:g}]")
    value = _finite(result.bytes_per_s, run, "loss", "the loss ceiling")
    from_retransmits = inputs.loss is None
    what = "retransmits" if from_retransmits else "loss events"
    name = (f"BBR bottleneck at p = {p:g}" if result.kind == "bottleneck"
            else f"TCP loss ({model.name}) p = {p:g} ({what}) at {_time(inputs.rtt_s)}")
    note = result.note
    reason = ""
    if from_retransmits and result.kind == "loss":
        reason = _retransmit_reason(run, model, p)
    elif result.kind == "loss" and inputs.loss_events is not None and inputs.loss_events < FEW_LOSS_EVENTS:
        reason = (f"only {inputs.loss_events} loss events were counted (episodes within one reporting interval "
                  "count once, and the end of slow start counts as one): the loss-event rate is uncertain")
    return [Limit(name, result.kind, value, result.formula, note, estimate=bool(reason), set_aside_reason=reason)]


#: Fewer loss events than this (counted from iperf3's intervals) make the loss ceiling an estimate:
#: a count of k is uncertain by about sqrt(k) (Poisson), 30 % at 10.
FEW_LOSS_EVENTS = 10


def _retransmit_reason(run, model, p) -> str:
    """Why a ceiling from the retransmit rate that the figure exceeds is set aside, with the
    loss-event rate the figure implies."""
    inputs = run.inputs
    implied = (model.inverse(run.measured, run.payload, inputs.rtt_s, inputs.streams)
               if model.inverse is not None else None)
    text = (f"the retransmit rate {p:.3g} overstates the loss-event rate the {model.name} model needs: "
            "a policer or a full queue drops many segments per congestion event")
    if implied is not None and math.isfinite(implied):
        text += f"; the figure implies at most {implied:.2g} loss events per segment ({p / implied:.0f}x fewer)"
    return text + " (give --loss-events, or the iperf3 file with its intervals)"


def target_limit(run) -> list[Limit]:
    """A sender's rate limit (iperf3 -b): the figure measures the limit, not the path."""
    per_stream, n = run.inputs.target_bytes_per_s, run.inputs.streams
    if per_stream is None:
        return []
    t = per_stream * n
    formula = f"{n} streams x iperf3 -b {_net(per_stream)} = {_net(t)}" if n > 1 else f"iperf3 -b {_net(t)}"
    return [Limit("sender's target rate", "target", t, formula,
                  "iperf3's -b is per stream; the sender was told not to exceed this rate: the figure measures "
                  "the limit, not the path (iperf3's UDP default is 1 Mbit/s)")]


def shaper_limit(run) -> list[Limit]:
    """A traffic shaper's rate on the sending interface (tc tbf, as the probe reads it), after framing.

    Linux's tbf counts each packet's length from the Ethernet header on (no preamble, FCS or
    gap): the payload rate is rate x payload / (MTU + 14).
    """
    rate = run.inputs.shaper_bytes_per_s
    if rate is None:
        return []
    payload = framing.payload_per_packet(run.mtu, run.inputs.protocol, run.inputs.ip_version, run.inputs.timestamps)
    value = rate * payload / (run.mtu + 14)
    return [Limit(f"shaper {_net(rate)} ({run.inputs.shaper_from or 'given'})", "shaper", value,
                  f"rate x (MTU - headers) / (MTU + 14) = {_net(rate)} x {payload:g} / {run.mtu + 14:g} = {_net(value)}",
                  "a token-bucket shaper counts the Ethernet header and the IP packet", raw_ceiling_bytes_per_s=rate)]


def rough_window_ceiling(window_bytes: float, rtt_s: float) -> tuple[float, str] | None:
    """The window ceiling as people often work it out: binary size read as decimal, RTT rounded.

    A common worked example (Canberra to Perth) writes 4 MiB at 44.5 ms as "4M * 8 bits / 0.045 sec
    = 711 Mbps" (the exact figure is 754 Mbit/s).  Returns (rate [B/s], expression) or None when
    the rounding changes nothing.
    """
    w = window_bytes
    written = _size(window_bytes)
    for factor, dec, unit in ((2 ** 30, 1e9, "GiB"), (2 ** 20, 1e6, "MiB"), (2 ** 10, 1e3, "KiB")):
        if written.endswith(" " + unit):
            w = w / factor * dec
            break
    r = _round_sig(rtt_s, 2)
    if w == window_bytes and r == rtt_s:
        return None
    text = f"{_size(w) if w != window_bytes else _size(window_bytes)} x 8 / {r:g} s"
    return w / r, text


def _framing_limit(inputs, line, mtu) -> Limit:
    proto, ipv, ts, vlan = inputs.protocol, inputs.ip_version, inputs.timestamps, inputs.vlan
    payload = framing.payload_per_packet(mtu, proto, ipv, ts)
    hdr = framing.transport_headers(proto, ipv, ts)
    hdr_text = (f"IPv{ipv} {framing.IPV4_HEADER if ipv == 4 else framing.IPV6_HEADER:g} + "
                + ("UDP 8" if proto == "udp" else "TCP 20" + (" + timestamps 12" if ts else "")))
    if inputs.medium == "ethernet":
        value = framing.ethernet_goodput(line, mtu, proto, ipv, ts, vlan)
        wire = framing.ethernet_wire_bytes(mtu, vlan)
        formula = (f"line x (MTU - headers) / (MTU + 38{' + 4 VLAN' if vlan else ''}) = "
                   f"{_net(line)} x {payload:g} / {wire:g} = {_net(value)}")
        note = f"Ethernet: preamble 8, header 14, FCS 4, gap 12 B per frame; headers {hdr_text} = {hdr:g} B"
        name = f"Ethernet framing, MTU {mtu:g}"
    elif inputs.medium == "atm":
        payload_rate = line * framing.OC3C_PAYLOAD_RATE / framing.OC3C_LINE_RATE
        value = framing.atm_oc3_goodput(mtu, proto, ipv, ts, payload_rate=payload_rate)
        cells = framing.aal5_cells(mtu)
        formula = (f"SONET payload x (MTU - headers) / (cells x 53) = {_net(payload_rate)} x {payload:g} / "
                   f"({cells:g} x 53) = {_net(value)}")
        note = "AAL5 + LLC/SNAP: cells = ceil((MTU + 16) / 48); SONET payload = line x 149.76/155.52"
        name = f"ATM/AAL5 cell tax, MTU {mtu:g}"
    elif inputs.medium == "fddi":
        value = framing.fddi_goodput(mtu, proto, ipv, ts, rate=line)
        formula = f"line x (MTU - headers) / (MTU + 36) = {_net(line)} x {payload:g} / {mtu + 36:g} = {_net(value)}"
        note = "FDDI MAC 28 B + LLC/SNAP 8 B per frame; token rotation not modelled"
        name = f"FDDI framing, MTU {mtu:g}"
    else:
        value = framing.ddp_goodput(line)
        data = framing.DDP_MAX_DATA - framing.ATP_HEADER
        formula = f"line x {data:g} / ({data:g} + ATP 8 + DDP 13 + SNAP 8 + 38) = {_net(value)}"
        note = "AppleTalk DDP datagrams carry at most 586 B (617 with link headers, Open Transport FAQ); ATP's ack cycle costs more"
        name = "AppleTalk DDP framing"
    return Limit(name, "framing", float(value), formula, note)
