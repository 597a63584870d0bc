"""hwloc's I/O tree, memory nodes and NVLink matrix -> facts (the device half of
:func:`pinchpoint.measure.hwloc.parse_hwloc_xml`).

Sources: hwloc, *XML topology format* (hwloc2.dtd) and the hwloc manual, "I/O Devices" and
"Distances" (hwloc 2.x/3.0):

- I/O objects hang below the CPU object nearest to them (a Package, a Group or the Machine);
  a host bridge (``bridge_type="0-1"``, no ``pci_busid``) holds root ports, root ports and switch
  ports are ``Bridge`` objects with a ``pci_busid``, and each PCI object's ``pci_link_speed``
  [GB/s] is what its PCIe capability reports for its link (the link above an endpoint or a
  switch upstream port; a root or downstream port reports the link below it).
- ``osdev_type``: format 3.0 stores bit flags (1 storage, 2 memory, 4 GPU, 8 co-processor,
  16 network, 32 OpenFabrics, 64 DMA; "OpenFabrics devices are now also Network"), so an HCA
  shows a network interface (``ib0``, 16) and its verbs device (``mlx4_0``, 48) on one PCI
  function; formats 1.x and 2.x number the types (0 block, 1 GPU, 2 network, 3 OpenFabrics).
- Memory: NUMANode ``subtype`` ("DRAM", "HBM", "MCDRAM", "NVM") and memory-side caches in
  front of NUMA nodes: ``MemCache`` objects (hwloc 2.1+) or, in older files, an ``L3Cache``
  with ``subtype="MemorySideCache"`` (Knights Landing's MCDRAM in cache mode) -- memory, not a
  CPU cache.
- ``NVLinkBandwidth`` (NVML): the matrix of unidirectional NVLink bandwidths in MB/s, links
  aggregated, 0 where none, the diagonal artificially high; GPUs first (NVML OS devices
  "nvmlN"), then NVSwitch PCI devices or POWER Packages.
"""

from __future__ import annotations

import re

from pinchpoint.errors import InputError
from pinchpoint.inputs.doc_values import whole_number
from pinchpoint.measure.machine_facts import (DiskFact, GpuFact, MemoryFact, NicFact, NvlinkFact, PciDevice,
                                              positive_or_none)

#: format 3.0 osdev_type bits
_OSDEV3_STORAGE, _OSDEV3_MEMORY, _OSDEV3_NETWORK, _OSDEV3_OPENFABRICS = 1, 2, 16, 32
#: formats 1.x and 2.x osdev_type numbers
_OSDEV2_BLOCK, _OSDEV2_NETWORK = 0, 2
_NVML = re.compile(r"^nvml([0-9]{1,4})$")
#: NUMANode subtypes that are on-package high-bandwidth memory, not DIMMs
HBM_KINDS = ("HBM", "MCDRAM")


class Tree:
    """The XML elements with their parents and packages (ElementTree keeps no parent links)."""

    def __init__(self, root, file):
        self.file = file
        self.parent = {child: el for el in root.iter() for child in el}
        self.packages = [o for o in root.iter("object") if o.get("type") in ("Package", "Socket")]
        self._index = {id(p): i for i, p in enumerate(self.packages)}
        self._bits = [bitmap(p.get("cpuset"), file) for p in self.packages]

    def ancestors(self, el):
        el = self.parent.get(el)
        while el is not None:
            yield el
            el = self.parent.get(el)

    def package_of(self, el) -> int | None:
        """The package an object sits in (its ancestor), else the one whose CPUs its nearest CPU
        object covers (I/O below a Group or a NUMA-level object); None when several or none."""
        for a in self.ancestors(el):
            if id(a) in self._index:
                return self._index[id(a)]
            bits = bitmap(a.get("cpuset"), self.file) if a.get("cpuset") else None
            if bits:
                hits = [i for i, pb in enumerate(self._bits) if pb and pb & bits]
                return hits[0] if len(hits) == 1 else None
        return None


