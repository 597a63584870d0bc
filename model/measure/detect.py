"""Describe the machine we run on: hwloc XML and Linux sysfs/procfs -> facts -> profile document.

Three layers, as everywhere in pinchpoint:

1. Parsing (:func:`~pinchpoint.measure.hwloc.parse_hwloc_xml`, :func:`~pinchpoint.measure.sysfs.read_sysfs`,
   facts in :mod:`pinchpoint.measure.machine_facts`): text and a root folder in, a frozen
   :class:`MachineFacts` out.  Nothing is invented: a value the machine does not reveal stays
   ``None`` ("unknown").  Files that are absent or unreadable (a VM without cpufreq, a virtio
   device without a PCIe link) are unknown; a file that is present but holds something that is
   not what the kernel documents writes there raises :class:`~pinchpoint.errors.InputError`
   naming the file.
2. Judgement (:func:`flags`): what looks wrong -- a PCIe device below its maximum link speed or
   width, a CPU below its nominal clock or under a power-saving governor (AARNet, "New 10G
   offerings from AARNet" talk, 2008: "Servers reported only running @ 2.0 GHz ... 'cpuspeed'
   service was saving power"), an MTU of 1500 on
   a NIC of 10 Gbit/s or more.
3. :func:`facts_to_profile_document`: a profile document (``schema = 1``) the normal loader
   accepts, with every parameter the machine did not reveal listed under ``unknown``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pinchpoint.errors import InputError
from pinchpoint.measure.detect_pcie import link_text
from pinchpoint.measure.detect_profile import facts_to_profile_document
from pinchpoint.measure.hwloc import parse_hwloc_xml
from pinchpoint.measure.nvidia import parse_nvidia_smi_q, parse_topo_matrix
from pinchpoint.measure.machine_facts import (PCIE_GENERATIONS, CacheFact, DiskFact, Flag, MachineFacts, NicFact,
                                              PciDevice, clock_from_model_name, parse_cache_size, parse_cpu_list,
                                              parse_link_speed, pcie_generation)
from pinchpoint.measure.sysfs import combine, read_sysfs
from pinchpoint.physics import units

# The parsers and facts live in their own modules; these names stay importable from here.
__all__ = ["CacheFact", "DiskFact", "Flag", "MachineFacts", "NicFact", "PciDevice", "combine", "detect",
           "facts_to_profile_document", "flags", "memory_rate_from_signature", "parse_cache_size",
           "parse_cpu_list", "parse_hwloc_xml", "parse_link_speed", "pcie_generation", "read_sysfs",
           "unchecked", "THROTTLE_RATIO", "JUMBO_RATE", "clock_from_model_name"]

#: Ratio below which the current clock counts as throttled (idle cores clock down a little
#: under every dynamic governor; a power-saving service halves it: AARNet's 2008 10G talk).
THROTTLE_RATIO = 0.9

#: NIC line rate from which an MTU of 1500 is flagged [B/s] (10 Gbit/s).
JUMBO_RATE = 10e9 / 8


# --- flags -----------------------------------------------------------------------------------

def _pcie_rate(speed, width) -> float | None:
    gen = pcie_generation(speed) if speed else None
    if gen is None or not width:
        return None
    g = PCIE_GENERATIONS[gen]
    return g.lane_rate * width * g.encoding / 8


def flags(facts: MachineFacts) -> list[Flag]:
    """What in ``facts`` likely costs performance, in a stable order."""
    out: list[Flag] = []
    for d in facts.pci:
        if d.is_bridge or not d.downgraded:
            continue
        cur, mx = link_text(d.current_speed, d.current_width), link_text(d.max_speed, d.max_width)
        have, could = _pcie_rate(d.current_speed, d.current_width), _pcie_rate(d.max_speed, d.max_width)
        rates = (f": {units.format_rate(have, 'memory')} of {units.format_rate(could, 'memory')} per direction"
                 if have and could else "")
        narrow = d.current_width is not None and d.max_width is not None and d.current_width < d.max_width
        if narrow:
            why = (f"it needs a wider link (an x{d.max_width} card in an x{d.current_width} slot, "
                   "or a slot that shares its lanes?)")
        else:
            why = "it trained at a lower speed (an older slot or riser, or power management)"
        out.append(Flag("pcie-downgraded", d.address,
                        f"PCIe device {d.address} (class {d.class_code or '?'}) runs its link at {cur} but "
                        f"supports {mx}{rates}: {why} -- idle GPUs also lower the speed to save power, "
                        "so check under load"))
    if facts.nominal_clock and facts.current_clock and facts.current_clock < THROTTLE_RATIO * facts.nominal_clock:
        gov = f" (governor {facts.governor})" if facts.governor else ""
        out.append(Flag("cpu-throttled", "cpu0",
                        f"the CPU runs at {units.format_quantity(facts.current_clock, 'frequency')}, below its "
                        f"nominal {units.format_quantity(facts.nominal_clock, 'frequency')}{gov}: power saving "
                        "lowers every CPU-bound ceiling (AARNet, 10G talk 2008: 'Servers reported only running @ 2.0 GHz ... "
                        "the cpuspeed service was saving power'); try the 'performance' governor"))
    if facts.governor and facts.governor.lower() in ("powersave", "conservative"):
        out.append(Flag("cpu-governor", "cpu0",
                        f"the cpufreq governor is {facts.governor!r}: it favours power over speed "
                        "(with intel_pstate, 'powersave' still scales up under load; elsewhere it pins the lowest clock)"))
    for n in facts.nics:
        if n.speed_bytes_per_s and n.speed_bytes_per_s >= JUMBO_RATE * 0.999 and n.mtu == 1500:
            out.append(Flag("mtu", n.name,
                            f"{n.name} runs at {units.format_rate(n.speed_bytes_per_s, 'network')} with an MTU of 1500 B: "
                            "per-packet costs cap the host well below line rate; jumbo frames (MTU 9000) "
                            "cut the packet rate six-fold where the path allows them"))
    return out


def unchecked(facts: MachineFacts) -> list[str]:
    """What :func:`flags` could not judge because the machine did not reveal it."""
    out = []
    if not (facts.nominal_clock and facts.current_clock):
        missing = " and ".join(n for n, v in (("nominal", facts.nominal_clock), ("current", facts.current_clock))
                               if not v)
        out.append(f"CPU clock (the {missing} clock is unknown)")
    if facts.governor is None:
        out.append("cpufreq governor (no cpufreq in sysfs)")
    if not any(d.current_speed and d.max_speed for d in facts.pci):
        out.append("PCIe link speed and width (no device reports current and maximum link)")
    if facts.nics and not any(n.speed_bytes_per_s for n in facts.nics):
        out.append("MTU against NIC speed (no NIC reports its speed)")
    return out


def memory_rate_from_signature(signature, *, file: str | None = None) -> tuple[float, str]:
    """The memory bandwidth a signature measured [B/s] and a source text for the profile.

    The memory bandwidth by :func:`pinchpoint.prediction.rates.memory_bandwidth` (the policy every
    caller shares): the highest of the signature's memory sources (STREAM, MAPS stride-1,
    likwid-bench, Memperf, Xbench), each at its largest working set with the most threads (a
    single thread rarely saturates a modern memory system, so the multi-threaded figures usually
    win); PEAK DOT x 8 B/flop only without any of them.

    Each figure is the best of its repetitions, as STREAM ("Best Rate MB/s", McCalpin) and
    likwid-bench report bandwidth: interference on a shared machine only slows a transfer, so
    the median of one noisy run (45.0 GB/s in one run, 73.4 GB/s minutes later on a shared VM)
    says more about the neighbours than the machine.  The source text records the repetitions,
    the median and the spread (max/min).

    Raises
    ------
    InputError
        If the signature has none of these points.
    """
    # prediction sits after measure in the pipeline: imported here, where a signature is read,
    # so that measuring never depends on the prediction stage
    from pinchpoint.prediction.rates import memory_bandwidth

    got = memory_bandwidth(signature, "best")
    if got is None:
        raise InputError("the signature has no STREAM, MAPS stride-1, likwid-bench, Memperf or Xbench "
                         "bandwidth points (nor PEAK DOT) to take the memory bandwidth from", file=file,
                         key="kernels")
    r = got.point.result
    label = ", ".join(f"{k}={v}" for k, v in got.point.params.items()
                      if k in ("op", "threads", "working_set_bytes", "loop_length"))
    host = signature.host.get("name") or signature.host.get("cpu_model")
    what = got.label + (" x 8 B/flop" if got.peak_loop else "")
    return got.bytes_per_s, (f"measured: {what} best of {len(r.repetitions)} repetitions ({label + '; ' if label else ''}median "
                             f"{r.median / 1e9:.4g} GB/s, spread max/min {r.spread:.3g}) on {host}, "
                             f"{signature.created}" + (f" ({file})" if file else ""))


def detect(root: Path | str | None = Path("/"), hwloc_xml: str | None = None, *,
           hwloc_file: str | None = None, nvidia_smi_q: str | None = None, nvidia_topo: str | None = None,
           nvidia_files: tuple[str | None, str | None] = (None, None)) -> MachineFacts:
    """Facts of a machine: hwloc's XML where given (topology, caches), over sysfs (clocks,
    NIC speeds, PCIe link details); GPUs and NVLink from ``nvidia-smi -q`` and ``topo -m`` text.
    ``root = None`` with an XML: the file's machine only, no /sys (an XML file from another
    machine must not pick up this one's CPU, memory or disks)."""
    if root is None:
        if hwloc_xml is None:
            raise ValueError("detect needs a sysfs root, an hwloc XML, or both")
        facts = parse_hwloc_xml(hwloc_xml, file=hwloc_file)
    else:
        sysfs = read_sysfs(root)
        facts = sysfs if hwloc_xml is None else combine(parse_hwloc_xml(hwloc_xml, file=hwloc_file), sysfs)
    if nvidia_smi_q:
        facts = replace(facts, gpus=parse_nvidia_smi_q(nvidia_smi_q, file=nvidia_files[0]))
    if nvidia_topo:
        facts = replace(facts, nvlinks=parse_topo_matrix(nvidia_topo, file=nvidia_files[1]))
    return facts
