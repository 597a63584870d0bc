"""Direct evidence of which ceiling bound: Linux's TCP_INFO limit times, and the loss figures.

Linux (4.9 and later, ``tcp_info`` fields ``tcpi_busy_time``, ``tcpi_rwnd_limited``,
``tcpi_sndbuf_limited``; shown by ``ss -ti`` as ``busy:``, ``rwnd_limited:`` and
``sndbuf_limited:`` with their share of the busy time) records how long the sender had data to
send but was stopped by the receiver's advertised window or by its own send buffer.  What is
left of the busy time is congestion-window (network) limited for a loss-based sender (Reno,
CUBIC).  A share above one half is taken as the bound; the verdict names it and says when the
modelled binding ceiling disagrees.

BBR (Cardwell, Cheng, Gunn, Hassas Yeganeh and Jacobson, "BBR: Congestion-Based Congestion
Control", ACM Queue 14(5), 2016) paces at its estimate of the delivery rate and caps its cwnd
at about twice the estimated bandwidth-delay product.  Where a receiver window caps the delivery
rate, the pacer follows it and holds the sender about as often as the window does: with a 64 KiB
receive buffer behind a 2.6-16 ms round trip (veth, ACKs queued in a slow tbf) a BBR sender was
rwnd_limited for 27-51 % of its busy time (median 38 %, six runs) at about the window's rate, a
CUBIC sender for 84-92 % (ten runs).  So under BBR the rest of the busy time names
no limit (the model's binding ceiling stands); only a dominant rwnd or sndbuf share does.
"""

from __future__ import annotations

#: A limit holding the sender for more than this share of its busy time is what bound the run.
DOMINANT_SHARE = 0.5

#: TCP_INFO limit -> (what bound, the ceiling kinds it corresponds to).
TCP_INFO_LIMITS = {
    "rwnd_limited": ("the receiver's window", ("window",)),
    "sndbuf_limited": ("the sender's buffer", ("window",)),
    "cwnd_limited": ("the network (congestion window: the path, a shaper or loss)",
                     ("line", "framing", "shaper", "loss", "bottleneck", "target")),
}


#: Congestion controls that pace at their own estimate of the delivery rate (see above).
PACED = ("bbr",)


def paced(info: dict | None) -> bool:
    return str((info or {}).get("congestion_control") or "").lower() in PACED


def tcp_info_bound(info: dict | None) -> tuple[str, float] | None:
    """(limit name, share of busy time) that dominated, from sampled TCP_INFO; None if unknown
    (no limit times, or a paced sender held by neither its receiver's window nor its buffer).

    ``info`` holds ``rwnd_limited_share`` and ``sndbuf_limited_share`` (0..1 of busy time).
    """
    if not info:
        return None
    rwnd = info.get("rwnd_limited_share")
    sndbuf = info.get("sndbuf_limited_share")
    if rwnd is None and sndbuf is None:
        return None
    rwnd, sndbuf = rwnd or 0.0, sndbuf or 0.0
    if rwnd > DOMINANT_SHARE and rwnd >= sndbuf:
        return "rwnd_limited", rwnd
    if sndbuf > DOMINANT_SHARE:
        return "sndbuf_limited", sndbuf
    if paced(info):
        return None
    return "cwnd_limited", max(0.0, 1.0 - rwnd - sndbuf)


def tcp_info_notes(info: dict | None, binding_kind: str) -> tuple[str | None, list[str]]:
    """(what limited the run per TCP_INFO, notes) for a verdict."""
    bound = tcp_info_bound(info)
    if bound is None:
        if paced(info) and (info.get("rwnd_limited_share") is not None or info.get("sndbuf_limited_share") is not None):
            return None, [f"TCP_INFO sampled during the run: rwnd_limited {info.get('rwnd_limited_share') or 0:.0%}, "
                          f"sndbuf_limited {info.get('sndbuf_limited_share') or 0:.0%} of the busy time; BBR paces at "
                          "its estimate of the delivery rate, so the rest of the busy time (its pacer or its cwnd) "
                          "names no limit: the modelled binding ceiling stands"]
        return None, []
    name, share = bound
    what, kinds = TCP_INFO_LIMITS[name]
    text = f"{what} (TCP_INFO: {name.replace('_', ' ')} {share:.0%} of the busy time)"
    notes = [f"TCP_INFO sampled during the run: rwnd_limited {info.get('rwnd_limited_share') or 0:.0%}, "
             f"sndbuf_limited {info.get('sndbuf_limited_share') or 0:.0%} of the busy time: {what} bound it"]
    if binding_kind not in kinds:
        notes.append(f"TCP_INFO says {what} bound the run, while the lowest modelled ceiling is of kind "
                     f"{binding_kind!r}: an input of the model is off")
    return text, notes


def loss_figures_note(inputs) -> str | None:
    """Both loss figures and which one the loss model used."""
    if inputs.retransmit_rate is None and inputs.loss_events is None:
        return None
    parts = []
    if inputs.retransmit_rate is not None:
        parts.append(f"retransmit rate {inputs.retransmit_rate:.3g}")
    if inputs.loss_events is not None and inputs.segments_sent:
        parts.append(f"{inputs.loss_events} loss events in {inputs.segments_sent:.3g} segments "
                     f"({inputs.loss_events / inputs.segments_sent:.3g} per segment; intervals whose "
                     "retransmits rose and whose cwnd fell)")
    used = ("the loss-event rate" if inputs.loss is not None else
            "the retransmit rate, as an upper bound on the loss-event rate" if inputs.retransmit_rate is not None
            else "neither")
    return f"loss: {'; '.join(parts)}; the {inputs.loss_model} model used {used}"
