"""The walk over an NCCL topology XML that builds the profile's components, links and flows
(used by :func:`pinchpoint.importers.nccl_topo.load_topology`).

The walk is iterative with a depth limit (PCIe allows 256 buses; no real tree nests
``<pci>`` more than a few levels, and Python's recursion limit would end a deep one with a
RecursionError), whole numbers are read with a bound on their digits, and flows are kept only
between components a chain of links joins, found with one pass over connected components
(linear in the links and flows, where one search per flow was cubic in the GPUs).

Source: NVIDIA, NCCL ``src/graph/xml.cc`` and ``topo.cc`` (``ncclTopoAddPci``: ``link_speed``
and ``link_width`` of the link to the parent, ``class``, ``gpu`` with ``dev``, ``sm`` and
``nvlink target count tclass``, ``nic`` > ``net`` with ``speed`` in Mbit/s).
"""

from __future__ import annotations

import re

from pinchpoint.errors import InputError
from pinchpoint.inputs.doc_values import ident, whole_number
from pinchpoint.inputs.document import Reader
from pinchpoint.measure.machine_facts import pcie_generation

#: Deepest <pci> nesting read (a root port, two switch levels and a device are 5).
MAX_DEPTH = 64
#: NVLink data rate per link and direction [B/s] by compute capability, from NVIDIA's architecture
#: whitepapers (P100 20, V100/A100/H100 25, Blackwell 50 GB/s; see pinchpoint.measure.nvidia).
NVLINK_RATE_BY_SM = {60: 20e9, 70: 25e9, 80: 25e9, 90: 25e9, 100: 50e9}
_NVSWITCH_CLASS = "0x068000"


