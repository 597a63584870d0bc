"""NCCL's topology XML (NCCL_TOPO_DUMP_FILE / NCCL_TOPO_FILE) -> a profile document, and NCCL's
own path bandwidths for comparison.

The XML nests ``cpu`` (a NUMA domain) > ``pci`` (bridges and devices, ``link_speed`` and
``link_width`` of the link to the parent) > ``gpu`` (``sm``, ``nvlink target count tclass``) and
``nic`` > ``net`` (``speed`` in Mbit/s).  Each PCI bridge becomes a switch component whose pcie link
goes up to its parent; GPUs become accelerators, NICs nics with an Ethernet/InfiniBand line where
the speed is given, NVLinks to NVSwitches (``tclass`` 0x068000) one bonded link to an NVSwitch node.
The link between sockets is not in the file: flows stay within a socket.

NCCL's bandwidths (used only by :func:`nccl_link_bandwidths`, to compare): a PCI link carries
width x code / 80 GB/s, code 15/30/60/120/240/480 (x100 Mbit/s per lane) for 2.5 .. 64 GT/s; an
NVLink count x 18 (sm 60), 20 (sm 70, 80), 20.6 (sm 90), 40.1 GB/s (sm 100); a NIC speed / 8000
GB/s; a path the minimum of its links.

References
----------
.. [1] NVIDIA, NCCL ``src/graph/topo.h`` and ``topo.cc`` (kvDictPciGen, ncclTopoAddPci, SMxx_NVLINK_BW),
   and the environment variables NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE (NCCL user guide).
.. [2] NVIDIA, *CUDA C++ Programming Guide*, "Compute Capabilities" (P100 6.0, V100 7.0, A100 8.0,
   H100 9.0, B200 10.0), and the PCI ID Repository (pci-ids.ucw.cz), vendor 10de, for the device
   ids of those parts.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import networkx as nx

from pinchpoint.errors import InputError
from pinchpoint.importers.nccl_walk import NVLINK_RATE_BY_SM, NcclTree, nvl_bucket
from pinchpoint.inputs.doc_values import ident
from pinchpoint.inputs.document import Reader
from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.measure.detect_nvlink import topo_nvlinks
from pinchpoint.measure.nvidia import parse_topo_matrix
from pinchpoint.physics.linkkinds import PCIE_GENERATIONS
from pinchpoint.solve.ceilings import all_ceilings

#: NCCL's PCI lane codes [x100 Mbit/s per lane] by lane rate [GT/s] [1].
NCCL_PCI_CODE = {2.5: 15, 5.0: 30, 8.0: 60, 16.0: 120, 32.0: 240, 64.0: 480}
#: NCCL's NVLink bandwidth per link [GB/s] by compute capability (sm) [1].
NCCL_NVLINK_GBPS = {60: 18.0, 70: 20.0, 80: 20.0, 86: 12.0, 90: 20.6, 100: 40.1}
#: Compute capability of NVIDIA data-centre GPUs by PCI device id, for files that give the PCI
#: ids but no <gpu sm=...> (NCCL's static topology files) [2].
SM_BY_DEVICE = {"0x15f8": 60, "0x15f9": 60, "0x1db1": 70, "0x1db4": 70, "0x1db5": 70, "0x1db8": 70,
                "0x20b0": 80, "0x20b2": 80, "0x20b5": 80, "0x20f1": 80, "0x2330": 90, "0x2324": 90,
                "0x2335": 90, "0x2901": 100}


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


def _tree(text: str, file: str | None) -> NcclTree:
    doc = Reader(file, InputError)
    root = _parse(text, doc)
    tree = NcclTree(doc, f"NCCL topology {file}" if file else "NCCL topology")
    cpus = root.findall("cpu")
    if not cpus:
        raise doc.error(None, "expected at least one <cpu> in <system>")
    for i, cpu in enumerate(cpus):
        sid = ident(f"cpu{cpu.get('numaid', str(i))}")
        tree.comps[sid] = {"kind": "cpu", "model": " ".join(x for x in (cpu.get("vendor"), cpu.get("arch")) if x)
                           or "CPU", "unknown": ["clock"]}
        tree.walk(cpu, sid)
    for pci in root.iter("pci"):  # the GPU's PCI device id where the file has no <gpu sm>
        cid = tree.gpu_by_bus.get((pci.get("busid") or "").lower())
        if cid and tree.sm.get(cid) is None:
            tree.sm[cid] = SM_BY_DEVICE.get((pci.get("device") or "").lower())
    tree.add_nvlinks()
    return tree


def load_topology(text: str, *, file: str | None = None, name: str | None = None,
                  nvidia_topo: str | None = None, nvidia_topo_file: str | None = None,
                  notes: list[str] | None = None) -> dict:
    """A profile document (schema 1) from NCCL topology XML, with NVLink from ``nvidia-smi topo
    -m`` text merged in where given; raises InputError naming file and key.  Links the file does
    not give (``link_width="0"``: not reported) are named in ``notes``."""
    tree = _tree(text, file)
    if tree.unlinked and notes is not None:
        more = len(tree.unlinked) - 5
        shown_ids = ", ".join(tree.unlinked[:5]) + (f" and {more} more" if more > 0 else "")
        notes.append(f"{len(tree.unlinked)} <pci> elements give no link speed and width (absent, or link_width 0: the "
                     f"kernel did not report it): {shown_ids}; their links are unknown, and devices below "
                     "them get no host flow")
    if nvidia_topo is not None:
        merge_topo_matrix(tree, nvidia_topo, file=nvidia_topo_file)
    flows = tree.flows()
    doc = {"schema": 1, "name": name or ident(f"nccl-{file or 'topology'}".rsplit("/", 1)[-1].split(".")[0]),
           "description": f"imported from NCCL topology XML ({len(tree.gpus)} GPUs, {len(tree.nics)} NICs)",
           "source": tree.src, "components": tree.comps, "links": tree.links}
    if flows:
        doc["flows"] = flows
    return doc


def merge_topo_matrix(tree: NcclTree, text: str, *, file: str | None = None) -> None:
    """NVLink from ``nvidia-smi topo -m``: its GPU i is the file's i-th GPU in PCI bus order (the
    order nvidia-smi numbers them in); the rate per link from the GPU's compute capability."""
    pairs = parse_topo_matrix(text, file=file)
    order = sorted(tree.gpus, key=lambda g: g[2])
    wanted = max((max(i, j) for i, j, _ in pairs), default=-1) + 1
    if wanted > len(order):
        raise InputError(f"the matrix names GPU{wanted - 1}, but the NCCL topology has {len(order)} GPUs",
                         file=file, key=f"GPU{wanted - 1}")
    gpu_ids = {i: cid for i, (cid, _, _) in enumerate(order)}

    def rate_of(i):
        cid = gpu_ids[i]
        r = nvl_bucket(tree.sm.get(cid), NVLINK_RATE_BY_SM)
        if r is None:
            raise InputError(f"no NVLink rate known for {cid} (no <gpu sm=...> and an unknown PCI device id)",
                             file=tree.doc.file, key=cid)
        return {"value": f"{r / 1e9:g} GB/s",
                "source": f"NVIDIA whitepaper for compute capability {tree.sm[cid]} (per link and direction)"}

    comps, links = topo_nvlinks(pairs, gpu_ids, rate_of, src=f"nvidia-smi topo -m{f' ({file})' if file else ''}")
    tree.comps.update(comps)
    tree.links.update(links)


