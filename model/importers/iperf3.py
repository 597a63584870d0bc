"""iperf3 output (``iperf3 -c HOST -J``, or its plain text) -> the inputs of ``pinchpoint diagnose``.

What we read from the JSON (iperf3 3.x, ``iperf_api.c``; keys as iperf3 writes them):

* the measured rate: ``end.sum_received.bits_per_second`` (the receiver's count, default) or
  ``end.sum_sent.bits_per_second`` (the sender's); both are payload bits per second, headers
  excluded, summed over the ``-P`` streams (each stream's own figure is in ``end.streams``);
* UDP: ``jitter_ms``, ``lost_packets``, ``packets``, ``lost_percent`` of ``end.sum_received``
  (or ``end.sum``);
* the RTT: the mean over ``end.streams[].sender.mean_rtt`` [µs] (TCP, Linux senders only);
* the MSS: ``start.tcp_mss_default`` (or ``start.tcp_mss`` when set with ``-M``) [B];
* socket buffers: ``start.sock_bufsize`` (the ``-w`` request, 0 when not set: Linux doubles it),
  ``start.sndbuf_actual`` and ``start.rcvbuf_actual`` (getsockopt values of the local socket);
* the peer's largest advertised window seen by the sender: ``end.streams[].sender.max_snd_wnd`` [B];
* a sender rate limit: ``start.test_start.target_bitrate`` [bit/s], per stream (``-b``; 0 when
  unlimited);
* retransmits: ``end.sum_sent.retransmits``; loss events: intervals (``intervals[].streams[]``)
  whose ``retransmits`` are above zero and whose ``snd_cwnd`` fell (:func:`pinchpoint.physics.tcp.loss_events`);
* ``-R`` (``start.test_start.reverse``), ``--bidir`` (``end.sum_sent_bidir_reverse``), ``-n``/``-k``
  (``start.test_start.bytes``/``blocks``), the congestion control (``end.sender_tcp_congestion``).

iperf3 3.9 writes ``end.sum_received.bytes`` = 0 for ``-n``/``-k`` runs; such a run is judged on
the sender's figure, with a note.  A run where nothing arrived reads as a receiver's figure of 0,
which diagnose judges "nothing-arrived".  Plain-text output is read by :mod:`.iperf3_text`.

Edge layer: every problem is an :class:`~pinchpoint.errors.InputError` naming the file and key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError
from pinchpoint.inputs.input_text import parse_bounded, read_text
from pinchpoint.importers.iperf3_text import looks_like_text, parse_iperf3_text
from pinchpoint.physics import tcp


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
    target_bytes_per_s: float | None = None  # -b per stream (None: unlimited)
    version: str | None = None
    per_stream_bytes_per_s: tuple[float, ...] = ()  # the measured side's figure of each stream
    bidir: bool = False
    reverse_sent_bytes_per_s: float | None = None  # --bidir: the other direction
    reverse_received_bytes_per_s: float | None = None
    jitter_s: float | None = None
    lost_packets: int | None = None
    packets: int | None = None
    loss_events: int | None = None  # intervals whose retransmits rose and cwnd fell
    segments_sent: float | None = None  # sent bytes / MSS
    bytes_mode: bool = False  # -n or -k: a byte or block count, not a duration
    congestion_control: str | None = None
    notes: tuple[str, ...] = ()
    text: bool = False  # read from the plain-text output
    system_info: str | None = None  # the client's uname (start.system_info)

    @property
    def retransmit_rate(self) -> float | None:
        """Retransmitted / sent segments (None without both; overstates the loss-event rate)."""
        if not self.retransmits or not self.segments_sent or self.retransmits >= self.segments_sent:
            return None
        return self.retransmits / self.segments_sent

    @property
    def loss_event_rate(self) -> float | None:
        if not self.loss_events or not self.segments_sent or self.loss_events >= self.segments_sent:
            return None
        return self.loss_events / self.segments_sent

    def measured(self, side: str | None = None) -> tuple[float, str]:
        """(rate [B/s], side): the receiver's figure unless ``side`` says "sender".

        A ``-n``/``-k`` run whose receiver figure is 0 (iperf3 3.9) falls back to the sender's.
        """
        if side is None:
            side = "receiver" if self.received_bytes_per_s is not None else "sender"
            if side == "receiver" and not self.received_bytes_per_s and self.bytes_mode and self.sent_bytes_per_s:
                side = "sender"
        value = self.received_bytes_per_s if side == "receiver" else self.sent_bytes_per_s
        if value is None or (side == "sender" and not value):
            key = "end.sum_received" if side == "receiver" else "end.sum_sent"
            raise InputError(f"no {side} figure in this iperf3 output", file=self.file, key=key)
        return value, side

    def to_dict(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d.update(per_stream_bytes_per_s=list(self.per_stream_bytes_per_s), notes=list(self.notes),
                 retransmit_rate=self.retransmit_rate, loss_event_rate=self.loss_event_rate)
        return d

    def diagnose_fields(self, side: str | None = None) -> dict:
        """Keyword arguments for :class:`pinchpoint.diagnose.DiagnoseInputs`."""
        # importing pinchpoint.diagnose runs its __init__ (the whole diagnosis chain): reading a
        # result file needs none of it, only this call does
        from pinchpoint.diagnose.loss_models import model_for

        rate, side = self.measured(side)
        out = {"measured_bytes_per_s": rate, "side": side, "protocol": self.protocol, "streams": self.streams,
               "origin": self.file, "duration_s": self.duration_s,
               "sent_bytes_per_s": self.sent_bytes_per_s, "received_bytes_per_s": self.received_bytes_per_s,
               "target_bytes_per_s": self.target_bytes_per_s, "notes": self.notes}
        if self.protocol == "tcp":
            out.update(rtt_s=self.rtt_s, mss_bytes=self.mss_bytes, retransmits=self.retransmits,
                       loss=self.loss_event_rate, retransmit_rate=self.retransmit_rate,
                       loss_events=self.loss_events, segments_sent=self.segments_sent,
                       loss_model=model_for(self.congestion_control))
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
    """Parse an iperf3 report: JSON (``-J``), or iperf3 3.x's plain text."""
    if looks_like_text(text):
        return Iperf3Result(**parse_iperf3_text(text, file=file))
    reports = split_reports(text, file=file)
    result = _parse_one(reports[-1], file)
    if len(reports) > 1:
        note = (f"the file holds {len(reports)} iperf3 reports one after another (appended runs): the last is "
                "judged")
        result = replace(result, notes=result.notes + (note,))
    return result


