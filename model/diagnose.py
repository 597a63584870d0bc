"""Diagnose a measured throughput: every ceiling that could apply, the binding one, a verdict.

Orchestration (layer 3).  Given a measured figure (payload bytes per second, as iperf reports
it) and what is known about the path and the host, :func:`diagnose` collects every ceiling
that applies:

- ``line``: the raw line rate (the figure can never exceed it);
- ``framing``: the goodput the line carries after Ethernet / ATM / FDDI / DDP overhead
  (:mod:`pinchpoint.framing`);
- ``window``: N x window / RTT, the window given directly or derived from a Linux socket buffer
  (:mod:`pinchpoint.tcp`);
- ``loss``: Mathis et al. (PFTK above 1 % loss, where timeouts dominate);
- the host path of a profile flow, one ceiling per link at its EFFECTIVE capacity (kinds
  ``pci-x``, ``pcie``, ``hypertransport``, ``memory``, ``fsb`` ...), with the raw capacity
  beside it (:mod:`pinchpoint.ceilings`);
- ``cpu``: cycles per byte and per packet at the current clock and the cores in use
  (:mod:`pinchpoint.hostcpu`).

The binding ceiling is the lowest; efficiency = measured / binding; the verdict is
``at-ceiling`` (efficiency >= 0.9), ``below-ceiling`` (0.5 .. 0.9: likely causes listed),
``far-below-all`` (< 0.5: software, or something not modelled) or ``above-ceiling`` (the figure is
more than 5 % above a bound it cannot exceed: an input is wrong, and the verdict says which and by
how much).  A rule-of-thumb estimate (the CPU ceiling without measured costs) that the figure
clearly exceeds is refuted by it and set aside, not taken as binding.  Advice carries concrete
values; where inputs are missing, hypotheses list what would explain the figure (the window at
plausible RTTs, the loss rate by Mathis) instead of guessing.

The approach follows the legacy NDT (web100) heuristics, one ceiling per cause with advice,
and RFC 6349's framing and BDP reasoning (formulas.md section 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from . import framing, hostcpu, tcp
from .errors import InputError
from .units import format_quantity, format_rate

#: Verdict thresholds on efficiency = measured / binding ceiling.
AT_CEILING = 0.9
FAR_BELOW = 0.5
#: RTTs tried when none is given [s].
PLAUSIBLE_RTTS = (0.001, 0.002, 0.005, 0.010, 0.020, 0.050, 0.100, 0.200)
#: Above this fraction of a bound the figure cannot be a measurement of it: rounding of the
#: figure and of the inputs, and iperf's interval jitter, stay within a few per cent.
ABOVE_CEILING = 1.05
#: Mathis' C used unless told otherwise: the library's sqrt(3/2) (formulas.md section 4 rounds it
#: to 1.22).
DEFAULT_C = tcp.C_MATHIS
#: Media whose framing we model.
MEDIA = ("ethernet", "atm", "fddi", "appletalk")
DEFAULT_MTU = {"ethernet": 1500.0, "atm": 9180.0, "fddi": framing.FDDI_MTU, "appletalk": 1500.0}
#: PCI-X MMRBC values the configuration register can hold [B].
MMRBC_VALUES = (512.0, 1024.0, 2048.0, 4096.0)
#: Windows that commonly show up as limits, for matching hypotheses [B].
KNOWN_WINDOWS = {
    65535.0: "64 KiB, the largest window without window scaling (RFC 7323)",
    65536.0: "64 KiB: SO_RCVBUF 64 KiB at tcp_adv_win_scale 1, or no window scaling",
    87380.0: "85.3 KB, Linux's default net.ipv4.tcp_rmem (87380 B; iperf's 'default' window)",
    131072.0: "128 KiB, Linux's net.ipv4.tcp_rmem default since 4.20",
    4194304.0: "4 MiB, the autotuning maximum of older Linux (tcp_rmem max; seed 002)",
    6291456.0: "6 MiB, Linux's default net.ipv4.tcp_rmem max",
}
HOST_KINDS = ("pci", "pci-x", "pcie", "hypertransport", "fsb", "memory", "disk", "link")


# --- data objects ----------------------------------------------------------------------------

@dataclass(frozen=True)
class DiagnoseInputs:
    """What is known about one measurement.  SI units: bytes, seconds, bytes per second, hertz.

    ``measured_bytes_per_s`` is payload (goodput), as iperf reports it.  ``window_bytes`` is a
    TCP window; ``buffer_bytes`` a socket buffer (``buffer_requested``: the value passed to
    setsockopt, which Linux doubles), turned into a window with ``adv_win_scale``.
    ``origin`` names where the inputs came from (an iperf3 file) for error messages.
    """

    measured_bytes_per_s: float
    protocol: str = "tcp"
    side: str | None = None
    line_bytes_per_s: float | None = None
    medium: str = "ethernet"
    mtu_bytes: float | None = None
    ip_version: int = 4
    timestamps: bool = True
    vlan: bool = False
    rtt_s: float | None = None
    window_bytes: float | None = None
    buffer_bytes: float | None = None
    buffer_requested: bool = False
    adv_win_scale: int = 1
    loss: float | None = None
    mathis_c: float = DEFAULT_C
    mss_bytes: float | None = None
    streams: int = 1
    profile: Any = None  # a pinchpoint.profile.Profile
    flow: str | None = None
    clock_hz: float | None = None
    cores: int | None = None
    mmrbc_bytes: float | None = None
    outstanding_reads: int | None = None  # PCI-X split reads the NIC keeps in flight
    read_latency_s: float | None = None  # memory read latency seen from the bus
    retransmits: int | None = None
    sent_bytes_per_s: float | None = None
    received_bytes_per_s: float | None = None
    duration_s: float | None = None
    target_bytes_per_s: float | None = None  # a sender rate limit (iperf3 -b)
    origin: str | None = None

    def _error(self, key: str, message: str) -> InputError:
        return InputError(message, file=self.origin, key=key)

    def validate(self) -> None:
        """Raise :class:`InputError` naming the field and what was expected."""
        def positive(name, value, what):
            if value is None:
                return
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise self._error(name, f"expected a finite {what}, got {value!r}")
            if value <= 0:
                raise self._error(name, f"{what} must be greater than zero, got {value!r}")

        positive("measured_bytes_per_s", self.measured_bytes_per_s, "measured rate")
        if self.measured_bytes_per_s is None:
            raise self._error("measured_bytes_per_s", "missing: the measured rate to judge")
        if self.protocol not in ("tcp", "udp"):
            raise self._error("protocol", f"expected 'tcp' or 'udp', got {self.protocol!r}")
        if self.side not in (None, "sender", "receiver"):
            raise self._error("side", f"expected 'sender' or 'receiver', got {self.side!r}")
        if self.medium not in MEDIA:
            raise self._error("medium", f"expected one of {', '.join(MEDIA)}, got {self.medium!r}")
        if self.ip_version not in (4, 6):
            raise self._error("ip_version", f"expected 4 or 6, got {self.ip_version!r}")
        positive("line_bytes_per_s", self.line_bytes_per_s, "line rate")
        positive("rtt_s", self.rtt_s, "round-trip time")
        positive("window_bytes", self.window_bytes, "window")
        positive("buffer_bytes", self.buffer_bytes, "buffer")
        positive("mss_bytes", self.mss_bytes, "MSS")
        positive("clock_hz", self.clock_hz, "clock")
        positive("mathis_c", self.mathis_c, "Mathis constant C")
        positive("sent_bytes_per_s", self.sent_bytes_per_s, "sender rate")
        positive("received_bytes_per_s", self.received_bytes_per_s, "receiver rate")
        positive("duration_s", self.duration_s, "duration")
        positive("target_bytes_per_s", self.target_bytes_per_s, "target rate")
        positive("read_latency_s", self.read_latency_s, "read latency")
        if self.outstanding_reads is not None and (not isinstance(self.outstanding_reads, int)
                                                   or self.outstanding_reads < 1):
            raise self._error("outstanding_reads", f"expected a whole number >= 1, got {self.outstanding_reads!r}")
        if self.window_bytes is not None and self.buffer_bytes is not None:
            raise self._error("window_bytes", "give a window or a buffer, not both")
        if self.loss is not None:
            if isinstance(self.loss, bool) or not isinstance(self.loss, (int, float)) \
                    or not math.isfinite(self.loss) or not 0 < self.loss < 1:
                raise self._error("loss", f"a loss probability must be between 0 and 1 (exclusive), "
                                          f"got {self.loss!r}")
        if not isinstance(self.streams, int) or isinstance(self.streams, bool) or self.streams < 1:
            raise self._error("streams", f"expected a whole number of streams >= 1, got {self.streams!r}")
        if self.cores is not None and (not isinstance(self.cores, int) or self.cores < 1):
            raise self._error("cores", f"expected a whole number of cores >= 1, got {self.cores!r}")
        if not isinstance(self.adv_win_scale, int) or not 1 <= self.adv_win_scale <= 14:
            raise self._error("adv_win_scale", f"expected a whole number 1..14, got {self.adv_win_scale!r}")
        if self.mtu_bytes is not None:
            positive("mtu_bytes", self.mtu_bytes, "MTU")
            least = framing.transport_headers(self.protocol, self.ip_version, self.timestamps) + 1
            if self.mtu_bytes < max(68.0, least):
                raise self._error("mtu_bytes", f"an MTU of {self.mtu_bytes:g} B leaves no room for the "
                                               f"{least - 1:g} B of headers (at least 68 B)")
            if self.mtu_bytes > 65536:
                raise self._error("mtu_bytes", f"an MTU of {self.mtu_bytes:g} B is larger than any link's "
                                               "(65536 B, Linux loopback)")
        if self.mmrbc_bytes is not None and float(self.mmrbc_bytes) not in MMRBC_VALUES:
            raise self._error("mmrbc_bytes", f"MMRBC must be one of 512, 1024, 2048, 4096 bytes, "
                                             f"got {self.mmrbc_bytes!r}")
        if (self.flow is None) != (self.profile is None):
            if self.profile is None:
                raise self._error("flow", "a flow needs a profile")
            names = ", ".join(self.profile.flows) or "none"
            raise self._error("flow", f"a profile needs a flow to say which host path the data takes "
                                      f"(flows: {names})")
        if self.profile is not None:
            if self.flow not in self.profile.flows:
                raise self._error("flow", f"no flow {self.flow!r} in profile {self.profile.name!r} "
                                          f"(flows: {', '.join(self.profile.flows) or 'none'})")
        if self.mmrbc_bytes is not None and self.profile is None:
            raise self._error("mmrbc_bytes", "MMRBC applies to a PCI-X link of a profile: give a profile and flow")


@dataclass(frozen=True)
class Limit:
    """One ceiling on the measured figure, in payload bytes per second."""

    name: str
    kind: str
    ceiling_bytes_per_s: float
    formula: str
    note: str = ""
    raw_bytes_per_s: float | None = None  # host links: the raw capacity beside the effective one
    rough_bytes_per_s: float | None = None  # the same figure as commonly rounded (seed 002's 711 Mbit/s)
    estimate: bool = False  # a rule of thumb, not a bound
    link: str | None = None

    def __repr__(self) -> str:
        from .readable import rate

        return f"Limit({self.name}: {rate(self.ceiling_bytes_per_s)}{' (estimate)' if self.estimate else ''})"

    def to_dict(self) -> dict:
        d = {"name": self.name, "kind": self.kind, "ceiling_bytes_per_s": self.ceiling_bytes_per_s,
             "formula": self.formula, "note": self.note or None, "estimate": self.estimate}
        if self.raw_bytes_per_s is not None:
            d["raw_ceiling_bytes_per_s"] = self.raw_bytes_per_s
        if self.rough_bytes_per_s is not None:
            d["rough_ceiling_bytes_per_s"] = self.rough_bytes_per_s
        if self.link is not None:
            d["link"] = self.link
        return d


@dataclass(frozen=True)
class Hypothesis:
    """What would explain the figure when an input is missing."""

    kind: str  # "window", "loss", "rtt"
    text: str
    rtt_s: float | None = None
    window_bytes: float | None = None
    loss: float | None = None
    fits: bool = False  # matches a common default / lies in the model's validity range

    def to_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text, "rtt_s": self.rtt_s, "window_bytes": self.window_bytes,
                "loss": self.loss, "fits": self.fits}


@dataclass(frozen=True)
class Verdict:
    """The answer to "is this figure good?"."""

    measured_bytes_per_s: float
    protocol: str
    side: str | None
    ceilings: tuple[Limit, ...]
    binding: Limit
    efficiency: float
    verdict: str  # "at-ceiling", "below-ceiling", "far-below-all", "above-ceiling"
    limited_by: str
    causes: tuple[str, ...] = ()
    advice: tuple[str, ...] = ()
    hypotheses: tuple[Hypothesis, ...] = ()
    notes: tuple[str, ...] = ()
    inputs: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        from .readable import rate

        return (f"Verdict({self.verdict}: measured {rate(self.measured_bytes_per_s)}, "
                f"{self.efficiency:.0%} of {self.binding.name} ({rate(self.binding.ceiling_bytes_per_s)}); "
                f"limited by {self.limited_by})")

    def to_dict(self) -> dict:
        return {
            "measured_bytes_per_s": self.measured_bytes_per_s,
            "protocol": self.protocol,
            "side": self.side,
            "ceilings": [c.to_dict() for c in self.ceilings],
            "binding": self.binding.to_dict(),
            "efficiency": self.efficiency,
            "verdict": self.verdict,
            "limited_by": self.limited_by,
            "causes": list(self.causes),
            "advice": list(self.advice),
            "hypotheses": [h.to_dict() for h in self.hypotheses],
            "notes": list(self.notes),
            "inputs": dict(self.inputs),
        }


# --- helpers ---------------------------------------------------------------------------------

def _net(x: float) -> str:
    return format_rate(x, "network")


def _size(x: float) -> str:
    """A size in the prefix it was most likely written in: '4 MiB', '64 KiB', '100 MB', '87380 B'."""
    options = []
    for factor, unit in ((2 ** 30, "GiB"), (2 ** 20, "MiB"), (2 ** 10, "KiB"),
                         (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if x >= factor and abs(x / factor - round(x / factor, 1)) < 1e-9:
            options.append(f"{x / factor:g} {unit}")
    if options:
        return min(options, key=len)
    return f"{x:.0f} B" if x < 1e6 else format_quantity(x, "size", 3)


def _at_least(x: float, digits: int = 2) -> str:
    """A size rounded up to ``digits`` significant figures, decimal prefix: 55.6 MB -> '56 MB'."""
    if x <= 0:
        return "0 B"
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return format_quantity(math.ceil(x / step - 1e-9) * step, "size", digits + 1)


def _time(x: float) -> str:
    return format_quantity(x, "time")


def _round_sig(x: float, digits: int = 2) -> float:
    """Round half up to ``digits`` significant figures, in decimal (0.0445 -> 0.045, not 0.044)."""
    from decimal import ROUND_HALF_UP, Decimal

    if x == 0:
        return 0.0
    exp = math.floor(math.log10(abs(x))) - digits + 1
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP))


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


def _resolve_line(inputs: DiagnoseInputs, profile) -> tuple[float | None, str]:
    if inputs.line_bytes_per_s is not None:
        return inputs.line_bytes_per_s, "given"
    if profile is not None:
        for lid in _flow_links(profile, inputs.flow):
            link = profile.links[lid]
            if link.definition.network:
                return link.capacity, f"profile {profile.name}, link {lid}"
    return None, ""


def _flow_links(profile, flow: str) -> list[str]:
    """The links a flow crosses (routing does not depend on MMRBC or other efficiency params)."""
    c = _flow_ceiling(profile, flow)
    return list(dict.fromkeys(r.split(":", 1)[0] for r in c.usage))


_CEILING_CACHE: dict = {}


def _flow_ceiling(profile, flow: str):
    """pinchpoint.ceilings.flow_ceiling, memoised on the (frozen) profile's links for one process."""
    from .ceilings import flow_ceiling

    key = (id(profile), flow)
    hit = _CEILING_CACHE.get(key)
    if hit is not None and hit[0] is profile:
        return hit[1]
    c = flow_ceiling(profile, flow)
    if len(_CEILING_CACHE) > 64:
        _CEILING_CACHE.clear()
    _CEILING_CACHE[key] = (profile, c)
    return c


