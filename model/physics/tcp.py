"""TCP and UDP throughput ceilings: window, buffers, loss (Mathis, PFTK, CUBIC), slow start.

Pure functions (layer 1): windows and segments in bytes, times in seconds, rates in bytes per
second (payload).  They use plain arithmetic (``sqrt`` via ``** 0.5``) so they work on floats
and numpy arrays alike.

References
----------
.. [1] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The macroscopic behavior of the TCP congestion
   avoidance algorithm", ACM CCR 27(3), 1997: X = (MSS / RTT) C / sqrt(p), C = sqrt(3/2) = 1.22
   (0.87 = sqrt(3/4) with delayed ACKs).  Valid for small p, no timeouts, Reno-style AIMD.
.. [2] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP throughput: a simple model and
   its empirical validation", SIGCOMM 1998 (PFTK); the form used by RFC 5348 (TFRC) section 3.1.
.. [3] RFC 9438, *CUBIC for fast and long-distance networks* (2023), section 5.1: average window
   (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4) segments, C = 0.4, beta = 0.7 -> 1.054.
.. [4] RFC 7323 (window scaling); Linux ``tcp(7)`` and ``socket(7)``: setsockopt(SO_RCVBUF, X)
   stores 2X (capped at 2 x net.core.rmem_max) and disables autotuning; the advertised window is
   buffer x (1 - 2^-tcp_adv_win_scale) (scale 1 since Linux 3.4, 2 before).
.. [5] RFC 5681 (slow start), RFC 6928 (initial window of 10 segments), RFC 3390 (before: 2-4).
.. [6] RFC 6349, *Framework for TCP throughput testing* (2011), section 3.3.1: the
   bandwidth-delay product and the window-limited rate W / RTT.
.. [7] N. Cardwell, Y. Cheng, C. S. Gunn, S. H. Yeganeh, V. Jacobson, "BBR: congestion-based
   congestion control", ACM Queue 14(5), 2016: BBR paces at the estimated bottleneck bandwidth,
   keeps at most cwnd_gain (2) x BDP in flight, and does not back off on random loss (its
   throughput holds to about 15 % loss in the paper's test).
"""

from __future__ import annotations

import math

#: Mathis constants [1].
C_MATHIS = (3 / 2) ** 0.5  # 1.2247: periodic loss, an ACK per segment
C_MATHIS_DELAYED_ACK = (3 / 4) ** 0.5  # 0.866
#: The loss rate below which Mathis' formula is a fair approximation (timeouts negligible) [1], [2].
MATHIS_VALID_MAX_LOSS = 0.01


def window_ceiling(window_bytes, rtt_s, streams=1):
    """Window-limited rate X <= N W / RTT [B/s] [6].

    Parameters
    ----------
    window_bytes : float
        Receive (or send) window W per stream [B].
    rtt_s : float
        Round-trip time [s].
    streams : float
        Parallel streams N [-].

    Returns
    -------
    float
        64 KiB at 2 ms: 262.1 Mbit/s; 4 MiB at 44.5 ms: 754.0 Mbit/s.
    """
    return streams * window_bytes / rtt_s


def bdp(rate_bytes_per_s, rtt_s):
    """Bandwidth-delay product: the window that fills a path [B] (10 Gbit/s x 44.5 ms = 55.6 MB)."""
    return rate_bytes_per_s * rtt_s


def window_from_buffer(buffer_bytes, adv_win_scale=1, requested=False):
    """The window Linux advertises for a socket buffer [B] [4].

    Parameters
    ----------
    buffer_bytes : float
        The buffer [B]: as the kernel holds it (net.ipv4.tcp_rmem max, getsockopt(SO_RCVBUF),
        iperf3's ``rcvbuf_actual``), or as requested from setsockopt (``requested=True``: iperf's
        ``-w``, iperf3's ``sock_bufsize``), which Linux doubles.
    adv_win_scale : int
        net.ipv4.tcp_adv_win_scale: the window is buffer x (1 - 2^-scale); 1 since Linux 3.4
        (half), 2 before (three quarters).
    requested : bool
        True when ``buffer_bytes`` is the value passed to setsockopt.

    Returns
    -------
    float
        Window [B]; a requested 64 KiB at scale 1 gives 64 KiB (doubled, then halved).
    """
    held = 2 * buffer_bytes if requested else buffer_bytes
    return held * (1 - 2.0 ** (-adv_win_scale))


def buffer_for_window(window_bytes, adv_win_scale=1):
    """The buffer (tcp_rmem max) that lets Linux advertise ``window_bytes`` [B] [4]."""
    return window_bytes / (1 - 2.0 ** (-adv_win_scale))


def mathis_ceiling(mss_bytes, rtt_s, loss, c=C_MATHIS, streams=1):
    """Loss-limited rate of Reno-style TCP, Mathis et al. [1]: X = N (MSS / RTT) C / sqrt(p) [B/s].

    Parameters
    ----------
    mss_bytes : float
        Maximum segment size (payload per segment) [B].
    rtt_s : float
        Round-trip time [s].
    loss : float
        Packet loss probability p, 0 < p < 1 [-].
    c : float
        1.22 (sqrt(3/2), an ACK per segment) or 0.87 (sqrt(3/4), delayed ACKs).
    streams : float
        Parallel streams N, each seeing the same loss [-].

    Returns
    -------
    float
        MSS 1460, 80 ms, p = 1e-5, C = 1.22: 56.3 Mbit/s (56.5 with C = sqrt(3/2)).
    """
    return streams * (mss_bytes / rtt_s) * c / loss ** 0.5


