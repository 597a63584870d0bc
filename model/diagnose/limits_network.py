"""Limit providers on the network side: the line, its framing, the TCP window and loss, a sender's target.

Each provider takes the :class:`~pinchpoint.diagnose.steps.Run` built so far and returns the
limits it can put on the figure (none when its inputs are missing).  The approach follows RFC
6349's framing and bandwidth-delay reasoning (formulas.md section 6).
"""

from __future__ import annotations

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
    value = tcp.window_ceiling(window, rtt, n)
    stream_text = f"{n} x " if n > 1 else ""
    formula = f"{stream_text}W / RTT = {stream_text}{wtext} x 8 / {_time(rtt)} = {_net(value)}"
    rough = rough_window_ceiling(window, rtt)
    note, rough_value = "", None
    if rough is not None:
        rough_value = n * rough[0]
        note = (f"often worked out as {stream_text}{rough[1]} = {_net(rough_value)} "
                f"(decimal prefix, rounded RTT); exact: {_net(value)}")
    return [Limit(f"TCP window {_size(window)} at {_time(rtt)}", "window", value, formula, note,
                  rough_ceiling_bytes_per_s=rough_value)]


def loss_limit(run) -> list[Limit]:
    """The ceiling a loss rate puts on TCP, by the loss model the inputs name (:mod:`.loss_models`)."""
    inputs = run.inputs
    if inputs.protocol != "tcp" or inputs.rtt_s is None or inputs.loss is None:
        return []
    model = LOSS_MODELS[inputs.loss_model]
    result = model({"mss_bytes": run.payload, "rtt_s": inputs.rtt_s, "loss": inputs.loss,
                    "streams": inputs.streams, "mathis_c": inputs.mathis_c, "line_bytes_per_s": run.line})
    if result.warning:
        run.notes.append(result.warning)
    return [Limit(f"TCP loss p = {inputs.loss:g} at {_time(inputs.rtt_s)}", "loss", float(result.bytes_per_s),
                  result.formula, result.note)]


def target_limit(run) -> list[Limit]:
    """A sender's rate limit (iperf3 -b): the figure measures the limit, not the path."""
    t = run.inputs.target_bytes_per_s
    if t is None:
        return []
    return [Limit("sender's target rate", "target", t, f"iperf3 -b {_net(t)}",
                  "the sender was told not to exceed this rate: the figure measures the limit, not "
                  "the path (iperf3's UDP default is 1 Mbit/s)")]


def rough_window_ceiling(window_bytes: float, rtt_s: float) -> tuple[float, str] | None:
    """The window ceiling as people often work it out: binary size read as decimal, RTT rounded.

    Seed 002 writes 4 MiB at 44.5 ms as "4M * 8 bits / 0.045 sec = 711 Mbps" (the exact figure
    is 754 Mbit/s).  Returns (rate [B/s], expression) or None when the rounding changes nothing.
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
        note = "AppleTalk DDP datagrams carry at most 586 B (seed 003: 617-byte datagrams); ATP's ack cycle costs more"
        name = "AppleTalk DDP framing"
    return Limit(name, "framing", float(value), formula, note)
