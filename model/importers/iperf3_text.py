"""iperf3 3.x plain-text output (what ``iperf3 -c HOST`` prints) -> the fields of an iperf3 result.

The lines read (iperf3's ``iperf_api.c`` report formats, unchanged in substance from 3.0 to 3.x;
before 3.7 the rate column is headed "Bandwidth", since then "Bitrate"):

* the summary after the ``- - -`` separator: one row per stream and side,
  ``[  5]   0.00-10.00  sec   129 MBytes   108 Mbits/sec    0             sender`` (TCP: retransmits
  on the sender's row) or ``... 0.082 ms  0/191 (0%)  receiver`` (UDP: jitter and lost/total
  datagrams), ``[SUM]`` rows for ``-P``, ``[  5][TX-C]`` rows for ``--bidir``;
* the interval rows before it: ``[  5]   1.00-2.00 sec 11.2 MBytes 94.3 Mbits/sec 0 4.04 MBytes``
  (retransmits and congestion window, from which loss events are counted), ``(omitted)`` rows
  skipped;
* ``Reverse mode, remote host ... is sending`` (``-R``) and ``iperf3: error - ...``.

Transfers are in binary multiples (KBytes = 1024 B), rates in decimal ones (Mbits/sec = 1e6
bit/s), as iperf3's ``unit_snprintf`` prints them.  The text carries no MSS: segments are
counted at 1448 B (MTU 1500 with TCP timestamps), which the notes say.
"""

from __future__ import annotations

import re

from pinchpoint.errors import InputError
from pinchpoint.physics import tcp

_BYTES = {"": 1.0, "K": 2.0 ** 10, "M": 2.0 ** 20, "G": 2.0 ** 30, "T": 2.0 ** 40}
_BITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_ROW = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[(?P<role>[A-Z]{2}-[CS])\])?\s+(?P<t0>[\d.]+)-\s*(?P<t1>[\d.]+)\s+sec\s+"
    r"(?P<xfer>[\d.]+)\s+(?P<xu>[KMGT]?)Bytes\s+(?P<rate>[\d.]+)\s+(?P<ru>[KMGT]?)bits/sec\s*(?P<rest>.*?)\s*$")
_UDP_REST = re.compile(r"(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>\d+)/\s*(?P<total>\d+)\s+\((?P<pct>[-\d.e+]+|nan)%\)")
_TCP_INTERVAL_REST = re.compile(r"(?P<retr>\d+)\s+(?P<cwnd>[\d.]+)\s+(?P<cu>[KMGT]?)Bytes")
_ASSUMED_MSS = 1448.0
_TEXT_MARKS = re.compile(r"^(?:Connecting to host|\[\s*(?:\d+|SUM)\]|iperf Done|iperf3: error|-{5,})", re.M)


def looks_like_text(text: str) -> bool:
    """Whether ``text`` is iperf3's plain-text output rather than JSON."""
    head = text[:65536]
    return not head.lstrip().startswith("{") and _TEXT_MARKS.search(head) is not None