def _resolve_mtu(inputs: DiagnoseInputs, profile) -> tuple[float, str]:
    if inputs.mtu_bytes is not None:
        return inputs.mtu_bytes, "given"
    if inputs.mss_bytes is not None and inputs.medium == "ethernet":
        headers = framing.transport_headers(inputs.protocol, inputs.ip_version, inputs.timestamps)
        return inputs.mss_bytes + headers, "MSS + headers"
    if profile is not None:
        for c in profile.components.values():
            if c.kind == "nic" and c.get("mtu"):
                return c.get("mtu"), f"profile {profile.name}, {c.id}.mtu"
    return DEFAULT_MTU[inputs.medium], "default"


# --- the ceilings ----------------------------------------------------------------------------

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


def _tcp_limits(inputs, mss) -> tuple[list[Limit], list[str]]:
    limits, notes = [], []
    n = inputs.streams
    rtt = inputs.rtt_s
    if rtt is None:
        return limits, notes
    window, wtext = _window(inputs)
    if window is not None:
        value = tcp.window_ceiling(window, rtt, n)
        stream_text = f"{n} x " if n > 1 else ""
        formula = f"{stream_text}W / RTT = {stream_text}{wtext} x 8 / {_time(rtt)} = {_net(value)}"
        rough = rough_window_ceiling(window, rtt)
        note, rough_value = "", None
        if rough is not None:
            rough_value = n * rough[0]
            note = (f"often worked out as {stream_text}{rough[1]} = {_net(rough_value)} "
                    f"(decimal prefix, rounded RTT); exact: {_net(value)}")
        limits.append(Limit(f"TCP window {_size(window)} at {_time(rtt)}", "window", value, formula, note,
                            rough_bytes_per_s=rough_value))
    if inputs.loss is not None:
        p, c = inputs.loss, inputs.mathis_c
        ok, why = tcp.mathis_validity(p)
        mathis = tcp.mathis_ceiling(mss, rtt, p, c, n)
        cubic = tcp.cubic_ceiling(mss, rtt, p, n)
        b = 3 / (2 * c * c)  # PFTK's b matching this C: C = sqrt(3 / (2 b))
        pftk = n * tcp.pftk_ceiling(mss, rtt, p, b=b)
        stream_text = f"{n} x " if n > 1 else ""
        if ok:
            value = mathis
            formula = (f"Mathis: {stream_text}(MSS / RTT) x C / sqrt(p) = {stream_text}({mss:g} B / {_time(rtt)})"
                       f" x {c:g} / sqrt({p:g}) = {_net(value)}")
            note = f"{why}; PFTK with timeouts: {_net(pftk)}; CUBIC (RFC 9438): {_net(cubic)}"
        else:
            value = pftk
            formula = (f"PFTK (RFC 5348): {stream_text}s / (R sqrt(2bp/3) + 4R 3 sqrt(3bp/8) p (1 + 32 p^2)), "
                       f"s = {mss:g} B, R = {_time(rtt)}, p = {p:g}, b = {b:.3g} = {_net(value)}")
            note = f"Mathis not valid here ({why}); Mathis would give {_net(mathis)}"
            notes.append(f"Mathis' formula is outside its validity range: {why}")
        limits.append(Limit(f"TCP loss p = {p:g} at {_time(rtt)}", "loss", value, formula, note))
    return limits, notes


