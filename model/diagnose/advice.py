"""Advice prose: causes, advice with concrete values, and which inputs must be wrong.

Follows the legacy NDT (web100) heuristics: one cause per binding ceiling, with the setting to
change and the value to change it to (sysctl names, setpci, ethtool), from the cases of
AARNet's 10 GbE tests, a Power Mac G5 with a 10 GbE NIC and Acer Altos servers.
"""

from __future__ import annotations

from pinchpoint.physics import framing, linkkinds, tcp
from pinchpoint.diagnose.resolve import window as _window
from pinchpoint.diagnose.wording import at_least as _at_least
from pinchpoint.diagnose.wording import net as _net
from pinchpoint.diagnose.wording import size as _size
from pinchpoint.diagnose.wording import time as _time

#: What limits the figure, by the binding ceiling's kind (other kinds: "hardware (<kind>)").
LIMITED_BY = {"target": "the sender's rate limit (iperf3 -b)", "line": "the line",
              "framing": "the line (protocol overhead)", "window": "the TCP window",
              "loss": "packet loss", "cpu": "the host CPU",
              "bottleneck": "the bottleneck rate (BBR: not the loss rate)",
              "shaper": "the traffic shaper (tc)"}

#: Congestion controls to suggest against random loss, by the model in effect: never the one
#: already running.
_LESS_LOSS_SENSITIVE = {"reno": "CUBIC (Linux's default since 2.6.19) or BBR", "mathis": "CUBIC (Linux's default "
                        "since 2.6.19) or BBR", "pftk": "CUBIC or BBR", "cubic": "BBR"}


