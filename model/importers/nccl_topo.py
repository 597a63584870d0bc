"""NCCL's topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE) -> a profile document, and NCCL's
own path bandwidths for comparison.

The XML nests ``cpu`` (a NUMA domain) > ``pci`` (bridges and devices, ``link_speed`` and
``link_width`` of the link to the parent) > ``gpu`` (``sm``, ``nvlink target count tclass``) and
``nic`` > ``net`` (``speed`` in Mbit/s).  Each PCI bridge becomes a switch component whose pcie link
goes up to its parent; GPUs become accelerators, NICs nics with an Ethernet/InfiniBand line where
the speed is given, NVLinks to NVSwitches (``tclass`` 0x068000) one bonded link to an NVSwitch node.
The link between sockets is not in the file: flows stay within a socket.

NCCL's bandwidths (used only by :func:`nccl_path_bandwidths`, to compare): a PCI link carries
width x code / 80 GB/s, code 15/30/60/120/240/480 (x100 Mbit/s per lane) for 2.5 .. 64 GT/s; an
NVLink count x 18 (sm 60), 20 (sm 70, 80), 20.6 (sm 90), 40.1 GB/s (sm 100); a NIC speed / 8000
GB/s; a path the minimum of its links.

References
----------
.. [1] NVIDIA, NCCL ``src/graph/topo.h`` and ``topo.cc`` (kvDictPciGen, ncclTopoAddPci, SMxx_NVLINK_BW),
   and the environment variables NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE (NCCL user guide).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from pinchpoint.inputs.doc_values import ident
from pinchpoint.inputs.document import Reader
from pinchpoint.errors import InputError
from pinchpoint.measure.machine_facts import parse_link_speed, pcie_generation

#: NCCL's PCI lane codes [x100 Mbit/s per lane] by lane rate [GT/s] [1].
NCCL_PCI_CODE = {2.5: 15, 5.0: 30, 8.0: 60, 16.0: 120, 32.0: 240, 64.0: 480}
#: NCCL's NVLink bandwidth per link [GB/s] by compute capability (sm) [1].
NCCL_NVLINK_GBPS = {60: 18.0, 70: 20.0, 80: 20.0, 86: 12.0, 90: 20.6, 100: 40.1}
#: NVLink data rate per link and direction [B/s] by compute capability, from NVIDIA's architecture
#: whitepapers (P100 20, V100/A100/H100 25, Blackwell 50 GB/s; see pinchpoint.measure.nvidia).
NVLINK_RATE_BY_SM = {60: 20e9, 70: 25e9, 80: 25e9, 90: 25e9, 100: 50e9}
_NVSWITCH_CLASS = "0x068000"


def _parse(text: str, doc: Reader):
    if re.search(r"<!DOCTYPE|<!ENTITY", text, re.I):  # no entity expansion from input files
        raise doc.error(None, "a DOCTYPE or ENTITY declaration is not allowed in a topology file")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise doc.error(None, f"not well-formed XML ({exc})") from None
    if root.tag != "system":
        raise doc.error(None, f"expected an NCCL topology (<system>), found <{root.tag}>")
    return root


def _speed(pci, doc: Reader) -> tuple[float | None, int | None]:
    """(lane rate [1/s], width) of a <pci> element's link."""
    text, width = pci.get("link_speed"), pci.get("link_width")
    try:
        rate = parse_link_speed(text, file=doc.file) if text else None
        lanes = int(width) if width else None
    except (InputError, ValueError):
        raise doc.error(f"pci[{pci.get('busid')}]", f"expected link_speed like '32.0 GT/s PCIe' and a "
                        f"whole link_width, found {text!r}, {width!r}") from None
    return rate, lanes


def _sm(gpu, doc: Reader) -> int | None:
    sm = gpu.get("sm")
    if sm is None:
        return None
    if not sm.isdigit():
        raise doc.error(f"gpu[{gpu.get('dev')}].sm", f"expected a compute capability such as 90, found {sm!r}")
    return int(sm)