def _window(inputs) -> tuple[float | None, str]:
    if inputs.window_bytes is not None:
        return inputs.window_bytes, _size(inputs.window_bytes)
    if inputs.buffer_bytes is not None:
        w = tcp.window_from_buffer(inputs.buffer_bytes, inputs.adv_win_scale, inputs.buffer_requested)
        share = 1 - 2.0 ** (-inputs.adv_win_scale)
        if inputs.buffer_requested:
            text = (f"({_size(inputs.buffer_bytes)} requested, doubled by Linux to "
                    f"{_size(2 * inputs.buffer_bytes)}, x {share:g} for tcp_adv_win_scale {inputs.adv_win_scale})")
        else:
            text = f"({_size(inputs.buffer_bytes)} buffer x {share:g} for tcp_adv_win_scale {inputs.adv_win_scale})"
        return w, text
    return None, ""


def _host_profile(inputs):
    profile = inputs.profile
    if profile is None or inputs.mmrbc_bytes is None:
        return profile
    pcix = [lid for lid in _flow_links(profile, inputs.flow) if profile.links[lid].kind == "pci-x"]
    if not pcix:
        raise InputError(f"flow {inputs.flow!r} of profile {profile.name!r} crosses no pci-x link "
                         "(MMRBC is a PCI-X setting)", file=inputs.origin, key="mmrbc_bytes")
    for lid in pcix:
        profile = profile.with_link_param(lid, "burst", float(inputs.mmrbc_bytes))
    return profile