def bitmap(text: str | None, file) -> int | None:
    """An hwloc bitmap ("0x000ff000", "0xffffffff,0x0000000f": 32-bit words, most significant
    first) as an int; None for none or an infinite set ("0xf...f")."""
    if not text or "f...f" in text:
        return None
    words = [w.strip().lower().removeprefix("0x") for w in text.split(",")]
    if len(words) > 4096 or not all(re.fullmatch(r"[0-9a-f]{0,8}", w) for w in words):
        raise InputError(f"expected an hwloc cpuset such as 0x000000ff, found {text[:40]!r}", file=file,
                         key="cpuset")
    return int("".join(w.rjust(8, "0") for w in words), 16)


def int_attr(el, name, file, *, default=None):
    raw = el.get(name)
    if raw is None:
        return default
    text = raw.strip()
    value = whole_number(text.removeprefix("-"))
    if value is None:
        raise InputError(f"attribute {name}={raw[:40]!r} of a {el.get('type')} object is not a whole number "
                         "of at most 24 digits", file=file, key=name)
    return -value if text.startswith("-") else value


def float_attr(el, name, file):
    raw = el.get(name)
    if raw is None:
        return None
    try:
        if len(raw) > 64:
            raise ValueError
        return float(raw)
    except ValueError:
        raise InputError(f"attribute {name}={raw[:40]!r} of a {el.get('type')} object is not a number",
                         file=file, key=name) from None


def infos(el) -> dict[str, str]:
    return {i.get("name"): i.get("value") for i in el.findall("info") if i.get("name")}


def kib(text: str | None) -> int | None:
    """hwloc's Size info: KiB, "10485760" (formats 1.x, 2.x) or "10485760KiB" (3.0) -> bytes."""
    m = re.match(r"^\s*([0-9]+)\s*(KiB)?\s*$", text or "")
    n = whole_number(m.group(1)) if m else None
    return n * 1024 if n is not None else None


def _osdev_kind(od, major: int, file) -> str | None:
    """'network', 'openfabrics' (a verbs device, network too), 'disk' or None for an OSDev."""
    kind = int_attr(od, "osdev_type", file)
    if kind is None:
        return None
    if major >= 3:
        if kind & _OSDEV3_NETWORK:
            return "openfabrics" if kind & _OSDEV3_OPENFABRICS else "network"
        if kind & _OSDEV3_STORAGE and not kind & _OSDEV3_MEMORY:  # CXL PMEM is memory first
            return "disk"
        return None
    if kind == _OSDEV2_BLOCK and od.get("subtype") == "CXLMem":  # 2.x files list CXL memory as block
        return None
    return {_OSDEV2_NETWORK: "network", _OSDEV2_BLOCK: "disk"}.get(kind)


def _pci_ids(o) -> tuple[str | None, str | None, str | None]:
    """(class, vendor, device) from ``pci_type`` ("0302 [10de:1db8] [10de:131d] a1 00")."""
    ptype = (o.get("pci_type") or "").split()
    if not ptype:
        return None, None, None
    ids = ptype[1].strip("[]").split(":") if len(ptype) > 1 else []
    vendor, device = ("0x" + ids[0].lower(), "0x" + ids[1].lower()) if len(ids) == 2 else (None, None)
    return "0x" + ptype[0].lower(), vendor, device


def _pci_parent(tree: Tree, o) -> str | None:
    """The bus address of the port above a PCI object; None below a host bridge."""
    up = tree.parent.get(o)
    if up is not None and up.get("type") in ("Bridge", "PCIDev") and up.get("pci_busid"):
        return up.get("pci_busid").lower()
    return None


