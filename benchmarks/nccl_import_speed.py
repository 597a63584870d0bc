"""How long `import nccl` takes on a large NCCL topology: N GPUs (default 600) in groups of four
below PCIe 5.0 switches on two sockets, each GPU with 18 NVLinks to an NVSwitch.

Usage::

    python3 benchmarks/nccl_import_speed.py [GPUS ...]

Prints the file size, the number of flows and the seconds for load_topology (the document)
and for profile_from_document (the checked profile), best of three runs each.  Flows grow as
GPUs squared (every GPU pair on one NVLink fabric); the work per flow must stay constant, so
the time per flow is printed too.
"""

from __future__ import annotations

import sys
import time


def topology(gpus: int) -> str:
    """An NCCL_TOPO_DUMP_FILE-style XML with ``gpus`` GPUs, four per switch, half per socket."""
    parts = ['<system version="1">']
    per_socket = (gpus + 1) // 2
    n = 0
    for socket in range(2):
        parts.append(f'<cpu numaid="{socket}" arch="x86_64" vendor="GenuineIntel">')
        for sw in range((min(per_socket, gpus - n) + 3) // 4):
            bus = socket * 128 + sw
            parts.append(f'<pci busid="{bus // 256:04x}:{bus % 256:02x}:00.0" class="0x060400" '
                         'link_speed="32.0 GT/s PCIe" link_width="16">')
            for _ in range(min(4, gpus - n, per_socket * (socket + 1) - n)):
                parts.append(f'<pci busid="{1 + n // 256:04x}:{n % 256:02x}:00.0" class="0x030200" '
                             f'link_speed="32.0 GT/s PCIe" link_width="16"><gpu dev="{n}" sm="90">'
                             '<nvlink target="0000:ff:00.0" count="18" tclass="0x068000"/></gpu></pci>')
                n += 1
            parts.append("</pci>")
        parts.append("</cpu>")
    parts.append("</system>")
    return "\n".join(parts)


def best(func, runs: int = 3) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = func()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(argv: list[str]) -> int:
    from pinchpoint.importers.nccl_topo import load_topology
    from pinchpoint.inputs.profile import profile_from_document

    for gpus in [int(a) for a in argv] or [600]:
        text = topology(gpus)
        t_doc, doc = best(lambda: load_topology(text, file="big.xml"))
        t_prof, _ = best(lambda: profile_from_document(doc, file="big.xml"))
        flows = len(doc.get("flows", {}))
        print(f"{gpus} GPUs: {len(text) / 1e3:.0f} kB, {flows} flows; load_topology {t_doc:.2f} s "
              f"({t_doc / flows * 1e6:.1f} us/flow), profile_from_document {t_prof:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
