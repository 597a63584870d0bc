"""NVIDIA's own view of its GPUs: ``nvidia-smi -q`` and ``nvidia-smi topo -m`` text -> facts.

Parsers only (text in, frozen facts out); running nvidia-smi lives in the CLI.  A line that is
absent leaves its value unknown; a matrix cell that is neither a path type nor ``NV#`` raises
:class:`~pinchpoint.errors.InputError` naming the file and the cell.

References
----------
.. [1] NVIDIA, *nvidia-smi(1)* manual, "-q" (GPU Link Info, FB Memory Usage, Max Clocks) and
   "topo -m" (X, SYS, NODE, PHB, PXB, PIX, NV#: a bonded set of # NVLinks).
.. [2] NVIDIA architecture whitepapers: P100 (NVLink 1: 4 links, 160 GB/s in total), V100
   (NVLink 2: 6 links, 300 GB/s), A100 (NVLink 3: 12 links, 600 GB/s), H100 (NVLink 4: 18 links,
   900 GB/s), Blackwell (NVLink 5: 18 links, 1.8 TB/s): per link and direction 20, 25, 25, 25 and
   50 GB/s.
"""

from __future__ import annotations

import re

from pinchpoint.errors import InputError
from pinchpoint.measure.machine_facts import GpuFact

#: NVLink data rate per link and direction by GPU architecture [B/s] [2].
NVLINK_RATE = {"Pascal": 20e9, "Volta": 25e9, "Ampere": 25e9, "Hopper": 25e9, "Blackwell": 50e9}

#: GPU product names -> architecture, for names that state no architecture (hwloc's GPUModel):
#: the data-centre parts of each generation (NVIDIA's product pages and whitepapers [2]).
_ARCH_OF_NAME = ((re.compile(r"\bG?B[12]00\b|Blackwell"), "Blackwell"),
                 (re.compile(r"\bG?H[12]00\b|\bH800\b|Hopper"), "Hopper"),
                 (re.compile(r"\bA(100|800|30)\b"), "Ampere"),
                 (re.compile(r"\bV100\b"), "Volta"),
                 (re.compile(r"\bP100\b"), "Pascal"))

_GPU_HEAD = re.compile(r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_FIELD = re.compile(r"^(\s*)([^:]+?)\s*:\s*(.*?)\s*$")
_MIB = re.compile(r"^([0-9]+)\s*MiB$")
_MHZ = re.compile(r"^([0-9]+)\s*MHz$")
_PATH_TYPES = {"X", "SYS", "NODE", "PHB", "PXB", "PIX", "PXN", "SOC", "N/A"}


def architecture_of(name: str | None) -> str | None:
    """The architecture of an NVIDIA data-centre GPU from its product name ("Tesla V100-SXM3-32GB"
    -> "Volta"), None where the name does not say."""
    for pattern, arch in _ARCH_OF_NAME:
        if name and pattern.search(name):
            return arch
    return None


def _address(bus_id: str) -> str:
    """nvidia-smi's "00000000:00:06.0" -> sysfs's "0000:00:06.0"."""
    domain, rest = bus_id.split(":", 1)
    return f"{int(domain, 16):04x}:{rest}".lower()


def parse_nvidia_smi_q(text: str, *, file: str | None = None) -> tuple[GpuFact, ...]:
    """The GPUs of ``nvidia-smi -q`` in its order (the order of ``topo -m`` and CUDA's PCI order) [1]."""
    gpus: list[dict] = []
    section: list[tuple[int, str]] = []  # (indent, heading) above the current line
    for line in text.splitlines():
        head = _GPU_HEAD.match(line)
        if head:
            gpus.append({"index": len(gpus), "pci_address": _address(head.group(1))})
            section = []
            continue
        m = _FIELD.match(line)
        if not gpus or not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while section and section[-1][0] >= indent:
            section.pop()
        if not m or m.group(3) == "":
            section.append((indent, line.strip()))
            continue
        key, value = m.group(2).strip(), m.group(3)
        where = tuple(h for _, h in section)
        g = gpus[-1]
        if key == "Product Name" and not where:
            g["name"] = value
        elif key == "Product Architecture" and not where:
            g["architecture"] = value
        elif key == "Total" and where[-1:] == ("FB Memory Usage",):
            mib = _MIB.match(value)
            if not mib:
                raise InputError(f"expected 'FB Memory Usage: Total' as 'N MiB', found {value!r}", file=file)
            g["memory_bytes"] = int(mib.group(1)) * 2 ** 20
        elif key == "Memory" and where[-1:] == ("Max Clocks",):
            mhz = _MHZ.match(value)
            if mhz:  # "N/A" stays unknown
                g["memory_clock"] = int(mhz.group(1)) * 1e6
    return tuple(GpuFact(**g) for g in gpus)


def parse_topo_matrix(text: str, *, file: str | None = None) -> tuple[tuple[int, int, int], ...]:
    """(GPU i, GPU j, bonded NVLinks) for each pair i < j that ``topo -m`` joins by ``NV#`` [1]."""
    rows = [line.replace("\x1b[4m", "").replace("\x1b[0m", "") for line in text.splitlines()]
    header = next((r for r in rows if r.strip().startswith("GPU0")), None)
    if header is None:
        return ()
    columns = [c.strip() for c in header.strip().split("\t")]
    gpu_cols = [i for i, c in enumerate(columns) if re.fullmatch(r"GPU[0-9]+", c)]
    out = []
    for r in rows:
        cells = [c.strip() for c in r.split("\t")]
        if not cells or not re.fullmatch(r"GPU[0-9]+", cells[0]) or r is header:
            continue
        i = int(cells[0][3:])
        for ci in gpu_cols:
            if ci + 1 >= len(cells):
                break
            cell = cells[ci + 1]
            j = int(columns[ci][3:])
            nv = re.fullmatch(r"NV([0-9]+)", cell)
            if nv:
                if i < j:
                    out.append((i, j, int(nv.group(1))))
            elif cell not in _PATH_TYPES:
                raise InputError(f"expected a path type (X, SYS, NODE, PHB, PXB, PIX) or NV#, found {cell!r}",
                                 file=file, key=f"GPU{i}/GPU{j}")
    return tuple(out)