def _host_limits(inputs, profile, mtu) -> list[Limit]:
    flow = inputs.flow
    c = _flow_ceiling(profile, flow)
    share = framing.bus_bytes_per_payload(mtu, inputs.protocol, inputs.ip_version, inputs.timestamps)
    usage: dict[str, float] = {}
    for rid, u in c.usage.items():
        lid = rid.split(":", 1)[0]
        usage[lid] = max(usage.get(lid, 0.0), u)
    out = []
    for lid, u in usage.items():
        link = profile.links[lid]
        if link.definition.network or u <= 0:
            continue
        eff_cap, raw_cap = link.effective_capacity, link.capacity
        value = eff_cap / u / share
        raw = raw_cap / u / share
        parts = [f"{link.formula} = {format_rate(raw_cap, 'memory')}"]
        if link.definition.efficiency is not None:
            vals = ", ".join(f"{p.name} = {link.params[p.name].text}" for p in link.definition.params
                             if p.name in link.params and p.name in link.definition.efficiency_formula)
            parts.append(f"x {link.definition.efficiency_formula} ({vals}) = x {link.efficiency:.4f}")
        if abs(u - 1) > 1e-9:
            parts.append(f"/ {u:g} passes")
        parts.append(f"/ {share:.4f} bus bytes per payload byte = {_net(value)} payload")
        note = (f"raw {_net(raw)}, effective {_net(value)}; flow {flow}: {link.description or ' <-> '.join(link.between)}")
        if link.kind == "pci-x":
            note += f"; MMRBC (burst) {link.params['burst'].text}"
        out.append(Limit(f"{lid} ({link.kind}) on flow {flow}", link.kind, value, " ".join(parts), note,
                         raw_bytes_per_s=raw, link=lid))
    out += _split_read_limits(inputs, profile, usage, share)
    flow_eff = (c.effective_bytes_per_s or c.ceiling_bytes_per_s) / share
    if out and flow_eff < min(x.ceiling_bytes_per_s for x in out) * (1 - 1e-6):
        lid = (c.effective_binding or c.binding)[0]
        out.append(Limit(f"host path {flow}", profile.links[lid].kind, flow_eff,
                         f"{c.formula} (effective capacities) / {share:.4f} = {_net(flow_eff)}",
                         f"binding: {', '.join(c.effective_binding)}", raw_bytes_per_s=c.ceiling_bytes_per_s / share,
                         link=lid))
    return out


