"""NVLink of detected facts as profile links: from hwloc's NVLinkBandwidth matrix (GPUs,
NVSwitches, POWER packages) or else from ``nvidia-smi topo -m``.

Per-link rates: NVIDIA's architecture whitepapers (see :mod:`pinchpoint.measure.nvidia`); hwloc
reports a pair's links aggregated (hwloc manual, "Distances": NVLinkBandwidth in MB/s, "when
there are multiple links, their bandwidth is aggregated"), so the count is that figure over one
link's rate where the GPU's architecture is known.
"""

from __future__ import annotations

from pinchpoint.inputs.doc_values import ident
from pinchpoint.measure.machine_facts import MachineFacts
from pinchpoint.measure.nvidia import NVLINK_RATE


def add_nvlinks(facts: MachineFacts, comps, links, flows, gpu_ids: dict[int, str], by_address: dict[str, str]) -> None:
    """hwloc's matrix where the file has one, else ``topo -m``'s NV# pairs."""
    if facts.nvlink_bandwidths:
        _from_matrix(facts, comps, links, flows, by_address)
    else:
        _from_topo(facts, comps, links, flows, gpu_ids)


def _matrix_end(end: str, facts: MachineFacts, comps, by_address) -> str | None:
    """The component of a matrix end: a GPU, an NVSwitch (made here) or a package."""
    what, _, key = end.partition(":")
    if what == "package":
        return f"cpu{key}" if f"cpu{key}" in comps else None
    if key in by_address:
        return by_address[key]
    dev = facts.pci_device(key)
    if dev is None:
        return None
    sid = ident(f"nvswitch-{key}")
    comps.setdefault(sid, {"kind": "switch", "model": f"NVSwitch {key} (hwloc PCI subtype {dev.subtype or '?'})"})
    return sid


def _count_and_rate(bytes_per_s: float, arch: str | None) -> tuple[int, float, str]:
    """(links, rate per link, how) for an aggregated NVLink bandwidth."""
    one = NVLINK_RATE.get(arch or "")
    if one:
        n = round(bytes_per_s / one)
        if 1 <= n <= 18 and abs(n * one - bytes_per_s) <= 1e-6 * bytes_per_s:
            return n, one, f"{arch} NVLink: {one / 1e9:g} GB/s per link and direction (NVIDIA whitepaper)"
    return 1, bytes_per_s, "the pair's aggregate (links per pair unknown)"


# long: one pass over nvidia-smi's link matrix; each branch is one kind of peer (GPU, NVSwitch, missing address)
def _from_matrix(facts: MachineFacts, comps, links, flows, by_address) -> None:
    arch = {g.pci_address.lower(): g.architecture for g in facts.gpus if g.pci_address}
    switch_of: dict[str, set[str]] = {}
    for nv in facts.nvlink_bandwidths:
        a, b = (_matrix_end(e, facts, comps, by_address) for e in (nv.a, nv.b))
        if a is None or b is None:
            continue
        gpu_arch = arch.get(nv.a.partition(":")[2]) or arch.get(nv.b.partition(":")[2])
        count, rate, how = _count_and_rate(nv.bytes_per_s, gpu_arch)
        src = f"hwloc NVLinkBandwidth: {nv.bytes_per_s / 1e6:g} MB/s per direction"
        links[f"nvlink-{a}-{b}"] = {"kind": "nvlink", "between": [a, b],
                                    "count": {"value": count, "source": f"{src}; {how}"},
                                    "link_rate": {"value": f"{rate / 1e9:.6g} GB/s", "source": f"{src}; {how}"}}
        for gpu, other in ((a, b), (b, a)):
            if gpu.startswith("gpu") and other.startswith("nvswitch"):
                switch_of.setdefault(other, set()).add(gpu)
    gpus = sorted({g for ends in switch_of.values() for g in ends} or
                  {x for l in links.values() if l["kind"] == "nvlink" for x in l["between"] if x.startswith("gpu")})
    pair = next(((x, y) for s in switch_of.values() for x in sorted(s) for y in sorted(s) if x < y), None) or \
        (tuple(gpus[:2]) if len(gpus) >= 2 else None)
    if pair:
        flows[f"{pair[0]}-to-{pair[1]}"] = {"source": pair[0], "sink": pair[1],
                                            "description": "GPU -> GPU over NVLink (hwloc NVLinkBandwidth)"}


def topo_nvlinks(pairs, gpu_ids: dict[int, str], rate_of, src: str = "nvidia-smi topo -m") -> tuple[dict, dict]:
    """(components, links) of ``topo -m``'s NV# pairs ``(i, j, links)``: the same NV# between every
    pair of three or more GPUs is an NVSwitch fabric (one switch node, each GPU's links to it);
    otherwise direct bonded links.  ``rate_of(i)`` is GPU i's ``link_rate`` entry or None."""
    pairs = [(i, j, n) for i, j, n in pairs if i in gpu_ids and j in gpu_ids]
    comps, links = {}, {}
    if not pairs:
        return comps, links
    counts = {n for _, _, n in pairs}
    members = sorted({x for i, j, _ in pairs for x in (i, j)})
    if len(members) >= 3 and len(counts) == 1 and len(pairs) == len(members) * (len(members) - 1) // 2:
        comps["nvswitch"] = {"kind": "switch", "model": "NVLink fabric (NVSwitch): every GPU pair shows NV"
                                                         f"{pairs[0][2]} in topo -m"}
        for i in members:
            if rate_of(i) is not None:
                links[f"nvlink-{gpu_ids[i]}"] = {"kind": "nvlink", "between": [gpu_ids[i], "nvswitch"],
                                                 "count": {"value": pairs[0][2], "source": src},
                                                 "link_rate": rate_of(i)}
    else:
        for i, j, n in pairs:
            if rate_of(i) is not None:
                links[f"nvlink-{gpu_ids[i]}-{gpu_ids[j]}"] = {"kind": "nvlink", "between": [gpu_ids[i], gpu_ids[j]],
                                                              "count": {"value": n, "source": src},
                                                              "link_rate": rate_of(i)}
    return comps, links


def _from_topo(facts: MachineFacts, comps, links, flows, gpu_ids: dict[int, str]) -> None:
    arch = {g.index: g.architecture for g in facts.gpus}

    def rate(i):
        r = NVLINK_RATE.get(arch.get(i) or "")
        return None if r is None else {"value": f"{r / 1e9:g} GB/s",
                                       "source": f"NVIDIA {arch[i]} architecture whitepaper (per link and direction)"}

    new_comps, new_links = topo_nvlinks(facts.nvlinks, gpu_ids, rate)
    comps.update(new_comps)
    links.update(new_links)
    pairs = [(i, j) for i, j, _ in facts.nvlinks if i in gpu_ids and j in gpu_ids]
    if new_links:
        a, b = gpu_ids[pairs[0][0]], gpu_ids[pairs[0][1]]
        flows[f"{a}-to-{b}"] = {"source": a, "sink": b, "description": "GPU -> GPU over NVLink (nvidia-smi topo -m)"}