def mathis_loss_for_rate(rate_bytes_per_s, mss_bytes, rtt_s, c=C_MATHIS, streams=1):
    """The loss rate at which Mathis' ceiling equals ``rate`` [-] [1]: p = (C MSS N / (RTT X))^2.

    MSS 1448, 20 ms, 260 Mbit/s: 7.4e-6.  A rate or RTT of zero (or one so small that the
    square overflows) has no such loss rate: inf, as numpy would give, not an exception.
    """
    try:
        return (c * mss_bytes * streams / (rtt_s * rate_bytes_per_s)) ** 2
    except (ZeroDivisionError, OverflowError):  # beyond any loss rate
        return math.inf


def mathis_validity(loss, window_limited_segments=None, mss_bytes=None, rtt_s=None, c=C_MATHIS):
    """Whether Mathis' formula applies, with the reason when it does not [1], [2].

    It assumes small p (no timeouts: above about 1 % PFTK is the better model) and that the
    window, not the receiver's buffer, is what loss limits.

    Returns
    -------
    (bool, str)
    """
    if not 0 < loss < 1:
        return False, f"loss {loss!r} is not in (0, 1)"
    if loss > MATHIS_VALID_MAX_LOSS:
        return False, (f"loss {loss:.3g} is above {MATHIS_VALID_MAX_LOSS:g}: timeouts dominate, "
                       "use PFTK (Padhye et al. 1998)")
    if window_limited_segments is not None:
        w = c / loss ** 0.5  # the mean congestion window Mathis implies [segments]
        if w > window_limited_segments:
            return False, (f"the loss-limited window ({w:.0f} segments) exceeds the receive window "
                           f"({window_limited_segments:.0f} segments): the window binds first")
    return True, "small loss, no timeouts (Mathis et al. 1997)"


def pftk_ceiling(segment_bytes, rtt_s, loss, rto_s=None, b=1.0, wmax_bytes=None, original=False):
    """Loss-limited rate with timeouts, PFTK in the RFC 5348 form [2] [B/s].

    X = s / (R sqrt(2 b p / 3) + t_RTO (3 sqrt(3 b p / 8)) p (1 + 32 p^2)), capped by Wmax / R.

    Parameters
    ----------
    segment_bytes : float
        Segment size s [B].
    rtt_s : float
        Round-trip time R [s].
    loss : float
        Loss event rate p [-].
    rto_s : float, optional
        Retransmission timeout t_RTO [s]; RFC 5348 recommends 4 R.
    b : float
        Segments acknowledged per ACK (RFC 5348 uses 1).
    wmax_bytes : float, optional
        Receive window cap [B].
    original : bool
        Use PFTK's min(1, 3 sqrt(3bp/8)) as in the 1998 paper (RFC 5348 drops the min).

    A denominator that underflows to zero (an RTT and a loss rate near the smallest doubles) gives
    inf, as numpy would, not an exception.
    """
    rto = 4 * rtt_s if rto_s is None else rto_s
    timeout_term = 3 * (3 * b * loss / 8) ** 0.5
    if original:
        timeout_term = min(1.0, timeout_term)
    denominator = rtt_s * (2 * b * loss / 3) ** 0.5 + rto * timeout_term * loss * (1 + 32 * loss ** 2)
    x = segment_bytes / denominator if denominator else math.inf
    if wmax_bytes is not None:
        x = min(x, wmax_bytes / rtt_s)
    return x


def cubic_window_segments(rtt_s, loss, c=0.4, beta=0.7):
    """CUBIC's average congestion window under random loss, RFC 9438 section 5.1 [3] [segments].

    W = (C (3 + beta) / (4 (1 - beta)))^(1/4) RTT^(3/4) / p^(3/4) = 1.054 RTT^0.75 / p^0.75.
    """
    return (c * (3 + beta) / (4 * (1 - beta))) ** 0.25 * rtt_s ** 0.75 / loss ** 0.75


def cubic_ceiling(mss_bytes, rtt_s, loss, streams=1):
    """CUBIC's loss-limited rate [B/s] [3]: the larger of its cubic and Reno-friendly windows.

    In its TCP-friendly region CUBIC behaves at least as well as Reno, so the rate is
    max(CUBIC response, Mathis with C = sqrt(3/2)) x MSS / RTT.  At 4 ms and p = 1e-3 the
    Reno-friendly window (38.7 segments) is the larger; at 100 ms and p = 1e-6 the cubic one
    (3.33e3 against 1.22e3 segments).
    """
    w = cubic_window_segments(rtt_s, loss)
    reno = C_MATHIS / loss ** 0.5
    return streams * max(w, reno) * mss_bytes / rtt_s


