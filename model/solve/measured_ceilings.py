"""Measured ceilings beside theoretical ones, and hardware- vs software-bound verdicts.

A profile gives each link a theoretical capacity (width x clock ...); a signature measured what
the machine really sustains.  :func:`measured_ceilings` puts the two side by side where a
signature figure stands for a link or a flow:

- memory links (kind "memory", or any link with a memory component at one end): the sustained
  memory bandwidth of the signature by the one policy of :mod:`pinchpoint.prediction.rates`: the
  highest of STREAM (McCalpin 1995), MAPS stride-1, likwid-bench and the published G5
  Memperf/Xbench memory figures, each at its largest working set (the DRAM plateau) and most
  threads, or, for a signature with none of those (the POWER4 tables of Chen and Ebbers, "PMaC
  Benchmarking on Three POWER4 Platforms", IBM Redpaper), PEAK DOT at its longest loop
  x 8 B/flop (16 B per 2 flop);
- the "mem-copy" flow (payload copied by a CPU, two passes through memory): STREAM copy or MAPS
  copy at the DRAM plateau, halved, since both count the read and the written byte while the
  flow ceiling counts the payload once;
- loopback TCP (netstream, payload bytes per second): a host ceiling with no theoretical
  counterpart in the graph: the CPU and the kernel's copies bound it.

Efficiency = measured / theoretical.

:func:`classify` answers the question Visser and Hilster answered by hand for the G5 with a 10 GbE
NIC ("G5 Performance Report", University of Amsterdam, 2004): TCP reached 3.5 Gbit/s and UDP
7.8 Gbit/s through a PCI-X bus of 8.5 Gbit/s; UDP is at the bus, TCP far below every ceiling ("software is the limit").  It gives the verdicts `diagnose` gives,
against the same figures (:mod:`pinchpoint.solve.verdicts`): the binding ceiling is the lowest,
efficiency = measured / binding; ``at-ceiling`` from 0.9, ``below-ceiling`` from 0.5,
``far-below-all`` below; a figure more than 5 % above a ceiling cannot have been measured under
it: ``above-ceiling``, naming the ceiling whose inputs (the profile's link values, the flow, or
the figure itself) must be wrong.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.errors import InputError
from pinchpoint.inputs.signature import Signature
from pinchpoint.prediction.rates import memory_bandwidth
from pinchpoint.solve.verdicts import ABOVE_CEILING, AT_CEILING, legend, verdict_for

#: From this fraction of the binding ceiling a figure is at it (the name it had here).
NEAR = AT_CEILING
#: Above this fraction of a ceiling a figure contradicts it (rounding stays within a few per cent).
ABOVE = ABOVE_CEILING

@dataclass(frozen=True)
class MeasuredCeiling:
    """A measured figure beside the theoretical ceiling of the same link, flow or resource."""

    name: str
    kind: str  # "link", "flow" or "host"
    measured_bytes_per_s: float
    theoretical_bytes_per_s: float | None
    source: str
    network: bool = False

    @property
    def efficiency(self) -> float | None:
        """measured / theoretical (None without a theoretical ceiling)."""
        if not self.theoretical_bytes_per_s:
            return None
        return self.measured_bytes_per_s / self.theoretical_bytes_per_s

    def to_dict(self) -> dict:
        return {"name": self.name, "kind": self.kind,
                "measured_bytes_per_s": self.measured_bytes_per_s,
                "theoretical_bytes_per_s": self.theoretical_bytes_per_s,
                "efficiency": self.efficiency, "source": self.source, "network": self.network}


def _value(result, stat: str) -> float:
    return result.max if stat == "best" else result.median


def _describe(figure) -> str:
    """How a figure is named in a measured ceiling's source: the kernel and the point's params."""
    if figure.peak_loop is not None:
        return f"peak {figure.peak_loop} loop_length={figure.point['loop_length']} x 8 B/flop"
    params = figure.point.params
    if figure.kernel in ("maps", "likwid_bench"):
        return (f"{figure.kernel} " + " ".join(f"{k}={v}" for k, v in params.items() if k in
                                               ("op", "pattern", "threads", "working_set_bytes"))).strip()
    return f"{figure.kernel} " + " ".join(f"{k}={v}" for k, v in params.items())


def memory_figure(sig: Signature, stat: str = "median"):
    """The signature's sustained memory bandwidth by :func:`pinchpoint.prediction.rates.memory_bandwidth`:
    (B/s, source) or None."""
    got = memory_bandwidth(sig, stat)
    return None if got is None else (got.bytes_per_s, _describe(got))


def copy_figure(sig: Signature, stat: str = "median"):
    """Payload copy rate [B/s]: the signature's copy bandwidth (STREAM or MAPS copy, by
    :func:`pinchpoint.prediction.rates.memory_bandwidth`) halved, since both count the read and
    the written byte: (B/s, source) or None."""
    got = memory_bandwidth(sig, stat, op="copy")
    if got is None:
        return None
    if got.kernel == "stream":
        return got.bytes_per_s / 2, "stream copy / 2"
    return got.bytes_per_s / 2, _describe(got) + " / 2"


def loopback_figure(sig: Signature, stat: str = "median"):
    """Best loopback TCP payload rate [B/s] (netstream): (B/s, source) or None."""
    if "netstream" not in sig.kernels or not sig.points("netstream"):
        return None
    best = max(sig.points("netstream"), key=lambda p: _value(p.result, stat))
    return _value(best.result, stat), "netstream " + " ".join(
        f"{k}={v}" for k, v in best.params.items() if k in ("message_bytes", "sockbuf_bytes"))


def measured_ceilings(profile, signature: Signature, stat: str = "median") -> tuple[MeasuredCeiling, ...]:
    """Every signature figure that stands for a link, flow or host resource of ``profile``.

    Parameters
    ----------
    profile : Profile
    signature : Signature
    stat : {"median", "best"}

    Returns
    -------
    tuple of MeasuredCeiling
        Memory links, the "mem-copy" flow, and loopback TCP, where the signature has a figure.
    """
    out = []
    mem = memory_figure(signature, stat)
    if mem:
        memories = {cid for cid, c in profile.components.items() if c.kind == "memory"}
        for lid, link in profile.links.items():
            if link.definition.memory or memories & set(link.between):
                out.append(MeasuredCeiling(lid, "link", mem[0], link.capacity_bytes_per_s, mem[1]))
    copy = copy_figure(signature, stat)
    if copy and "mem-copy" in profile.flows:
        from pinchpoint.solve.ceilings import flow_ceiling
        c = flow_ceiling(profile, "mem-copy")
        out.append(MeasuredCeiling("mem-copy", "flow", copy[0], c.ceiling_bytes_per_s, copy[1]))
    loop = loopback_figure(signature, stat)
    if loop:
        out.append(MeasuredCeiling("loopback-tcp", "host", loop[0], None, loop[1], network=True))
    return tuple(out)


# ---- theory vs measurement --------------------------------------------------------------------------

@dataclass(frozen=True)
class Classification:
    """Where a measured figure stands against every ceiling that applies to it.

    ``verdict``: at-ceiling, below-ceiling, far-below-all or above-ceiling (the words of
    `diagnose`); ``nearest``: the binding (lowest) ceiling, or for above-ceiling the one exceeded
    most; ``ratio``: measured / that ceiling (the efficiency `diagnose` prints)."""

    measured_bytes_per_s: float
    verdict: str
    nearest: str
    ratio: float  # measured / the nearest ceiling
    ceilings: tuple[tuple[str, float], ...]
    near: float = NEAR

    @property
    def legend(self) -> str:
        return legend(self.near)

    def to_dict(self) -> dict:
        return {"measured_bytes_per_s": self.measured_bytes_per_s, "verdict": self.verdict,
                "nearest": self.nearest, "ratio": self.ratio, "efficiency": self.ratio, "near": self.near,
                "ceilings": [{"name": n, "bytes_per_s": v,
                              "ratio": self.measured_bytes_per_s / v} for n, v in self.ceilings]}


def classify(measured_bytes_per_s: float, ceilings, near: float | None = None) -> Classification:
    """The verdict on a measured figure against the ceilings that apply to it.

    Parameters
    ----------
    measured_bytes_per_s : float
        The achieved rate [B/s].
    ceilings : iterable of (name, bytes_per_s)
        Theoretical and measured ceilings that apply to the figure.
    near : float, optional
        Fraction of the binding ceiling from which a figure is at it (0 < near <= 1; default
        :data:`pinchpoint.solve.verdicts.AT_CEILING`, as `diagnose`).

    Returns
    -------
    Classification

    Raises
    ------
    InputError
        No ceilings, a non-positive ceiling or figure, or ``near`` outside (0, 1].
    """
    near = NEAR if near is None else near
    items = tuple((str(n), float(v)) for n, v in ceilings)
    if not items:
        raise InputError("no ceilings to compare the measured figure with", key="ceilings")
    if not 0 < near <= 1:
        raise InputError(f"near must be in (0, 1], got {near!r}", key="near")
    if not measured_bytes_per_s > 0:
        raise InputError(f"the measured figure must be positive, got {measured_bytes_per_s!r}",
                         key="measured")
    for n, v in items:
        if not v > 0:
            raise InputError(f"ceiling {n!r} must be positive, got {v!r}", key="ceilings")
    exceeded = [(n, v) for n, v in items if measured_bytes_per_s > ABOVE * v]
    if exceeded:
        n, v = max(exceeded, key=lambda t: measured_bytes_per_s / t[1])
    else:
        n, v = min(items, key=lambda t: t[1])
    verdict = verdict_for(measured_bytes_per_s / v, bool(exceeded), near)
    return Classification(measured_bytes_per_s, verdict, n, measured_bytes_per_s / v, items, near)


def flow_ceilings_for(profile, flow: str, signature: Signature | None = None,
                      stat: str = "median") -> list[tuple[str, float]]:
    """The ceilings that apply to a measured figure of ``flow``: its theoretical ceiling, its
    effective ceiling (after protocol overhead) and the signature's measured ceilings."""
    from pinchpoint.solve.ceilings import flow_ceiling

    if not profile.has_flow(flow):
        raise InputError(f"profile {profile.name!r} has no flow {flow!r} "
                         f"(flows: {', '.join(profile.flows) or 'none'})", key="flow")
    c = flow_ceiling(profile, flow)
    out = [(f"{flow} [{','.join(c.raw_binding or c.binding)}]", c.ceiling_bytes_per_s)]
    if c.effective_ceiling_bytes_per_s and abs(c.effective_ceiling_bytes_per_s - c.ceiling_bytes_per_s) > \
            1e-9 * c.ceiling_bytes_per_s:
        out.append((f"{flow} effective [{','.join(c.binding)}]", c.effective_ceiling_bytes_per_s))
    if signature is not None:
        for m in measured_ceilings(profile, signature, stat):
            out.append((f"measured {m.name} ({m.source})", m.measured_bytes_per_s))
    return out