#: Keys iperf3 (3.10 and later, seen in 3.12) writes once per stream into the one ``start`` object
#: of a -P or --bidir run: not an ambiguity but its own shape, so they are not refused as duplicate
#: keys.  The streams share their socket options; the last stream's value is kept.
REPEATED_KEYS = frozenset({"sock_bufsize", "sndbuf_actual", "rcvbuf_actual"})


def split_reports(text: str, *, file: str | None = None) -> list:
    """The JSON reports in ``text``: one, or several written one after another (``iperf3 -J >> log``)."""
    try:
        return [parse_bounded(json.loads, text, InputError, file=file, repeatable_keys=REPEATED_KEYS)]
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InputError(f"not JSON ({exc.msg} at line {exc.lineno}) nor iperf3's text output: write "
                             "iperf3's report with -J, or save what it prints", file=file) from None
    decoder, reports, at = json.JSONDecoder(), [], 0
    while at < len(text):
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        try:
            _, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise InputError(f"report {len(reports) + 1} is not JSON ({exc.msg} at line {exc.lineno})",
                             file=file) from None
        reports.append(parse_bounded(json.loads, text[at:end], InputError, file=file,
                                     repeatable_keys=REPEATED_KEYS))
        at = end
    return reports


def _parse_one(data, file) -> Iperf3Result:
    doc = Reader(file, InputError, json=True)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object (iperf3 -J output)", file=file)
    if data.get("error"):
        raise InputError(f"iperf3 reported an error: {data['error']}", file=file, key="error")
    start, end = _get(doc, data, "start"), _get(doc, data, "end")
    if not isinstance(start, dict) or not isinstance(end, dict):
        raise InputError("expected objects 'start' and 'end'", file=file)
    test = start.get("test_start") if isinstance(start.get("test_start"), dict) else {}
    proto = str(test.get("protocol") or "TCP").lower()
    if proto not in ("tcp", "udp"):
        raise InputError(f"protocol {proto!r} is not tcp or udp", file=file, key="start.test_start.protocol")
    streams = 1 if test.get("num_streams") is None else test["num_streams"]
    doc.whole(streams, "start.test_start.num_streams", minimum=1, what="a whole number of streams")
    sent, received, notes, bytes_mode = _rates(doc, data, end, test)
    fields = _stream_fields(doc, end, proto, sent is not None and received is not None)
    fields.update(_start_fields(doc, start, test))
    fields.update(_udp_fields(doc, end) if proto == "udp" else _loss_fields(doc, data, end, fields["mss_bytes"]))
    bidir = isinstance(end.get("sum_sent_bidir_reverse"), dict)
    if bidir:
        fields["reverse_sent_bytes_per_s"] = _rate(doc, end, "sum_sent_bidir_reverse")
        fields["reverse_received_bytes_per_s"] = _rate(doc, end, "sum_received_bidir_reverse")
        notes.append(f"--bidir: the other direction carried {fields['reverse_received_bytes_per_s'] * 8 / 1e6:.4g} "
                     "Mbit/s at the same time; the figure judged is the client-to-server one")
    if test.get("reverse"):
        notes.append("-R: the server sent and this host received; the sender's figures are the server's")
    if proto == "udp" and fields.get("packets") is not None:
        notes.append(udp_note(fields))
    cc = end.get("sender_tcp_congestion")
    return Iperf3Result(file=file, protocol=proto, streams=streams, sent_bytes_per_s=sent,
                        received_bytes_per_s=received, reverse=bool(test.get("reverse")), bidir=bidir,
                        bytes_mode=bytes_mode, congestion_control=cc if isinstance(cc, str) else None,
                        notes=tuple(notes), **fields)