def pci_devices(objects, tree: Tree, major: int):
    """(PCI functions and bridges, NICs, disks, NVML GPUs) of the I/O tree."""
    file = tree.file
    pci, nics, disks, gpus = [], [], [], []
    for o in objects:
        if o.get("type") not in ("PCIDev", "Bridge") or not o.get("pci_busid"):
            continue
        addr = o.get("pci_busid").lower()
        class_code, vendor, device = _pci_ids(o)
        speed = positive_or_none(float_attr(o, "pci_link_speed", file))  # 0: no link; nan, inf: nonsense
        pci.append(PciDevice(addr, class_code, vendor, device, link_bytes_per_s=speed * 1e9 if speed else None,
                             parent=_pci_parent(tree, o), package=tree.package_of(o), subtype=o.get("subtype")))
        if o.get("type") != "PCIDev":
            continue
        nets: list[tuple[str, str]] = []
        for od in o.findall("object"):
            name = od.get("name")
            if od.get("type") != "OSDev" or not name:
                continue
            kind = _osdev_kind(od, major, file)
            if kind in ("network", "openfabrics"):
                nets.append((kind, name))
            elif kind == "disk":
                disks.append(DiskFact(name, kib(infos(od).get("Size")), pci_address=addr))
            gpu = _NVML.match(name)
            if gpu:
                gpus.append(GpuFact(int(gpu.group(1)), addr, infos(od).get("GPUModel")))
        # One NIC per PCI function: a verbs device beside the function's network interface is
        # the same port seen through another driver stack.
        plain = [n for k, n in nets if k == "network"]
        nics += [NicFact(n, pci_address=addr) for n in (plain or [n for _, n in nets])]
    return pci, nics, disks, gpus


def memories(objects, tree: Tree) -> list[MemoryFact]:
    """Each NUMA node's memory, its kind and the memory-side cache in front of it."""
    out = []
    for o in objects:
        if o.get("type") != "NUMANode":
            continue
        side = None
        up = tree.parent.get(o)
        if up is not None and (up.get("type") == "MemCache" or up.get("subtype") == "MemorySideCache"):
            side = positive_or_none(int_attr(up, "cache_size", tree.file))
        size = int_attr(o, "local_memory", tree.file)
        out.append(MemoryFact(int_attr(o, "os_index", tree.file, default=len(out)),
                              size if size and size > 0 else None, o.get("subtype"), tree.package_of(o), side))
    return out


def _matrix_objects(dist, by_gp, file) -> list:
    """The objects a distances matrix names: "Type:gp_index" tokens (distances2hetero), or gp
    or os indexes of one type (distances2)."""
    tokens = " ".join(i.text or "" for i in dist.findall("indexes")).split()
    out = []
    for t in tokens:
        typ, _, idx = t.rpartition(":")
        n = whole_number(idx)
        if n is None:
            raise InputError(f"expected object indexes such as 'OSDev:802', found {t[:40]!r}", file=file,
                             key=f"distances {dist.get('name')}")
        out.append(by_gp.get((typ or dist.get("type"), n)) if dist.get("indexing") != "os" else None)
    return out


def nvlink_matrix(root, tree: Tree) -> list[NvlinkFact]:
    """NVLink connections from the NVLinkBandwidth matrix: one per pair with a non-zero entry,
    ends named by the PCI address of the GPU or NVSwitch ("pci:0000:34:00.0") or the package."""
    file = tree.file
    by_gp = {}
    for o in root.iter("object"):
        gp = whole_number(o.get("gp_index"))
        if gp is not None:
            by_gp[(o.get("type"), gp)] = o
    out = []
    for dist in list(root.iter("distances2hetero")) + list(root.iter("distances2")):
        if dist.get("name") != "NVLinkBandwidth":
            continue
        objs = _matrix_objects(dist, by_gp, file)
        values = " ".join(v.text or "" for v in dist.findall("u64values")).split()
        n = len(objs)
        if len(values) != n * n:
            raise InputError(f"the NVLinkBandwidth matrix has {len(values)} values for {n} objects "
                             f"(expected {n * n})", file=file, key="distances NVLinkBandwidth")
        ends = [_end(o, tree) for o in objs]
        for i in range(n):
            for j in range(i + 1, n):
                mb = whole_number(values[i * n + j])
                if mb is None:
                    raise InputError(f"expected a bandwidth in MB/s, found {values[i * n + j][:40]!r}",
                                     file=file, key="distances NVLinkBandwidth")
                if mb and ends[i] and ends[j]:
                    out.append(NvlinkFact(ends[i], ends[j], mb * 1e6))
    return out


def _end(o, tree: Tree) -> str | None:
    if o is None:
        return None
    if o.get("type") in ("Package", "Socket"):
        return f"package:{tree.packages.index(o)}"
    for el in (o, *tree.ancestors(o)):
        if el.get("type") == "PCIDev" and el.get("pci_busid"):
            return f"pci:{el.get('pci_busid').lower()}"
    return None
