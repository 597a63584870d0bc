"""Hypotheses: what would explain the figure when an input is missing.

Without a window: the window that gives the figure at each plausible RTT (marked when it matches
a common default); without an RTT: the RTT that gives it with the window; without a loss rate:
the loss-event rate by the loss model in effect (its inverse; Mathis et al. for a model without
one) that gives it, where that lies in the model's validity range.
"""

from __future__ import annotations

from pinchpoint.diagnose.loss_models import LOSS_MODELS
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
    4194304.0: "4 MiB, the autotuning maximum of older Linux (tcp_rmem max)",
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
    has_window = _window(inputs)[0] is not None
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
        out += _loss_hypotheses(inputs, mss, measured, rtts)
    return out


def _loss_hypotheses(inputs, mss, measured, rtts) -> list[Hypothesis]:
    model = LOSS_MODELS[inputs.loss_model]
    n, out = inputs.streams, []
    if model.inverse is None:  # BBR: loss does not explain a rate
        return out
    hi = model.valid_loss[1]
    for rtt in rtts:
        p = model.inverse(measured, mss, rtt, n)
        ok = 0 < p <= hi and inputs.retransmits != 0
        why = f": outside the {model.name} model's range, not a plausible explanation" if p > hi else (
            ": but the sender retransmitted nothing, so loss does not explain it" if inputs.retransmits == 0
            else "")
        text = f"a loss-event rate of {p:.2g} at RTT {_time(rtt)} ({model.name}, MSS {mss:g} B)" + why
        out.append(Hypothesis("loss", text, rtt_s=rtt, loss=p, fits=ok))
    return out

