"""Hypothesis strategies shared by the property tests: random machine profiles as documents."""

from __future__ import annotations

from hypothesis import strategies as st

from pinchpoint.linkkinds import KINDS

#: Kinds drawn from the registry's own examples (a new kind brings its test strategy with it).
EXAMPLE_KINDS = ["hbm", "nvlink", "nvlink-c2c", "upi", "xgmi", "cxl"]

RATE_UNITS = {  # unit -> bytes per second in one of it
    "Gbit/s": 1e9 / 8, "Mbit/s": 1e6 / 8, "GB/s": 1e9, "MB/s": 1e6, "kB/s": 1e3, "GiB/s": 2**30,
}


def rate_text(bytes_per_s: float, unit: str) -> str:
    return f"{bytes_per_s / RATE_UNITS[unit]!r} {unit}"


@st.composite
def link_tables(draw, a: str, b: str):
    """A link between a and b of a random kind with random parameters."""
    kind = draw(st.sampled_from(["link", "link", "pci", "memory", "hypertransport", "pcie", "registry"]))
    if kind == "registry":
        kind = draw(st.sampled_from(EXAMPLE_KINDS))
        return {"kind": kind, "between": [a, b], **KINDS[kind].example}
    table = {"kind": kind, "between": [a, b]}
    if kind == "link":
        table["rate"] = rate_text(draw(st.floats(1e6, 1e11)), draw(st.sampled_from(list(RATE_UNITS))))
        table["shared"] = draw(st.sampled_from([0, 1]))
    elif kind == "pcie":
        table["generation"] = draw(st.integers(1, 5))
        table["lanes"] = draw(st.sampled_from([1, 2, 4, 8, 16]))
    else:
        table["width"] = f"{draw(st.sampled_from([8, 16, 32, 64, 128]))} bit"
        table["clock"] = f"{draw(st.floats(10, 2000))!r} MHz"
    return table


@st.composite
def profile_documents(draw, mesh: bool | None = None, max_nodes: int = 7):
    """A connected random profile: a random tree, plus extra links when ``mesh``, plus flows."""
    n = draw(st.integers(2, max_nodes))
    names = [f"n{i}" for i in range(n)]
    components = {name: {"kind": "device"} for name in names}
    links = {}
    i = 1
    while i < n:
        parent = draw(st.integers(0, i - 1))
        if i + 1 < n and draw(st.booleans()):
            # a shared bus: the parent and two new components hang on one hub (still a tree)
            bus = draw(link_tables(names[parent], names[i]))
            if bus["kind"] in ("pci", "memory") or (bus["kind"] == "link" and bus["shared"]):
                bus["between"].append(names[i + 1])
                links[f"l{i}"] = bus
                i += 2
                continue
        links[f"l{i}"] = draw(link_tables(names[parent], names[i]))
        i += 1
    if mesh if mesh is not None else draw(st.booleans()):
        extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4))
        for k, (i, j) in enumerate(extra):
            if i != j:
                links[f"x{k}"] = draw(link_tables(names[i], names[j]))
    flows = {}
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=1, max_size=3))
    for k, (i, j) in enumerate(pairs):
        if i != j:
            flows[f"f{k}"] = {"source": names[i], "sink": names[j]}
    if n >= 3:
        flows["round-trip"] = {"legs": [[names[0], names[-1]], [names[-1], names[1]]]}
    if not flows:
        flows["f"] = {"source": names[0], "sink": names[1]}
    return {"schema": 1, "name": "random", "components": components, "links": links, "flows": flows}
