"""What `detect --hwloc-xml` makes of real hwloc topologies (hwloc's own test files).

Usage::

    python3 benchmarks/hwloc_topologies.py FILE.xml [FILE.xml ...]

For example the files of hwloc's repository (https://github.com/open-mpi/hwloc):
tests/hwloc/xml/nvidiaDGX2.xml, tests/hwloc/xml/64intel64-heteromem.xml (Knights Landing with
MCDRAM as memory-side cache), tests/hwloc/linux/32em64t-2n8c+dax+nvme+mic+dimms.xml (an
InfiniBand HCA: ib0 and mlx4_0), tests/hwloc/xml/power8gpudistances.xml (NVLink to the CPU).

Prints per file: packages, PCIe switches, each GPU's package and PCIe path, NICs, NVLink links,
caches and memories, and -- where there are several accelerators -- each one's share of the
host's bandwidth when the host copies to all of them at once (scenario host-to-all-accelerators),
grouped by the uplink that binds.  Nothing is asserted here; the unit tests use small fixtures.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path


def report(path: Path) -> None:
    from pinchpoint.inputs.profile import profile_from_document
    from pinchpoint.measure.detect import facts_to_profile_document, parse_hwloc_xml
    from pinchpoint.solve.ceilings import scenario_ceilings

    facts = parse_hwloc_xml(path.read_text(), file=str(path))
    doc = facts_to_profile_document(facts)
    comps, links = doc["components"], doc.get("links", {})
    print(f"== {path.name}: {facts.sockets} package(s), {facts.cores} cores, {len(facts.pci)} PCI functions")
    print("  caches   " + ", ".join(f"L{c.level}{c.type[0]} {c.size_bytes // 1024} KiB" for c in facts.caches))
    mems = [(k, v) for k, v in comps.items() if v["kind"] == "memory"]
    print("  memory   " + ", ".join(f"{k}: {v['size']['value'] if isinstance(v.get('size'), dict) else '?'}"
                                    + (f" ({v['description']})" if v.get("description") else "") for k, v in mems))
    switches = [c for c in comps if c.startswith("pcisw")]
    print(f"  switches {len(switches)} PCIe, {sum(1 for c in comps if c.startswith('nvswitch'))} NVSwitch")
    print(f"  nics     {', '.join(c for c, v in comps.items() if v['kind'] == 'nic') or 'none'}")
    nvl = [v for v in links.values() if v["kind"] == "nvlink"]
    print(f"  nvlink   {len(nvl)} links, {sum(v['count']['value'] for v in nvl)} bonded NVLinks")
    for c, v in comps.items():
        if v["kind"] != "accelerator":
            continue
        path_up, lid = [], f"pcie-{c}"
        while lid in links:
            up = links[lid]["between"][1]
            rate = links[lid].get("lanes", {}).get("source", "").rsplit(": ", 1)[-1]
            path_up.append(f"{up} [{rate}]")
            lid = f"pcie-{up}"
        print(f"  {c:<8} {v.get('model', '')}: " + " -> ".join(path_up))
    if "host-to-all-accelerators" in doc.get("scenarios", {}):
        profile = profile_from_document(doc)
        shares = defaultdict(list)
        for row in scenario_ceilings(profile, "host-to-all-accelerators"):
            shares[", ".join(row.binding)].append((row.name.split("/")[-1], row.ceiling_bytes_per_s))
        print("  host copies to every accelerator at once (raw GB/s each; grouped by binding link):")
        for binding, rows in shares.items():
            total = sum(r for _, r in rows)
            print(f"    {binding}: {len(rows)} flows x {rows[0][1] / 1e9:.4g} = {total / 1e9:.4g} GB/s")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        report(Path(name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