def _split_read_limits(inputs, profile, usage, share) -> list[Limit]:
    """PCI-X DMA reads (memory -> NIC) bounded by outstanding split reads and memory latency.

    X <= N x MMRBC / (T_latency + MMRBC / B_peak) (formulas.md 2; :func:`protocols.split_read_bound`).
    Needs the number of outstanding reads and the latency (given, or the profile memory's ``latency``).
    """
    from . import protocols

    flow = profile.flow(inputs.flow)
    if profile.components[flow.source].kind != "memory" or inputs.outstanding_reads is None:
        return []
    latency = inputs.read_latency_s
    if latency is None:
        latency = profile.components[flow.source].get("latency")
    if latency is None:
        return []
    out = []
    n = inputs.outstanding_reads
    for lid, u in usage.items():
        link = profile.links[lid]
        if link.kind != "pci-x":
            continue
        burst = link.values()["burst"]
        bound = protocols.split_read_bound(n, burst, latency, link.capacity)
        value = bound / u / share
        formula = (f"N x MMRBC / (latency + MMRBC / peak) = {n} x {burst:g} B / ({_time(latency)} + {burst:g} B / "
                   f"{format_rate(link.capacity, 'memory')}) / {share:.4f} = {_net(value)}")
        out.append(Limit(f"{lid} split reads ({n} outstanding, MMRBC {burst:g} B)", "pci-x", value, formula,
                         "DMA reads from memory: each outstanding read returns MMRBC bytes a latency later "
                         "(PCI-X 2.0 addendum; Intel CS-025829)", link=lid))
    return out


def _cpu_limit(inputs, profile, payload) -> tuple[Limit | None, str | None, float | None]:
    """The CPU ceiling; returns (limit, throttling note, ceiling at the nominal clock)."""
    cpus = profile.cpus() if profile is not None else []
    if not cpus and inputs.clock_hz is None:
        return None, None, None
    nominal = cpus[0].get("clock") if cpus else None
    current = inputs.clock_hz or (cpus[0].get("current_clock") if cpus else None) or nominal
    total_cores = inputs.cores or (int(sum(c.get("cores", 1) for c in cpus)) if cpus else 1)
    used = hostcpu.cores_in_use(inputs.streams, total_cores)
    cpb = cpus[0].get("cycles_per_byte") if cpus else None
    cpp = cpus[0].get("cycles_per_packet") if cpus else None
    rule = cpb is None and cpp is None
    if rule:
        cpb, cpp = 0.0, hostcpu.RULE_OF_THUMB_CYCLES_PER_PACKET
    cpb, cpp = cpb or 0.0, cpp or 0.0

    def at(clock):
        return hostcpu.cpu_ceiling(clock, used, payload, cpb, cpp)

    value = at(current)
    formula = (f"clock x cores / (cycles per byte + cycles per packet / payload) = "
               f"{format_quantity(current, 'frequency')} x {used} / ({cpb:g} + {cpp:g} / {payload:g} B) = {_net(value)}")
    note = (f"cores in use: min(streams {inputs.streams}, cores {total_cores}) = {used}")
    if rule:
        note = ("rule of thumb (Foong et al., ISPASS 2003): 1 Hz per bit/s at MTU 1500, taken as "
                f"{cpp:g} cycles per packet, so jumbo frames scale it; an estimate, not a bound. " + note)
    throttle, nominal_value = None, None
    if nominal and current < nominal * (1 - 1e-6):
        nominal_value = at(nominal)
        throttle = (f"the CPU runs at {format_quantity(current, 'frequency')} of its nominal "
                    f"{format_quantity(nominal, 'frequency')}")
        note += f"; {throttle}: at the nominal clock the ceiling is {_net(nominal_value)}"
    name = "host CPU" + (" (rule of thumb)" if rule else "")
    return Limit(name, "cpu", value, formula, note, estimate=rule), throttle, nominal_value


