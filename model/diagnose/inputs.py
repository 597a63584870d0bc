"""What is known about one measurement (:class:`DiagnoseInputs`) and the rules it must satisfy.

Data object (layer 2) with its validation: every rule raises :class:`~pinchpoint.errors.InputError`
naming the field (``key``) and, where the inputs came from a file, the file (``origin``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pinchpoint.physics import framing, tcp
from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError
from pinchpoint.diagnose.loss_models import LOSS_MODELS
from pinchpoint.diagnose.os_defaults import OPERATING_SYSTEMS

#: Mathis' C used unless told otherwise: sqrt(3/2) (Mathis et al. 1997, which rounds it to 1.22).
DEFAULT_C = tcp.C_MATHIS
#: Media whose framing we model.
MEDIA = ("ethernet", "atm", "fddi", "appletalk")
DEFAULT_MTU = {"ethernet": 1500.0, "atm": 9180.0, "fddi": framing.FDDI_MTU, "appletalk": 1500.0}
#: PCI-X MMRBC values the configuration register can hold [B].
MMRBC_VALUES = (512.0, 1024.0, 2048.0, 4096.0)

@dataclass(frozen=True)
class DiagnoseInputs:
    """What is known about one measurement.  SI units: bytes, seconds, bytes per second, hertz.

    ``measured_bytes_per_s`` is payload (goodput), as iperf reports it.  ``window_bytes`` is a
    TCP window; ``buffer_bytes`` a socket buffer (``buffer_requested``: the value passed to
    setsockopt, which Linux doubles), turned into a window with ``adv_win_scale``.
    ``origin`` names where the inputs came from (an iperf3 file) for error messages.

    ``loss`` is the loss-*event* rate (congestion episodes per segment), which the loss models
    take; ``retransmit_rate`` is the share of segments retransmitted, which overstates it (one
    episode can cost hundreds of segments): given alone it is used as an upper bound on p, so
    its ceiling is a lower bound the figure may exceed.  ``os`` names an operating system whose
    default buffers (:mod:`.os_defaults`) bound the window when no window is given;
    ``buffer_defaults`` carries live values read on the host instead.  A receiver's figure of
    zero is allowed: the verdict is "nothing-arrived".
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
    profile: Any = None  # a pinchpoint.inputs.profile.Profile
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
    loss_model: str = "cubic"  # a name in pinchpoint.diagnose.LOSS_MODELS (Linux's default CC)
    retransmit_rate: float | None = None  # retransmitted / sent segments (overstates loss events)
    loss_events: int | None = None  # congestion episodes counted in the iperf3 intervals
    segments_sent: float | None = None  # bytes sent / MSS
    os: str | None = None  # default buffers of this OS bound the window (pinchpoint.diagnose.os_defaults)
    buffer_defaults: Any = None  # live BufferDefaults read on the host
    shaper_bytes_per_s: float | None = None  # a token-bucket shaper on the sending interface (tc tbf)
    shaper_from: str | None = None  # where the shaper's rate was read
    notes: tuple = ()  # what the importer noticed (a quirk of the tool's version, the other direction)
    tcp_info: Any = None  # TCP_INFO limits sampled during the run (pinchpoint.measure.probe_tcpinfo)

    def _error(self, key: str, message: str) -> InputError:
        return InputError(message, file=self.origin, key=key)

    def _validate_tcp_model(self, doc) -> None:
        """The loss figures, the loss model and the OS whose buffers bound the window."""
        for key in ("loss", "retransmit_rate"):
            value = getattr(self, key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not math.isfinite(value) or not 0 < value < 1):
                raise self._error(key, f"a loss probability must be between 0 and 1 (exclusive), got {value!r}")
        doc.choice(self.loss_model, LOSS_MODELS, "loss_model")
        if self.os is not None:
            doc.choice(self.os, OPERATING_SYSTEMS, "os")

    def validate(self) -> None:
        """Raise :class:`InputError` naming the field (a parameter name, which the CLI maps to its
        flag) and what was expected."""
        doc = Reader(self.origin, InputError)

        def positive(name, value, what):
            if value is not None:
                doc.number(value, name, what=what, positive=True)

        if self.measured_bytes_per_s is None:
            raise self._error("measured_bytes_per_s", "missing: the measured rate to judge")
        if self.measured_bytes_per_s != 0 or self.side != "receiver":
            positive("measured_bytes_per_s", self.measured_bytes_per_s, "measured rate")
        doc.choice(self.protocol, ("tcp", "udp"), "protocol")
        if self.side is not None:
            doc.choice(self.side, ("sender", "receiver"), "side")
        doc.choice(self.medium, MEDIA, "medium")
        doc.choice(self.ip_version, (4, 6), "ip_version")
        positive("line_bytes_per_s", self.line_bytes_per_s, "line rate")
        positive("rtt_s", self.rtt_s, "round-trip time")
        positive("window_bytes", self.window_bytes, "window")
        positive("buffer_bytes", self.buffer_bytes, "buffer")
        positive("mss_bytes", self.mss_bytes, "MSS")
        positive("clock_hz", self.clock_hz, "clock")
        positive("mathis_c", self.mathis_c, "Mathis constant C")
        for key in ("sent_bytes_per_s", "received_bytes_per_s"):  # zero: nothing sent or arrived
            if getattr(self, key) is not None:
                doc.number(getattr(self, key), key, what=key.split("_")[0] + " rate", minimum=0)
        positive("duration_s", self.duration_s, "duration")
        positive("target_bytes_per_s", self.target_bytes_per_s, "target rate")
        positive("shaper_bytes_per_s", self.shaper_bytes_per_s, "shaper rate")
        positive("read_latency_s", self.read_latency_s, "read latency")
        if self.outstanding_reads is not None:
            doc.whole(self.outstanding_reads, "outstanding_reads", minimum=1)
        if self.window_bytes is not None and self.buffer_bytes is not None:
            raise self._error("window_bytes", "give a window or a buffer, not both")
        self._validate_tcp_model(doc)
        doc.whole(self.streams, "streams", minimum=1, what="a whole number of streams")
        if self.cores is not None:
            doc.whole(self.cores, "cores", minimum=1, what="a whole number of cores")
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
            if not self.profile.has_flow(self.flow):  # a flow, or a scenario's ("SCENARIO/FLOW")
                raise self._error("flow", f"no flow {self.flow!r} in profile {self.profile.name!r} "
                                          f"(flows: {', '.join(self.profile.flows) or 'none'})")
        if self.mmrbc_bytes is not None and self.profile is None:
            raise self._error("mmrbc_bytes", "MMRBC applies to a PCI-X link of a profile: give a profile and flow")

