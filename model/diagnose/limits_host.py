"""Limit providers on the host side: every link of a profile flow's path, PCI-X split reads, the CPU.

The host path gives one ceiling per link of the flow's route, the very figures ``ceilings``
prints for the flow (:mod:`pinchpoint.solve.ceilings`): the link's raw capacity and its effective
capacity for the kind of transfer the flow makes there (a PCIe write or read), each divided by
the times a payload byte crosses it.  The packet headers that cross a host bus beside the payload
are not charged here (the framing limit counts them on the wire).  The CPU gives cycles per byte
and per packet at the current clock and the cores in use (:mod:`pinchpoint.physics.hostcpu`).
"""

from __future__ import annotations

from pinchpoint.physics import hostcpu
from pinchpoint.physics.units import format_quantity, format_rate
from pinchpoint.diagnose.resolve import flow_ceiling as _flow_ceiling
from pinchpoint.diagnose.results import Limit
from pinchpoint.diagnose.wording import net as _net
from pinchpoint.diagnose.wording import time as _time
from pinchpoint.graph.resource_ids import link_of

HOST_KINDS = ("pci", "pci-x", "pcie", "hypertransport", "fsb", "memory", "disk", "link")


def host_path_limits(run) -> list[Limit]:
    """One limit per link of the profile flow's path (none without a profile)."""
    if run.profile is None:
        return []
    return _host_limits(run.inputs, run.profile)


def cpu_limit(run) -> list[Limit]:
    """The host CPU's ceiling; records a throttled clock and the ceiling at the nominal clock on ``run``."""
    cpu, run.throttle, run.cpu_nominal = _cpu_limit(run.inputs, run.profile, run.payload)
    return [] if cpu is None else [cpu]


def _host_limits(inputs, profile) -> list[Limit]:
    flow = inputs.flow
    c = _flow_ceiling(profile, flow)
    usage: dict[str, float] = {}
    reads = {link_of(r) for r in c.read_resources}
    for rid, u in c.usage.items():
        lid = link_of(rid)
        usage[lid] = max(usage.get(lid, 0.0), u)
    out = [_link_limit(profile.links[lid], u, flow, lid in reads) for lid, u in usage.items()
           if not profile.links[lid].definition.network and u > 0]
    out += _split_read_limits(inputs, profile, usage)
    flow_eff = c.effective_ceiling_bytes_per_s or c.ceiling_bytes_per_s
    if out and flow_eff < min(x.ceiling_bytes_per_s for x in out) * (1 - 1e-6):
        lid = c.binding[0]
        out.append(Limit(f"host path {flow}", profile.links[lid].kind, flow_eff,
                         f"{c.formula} (effective capacities) = {_net(flow_eff)}", f"binding: {', '.join(c.binding)}",
                         raw_ceiling_bytes_per_s=c.ceiling_bytes_per_s, link=lid))
    return out


def _link_limit(link, u: float, flow: str, read: bool) -> Limit:
    """One link of the flow's route: raw and effective capacity / crossings, as ``ceilings`` has them."""
    op = "read" if read else "write"
    raw_cap = link.capacity_bytes_per_s
    eff = link.effective_for(op) / raw_cap
    value, raw = raw_cap * eff / u, raw_cap / u
    parts = [f"{link.formula} = {format_rate(raw_cap, 'memory')}"]
    d = link.definition
    if d.efficiency is not None:
        text = d.read_efficiency_formula if read and d.read_efficiency_formula else d.efficiency_formula
        vals = ", ".join(f"{p.name} = {link.params[p.name].text}" for p in d.params
                         if p.name in link.params and p.name in text)
        parts.append(f"x {text} ({vals}) = x {eff:.4f}{' (reads)' if read else ''}")
    if abs(u - 1) > 1e-9:
        parts.append(f"/ {u:g} passes")
    parts.append(f"= {_net(value)}")
    note = f"raw {_net(raw)}, effective {_net(value)}; flow {flow}: {link.description or ' <-> '.join(link.between)}"
    if link.kind == "pci-x":
        note += f"; MMRBC (burst) {link.params['burst'].text}"
    return Limit(f"{link.id} ({link.kind}) on flow {flow}", link.kind, value, " ".join(parts), note,
                 raw_ceiling_bytes_per_s=raw, link=link.id)


def _split_read_limits(inputs, profile, usage) -> list[Limit]:
    """PCI-X DMA reads (memory -> NIC) bounded by outstanding split reads and memory latency.

    X <= N x MMRBC / (T_latency + MMRBC / B_peak) (docs/formulas.md section 2; :func:`protocols.split_read_bound`).
    Needs the number of outstanding reads and the latency (given, or the profile memory's ``latency``).
    """
    from pinchpoint.physics import protocols

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
        bound = protocols.split_read_bound(n, burst, latency, link.capacity_bytes_per_s)
        value = bound / u
        formula = (f"N x MMRBC / (latency + MMRBC / peak) = {n} x {burst:g} B / ({_time(latency)} + {burst:g} B / "
                   f"{format_rate(link.capacity_bytes_per_s, 'memory')}) = {_net(value)}")
        out.append(Limit(f"{lid} split reads ({n} outstanding, MMRBC {burst:g} B)", "pci-x", value, formula,
                         "DMA reads from memory: each outstanding read returns MMRBC bytes a latency later "
                         "(PCI-X 2.0 addendum; Intel CS-025829)", link=lid))
    return out


def _cpu_costs(inputs, cpus) -> tuple[float | None, float | None, int, float, float, bool]:
    """(nominal clock, current clock, cores, cycles per byte, cycles per packet, rule of thumb?)."""
    first = cpus[0] if cpus else None
    nominal = first.get("clock") if first else None
    current = inputs.clock_hz or (first.get("current_clock") if first else None) or nominal
    total_cores = inputs.cores or (int(sum(c.get("cores", 1) for c in cpus)) if cpus else 1)
    cpb = first.get("cycles_per_byte") if first else None
    cpp = first.get("cycles_per_packet") if first else None
    rule = cpb is None and cpp is None
    if rule:
        cpb, cpp = 0.0, hostcpu.RULE_OF_THUMB_CYCLES_PER_PACKET
    return nominal, current, total_cores, cpb or 0.0, cpp or 0.0, rule


def _cpu_limit(inputs, profile, payload) -> tuple[Limit | None, str | None, float | None]:
    """The CPU ceiling; returns (limit, throttling note, ceiling at the nominal clock)."""
    cpus = profile.cpus() if profile is not None else []
    if not cpus and inputs.clock_hz is None:
        return None, None, None
    nominal, current, total_cores, cpb, cpp, rule = _cpu_costs(inputs, cpus)
    if current is None:  # a detected CPU whose clock is unknown: no ceiling to compute
        return None, None, None
    used = hostcpu.cores_in_use(inputs.streams, total_cores)

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