# --- hypotheses ------------------------------------------------------------------------------

def _known_window(w: float) -> str | None:
    for known, text in KNOWN_WINDOWS.items():
        if abs(w / known - 1) <= 0.03:
            return text
    return None


def _hypotheses(inputs, mss, measured) -> list[Hypothesis]:
    if inputs.protocol != "tcp":
        return []
    out: list[Hypothesis] = []
    n = inputs.streams
    per = f" per stream ({n} streams)" if n > 1 else ""
    has_window = inputs.window_bytes is not None or inputs.buffer_bytes is not None
    rtts = (inputs.rtt_s,) if inputs.rtt_s is not None else PLAUSIBLE_RTTS
    if not has_window:
        for rtt in rtts:
            w = measured * rtt / n
            known = _known_window(w)
            text = f"a window of {format_quantity(w, 'size', 3)}{per} at RTT {_time(rtt)}"
            if known:
                text += f": matches {known}"
            out.append(Hypothesis("window", text, rtt_s=rtt, window_bytes=w, fits=known is not None))
    elif inputs.rtt_s is None:
        w, wtext = _window(inputs)
        rtt = w * n / measured
        out.append(Hypothesis("rtt", f"an RTT of {_time(rtt)} with the window {wtext}", rtt_s=rtt,
                              window_bytes=w, fits=True))
    if inputs.loss is None:
        for rtt in rtts:
            p = tcp.mathis_loss_for_rate(measured, mss, rtt, inputs.mathis_c, n)
            ok = 0 < p <= tcp.MATHIS_VALID_MAX_LOSS and inputs.retransmits != 0
            why = ": outside Mathis' range, not a plausible explanation" if p > tcp.MATHIS_VALID_MAX_LOSS else (
                ": but the sender retransmitted nothing, so loss does not explain it" if inputs.retransmits == 0
                else "")
            text = f"a loss rate of {p:.2g} at RTT {_time(rtt)} (Mathis, MSS {mss:g} B, C {inputs.mathis_c:g})" + why
            out.append(Hypothesis("loss", text, rtt_s=rtt, loss=p, fits=ok))
    return out


# --- the verdict -----------------------------------------------------------------------------

_LIMITED_BY = {"target": "the sender's rate limit (iperf3 -b)", "line": "the line", "framing": "the line (protocol overhead)", "window": "the TCP window",
               "loss": "packet loss", "cpu": "the host CPU"}


def diagnose(inputs: DiagnoseInputs) -> Verdict:
    """Every ceiling, the binding one, efficiency, verdict, advice and hypotheses for a figure."""
    inputs.validate()
    measured = float(inputs.measured_bytes_per_s)
    profile = _host_profile(inputs)
    line, line_from = _resolve_line(inputs, profile)
    mtu, mtu_from = _resolve_mtu(inputs, profile)
    headers = framing.transport_headers(inputs.protocol, inputs.ip_version, inputs.timestamps)
    payload = inputs.mss_bytes or (mtu - headers)
    notes: list[str] = []
    limits: list[Limit] = []

    if line is not None:
        if measured > line * (1 + 1e-9):
            key = "measured_bytes_per_s"
            raise InputError(f"the measured {_net(measured)} is above the raw line rate {_net(line)} "
                             f"({line_from}): the figure or the link must be wrong", file=inputs.origin, key=key)
        limits.append(Limit("line rate", "line", line, f"raw line rate = {_net(line)}", f"from {line_from}"))
        limits.append(_framing_limit(inputs, line, mtu))
    if inputs.protocol == "tcp":
        tl, tnotes = _tcp_limits(inputs, payload)
        limits += tl
        notes += tnotes
    if inputs.target_bytes_per_s is not None:
        t = inputs.target_bytes_per_s
        limits.append(Limit("sender's target rate", "target", t, f"iperf3 -b {_net(t)}",
                            "the sender was told not to exceed this rate: the figure measures the limit, not "
                            "the path (iperf3's UDP default is 1 Mbit/s)"))
    if profile is not None:
        limits += _host_limits(inputs, profile, mtu)
    cpu, throttle, cpu_nominal = _cpu_limit(inputs, profile, payload)
    if cpu is not None:
        limits.append(cpu)
    if not limits:
        raise InputError("nothing to compare the figure with: give the line rate (--link), or a profile and "
                         "flow, or an RTT with a window or a loss rate", file=inputs.origin, key="line_bytes_per_s")

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
    if exceeded:
        verdict = "above-ceiling"
    elif efficiency >= AT_CEILING:
        verdict = "at-ceiling"
    elif efficiency >= FAR_BELOW:
        verdict = "below-ceiling"
    else:
        verdict = "far-below-all"
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