def missing_nvlink(doc: dict) -> str | None:
    """A warning when the profile has GPUs but no NVLink: NCCL's static topology files (the
    aws-ofi-nccl files for p4d and p5) name the PCIe tree only and NCCL adds NVLink at run time,
    so GPU-to-GPU flows would come out over PCIe, an order of magnitude low."""
    gpus = sum(1 for c in doc["components"].values() if c["kind"] == "accelerator")
    if gpus < 2 or any(l["kind"] == "nvlink" for l in doc["links"].values()):
        return None
    return (f"the file has {gpus} GPUs and no <nvlink>: GPU-to-GPU flows go over PCIe only. NCCL's static "
            "topology files leave NVLink out (NCCL adds it at run time); if the GPUs have NVLink, give "
            "--nvidia-smi-topo FILE (the machine's `nvidia-smi topo -m`)")


def _widest(edges: dict[tuple[str, str], float], a: str, b: str) -> float:
    """The bandwidth of the widest path from a to b: its narrowest link (the path lies in the
    maximum spanning tree, so one tree path answers)."""
    g = nx.Graph()
    for (u, v), bw in edges.items():
        if not g.has_edge(u, v) or g.edges[u, v]["bw"] < bw:
            g.add_edge(u, v, bw=bw)
    tree = nx.maximum_spanning_tree(g, weight="bw")
    path = nx.shortest_path(tree, a, b)
    return min(tree.edges[u, v]["bw"] for u, v in zip(path, path[1:]))


def nccl_link_bandwidths(text: str, *, file: str | None = None, **topo) -> dict[tuple[str, str], float]:
    """NCCL's bandwidth [B/s] of every link of the profile :func:`load_topology` makes, keyed by
    its two components: PCI width x code / 80 GB/s, NVLink count x SMxx_NVLINK_BW, a NIC's speed
    / 8000 GB/s [1]."""
    doc = load_topology(text, file=file, **topo)
    sms = _tree(text, file).sm
    out = {}
    for l in doc["links"].values():
        a, b = l["between"]
        if l["kind"] == "pcie":
            code = NCCL_PCI_CODE[PCIE_GENERATIONS[l["generation"]].lane_rate / 1e9]
            bw = l["lanes"]["value"] * code / 80 * 1e9
        elif l["kind"] == "nvlink":
            bw = l["count"]["value"] * nvl_bucket(sms.get(a), NCCL_NVLINK_GBPS) * 1e9
        else:
            bw = float(l["rate"]["value"].split()[0]) / 8000 * 1e9
        out[(a, b)] = bw
    return out


def compare_with_nccl(text: str, *, file: str | None = None, **topo) -> list[dict]:
    """Each flow of the imported profile: NCCL's path bandwidth beside pinchpoint's, both along
    the widest single path (raw and after protocol overhead) and as pinchpoint's max-flow ceiling,
    which may spread a flow over several paths (through NVLink and other switches' uplinks)."""
    doc = load_topology(text, file=file, **topo)
    profile = profile_from_document(doc, file=file)
    nccl = nccl_link_bandwidths(text, file=file, **topo)
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