def wrong_inputs(inputs, exceeded, measured, mtu, profile) -> list[str]:
    """For each bound the figure exceeds, the inputs that must be wrong and by how much.

    The TCP bounds scale exactly: W / RTT is 1 / RTT and linear in W; Mathis' bound is 1 / RTT
    and 1 / sqrt(p) (PFTK, used above 1 % loss, nearly so).
    """
    out = []
    n = inputs.streams
    for x in exceeded:
        over = measured / x.ceiling_bytes_per_s
        share = f"{over:.0%}" if over < 1000 else f"{over:.3g}x"
        head = f"the figure {_net(measured)} is {share} of the {x.name} bound ({_net(x.ceiling_bytes_per_s)})"
        if x.kind == "loss":
            p = inputs.loss if inputs.loss is not None else inputs.retransmit_rate
            out.append(f"{head}: the loss rate must be at most {p / over / over:.2g} (given "
                       f"{p:g}), or the RTT at most {_time(inputs.rtt_s / over)} (given "
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


def advise(inputs, verdict, binding, limits, measured, efficiency, line, mtu, profile, throttle, cpu_nominal,
            hyps):
    """(causes, advice) for a verdict that is not above-ceiling."""
    causes = [_verdict_cause(verdict, binding, efficiency)]
    advice = _window_advice(inputs, binding, limits, line) if binding.kind == "window" else \
        _kind_advice(inputs, verdict, binding, line, mtu, profile)
    if throttle:
        advice.append(f"{throttle}: turn power saving off (cpuspeed service, or cpupower frequency-set -g "
                      f"performance), which raises the CPU ceiling to {_net(cpu_nominal)}")
    advice += _mmrbc_advice(limits, profile)
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


def _verdict_cause(verdict, binding, efficiency) -> str:
    if verdict == "at-ceiling":
        return f"the figure is {efficiency:.0%} of the {binding.name} ceiling ({_net(binding.ceiling_bytes_per_s)})"
    if verdict == "below-ceiling":
        return (f"the figure is {efficiency:.0%} of the lowest ceiling ({binding.name}, "
                f"{_net(binding.ceiling_bytes_per_s)}): close, but something else costs the rest")
    return (f"the figure is only {efficiency:.0%} of the lowest modelled ceiling ({binding.name}, "
            f"{_net(binding.ceiling_bytes_per_s)}): no modelled ceiling explains it")


def _window_advice(inputs, binding, limits, line) -> list[str]:
    """The window binds: whether a larger buffer helps, and how large (the bandwidth-delay product)."""
    n = inputs.streams
    others = [x for x in limits if x.kind not in ("window", "loss", "line")]
    path = min(others, key=lambda x: x.ceiling_bytes_per_s) if others else None
    window, _ = _window(inputs)
    target = line if line is not None else (path.ceiling_bytes_per_s if path else None)
    if target is None or inputs.rtt_s is None:
        return []
    need = tcp.bdp(target, inputs.rtt_s) / n
    if window is not None and need <= window:
        return [f"the window ({_size(window)}{' per stream' if n > 1 else ''}) already covers the "
                f"bandwidth-delay product of {_net(target)} at {_time(inputs.rtt_s)} ({_size(need)}): "
                "a larger tcp_rmem will not help"]
    buf = tcp.buffer_for_window(need, inputs.adv_win_scale)
    out = [f"raise net.ipv4.tcp_rmem max to at least {_at_least(need)} for {_net(target)} at "
           f"{_time(inputs.rtt_s)}{' per stream' if n > 1 else ''} (the bandwidth-delay product); "
           f"Linux advertises {1 - 2.0 ** -inputs.adv_win_scale:g} of the buffer "
           f"(tcp_adv_win_scale {inputs.adv_win_scale}), so set it to {_at_least(buf, 3)} to be sure, "
           f"and net.ipv4.tcp_wmem max on the sender likewise (net.core.rmem_max/wmem_max for "
           f"applications that set SO_RCVBUF)"]
    if path is not None:
        out.append(f"with the window out of the way the next ceiling is {path.name} at "
                   f"{_net(path.ceiling_bytes_per_s)}")
    return out


def _loss_binding_advice(inputs, binding) -> str:
    p = inputs.loss if inputs.loss is not None else inputs.retransmit_rate
    other = _LESS_LOSS_SENSITIVE.get(inputs.loss_model)
    switch = (f" or use a congestion control less sensitive to random loss than {inputs.loss_model} ({other})"
              if other else "")
    return (f"packet loss p = {p:g} caps TCP at {_net(binding.ceiling_bytes_per_s)}: find the loss (ip -s link "
            f"and ethtool -S for errors and drops, nstat TcpRetransSegs, a lossy hop with mtr){switch}")


def _framing_advice(inputs, line, mtu) -> str:
    if inputs.medium == "ethernet" and mtu < 9000 and _jumbo_capable(line):
        jumbo = framing.ethernet_goodput(line, 9000.0, inputs.protocol, inputs.ip_version, inputs.timestamps,
                                         inputs.vlan)
        return (f"this is the line's goodput at MTU {mtu:g}: only jumbo frames (MTU 9000 end to end: "
                f"{_net(jumbo)}) or a faster line raise it")
    return "this is the line's goodput: only a faster line raises it"


def _kind_advice(inputs, verdict, binding, line, mtu, profile) -> list[str]:
    """What to do about the binding ceiling, by its kind (the window has its own)."""
    kind = binding.kind
    fixed = {
        "shaper": f"a traffic shaper on the interface allows {_net(binding.raw_ceiling_bytes_per_s or 0.0)}: this "
                  "is the rate it was configured for (tc qdisc show); raise or remove it to go faster",
        "bottleneck": "BBR paces at the bottleneck rate: the line (or a policer on it) is the bound, and the window "
                      "must cover 2 x the bandwidth-delay product for BBR to fill it",
        "target": "the sender was rate-limited: rerun without the limit (iperf3 -b 0, or a rate above the line's) "
                  "to measure the path",
        "cpu": "the host CPU binds: spread the work over more cores (parallel streams, RSS and IRQ affinity), use "
               + ("jumbo frames (fewer packets) and " if _jumbo_capable(line) else "")
               + "offloads (TSO, GRO, checksum)",
    }
    if kind == "loss":
        return [_loss_binding_advice(inputs, binding)]
    if kind in fixed:
        return [fixed[kind]]
    if kind == "framing" and verdict == "at-ceiling":
        return [_framing_advice(inputs, line, mtu)]
    if kind in ("framing", "line") and verdict == "below-ceiling":
        return [f"the line could carry {_net(binding.ceiling_bytes_per_s)}: look at the hosts (CPU per core, "
                "NIC driver and its buffers: ethtool -g ring sizes, interrupt coalescing; the driver's code and "
                "the number of buffers it allocates) and at TCP (give --rtt with --window or --loss to check "
                "them)"]
    if kind in linkkinds.KINDS and verdict != "far-below-all":
        # a link binds: what its kind advises (the registry entry's bound_advice)
        bound = linkkinds.KINDS[kind].bound_advice
        said = bound(_link_values(profile, binding), binding.raw_ceiling_bytes_per_s, _net) if bound else None
        return [said] if said else []
    return []


def _mmrbc_advice(limits, profile) -> list[str]:
    """MMRBC: whenever the path crosses a PCI-X link with a burst below 4096 bytes."""
    if profile is None:
        return []
    out, advised = [], set()
    for x in limits:
        if x.kind == "pci-x" and x.link and x.raw_ceiling_bytes_per_s is not None and x.link not in advised \
                and profile.links[x.link].values()["burst"] < 4096:
            advised.add(x.link)
            better = profile.with_link_param(x.link, "burst", 4096.0).links[x.link]
            ratio = better.effective_capacity_bytes_per_s / profile.links[x.link].effective_capacity_bytes_per_s
            out.append(f"set MMRBC to 4096 on the NIC (e.g. setpci -d 8086:1048 e6.b=2e for the Intel "
                       f"PRO/10GbE; Intel note CS-025829): the effective PCI-X ceiling rises "
                       f"from {_net(x.ceiling_bytes_per_s)} to {_net(x.ceiling_bytes_per_s * ratio)}")
    return out


#: Jumbo frames are a Gigabit-Ethernet-and-faster extension: IEEE 802.3 caps the payload at
#: 1500 B, and 10 and 100 Mbit/s NICs and switches do not carry larger frames (Alteon's 1998
#: jumbo frames proposal was for Gigabit Ethernet; RFC 4638 needs the path to accept them).
JUMBO_MIN_LINE = 1e9 / 8


def _jumbo_capable(line) -> bool:
    return line is None or line >= JUMBO_MIN_LINE * (1 - 1e-9)


def _link_values(profile, limit) -> dict[str, float]:
    """The parameter values of the link behind a limit ({} where there is no profile)."""
    if profile is None or limit.link is None:
        return {}
    return profile.links[limit.link].values()


def _loss_advice(inputs, hyps, measured) -> str | None:
    if inputs.protocol != "tcp" or inputs.loss is not None or inputs.retransmit_rate is not None \
            or inputs.rtt_s is None:
        return None
    h = [x for x in hyps if x.kind == "loss" and x.fits]
    if not h:
        return None
    return (f"check for packet loss (iperf3's retransmits, nstat TcpRetransSegs, ip -s link, ethtool -S): "
            f"a loss-event rate of {h[0].loss:.2g} at {_time(inputs.rtt_s)} would explain {_net(measured)} "
            f"({inputs.loss_model}); give it with --loss-events; and ask whether the circuit is policed or shaped "
            "below its line rate")


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