def _wrong_inputs(inputs, exceeded, measured, mtu, profile) -> list[str]:
    """For each bound the figure exceeds, the inputs that must be wrong and by how much.

    The TCP bounds scale exactly: W / RTT is 1 / RTT and linear in W; Mathis' bound is 1 / RTT
    and 1 / sqrt(p) (PFTK, used above 1 % loss, nearly so).
    """
    out = []
    n = inputs.streams
    for x in exceeded:
        over = measured / x.ceiling_bytes_per_s
        head = f"the figure {_net(measured)} is {over:.0%} of the {x.name} bound ({_net(x.ceiling_bytes_per_s)})"
        if x.kind == "loss":
            out.append(f"{head}: the loss rate must be at most {inputs.loss / over ** 2:.2g} (given "
                       f"{inputs.loss:g}), or the RTT at most {_time(inputs.rtt_s / over)} (given "
                       f"{_time(inputs.rtt_s)}), or the streams more than {n}")
        elif x.kind == "window":
            w, wtext = _window(inputs)
            what = ("the socket buffer (rcvbuf) must be at least "
                    f"{_size(inputs.buffer_bytes * over)} (given {_size(inputs.buffer_bytes)})"
                    if inputs.window_bytes is None and inputs.buffer_bytes is not None
                    else f"the window must be at least {_size(w * over)} (given {wtext})")
            out.append(f"{head}: {what}, or the RTT at most {_time(inputs.rtt_s / over)} (given "
                       f"{_time(inputs.rtt_s)}), or the streams more than {n}")
        elif x.kind == "framing":
            out.append(f"{head}: the MTU must be larger than {mtu:g} B, the headers smaller, or the line "
                       f"rate higher than given ({inputs.medium})")
        elif x.kind == "target":
            out.append(f"{head}: the sender's target rate (iperf3 -b) must be at least {over:.2f}x higher")
        elif x.kind == "cpu":
            out.append(f"{head}: the profile's CPU clock, cores or cycles per byte and per packet must be "
                       f"{over:.2f}x more favourable, or the figure is not from this host")
        else:
            where = f"link {x.link} of profile {profile.name}" if x.link and profile is not None else x.name
            out.append(f"{head}: {where} must be at least {over:.2f}x faster than its parameters say, or the "
                       f"figure was not measured on flow {inputs.flow!r} of this machine")
    return out


def _advise(inputs, verdict, binding, limits, measured, efficiency, line, mtu, profile, throttle, cpu_nominal,
            hyps):
    causes: list[str] = []
    advice: list[str] = []
    kind = binding.kind
    n = inputs.streams
    others = [x for x in limits if x.kind not in ("window", "loss", "line")]
    path = min(others, key=lambda x: x.ceiling_bytes_per_s) if others else None

    if verdict == "at-ceiling":
        causes.append(f"the figure is {efficiency:.0%} of the {binding.name} ceiling ({_net(binding.ceiling_bytes_per_s)})")
    elif verdict == "below-ceiling":
        causes.append(f"the figure is {efficiency:.0%} of the lowest ceiling ({binding.name}, "
                      f"{_net(binding.ceiling_bytes_per_s)}): close, but something else costs the rest")
    else:
        causes.append(f"the figure is only {efficiency:.0%} of the lowest modelled ceiling ({binding.name}, "
                      f"{_net(binding.ceiling_bytes_per_s)}): no modelled ceiling explains it")

    window, _ = _window(inputs)
    target = line if line is not None else (path.ceiling_bytes_per_s if path else None)
    need = tcp.bdp(target, inputs.rtt_s) / n if target is not None and inputs.rtt_s is not None else None
    if kind == "window" and inputs.rtt_s is not None and need is not None and window is not None and need <= window:
        advice.append(f"the window ({_size(window)}{' per stream' if n > 1 else ''}) already covers the "
                      f"bandwidth-delay product of {_net(target)} at {_time(inputs.rtt_s)} ({_size(need)}): "
                      "a larger tcp_rmem will not help")
    elif kind == "window" and inputs.rtt_s is not None and need is not None:
        buf = tcp.buffer_for_window(need, inputs.adv_win_scale)
        advice.append(f"raise net.ipv4.tcp_rmem max to at least {_at_least(need)} for {_net(target)} at "
                      f"{_time(inputs.rtt_s)}{' per stream' if n > 1 else ''} (the bandwidth-delay product); "
                      f"Linux advertises {1 - 2.0 ** -inputs.adv_win_scale:g} of the buffer "
                      f"(tcp_adv_win_scale {inputs.adv_win_scale}), so set it to {_at_least(buf, 3)} to be sure, "
                      f"and net.ipv4.tcp_wmem max on the sender likewise (net.core.rmem_max/wmem_max for "
                      f"applications that set SO_RCVBUF)")
        if path is not None:
            advice.append(f"with the window out of the way the next ceiling is {path.name} at "
                          f"{_net(path.ceiling_bytes_per_s)}")
    elif kind == "loss":
        advice.append(f"packet loss p = {inputs.loss:g} caps TCP at {_net(binding.ceiling_bytes_per_s)}: find the "
                      "loss (ip -s link and ethtool -S for errors and drops, nstat TcpRetransSegs, a lossy hop "
                      "with mtr) or use a congestion control less sensitive to random loss (CUBIC, BBR)")
    elif kind == "framing" and verdict == "at-ceiling":
        if inputs.medium == "ethernet" and mtu < 9000 and _jumbo_capable(line):
            jumbo = framing.ethernet_goodput(line, 9000.0, inputs.protocol, inputs.ip_version, inputs.timestamps,
                                             inputs.vlan)
            advice.append(f"this is the line's goodput at MTU {mtu:g}: only jumbo frames (MTU 9000 end to end: "
                          f"{_net(jumbo)}) or a faster line raise it")
        else:
            advice.append("this is the line's goodput: only a faster line raises it")
    elif kind in ("framing", "line") and verdict == "below-ceiling":
        advice.append(f"the line could carry {_net(binding.ceiling_bytes_per_s)}: look at the hosts (CPU per core, "
                      "NIC driver and its buffers: ethtool -g ring sizes, interrupt coalescing; seed 003 names the "
                      "driver code and the number of allocated buffers) and at TCP (give --rtt with --window or "
                      "--loss to check them)")
    elif kind == "target":
        advice.append("the sender was rate-limited: rerun without the limit (iperf3 -b 0, or a rate above the "
                      "line's) to measure the path")
    elif kind == "cpu":
        jumbo = "jumbo frames (fewer packets) and " if _jumbo_capable(line) else ""
        advice.append("the host CPU binds: spread the work over more cores (parallel streams, RSS and IRQ "
                      f"affinity), use {jumbo}offloads (TSO, GRO, checksum)")
    elif kind == "pcie" and verdict != "far-below-all":
        advice.append("the PCIe link binds: check the negotiated speed and width (lspci -vv: LnkSta against "
                      "LnkCap) and MaxPayload / MaxReadReq")
    elif kind in ("memory", "hypertransport", "fsb") and verdict != "far-below-all":
        advice.append(f"hardware-bound at the {kind} link: only fewer passes over it (zero-copy, sendfile) help")
    elif kind == "pci-x" and verdict != "far-below-all" and _burst(profile, binding) >= 4096:
        advice.append(f"hardware-bound at the PCI-X bus ({_net(binding.raw_bytes_per_s or 0)} raw): beyond it "
                      "only a PCIe NIC helps")

    if throttle:
        advice.append(f"{throttle}: turn power saving off (cpuspeed service, or cpupower frequency-set -g "
                      f"performance), which raises the CPU ceiling to {_net(cpu_nominal)} (seed 002)")

    # MMRBC: whenever the path crosses a PCI-X link with a burst below 4096 bytes.
    if profile is not None:
        advised = set()
        for x in limits:
            if x.kind == "pci-x" and x.link and x.raw_bytes_per_s is not None and x.link not in advised \
                    and profile.links[x.link].values()["burst"] < 4096:
                advised.add(x.link)
                better = profile.with_link_param(x.link, "burst", 4096.0).links[x.link]
                ratio = better.effective_capacity / profile.links[x.link].effective_capacity
                advice.append(f"set MMRBC to 4096 on the NIC (e.g. setpci -d 8086:1048 e6.b=2e for the Intel "
                              f"PRO/10GbE, seed 000; Intel note CS-025829): the effective PCI-X ceiling rises "
                              f"from {_net(x.ceiling_bytes_per_s)} to {_net(x.ceiling_bytes_per_s * ratio)}")

    if verdict == "below-ceiling":
        causes += _likely_causes(inputs, hyps)
    if verdict != "at-ceiling":
        extra = _loss_advice(inputs, hyps, measured)
        if extra:
            advice.append(extra)
    if verdict == "far-below-all":
        causes.append("software or something not modelled: the TCP/IP stack and driver settings, interrupt "
                      "handling, the application's buffer sizes, or a device the model does not include")
        causes += _likely_causes(inputs, hyps)
        advice.append("compare UDP with TCP and netperf with iperf on the same hosts, watch per-core CPU "
                      "(mpstat -P ALL), and check the socket (ss -ti: cwnd, rcv_space, retransmits)")
    if inputs.protocol == "tcp" and inputs.rtt_s is None and verdict != "at-ceiling":
        advice.append("measure the RTT (ping) and give it with --rtt: the window and loss ceilings need it")
    return causes, advice