CUBIC_VALID_MAX_LOSS = MATHIS_VALID_MAX_LOSS  # the same no-timeout assumption as Mathis [3]


def cubic_loss_for_rate(rate_bytes_per_s, mss_bytes, rtt_s, streams=1):
    """The loss rate at which CUBIC's ceiling equals ``rate`` [-] [3].

    Both windows fall with p, so the ceiling max(cubic, Reno) reaches ``rate`` at the larger of
    the two inverses: p_cubic = (K RTT^(3/4) / w)^(4/3) with w = X RTT / (N MSS) segments, and
    Mathis' p.  A rate or RTT of zero gives inf, not an exception.
    """
    try:
        w = rate_bytes_per_s * rtt_s / (streams * mss_bytes)
        k = cubic_window_segments(rtt_s, 1.0)  # K RTT^(3/4)
        p_cubic = (k / w) ** (4 / 3)
    except (ZeroDivisionError, OverflowError):
        return math.inf
    return max(p_cubic, mathis_loss_for_rate(rate_bytes_per_s, mss_bytes, rtt_s, streams=streams))


#: BBR v1 holds its rate under random loss up to about this rate [7].
BBR_VALID_MAX_LOSS = 0.15
#: BBR's cwnd_gain: in-flight data is capped at 2 BDP [7].
BBR_CWND_GAIN = 2.0


def bbr_ceiling(bottleneck_bytes_per_s, loss=0.0):
    """BBR's rate on a path whose bottleneck carries ``bottleneck`` [B/s] [7].

    BBR paces at the bottleneck bandwidth it measures and does not back off on random loss, so
    the delivered payload is the bottleneck's rate less what was lost: X = bottleneck x (1 - p).
    Its other bound is the window: in flight it keeps up to 2 BDP, so a receive window below
    the BDP binds first (:func:`window_ceiling`).
    """
    return bottleneck_bytes_per_s * (1.0 - loss)


def loss_events(intervals):
    """Count loss events in one stream's reporting intervals [-]: the congestion episodes.

    Mathis' and CUBIC's p is the rate of loss *events* (one window reduction each) [1], [3], not
    of retransmitted segments: a policer or a full queue drops many segments in one episode.
    An interval is an event when its retransmits are above zero and its congestion window is
    smaller than the interval before's (the sender cut its window).  Several episodes inside
    one interval count once, so this is a lower bound on the events.

    Parameters
    ----------
    intervals : iterable of (retransmits, cwnd_bytes)
        In time order; ``cwnd_bytes`` may be None where unknown (no event is counted there).

    Returns
    -------
    int
    """
    events, before = 0, None
    for retransmits, cwnd in intervals:
        if retransmits and cwnd is not None and before is not None and cwnd < before:
            events += 1
        before = cwnd if cwnd is not None else before
    return events


def slow_start_rtts(target_window_bytes, mss_bytes, initial_window_segments=10):
    """Round trips slow start needs to grow from IW to a window [-] [5]: log2(W / (IW MSS)).

    A real number (the last doubling may be partial): 10 Gbit/s x 100 ms with MSS 1460 and
    IW 10: log2(8562) = 13.1 round trips (1.3 s).
    """
    start = initial_window_segments * mss_bytes
    if target_window_bytes <= start:
        return 0.0
    return math.log2(target_window_bytes / start)


def slow_start_ramp_time(rate_bytes_per_s, rtt_s, mss_bytes, initial_window_segments=10):
    """Time for slow start to reach ``rate`` on a path of ``rtt_s`` [s] [5]: RTTs x RTT."""
    return slow_start_rtts(bdp(rate_bytes_per_s, rtt_s), mss_bytes, initial_window_segments) * rtt_s


def slow_start_trace(ceiling_bytes_per_s, rtt_s, mss_bytes, seconds, interval_s=1.0,
                     initial_window_segments=10):
    """Mean rate per reporting interval of an ideal slow start capped by a ceiling [B/s] [5].

    The window doubles every RTT from IW x MSS until W / RTT reaches the ceiling, with no loss
    and no receive-buffer limit: an upper bound on what a real ramp (autotuning, hystart,
    losses) shows in each interval, as iperf prints it.

    Returns
    -------
    list of float
        One mean rate per interval.
    """
    start = initial_window_segments * mss_bytes
    cap = ceiling_bytes_per_s * rtt_s
    out = []
    for k in range(int(math.ceil(seconds / interval_s - 1e-9))):
        a, b = k * interval_s, min((k + 1) * interval_s, seconds)
        t, total = a, 0.0
        while t < b - 1e-12:
            n = int(math.floor(t / rtt_s + 1e-9))
            nxt = min((n + 1) * rtt_s, b)
            w = min(start * 2.0 ** min(n, 200), cap)
            total += w / rtt_s * (nxt - t)
            t = nxt
        out.append(total / (b - a))
    return out


def udp_delivered_share(sent_bytes_per_s, received_bytes_per_s):
    """Share of a UDP sender's rate that arrived [-] (a Power Mac G5 with a 10 GbE NIC: 4.1 / 7.8 = 0.53)."""
    return received_bytes_per_s / sent_bytes_per_s
