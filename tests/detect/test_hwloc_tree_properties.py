"""Properties of the PCIe tree detect builds from hwloc XML, on random trees of root ports,
switches (an upstream port with downstream ports below) and GPUs on two packages.

Independent of the builder: the expected answer comes from the generated tree itself -- each
GPU's path up is its chain of switches to its own package, and when the host copies to every GPU
at once, the GPUs below one root port share that port's rate equally (a common scale for every
flow, so each gets the smallest uplink rate over the number of GPUs sharing it).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.inputs.profile import profile_from_document
from pinchpoint.measure.detect import facts_to_profile_document, parse_hwloc_xml
from pinchpoint.solve.ceilings import scenario_ceilings

#: hwloc's pci_link_speed [GB/s] of PCIe 3.0 x16, 3.0 x8 and 4.0 x16 (lane rate x lanes x 128/130 / 8)
RATES = (15.753846, 7.876923, 31.507692)


class _Bus:
    def __init__(self):
        self.n = 0

    def next(self) -> str:
        self.n += 1
        return f"0000:{self.n // 8:02x}:{self.n % 8:02x}.0"


def _gpu(bus: _Bus, rate: float, gpus: list, package: int, path: list) -> str:
    addr = bus.next()
    gpus.append((addr, package, path))
    return (f'<object type="PCIDev" pci_busid="{addr}" pci_type="0302 [10de:1db8] [10de:131d] a1 00" '
            f'pci_link_speed="{rate}"/>')


def _switch(draw, bus: _Bus, depth: int, gpus: list, package: int, path: list) -> str:
    """An upstream port, its downstream ports and what hangs below each (a GPU or a switch)."""
    usp = bus.next()
    rate = draw(st.sampled_from(RATES))
    below = []
    for _ in range(draw(st.integers(1, 3))):
        dsp = bus.next()
        child = (_switch(draw, bus, depth + 1, gpus, package, path + [(usp, rate)])
                 if depth < 2 and draw(st.booleans()) else
                 _gpu(bus, draw(st.sampled_from(RATES)), gpus, package, path + [(usp, rate)]))
        below.append(f'<object type="Bridge" pci_busid="{dsp}" pci_type="0604 [10b5:9781] [10b5:9781] b0 00" '
                     f'pci_link_speed="{rate}">{child}</object>')
    return (f'<object type="Bridge" pci_busid="{usp}" pci_type="0604 [10b5:9781] [10b5:9781] b0 00" '
            f'pci_link_speed="{rate}">{"".join(below)}</object>')


@st.composite
def trees(draw):
    bus, gpus, packages = _Bus(), [], []
    for p in range(2):
        ports = []
        for _ in range(draw(st.integers(1, 2))):
            rp = bus.next()
            below = (_switch(draw, bus, 0, gpus, p, []) if draw(st.booleans())
                     else _gpu(bus, draw(st.sampled_from(RATES)), gpus, p, []))
            ports.append(f'<object type="Bridge" pci_busid="{rp}" pci_type="0604 [8086:2030] [0000:0000] 04 00" '
                         f'pci_link_speed="15.753846">{below}</object>')
        packages.append(f'<object type="Package" os_index="{p}" cpuset="0x{1 << p:08x}"><object type="Core" '
                        f'cpuset="0x{1 << p:08x}"><object type="PU" cpuset="0x{1 << p:08x}"/></object>'
                        f'<object type="Bridge" bridge_type="0-1" depth="0">{"".join(ports)}</object></object>')
    xml = f'<topology version="3.0"><object type="Machine" cpuset="0x00000003">{"".join(packages)}</object></topology>'
    return xml, gpus


@settings(max_examples=40, deadline=None)
@given(trees())
def test_each_gpu_hangs_off_its_own_switches_and_package(tree):
    xml, gpus = tree
    doc = facts_to_profile_document(parse_hwloc_xml(xml))
    links = doc["links"]
    by_addr = {a: (p, path) for a, p, path in gpus}
    for cid, comp in doc["components"].items():
        if comp["kind"] != "accelerator":
            continue
        address = cid.removeprefix("gpu-").replace("-", ":", 2).replace("-", ".")
        package, path = by_addr[address]
        chain, lid = [], f"pcie-{cid}"
        while lid in links:
            chain.append(links[lid]["between"][1])
            lid = f"pcie-{chain[-1]}"
        switches = [f"pcisw-{usp.replace(':', '-').replace('.', '-')}" for usp, _ in reversed(path)]
        assert chain == switches + [f"cpu{package}"]


@settings(max_examples=25, deadline=None)
@given(trees())
def test_gpus_below_one_uplink_share_it(tree):
    xml, gpus = tree
    doc = facts_to_profile_document(parse_hwloc_xml(xml))
    if "host-to-all-accelerators" not in doc.get("scenarios", {}):
        return  # a single GPU: nothing shares
    rows = scenario_ceilings(profile_from_document(doc), "host-to-all-accelerators")
    # every flow gets the same share: the tightest uplink rate over the GPUs below it
    sharing: dict = {}
    for address, _, path in gpus:
        for usp, rate in path:
            sharing.setdefault(usp, [rate, 0])[1] += 1
    leaf = {a: None for a, _, _ in gpus}
    text = xml
    for address in leaf:  # a GPU's own link also bounds its flow
        start = text.index(f'pci_busid="{address}"')
        leaf[address] = float(text[start:].split('pci_link_speed="', 1)[1].split('"', 1)[0])
    expected = min([rate / n for rate, n in sharing.values()] + list(leaf.values())) * 1e9
    for r in rows:
        assert abs(r.ceiling_bytes_per_s - expected) <= 1e-6 * expected