#: Jumbo frames are a Gigabit-Ethernet-and-faster extension: IEEE 802.3 caps the payload at
#: 1500 B, and 10 and 100 Mbit/s NICs and switches do not carry larger frames (Alteon's 1998
#: jumbo frames proposal was for Gigabit Ethernet; RFC 4638 needs the path to accept them).
JUMBO_MIN_LINE = 1e9 / 8


def _jumbo_capable(line) -> bool:
    return line is None or line >= JUMBO_MIN_LINE * (1 - 1e-9)


def _burst(profile, limit) -> float:
    if profile is None or limit.link is None:
        return 4096.0
    return profile.links[limit.link].values().get("burst", 4096.0)


def _loss_advice(inputs, hyps, measured) -> str | None:
    if inputs.protocol != "tcp" or inputs.loss is not None or inputs.rtt_s is None:
        return None
    h = [x for x in hyps if x.kind == "loss" and x.fits]
    if not h:
        return None
    return (f"check for packet loss (iperf3's retransmits, nstat TcpRetransSegs, ip -s link, ethtool -S): "
            f"a loss rate of {h[0].loss:.2g} at {_time(inputs.rtt_s)} would explain {_net(measured)} (Mathis); "
            "give it with --loss; and ask whether the circuit is policed or shaped below its line rate")


def _likely_causes(inputs, hyps) -> list[str]:
    out = []
    if inputs.protocol == "tcp":
        fitting_w = [h for h in hyps if h.kind == "window" and h.fits]
        if fitting_w:
            out += [f"the TCP window: {h.text}" for h in fitting_w]
        elif inputs.window_bytes is None and inputs.buffer_bytes is None and inputs.rtt_s is not None:
            w = [h for h in hyps if h.kind == "window"]
            if w:
                out.append(f"the TCP window (not given): {w[0].text} would explain it")
        loss = [h for h in hyps if h.kind == "loss" and h.fits]
        if loss and inputs.rtt_s is not None:
            out.append(f"packet loss (not given): {loss[0].text} would explain it")
        elif loss:
            out.append("packet loss (not given): see the hypotheses for the rate that would explain it")
    if inputs.protocol == "udp" and inputs.side == "sender":
        out.append("a UDP sender's figure: the receiver may get less")
    return out