# long: one regular expression per field of iperf3's text output, read in the order iperf3 prints them
def parse_iperf3_text(text: str, *, file: str | None = None) -> dict:
    """The fields of :class:`pinchpoint.importers.iperf3.Iperf3Result` from iperf3's text output."""
    error = re.search(r"^iperf3: error - (.*)$", text, re.M)
    if error:
        raise InputError(f"iperf3 reported an error: {error.group(1).strip()}", file=file, key="iperf3: error")
    forward, backward, intervals = _rows(text, file)
    sent, received, rows = _sums(forward)
    if sent is None and received is None:
        raise InputError("no sender or receiver row in the summary", file=file, key="summary")
    udp = any(_UDP_REST.search(m["rest"]) for m in forward)
    ids = {m["id"] for m in forward if m["id"] != "SUM"}
    out = {"file": file, "protocol": "udp" if udp else "tcp", "streams": max(1, len(ids)),
           "sent_bytes_per_s": sent, "received_bytes_per_s": received, "text": True,
           "reverse": "Reverse mode" in text, "bidir": bool(backward)}
    side_rows = [m for m in forward if m["id"] != "SUM" and m["rest"].endswith("receiver")] or \
        [m for m in forward if m["id"] != "SUM" and m["rest"].endswith("sender")]
    out["per_stream_bytes_per_s"] = tuple(_rate(m) for m in side_rows)
    sender_row = rows.get("sender")
    if sender_row is not None:
        out["duration_s"] = float(sender_row["t1"]) or None
    notes = []
    if udp:
        out.update(_udp(rows.get("receiver") or rows.get("sender")))
        if "packets" in out:
            lost, total = out["lost_packets"], out["packets"]
            notes.append(f"UDP: {lost} of {total} datagrams lost" + (f" ({lost / total:.2%})" if total else "")
                         + f", jitter {out['jitter_s'] * 1e3:.3g} ms")
    else:
        out.update(_tcp(rows, intervals, notes))
    if backward:
        b_sent, b_received, _ = _sums(backward)
        out["reverse_sent_bytes_per_s"], out["reverse_received_bytes_per_s"] = b_sent, b_received
        notes.append("--bidir: the figure judged is the client-to-server direction")
    out["notes"] = tuple(notes)
    return out


def _rows(text, file):
    """(summary rows of this direction, of the other (--bidir), interval rows)."""
    lines = text.splitlines()
    cut = next((i for i, line in enumerate(lines) if line.startswith("- - -")), None)
    if cut is None:
        raise InputError("no summary (the '- - -' line and the sender/receiver rows): is this the output of a "
                         "finished iperf3 test?", file=file, key="summary")
    summary = [m for m in map(_ROW.match, lines[cut + 1:]) if m]
    intervals = [m for m in map(_ROW.match, lines[:cut]) if m]
    forward = [m for m in summary if m["role"] in (None, "TX-C", "RX-S")]
    backward = [m for m in summary if m["role"] in ("RX-C", "TX-S")]
    return forward, backward, intervals


def _rate(m) -> float:
    return float(m["rate"]) * _BITS[m["ru"]] / 8.0


def _sums(rows):
    """(sent, received, {side: the row used}): the [SUM] rows where there are streams, else the one stream's."""
    picked = {}
    for side in ("sender", "receiver"):
        mine = [m for m in rows if re.search(rf"\b{side}$", m["rest"])]
        total = [m for m in mine if m["id"] == "SUM"]
        if total or len(mine) == 1:
            picked[side] = (total or mine)[0]
    return (_rate(picked["sender"]) if "sender" in picked else None,
            _rate(picked["receiver"]) if "receiver" in picked else None, picked)


def _udp(row) -> dict:
    m = _UDP_REST.search(row["rest"]) if row is not None else None
    if m is None:
        return {}
    pct = float(m["pct"]) if m["pct"] != "nan" else None
    return {"jitter_s": float(m["jitter"]) / 1e3, "lost_packets": int(m["lost"]), "packets": int(m["total"]),
            "lost_percent": pct}


def _tcp(rows, intervals, notes) -> dict:
    out = {}
    sender = rows.get("sender")
    if sender is not None:
        retr = re.match(r"(\d+)", sender["rest"])
        out["retransmits"] = int(retr.group(1)) if retr else None
        sent_bytes = float(sender["xfer"]) * _BYTES[sender["xu"]]
        out["segments_sent"] = sent_bytes / _ASSUMED_MSS
        notes.append(f"text output: no MSS, segments counted at {_ASSUMED_MSS:g} B")
    series: dict[str, list] = {}
    for m in intervals:
        if m["id"] == "SUM" or "omitted" in m["rest"] or m["role"] not in (None, "TX-C"):
            continue
        t = _TCP_INTERVAL_REST.match(m["rest"])
        if t:
            series.setdefault(m["id"], []).append((int(t["retr"]), float(t["cwnd"]) * _BYTES[t["cu"]]))
    if series:
        out["loss_events"] = sum(tcp.loss_events(v) for v in series.values())
    return out
