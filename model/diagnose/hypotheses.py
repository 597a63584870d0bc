"""Hypotheses: what would explain the figure when an input is missing.

Without a window: the window that gives the figure at each plausible RTT (marked when it matches
a common default); without an RTT: the RTT that gives it with the window; without a loss rate:
the rate by Mathis et al. that gives it, where that lies in Mathis' validity range.
"""

from __future__ import annotations

from pinchpoint.physics import tcp
from pinchpoint.physics.units import format_quantity
from pinchpoint.diagnose.resolve import window as _window
from pinchpoint.diagnose.results import Hypothesis
from pinchpoint.diagnose.wording import time as _time

#: RTTs tried when none is given [s].
PLAUSIBLE_RTTS = (0.001, 0.002, 0.005, 0.010, 0.020, 0.050, 0.100, 0.200)
#: Windows that commonly show up as limits, for matching hypotheses [B].
KNOWN_WINDOWS = {
    65535.0: "64 KiB, the largest window without window scaling (RFC 7323)",
    65536.0: "64 KiB: SO_RCVBUF 64 KiB at tcp_adv_win_scale 1, or no window scaling",
    87380.0: "85.3 KB, Linux's default net.ipv4.tcp_rmem (87380 B; iperf's 'default' window)",
    131072.0: "128 KiB, Linux's net.ipv4.tcp_rmem default since 4.20",
    4194304.0: "4 MiB, the autotuning maximum of older Linux (tcp_rmem max; seed 002)",
    6291456.0: "6 MiB, Linux's default net.ipv4.tcp_rmem max",
}


def _known_window(w: float) -> str | None:
    for known, text in KNOWN_WINDOWS.items():
        if abs(w / known - 1) <= 0.03:
            return text
    return None


def hypotheses(inputs, mss, measured) -> list[Hypothesis]:
    """The hypotheses for a TCP figure (none for UDP); ``mss`` is the payload per segment [B]."""
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

