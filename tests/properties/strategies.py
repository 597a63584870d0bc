"""Hypothesis strategies shared by the property tests: random machine profiles as documents."""

from __future__ import annotations

from hypothesis import strategies as st

from pinchpoint.physics.linkkinds import KINDS, RATE_UNITS
from pinchpoint.inputs.profile import profile_from_document

__all__ = ["RATE_UNITS", "half_duplex", "kind_names", "link_tables", "profile_documents", "rate_text"]


def rate_text(bytes_per_s: float, unit: str) -> str:
    return f"{bytes_per_s / RATE_UNITS[unit]!r} {unit}"


def kind_names():
    """Every registered link kind (read when drawn: a kind registered by a test is drawn too),
    the generic ``link`` twice as often (it is the one most profiles use)."""
    return st.deferred(lambda: st.sampled_from(sorted(KINDS) + ["link"]))


@st.composite
def link_tables(draw, a: str, b: str):
    """A link between a and b of a random kind, its parameters drawn by the kind's own registry
    entry (``LinkKind.sample``) from a random source hypothesis controls and shrinks."""
    kind = draw(kind_names())
    rng = draw(st.randoms(use_true_random=False))
    return {"kind": kind, "between": [a, b], **KINDS[kind].random_table(rng)}


def half_duplex(table: dict) -> bool:
    """Whether a link table describes a shared (half-duplex) bus, as the kind's duplex rule says."""
    ends = table["between"][:2]
    doc = {"schema": 1, "components": {e: {"kind": "device"} for e in ends},
           "links": {"l": {**table, "between": ends}}}
    return profile_from_document(doc).links["l"].duplex == "half"


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
            if half_duplex(bus):
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
