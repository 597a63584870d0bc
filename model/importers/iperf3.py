"""iperf3 JSON output (``iperf3 -c HOST -J``) -> the inputs of ``pinchpoint diagnose``.

What we read (iperf3 3.x, ``iperf_api.c``; keys as iperf3 writes them):

* the measured rate: ``end.sum_received.bits_per_second`` (the receiver's count, default) or
  ``end.sum_sent.bits_per_second`` (the sender's); both are payload bits per second, headers
  excluded.  UDP tests also carry ``lost_percent``;
* the RTT: the mean over ``end.streams[].sender.mean_rtt`` [µs] (TCP, Linux senders only);
* the MSS: ``start.tcp_mss_default`` (or ``start.tcp_mss`` when set with ``-M``) [B];
* socket buffers: ``start.sock_bufsize`` (the ``-w`` request, 0 when not set: Linux doubles it),
  ``start.sndbuf_actual`` and ``start.rcvbuf_actual`` (getsockopt values of the local socket);
* the peer's largest advertised window seen by the sender: ``end.streams[].sender.max_snd_wnd`` [B];
* a sender rate limit: ``start.test_start.target_bitrate`` [bit/s] (``-b``; 0 when unlimited);
* retransmits: ``end.sum_sent.retransmits``; streams: ``start.test_start.num_streams``;
  protocol: ``start.test_start.protocol``; duration: ``start.test_start.duration`` [s].

Edge layer: every problem is an :class:`~pinchpoint.errors.InputError` naming the file and key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError
from pinchpoint.inputs.input_text import parse_bounded, read_text


@dataclass(frozen=True)
class Iperf3Result:
    """The figures of one iperf3 run, in SI units (bytes, seconds, bytes per second)."""

    file: str | None
    protocol: str  # "tcp" or "udp"
    streams: int
    sent_bytes_per_s: float | None
    received_bytes_per_s: float | None
    rtt_s: float | None = None
    mss_bytes: float | None = None
    requested_buffer_bytes: float | None = None  # -w: sock_bufsize (Linux doubles it)
    sndbuf_bytes: float | None = None
    rcvbuf_bytes: float | None = None
    max_peer_window_bytes: float | None = None
    retransmits: int | None = None
    lost_percent: float | None = None
    duration_s: float | None = None
    reverse: bool = False
    target_bytes_per_s: float | None = None  # -b (0: unlimited)
    version: str | None = None

    def measured(self, side: str | None = None) -> tuple[float, str]:
        """(rate [B/s], side): the receiver's figure unless ``side`` says "sender"."""
        side = side or ("receiver" if self.received_bytes_per_s else "sender")
        value = self.received_bytes_per_s if side == "receiver" else self.sent_bytes_per_s
        if not value:
            key = "end.sum_received" if side == "receiver" else "end.sum_sent"
            raise InputError(f"no {side} figure in this iperf3 output", file=self.file, key=key)
        return value, side

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def diagnose_fields(self, side: str | None = None) -> dict:
        """Keyword arguments for :class:`pinchpoint.diagnose.DiagnoseInputs`."""
        rate, side = self.measured(side)
        out = {"measured_bytes_per_s": rate, "side": side, "protocol": self.protocol, "streams": self.streams,
               "origin": self.file, "duration_s": self.duration_s,
               "sent_bytes_per_s": self.sent_bytes_per_s, "received_bytes_per_s": self.received_bytes_per_s,
               "target_bytes_per_s": self.target_bytes_per_s}
        if self.protocol == "tcp":
            out["rtt_s"] = self.rtt_s
            out["mss_bytes"] = self.mss_bytes
            out["retransmits"] = self.retransmits
            if self.requested_buffer_bytes:
                out["buffer_bytes"] = self.requested_buffer_bytes
                out["buffer_requested"] = True
            elif self.max_peer_window_bytes:
                out["window_bytes"] = self.max_peer_window_bytes
        return out


def _get(doc: Reader, data, path: str, *, required=True):
    """The value at a dotted ``path`` of the report (None, or an error where ``required``)."""
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            if required:
                raise doc.error(path, "missing: is this iperf3 -J output of a finished test?")
            return None
        node = node[part]
    return node