def nvl_bucket(sm: int | None, table: dict) -> float | None:
    if sm is None:
        return None
    if sm in table:
        return table[sm]
    return table.get(sm // 10 * 10)


def sm_of(gpu, doc: Reader) -> int | None:
    sm = gpu.get("sm")
    if sm is None:
        return None
    value = whole_number(sm, max_digits=4)
    if value is None:
        raise doc.error(f"gpu[{gpu.get('dev')}].sm", f"expected a compute capability such as 90, found {sm[:40]!r}")
    return value


#: A lane rate as NCCL reads it: by its start ("32 GT/s", "32.0 GT/s PCIe", "32 GT/s PCIe/s" in
#: AWS's p5 file all read as 32 GT/s; NCCL ``kvConvertToInt`` compares the dictionary's prefix).
_LANE_RATE = re.compile(r"^\s*([0-9]{1,3}(?:\.[0-9]{1,3})?)\s*GT/s")


def _link(pci, doc: Reader) -> tuple[float | None, int | None]:
    """(lane rate [1/s], width) of a <pci> element's link; None where the file does not say.

    NCCL writes ``link_width="0"`` (and an empty or "Unknown" speed) where the kernel did not
    report the link, and reads it as x16 (``ncclTopoAddPci``: "Manage cases where speed was not
    indicated in /sys"); that would be an invented figure here, so the link stays unknown."""
    busid = pci.get("busid")
    text, width = pci.get("link_speed") or "", pci.get("link_width")
    m = _LANE_RATE.match(text)
    if text.strip() and not m and not text.strip().lower().startswith("unknown"):
        raise doc.error(f"pci[{busid}].link_speed", f"expected a lane rate such as '32.0 GT/s PCIe', "
                        f"found {text[:40]!r}")
    rate = float(m.group(1)) * 1e9 if m else None
    if width is None or width == "":
        return rate, None
    lanes = whole_number(width, max_digits=3)
    if lanes is None or lanes > 32:
        raise doc.error(f"pci[{busid}].link_width", f"expected 0 (not reported) or 1 to 32 lanes, found "
                        f"{width[:40]!r}")
    return rate, lanes or None


class NcclTree:
    """Components, links and flows of one NCCL topology, filled by :meth:`walk`."""

    def __init__(self, doc: Reader, src: str):
        self.doc, self.src = doc, src
        self.comps: dict = {}
        self.links: dict = {}
        self.gpus: list[tuple[str, str, str]] = []  # (component, socket, busid)
        self.nics: list[tuple[str, str, str | None]] = []  # (component, socket, network component)
        self.gpu_by_bus: dict[str, str] = {}
        self.sm: dict[str, int | None] = {}  # GPU component -> compute capability
        self.pending_nvlinks: list[tuple[str, str, int, int | None]] = []
        self.unlinked: list[str] = []  # <pci> elements whose link the file does not give

    def _pcie(self, cid: str, parent: str, pci) -> None:
        rate, lanes = _link(pci, self.doc)
        gen = pcie_generation(rate) if rate else None
        busid = pci.get("busid")
        if rate and gen is None:
            raise self.doc.error(f"pci[{busid}].link_speed", f"link_speed {pci.get('link_speed')[:40]!r} is no PCIe "
                                 "generation's lane rate (2.5, 5, 8, 16, 32, 64 GT/s)")
        if not (gen and lanes):
            self.unlinked.append(busid or "?")
        else:
            self.links[f"pcie-{cid}"] = {"kind": "pcie", "between": [cid, parent], "generation": gen,
                                         "lanes": {"value": lanes, "source": f"{self.src}: pci {busid} link_width"},
                                         "source": f"{self.src}: pci {busid} link_speed"}

    def walk(self, cpu, socket: str) -> None:
        """Every <pci> below a <cpu>, depth first, without recursion."""
        stack = [(pci, socket, 1) for pci in reversed(cpu.findall("pci"))]
        while stack:
            pci, parent, depth = stack.pop()
            if depth > MAX_DEPTH:
                raise self.doc.error(f"pci[{pci.get('busid')}]", f"<pci> elements nest deeper than {MAX_DEPTH} "
                                     "levels; no PCIe tree is that deep")
            cid = self._element(pci, parent, socket)
            if cid is not None:
                stack.extend((child, cid, depth + 1) for child in reversed(pci.findall("pci")))

    def _element(self, pci, parent: str, socket: str) -> str | None:
        """Add one <pci>; return its component when it is a bridge (children hang off it)."""
        bus = pci.get("busid") or "?"
        cls = (pci.get("class") or "").lower()
        gpu, nic = pci.find("gpu"), pci.find("nic")
        # NCCL reads every element that is not a GPU, NIC or NVSwitch as a PCI node and walks the
        # <pci> inside it: a class-less element holding devices (AWS's p5 file) is a switch
        holds = gpu is None and nic is None and pci.find("pci") is not None and not cls.startswith(("0x03", "0x02"))
        if cls.startswith("0x0604") or holds:
            cid = ident(f"pcisw-{bus}")
            self.comps[cid] = {"kind": "switch", "model": f"PCIe bridge {bus}"}
            self._pcie(cid, parent, pci)
            return cid
        if gpu is not None or cls.startswith("0x03"):
            self._gpu(pci, gpu, bus, parent, socket)
        elif nic is not None or cls.startswith("0x02"):
            self._nic(pci, nic, bus, parent, socket)
        else:
            cid = ident(f"pci-{bus}")
            self.comps[cid] = {"kind": "device", "model": f"PCI {bus} class {cls}"}
            self._pcie(cid, parent, pci)
        return None

    def _gpu(self, pci, gpu, bus: str, parent: str, socket: str) -> None:
        dev = gpu.get("dev") if gpu is not None else None
        index = whole_number(dev, max_digits=6) if dev is not None else None
        cid = f"gpu{index}" if index is not None else ident(f"gpu-{bus}")
        self.comps[cid] = {"kind": "accelerator", "model": f"GPU {bus}" + (
            f" (sm {gpu.get('sm')})" if gpu is not None and gpu.get("sm") else "")}
        self._pcie(cid, parent, pci)
        self.gpus.append((cid, socket, bus.lower()))
        self.gpu_by_bus[bus.lower()] = cid
        sm = sm_of(gpu, self.doc) if gpu is not None else None
        self.sm[cid] = sm
        for nv in gpu.findall("nvlink") if gpu is not None else ():
            count = whole_number(nv.get("count"), max_digits=3)
            if count is None or count < 1:
                raise self.doc.error(f"gpu[{dev}].nvlink[{nv.get('target')}].count",
                                     f"expected a link count >= 1, found {(nv.get('count') or '')[:40]!r}")
            nvswitch = (nv.get("tclass") or "").lower() == _NVSWITCH_CLASS
            self.pending_nvlinks.append((cid, "nvswitch" if nvswitch else (nv.get("target") or "").lower(), count, sm))

    def _nic(self, pci, nic, bus: str, parent: str, socket: str) -> None:
        cid = ident(f"nic-{bus}")
        net = nic.find("net") if nic is not None else None
        comp: dict = {"kind": "nic", "model": f"NIC {bus}" + (f" ({net.get('name')})" if net is not None else "")}
        speed = whole_number(net.get("speed"), max_digits=12) if net is not None else None
        network = None
        if speed:
            rate = f"{speed} Mbit/s"
            comp["line_rate"] = {"value": rate, "source": f"{self.src}: net {net.get('name')} speed"}
            network = ident(f"net-{bus}")
            self.comps[network] = {"kind": "network", "description": f"the fabric beyond {cid}"}
            self.links[f"wire-{cid}"] = {"kind": "ethernet", "between": [network, cid],
                                         "rate": {"value": rate, "source": f"{self.src}: net speed"}}
        elif net is not None and net.get("speed") not in (None, "", "0"):
            raise self.doc.error(f"nic[{bus}].net.speed", f"expected a speed in Mbit/s (a whole number of at most "
                                 f"12 digits), found {net.get('speed')[:40]!r}")
        else:
            comp["unknown"] = ["line_rate"]
        self.comps[cid] = comp
        self._pcie(cid, parent, pci)
        self.nics.append((cid, socket, network))

    def add_nvlinks(self) -> None:
        nvswitch_links: dict[str, int] = {}
        for cid, target, count, sm in self.pending_nvlinks:
            rate = nvl_bucket(sm, NVLINK_RATE_BY_SM)
            if rate is None:
                raise self.doc.error(f"{cid}.sm", f"no NVLink rate known for compute capability {sm!r}")
            lr = {"value": f"{rate / 1e9:g} GB/s", "source": "NVIDIA architecture whitepapers, per link and direction"}
            if target == "nvswitch":
                self.comps.setdefault("nvswitch", {"kind": "switch",
                                                   "model": "NVSwitch fabric (nvlink tclass 0x068000)"})
                nvswitch_links[cid] = nvswitch_links.get(cid, 0) + count
                self.links[f"nvlink-{cid}"] = {"kind": "nvlink", "between": [cid, "nvswitch"],
                                               "count": {"value": nvswitch_links[cid],
                                                         "source": f"{self.src}: nvlink count"},
                                               "link_rate": lr}
            elif target in self.gpu_by_bus:
                a, b = sorted((cid, self.gpu_by_bus[target]))
                self.links.setdefault(f"nvlink-{a}-{b}", {"kind": "nvlink", "between": [a, b],
                                                          "count": {"value": count,
                                                                    "source": f"{self.src}: nvlink count"},
                                                          "link_rate": lr})

    def _parts(self) -> dict[str, int]:
        """Each component's connected part (union-find over the links: one pass)."""
        root = {c: c for c in self.comps}

        def find(x):
            while root[x] != x:
                root[x] = root[root[x]]
                x = root[x]
            return x

        for link in self.links.values():
            a, b = (find(x) for x in link["between"])
            root[a] = b
        names = {}
        return {c: names.setdefault(find(c), len(names)) for c in self.comps}

    def _reaches_host(self, cid: str, socket: str) -> bool:
        """True if the PCIe links from ``cid`` go all the way up to its socket: a device below a
        bridge without a known link gets no host flow (it would only find another way round)."""
        seen = set()
        while cid != socket:
            link = self.links.get(f"pcie-{cid}")
            if link is None or cid in seen:
                return False
            seen.add(cid)
            cid = link["between"][1]
        return True

    def flows(self) -> dict:
        """Host -> GPU, GPU -> GPU, NIC -> host and GPUDirect flows between joined components
        (the file has no link between sockets: flows across them are left out)."""
        part = self._parts()
        flows: dict = {}
        for g, socket, _ in self.gpus:
            if self._reaches_host(g, socket):
                flows[f"host-to-{g}"] = {"source": socket, "sink": g, "description": f"host -> {g} over PCIe"}
        for i, (a, _, _) in enumerate(self.gpus):
            for b, _, _ in self.gpus[i + 1:]:
                if part[a] == part[b]:
                    flows[f"{a}-to-{b}"] = {"source": a, "sink": b, "description": f"GPU {a} -> GPU {b}"}
        for n, socket, network in self.nics:
            if network is None or not self._reaches_host(n, socket):
                continue
            flows[f"{n}-to-host"] = {"source": network, "sink": socket,
                                     "description": f"receive on {n} into host memory"}
            for g, sg, _ in self.gpus:
                if sg == socket and self._reaches_host(g, sg):
                    flows[f"{n}-to-{g}"] = {"source": network, "sink": g,
                                            "description": f"GPUDirect RDMA: receive on {n} into {g}"}
        return {name: f for name, f in flows.items() if part[f["source"]] == part[f["sink"]]}