def _rate(doc, end, key):
    node = end.get(key)
    if node is None:
        return None
    if not isinstance(node, dict) or "bits_per_second" not in node:
        raise InputError("expected an object with bits_per_second", file=doc.file, key=f"end.{key}")
    return doc.number(node["bits_per_second"], f"end.{key}.bits_per_second", minimum=0) / 8.0


def _rates(doc, data, end, test):
    """(sent, received, notes, bytes_mode): the sums, with iperf3 3.9's -n/-k quirk noted."""
    sent, received = _rate(doc, end, "sum_sent"), _rate(doc, end, "sum_received")
    if sent is None and received is None and isinstance(end.get("sum"), dict):
        sent = _rate(doc, end, "sum")
        if (test.get("protocol") or "").upper() == "UDP":  # a UDP sum is what the receiver reported
            received = sent
    if sent is None and received is None:
        raise InputError("no rate: neither end.sum_received nor end.sum_sent", file=doc.file,
                         key="end.sum_received.bits_per_second")
    bytes_mode = bool(test.get("bytes") or test.get("blocks"))
    notes = []
    if bytes_mode and not received and sent:
        notes.append("a -n/-k run with 0 bytes received (iperf3 3.9 writes 0 there): judged on the sender's "
                     "figure")
    return sent, received, notes, bytes_mode


def _stream_fields(doc, end, proto, both) -> dict:
    """RTT and peer window (means over the streams) and each stream's rate."""
    rtts, wnds, per = [], [], []
    bidir = isinstance(end.get("sum_sent_bidir_reverse"), dict)
    for i, s in enumerate(doc.list(end.get("streams", []), "end.streams")):
        if not isinstance(s, dict):
            continue
        sender = s.get("sender") if proto == "tcp" else s.get("udp")
        if bidir and isinstance(sender, dict) and sender.get("sender") is False:
            continue  # --bidir: a stream of the other direction
        side = s.get("receiver") if proto == "tcp" and isinstance(s.get("receiver"), dict) else sender
        if isinstance(side, dict) and "bits_per_second" in side:
            per.append(doc.number(side["bits_per_second"], f"end.streams[{i}].bits_per_second", minimum=0) / 8)
        if proto == "tcp" and isinstance(sender, dict):
            for key, out, scale in (("mean_rtt", rtts, 1e-6), ("max_snd_wnd", wnds, 1.0)):
                if key in sender:
                    v = doc.number(sender[key], f"end.streams[{i}].sender.{key}", minimum=0)
                    if v > 0:
                        out.append(v * scale)  # iperf3 reports the RTT in microseconds
    return {"rtt_s": sum(rtts) / len(rtts) if rtts else None,
            "max_peer_window_bytes": sum(wnds) / len(wnds) if wnds else None,
            "per_stream_bytes_per_s": tuple(per)}