def _nvl_bucket(sm: int | None, table: dict) -> float | None:
    if sm is None:
        return None
    if sm in table:
        return table[sm]
    return table.get(sm // 10 * 10)


def load_topology(text: str, *, file: str | None = None, name: str | None = None) -> dict:
    """A profile document (schema 1) from NCCL topology XML; raises InputError naming file and key."""
    doc = Reader(file, InputError)
    root = _parse(text, doc)
    comps: dict = {}
    links: dict = {}
    flows: dict = {}
    gpus: list[tuple[str, str]] = []  # (component, socket)
    nics: list[tuple[str, str, str | None]] = []  # (component, socket, network component)
    nvswitch_links: dict[str, int] = {}
    gpu_by_bus: dict[str, str] = {}
    pending_nvlinks: list[tuple[str, str, int, int | None]] = []
    src = f"NCCL topology {file}" if file else "NCCL topology"

    def pcie(cid: str, parent: str, pci) -> None:
        rate, lanes = _speed(pci, doc)
        gen = pcie_generation(rate) if rate else None
        if rate and gen is None:
            raise doc.error(f"pci[{pci.get('busid')}]", f"link_speed {pci.get('link_speed')!r} is no PCIe "
                            "generation's lane rate (2.5, 5, 8, 16, 32, 64 GT/s)")
        if gen and lanes:
            links[f"pcie-{cid}"] = {"kind": "pcie", "between": [cid, parent], "generation": gen,
                                    "lanes": {"value": lanes, "source": f"{src}: pci {pci.get('busid')} link_width"},
                                    "source": f"{src}: pci {pci.get('busid')} link_speed"}

    def walk(pci, parent: str, socket: str) -> None:
        bus = pci.get("busid") or "?"
        cls = (pci.get("class") or "").lower()
        gpu, nic = pci.find("gpu"), pci.find("nic")
        if cls.startswith("0x0604"):
            cid = ident(f"pcisw-{bus}")
            comps[cid] = {"kind": "switch", "model": f"PCIe bridge {bus}"}
            pcie(cid, parent, pci)
            for child in pci.findall("pci"):
                walk(child, cid, socket)
        elif gpu is not None or cls.startswith("0x03"):
            dev = gpu.get("dev") if gpu is not None else None
            cid = f"gpu{dev}" if dev is not None and dev.isdigit() else ident(f"gpu-{bus}")
            comps[cid] = {"kind": "accelerator", "model": f"GPU {bus}" + (
                f" (sm {gpu.get('sm')})" if gpu is not None and gpu.get("sm") else "")}
            pcie(cid, parent, pci)
            gpus.append((cid, socket))
            gpu_by_bus[bus.lower()] = cid
            sm = _sm(gpu, doc) if gpu is not None else None
            for nv in gpu.findall("nvlink") if gpu is not None else ():
                count = nv.get("count", "")
                if not count.isdigit() or int(count) < 1:
                    raise doc.error(f"gpu[{dev}].nvlink[{nv.get('target')}].count",
                                    f"expected a link count >= 1, found {count!r}")
                pending_nvlinks.append((cid, (nv.get("target") or "").lower(), int(count), sm)
                                       if (nv.get("tclass") or "").lower() != _NVSWITCH_CLASS
                                       else (cid, "nvswitch", int(count), sm))
        elif nic is not None or cls.startswith("0x02"):
            cid = ident(f"nic-{bus}")
            net = nic.find("net") if nic is not None else None
            comp: dict = {"kind": "nic", "model": f"NIC {bus}" + (f" ({net.get('name')})" if net is not None else "")}
            speed = net.get("speed") if net is not None else None
            network = None
            if speed and speed.isdigit() and int(speed) > 0:
                rate = f"{int(speed)} Mbit/s"
                comp["line_rate"] = {"value": rate, "source": f"{src}: net {net.get('name')} speed"}
                network = ident(f"net-{bus}")
                comps[network] = {"kind": "network", "description": f"the fabric beyond {cid}"}
                links[f"wire-{cid}"] = {"kind": "ethernet", "between": [network, cid],
                                        "rate": {"value": rate, "source": f"{src}: net speed"}}
            else:
                comp["unknown"] = ["line_rate"]
            comps[cid] = comp
            pcie(cid, parent, pci)
            nics.append((cid, socket, network))
        else:
            cid = ident(f"pci-{bus}")
            comps[cid] = {"kind": "device", "model": f"PCI {bus} class {cls}"}
            pcie(cid, parent, pci)

    cpus = root.findall("cpu")
    if not cpus:
        raise doc.error(None, "expected at least one <cpu> in <system>")
    for i, cpu in enumerate(cpus):
        numa = cpu.get("numaid", str(i))
        sid = ident(f"cpu{numa}")
        comps[sid] = {"kind": "cpu", "model": " ".join(x for x in (cpu.get("vendor"), cpu.get("arch")) if x)
                      or "CPU", "unknown": ["clock"]}
        for pci in cpu.findall("pci"):
            walk(pci, sid, sid)
    for cid, target, count, sm in pending_nvlinks:
        rate = _nvl_bucket(sm, NVLINK_RATE_BY_SM)
        if rate is None:
            raise doc.error(f"{cid}.sm", f"no NVLink rate known for compute capability {sm!r}")
        lr = {"value": f"{rate / 1e9:g} GB/s", "source": "NVIDIA architecture whitepapers, per link and direction"}
        if target == "nvswitch":
            comps.setdefault("nvswitch", {"kind": "switch", "model": "NVSwitch fabric (nvlink tclass 0x068000)"})
            nvswitch_links[cid] = nvswitch_links.get(cid, 0) + count
            links[f"nvlink-{cid}"] = {"kind": "nvlink", "between": [cid, "nvswitch"],
                                      "count": {"value": nvswitch_links[cid], "source": f"{src}: nvlink count"},
                                      "link_rate": lr}
        elif target in gpu_by_bus:
            a, b = sorted((cid, gpu_by_bus[target]))
            links.setdefault(f"nvlink-{a}-{b}", {"kind": "nvlink", "between": [a, b],
                                                 "count": {"value": count, "source": f"{src}: nvlink count"},
                                                 "link_rate": lr})
    for g, socket in gpus:
        if f"pcie-{g}" in links:
            flows[f"host-to-{g}"] = {"source": socket, "sink": g, "description": f"host -> {g} over PCIe"}
    for i, (a, sa) in enumerate(gpus):
        for b, sb in gpus[i + 1:]:
            flows[f"{a}-to-{b}"] = {"source": a, "sink": b, "description": f"GPU {a} -> GPU {b}"}
    for n, socket, network in nics:
        if network is None:
            continue
        flows[f"{n}-to-host"] = {"source": network, "sink": socket, "description": f"receive on {n} into host memory"}
        for g, sg in gpus:
            if sg == socket:
                flows[f"{n}-to-{g}"] = {"source": network, "sink": g,
                                        "description": f"GPUDirect RDMA: receive on {n} into {g}"}
    _drop_unconnected(comps, links, flows)
    doc = {"schema": 1, "name": name or ident(f"nccl-{file or 'topology'}".rsplit("/", 1)[-1].split(".")[0]),
           "description": f"imported from NCCL topology XML ({len(gpus)} GPUs, {len(nics)} NICs)",
           "source": src, "components": comps, "links": links}
    if flows:
        doc["flows"] = flows
    return doc


def _drop_unconnected(comps, links, flows) -> None:
    """Flows whose ends no chain of links joins (cross-socket: the file has no socket link)."""
    adj: dict[str, set[str]] = {c: set() for c in comps}
    for l in links.values():
        a, b = l["between"]
        adj[a].add(b)
        adj[b].add(a)

    def reach(a):
        seen, todo = {a}, [a]
        while todo:
            for n in adj[todo.pop()] - seen:
                seen.add(n)
                todo.append(n)
        return seen

    cache: dict[str, set[str]] = {}
    for name in list(flows):
        f = flows[name]
        if f["sink"] not in cache.setdefault(f["source"], reach(f["source"])):
            del flows[name]


def _widest(edges: dict[tuple[str, str], float], a: str, b: str) -> float:
    """The bandwidth of the widest path from a to b: its narrowest link (the path lies in the
    maximum spanning tree, so one tree path answers)."""
    import networkx as nx

    g = nx.Graph()
    for (u, v), bw in edges.items():
        if not g.has_edge(u, v) or g.edges[u, v]["bw"] < bw:
            g.add_edge(u, v, bw=bw)
    tree = nx.maximum_spanning_tree(g, weight="bw")
    path = nx.shortest_path(tree, a, b)
    return min(tree.edges[u, v]["bw"] for u, v in zip(path, path[1:]))


def nccl_link_bandwidths(text: str, *, file: str | None = None) -> dict[tuple[str, str], float]:
    """NCCL's bandwidth [B/s] of every link of the profile :func:`load_topology` makes, keyed by
    its two components: PCI width x code / 80 GB/s, NVLink count x SMxx_NVLINK_BW, a NIC's speed
    / 8000 GB/s [1]."""
    from pinchpoint.physics.linkkinds import PCIE_GENERATIONS

    doc = load_topology(text, file=file)
    reader = Reader(file, InputError)
    sm_of = {f"gpu{g.get('dev')}": _sm(g, reader) for g in _parse(text, reader).iter("gpu")
             if g.get("dev", "").isdigit()}
    out = {}
    for l in doc["links"].values():
        a, b = l["between"]
        if l["kind"] == "pcie":
            code = NCCL_PCI_CODE[PCIE_GENERATIONS[l["generation"]].lane_rate / 1e9]
            bw = l["lanes"]["value"] * code / 80 * 1e9
        elif l["kind"] == "nvlink":
            bw = l["count"]["value"] * _nvl_bucket(sm_of.get(a), NCCL_NVLINK_GBPS) * 1e9
        else:
            bw = float(l["rate"]["value"].split()[0]) / 8000 * 1e9
        out[(a, b)] = bw
    return out


def compare_with_nccl(text: str, *, file: str | None = None) -> list[dict]:
    """Each flow of the imported profile: NCCL's path bandwidth beside pinchpoint's, both along
    the widest single path (raw and after protocol overhead) and as pinchpoint's max-flow ceiling,
    which may spread a flow over several paths (through NVLink and other switches' uplinks)."""
    from pinchpoint.solve.ceilings import all_ceilings
    from pinchpoint.inputs.profile import profile_from_document

    doc = load_topology(text, file=file)
    profile = profile_from_document(doc, file=file)
    nccl = nccl_link_bandwidths(text, file=file)
    raw = {tuple(l.between): l.capacity_bytes_per_s for l in profile.links.values()}
    eff = {tuple(l.between): l.effective_capacity_bytes_per_s for l in profile.links.values()}
    rows = []
    for c in all_ceilings(profile):
        f = profile.flows[c.name]
        a, b = f.source, f.sink
        rows.append({"flow": c.name, "nccl_bytes_per_s": _widest(nccl, a, b),
                     "path_raw_bytes_per_s": _widest(raw, a, b), "path_effective_bytes_per_s": _widest(eff, a, b),
                     "maxflow_raw_bytes_per_s": c.ceiling_bytes_per_s,
                     "maxflow_effective_bytes_per_s": c.effective_ceiling_bytes_per_s})
    return rows