def parse_iperf3(text: str, *, file: str | None = None) -> Iperf3Result:
    """Parse the text of an iperf3 JSON report."""
    doc = Reader(file, InputError, json=True)
    try:
        data = parse_bounded(json.loads, text, InputError, file=file)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON ({exc.msg} at line {exc.lineno}): write iperf3's report with -J",
                         file=file) from None
    if not isinstance(data, dict):
        raise InputError("expected a JSON object (iperf3 -J output)", file=file)
    if data.get("error"):
        raise InputError(f"iperf3 reported an error: {data['error']}", file=file, key="error")
    start = _get(doc, data, "start")
    end = _get(doc, data, "end")
    if not isinstance(start, dict) or not isinstance(end, dict):
        raise InputError("expected objects 'start' and 'end'", file=file)
    proto = str(_get(doc, data, "start.test_start.protocol", required=False) or "TCP").lower()
    if proto not in ("tcp", "udp"):
        raise InputError(f"protocol {proto!r} is not tcp or udp", file=file, key="start.test_start.protocol")
    streams = _get(doc, data, "start.test_start.num_streams", required=False)
    streams = 1 if streams is None else streams
    doc.whole(streams, "start.test_start.num_streams", minimum=1, what="a whole number of streams")

    def rate(key):
        node = end.get(key)
        if node is None:
            return None
        if not isinstance(node, dict) or "bits_per_second" not in node:
            raise InputError("expected an object with bits_per_second", file=file, key=f"end.{key}")
        return doc.number(node["bits_per_second"], f"end.{key}.bits_per_second", minimum=0) / 8.0

    sent, received = rate("sum_sent"), rate("sum_received")
    if sent is None and received is None and isinstance(end.get("sum"), dict):
        sent = rate("sum")
    if not sent and not received:
        raise InputError("no rate: neither end.sum_received nor end.sum_sent has bits_per_second > 0",
                         file=file, key="end.sum_received.bits_per_second")

    rtts, wnds = [], []
    stream_list = end.get("streams", [])
    for i, s in enumerate(doc.list(stream_list, "end.streams")):
        sender = s.get("sender") if isinstance(s, dict) else None
        if isinstance(sender, dict):
            if "mean_rtt" in sender:
                v = doc.number(sender["mean_rtt"], f"end.streams[{i}].sender.mean_rtt", minimum=0)
                if v > 0:
                    rtts.append(v * 1e-6)  # iperf3 reports microseconds
            if "max_snd_wnd" in sender:
                v = doc.number(sender["max_snd_wnd"], f"end.streams[{i}].sender.max_snd_wnd", minimum=0)
                if v > 0:
                    wnds.append(v)

    def opt(key, *, positive_only=True):
        v = start.get(key)
        if v is None:
            return None
        v = doc.number(v, f"start.{key}", minimum=0)
        return v if (v > 0 or not positive_only) else None

    mss = opt("tcp_mss") or opt("tcp_mss_default")
    retrans = None
    if isinstance(end.get("sum_sent"), dict) and "retransmits" in end["sum_sent"]:
        retrans = int(doc.number(end["sum_sent"]["retransmits"], "end.sum_sent.retransmits", minimum=0))
    lost = None
    for key in ("sum_received", "sum"):
        node = end.get(key)
        if proto == "udp" and isinstance(node, dict) and "lost_percent" in node:
            lost = doc.number(node["lost_percent"], f"end.{key}.lost_percent", minimum=0)
            break
    duration = _get(doc, data, "start.test_start.duration", required=False)
    duration = doc.number(duration, "start.test_start.duration", minimum=0) if duration else None
    version = start.get("version")
    target = _get(doc, data, "start.test_start.target_bitrate", required=False)
    target = doc.number(target, "start.test_start.target_bitrate", minimum=0) / 8.0 if target else None
    return Iperf3Result(
        file=file, protocol=proto, streams=streams, sent_bytes_per_s=sent, received_bytes_per_s=received,
        rtt_s=sum(rtts) / len(rtts) if rtts else None, mss_bytes=mss,
        requested_buffer_bytes=opt("sock_bufsize"), sndbuf_bytes=opt("sndbuf_actual"),
        rcvbuf_bytes=opt("rcvbuf_actual"), max_peer_window_bytes=sum(wnds) / len(wnds) if wnds else None,
        retransmits=retrans, lost_percent=lost, duration_s=duration,
        reverse=bool(_get(doc, data, "start.test_start.reverse", required=False)),
        target_bytes_per_s=target, version=version if isinstance(version, str) else None,
    )


def load_iperf3(path) -> Iperf3Result:
    """Read and parse an iperf3 JSON file; unreadable or invalid files raise InputError."""
    try:
        text = read_text(path, InputError)
    except InputError as exc:
        raise InputError(f"cannot read the iperf3 report: {exc.message.removeprefix('cannot read: ')}",
                         file=str(path)) from None
    return parse_iperf3(text, file=str(path))