def _start_fields(doc, start, test) -> dict:
    def opt(key):
        v = start.get(key)
        if v is None:
            return None
        v = doc.number(v, f"start.{key}", minimum=0)
        return v if v > 0 else None

    duration = test.get("duration")
    duration = doc.number(duration, "start.test_start.duration", minimum=0) if duration else None
    target = test.get("target_bitrate")
    target = doc.number(target, "start.test_start.target_bitrate", minimum=0) / 8.0 if target else None
    version, system = start.get("version"), start.get("system_info")
    return {"system_info": system if isinstance(system, str) else None,"mss_bytes": opt("tcp_mss") or opt("tcp_mss_default"), "requested_buffer_bytes": opt("sock_bufsize"),
            "sndbuf_bytes": opt("sndbuf_actual"), "rcvbuf_bytes": opt("rcvbuf_actual"),
            "duration_s": duration or None, "target_bytes_per_s": target or None,
            "version": version if isinstance(version, str) else None}


def _udp_fields(doc, end) -> dict:
    for key in ("sum_received", "sum"):
        node = end.get(key)
        if isinstance(node, dict) and "lost_percent" in node:
            jitter = node.get("jitter_ms")
            return {"lost_percent": doc.number(node["lost_percent"], f"end.{key}.lost_percent", minimum=0),
                    "jitter_s": doc.number(jitter, f"end.{key}.jitter_ms", minimum=0) / 1e3 if jitter is not None
                    else None,
                    "lost_packets": _count(doc, node, "lost_packets", f"end.{key}"),
                    "packets": _count(doc, node, "packets", f"end.{key}")}
    return {}


def udp_note(fields) -> str:
    """What a UDP receiver saw: jitter and lost datagrams."""
    jitter = fields.get("jitter_s")
    lost, total = fields.get("lost_packets") or 0, fields.get("packets") or 0
    share = f" ({lost / total:.2%})" if total else ""
    return (f"UDP: {lost} of {total} datagrams lost{share}" +
            (f", jitter {jitter * 1e3:.3g} ms" if jitter is not None else ""))


def _count(doc, node, key, where):
    v = node.get(key)
    return None if v is None else int(doc.number(v, f"{where}.{key}", minimum=0))


def _loss_fields(doc, data, end, mss) -> dict:
    """Retransmits, segments sent and loss events from the intervals."""
    retrans, sent_bytes = None, None
    node = end.get("sum_sent")
    if isinstance(node, dict):
        if "retransmits" in node:
            retrans = int(doc.number(node["retransmits"], "end.sum_sent.retransmits", minimum=0))
        if "bytes" in node:
            sent_bytes = doc.number(node["bytes"], "end.sum_sent.bytes", minimum=0)
    series: dict[int, list] = {}
    for i, interval in enumerate(doc.list(data.get("intervals") or [], "intervals")):
        streams = interval.get("streams") if isinstance(interval, dict) else None
        for j, s in enumerate(doc.list(streams or [], f"intervals[{i}].streams")):
            if isinstance(s, dict) and not s.get("omitted") and "retransmits" in s:
                r = doc.number(s["retransmits"], f"intervals[{i}].streams[{j}].retransmits", minimum=0)
                cwnd = s.get("snd_cwnd")
                cwnd = doc.number(cwnd, f"intervals[{i}].streams[{j}].snd_cwnd", minimum=0) if cwnd is not None \
                    else None
                series.setdefault(j, []).append((r, cwnd))
    events = sum(tcp.loss_events(v) for v in series.values()) if series else None
    segments = sent_bytes / mss if sent_bytes and mss else None
    return {"retransmits": retrans, "loss_events": events, "segments_sent": segments}


def load_iperf3(path) -> Iperf3Result:
    """Read and parse an iperf3 report (JSON or text); unreadable or invalid files raise InputError."""
    try:
        text = read_text(path, InputError)
    except InputError as exc:
        raise InputError(f"cannot read the iperf3 report: {exc.message.removeprefix('cannot read: ')}",
                         file=str(path)) from None
    return parse_iperf3(text, file=str(path))
