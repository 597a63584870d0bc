"""Machine profiles as data objects: components, links, flows, scenarios; each checks itself when built.

A profile has components (the nodes of the graph: cpu, memory, nic, bridge, controller, disk,
network, device, accelerator, switch; :mod:`pinchpoint.physics.componentkinds`), links between them
(the edges: buses and lines, each of a kind in :mod:`pinchpoint.physics.linkkinds`), named flows and
scenarios.  Every numeric value is kept as an SI float together with the text it was written as
and its source, so that explanations can quote both.

Every object is frozen all the way down (mappings are FrozenMaps, sequences tuples), so it hashes
and cannot be changed after it is built, and it checks its own invariants once, where it is built
(as pint's definitions do): an invalid Link cannot exist, whoever builds it.  The document reader
(:mod:`pinchpoint.inputs.profile_reader`) only turns text into these objects; reading files,
``extends`` and finding bundled profiles live in :mod:`pinchpoint.inputs.profile_io`.
:mod:`pinchpoint.inputs.profile` offers these objects and the reader under one name.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, replace
from typing import Mapping

from pinchpoint.errors import ProfileError
from pinchpoint.frozen import FrozenMap, freeze_map
from pinchpoint.inputs import routing
from pinchpoint.inputs.values import Value, check_values
from pinchpoint.physics import linkkinds, units
from pinchpoint.physics.componentkinds import COMPONENT_KINDS
from pinchpoint.physics.kind_types import Param
from pinchpoint.physics.readable import names, rate

SCHEMA_VERSION = 1

#: Component kinds and their numeric parameters (the same as COMPONENT_KINDS, by its old name).
COMPONENT_PARAMS: dict[str, tuple[Param, ...]] = {k: c.params for k, c in COMPONENT_KINDS.items()}

#: Who drives a flow's transfers (see :class:`Flow`).
INITIATORS = ("device", "host")

_set = object.__setattr__


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


@dataclass(frozen=True)
class Cache:
    """One cache level of a CPU."""

    level: int
    size: Value
    line: Value
    associativity: int | None = None
    shared_by: int = 1
    type: str = "unified"  # "data", "instruction" or "unified"
    source: str | None = None

    def __post_init__(self):
        if not isinstance(self.level, int) or isinstance(self.level, bool) or not 1 <= self.level <= 5:
            raise ProfileError(f"expected a whole number 1..5, got {self.level!r}", key="level")
        for what in ("size", "line"):
            v = getattr(self, what)
            if not (_number(v.si) and 0 < v.si < math.inf):
                raise ProfileError(f"L{self.level} cache: expected a size above zero, got {v.text!r}", key=what)
        a = self.associativity
        if a is not None and (not isinstance(a, int) or isinstance(a, bool) or a < 0):
            raise ProfileError(f"expected a whole number (0 = fully associative), got {a!r}", key="associativity")
        if not isinstance(self.shared_by, int) or isinstance(self.shared_by, bool) or self.shared_by < 1:
            raise ProfileError(f"expected a whole number of cores >= 1, got {self.shared_by!r}", key="shared_by")
        if self.type not in ("data", "instruction", "unified"):
            raise ProfileError(f"expected 'data', 'instruction' or 'unified', got {self.type!r}", key="type")

    def to_dict(self) -> dict:
        return {"level": self.level, "size_bytes": self.size.si, "line_bytes": self.line.si,
                "associativity": self.associativity, "shared_by": self.shared_by, "type": self.type}


@dataclass(frozen=True)
class Component:
    """A node of the graph: a device, controller, memory, CPU or the outside network.

    ``forwards``: whether traffic between two other components may pass through it; None takes
    the kind's default (switches, CPUs, bridges, controllers yes; accelerators, NICs, memories,
    disks no).
    """

    id: str
    kind: str
    params: Mapping[str, Value]
    model: str | None = None
    description: str | None = None
    caches: tuple[Cache, ...] = ()
    unknown: tuple[str, ...] = ()  # parameters a detector could not determine
    source: str | None = None
    forwards: bool | None = None

    def __post_init__(self):
        _set(self, "params", freeze_map(self.params))
        _set(self, "caches", tuple(self.caches))
        _set(self, "unknown", tuple(self.unknown))
        key = f"components.{self.id}"
        kind = COMPONENT_KINDS.get(self.kind)
        if kind is None:
            raise ProfileError(f"unknown component kind {self.kind!r} (expected one of: "
                               f"{', '.join(COMPONENT_KINDS)})", key=f"{key}.kind")
        if self.forwards is None:
            _set(self, "forwards", kind.forwards)
        elif not isinstance(self.forwards, bool):
            raise ProfileError(f"expected true or false, got {self.forwards!r}", key=f"{key}.forwards")
        specs = {p.name: p for p in kind.params}
        if self.params:
            check_values(lambda: f"a {self.kind} component", key, self.params, specs)
        for p in kind.params:
            if p.required and p.default is None and p.name not in self.params and p.name not in self.unknown:
                raise ProfileError(f"missing (expected a {p.dimension}: {p.doc})", key=f"{key}.{p.name}")
        if self.caches and self.kind != "cpu":
            raise ProfileError(f"only cpu components have caches, this one is a {self.kind}", key=f"{key}.caches")

    @property
    def device(self) -> bool:
        """A device that moves data by DMA (its kind's)."""
        return COMPONENT_KINDS[self.kind].device

    def get(self, name: str, default: float | None = None) -> float | None:
        v = self.params.get(name)
        return default if v is None else v.si


@dataclass(frozen=True)
class Link:
    """An edge of the graph: a bus or line of a known kind between two components."""

    id: str
    kind: str
    between: tuple[str, ...]  # two components, or every device on a shared bus
    params: Mapping[str, Value]
    description: str | None = None
    source: str | None = None

    def __post_init__(self):
        between = self.between
        if type(between) is not tuple:
            between = tuple(between)
            _set(self, "between", between)
        params = freeze_map(self.params)
        _set(self, "params", params)
        key = "links." + self.id
        definition = linkkinds.KINDS.get(self.kind)
        if definition is None:
            raise ProfileError(f"unknown link kind {self.kind!r} (expected one of: {', '.join(linkkinds.KINDS)})",
                               key=f"{key}.kind")
        if len(between) < 2 or len(set(between)) != len(between):
            raise ProfileError("a link joins two (or, for a shared bus, more) different components, got "
                               f"{list(between)!r}", key=f"{key}.between")
        check_values(lambda: f"link {self.id!r} of kind {self.kind!r}", key, params, definition.by_name)
        for name in definition.required:
            if name not in params:
                spec = definition.param(name)
                raise ProfileError(f"missing (expected a {spec.dimension}: {spec.doc})", key=f"{key}.{name}")
        for kind, (cparam, name) in definition.owners.items():
            if name not in params:  # the reader fills it from the component at one end that owns it
                spec = definition.param(name)
                raise ProfileError(f"missing (expected a {spec.dimension}: {spec.doc}, or {cparam} on a {kind} "
                                   "at one end)", key=f"{key}.{name}")
        values = {k: v.si for k, v in params.items()}
        _set(self, "_figures", _figures(self, definition, values, key))
        if len(self.between) > 2 and self.duplex != "half":
            raise ProfileError(f"only a shared (half-duplex) bus joins more than two components; "
                               f"a {self.kind} link is full duplex", key=f"{key}.between")

    def __repr__(self) -> str:
        try:
            cap = rate(self.capacity_bytes_per_s)
        except Exception:  # noqa: BLE001 - a repr must not fail (an incomplete link)
            cap = "capacity unknown"
        return f"Link({self.id}: {self.kind} {' <-> '.join(self.between)}, {cap})"

    @property
    def definition(self) -> linkkinds.LinkKind:
        return linkkinds.kind(self.kind)

    def values(self) -> dict[str, float]:
        return {k: v.si for k, v in self.params.items()}

    @property
    def duplex(self) -> str:
        return self._figures.duplex

    @property
    def capacity_bytes_per_s(self) -> float:
        """Raw capacity [B/s]: per direction when full duplex, shared when half duplex."""
        return self._figures.capacity

    @property
    def efficiency(self) -> float:
        """Protocol efficiency of posted writes one way [-] (1 where the kind models none)."""
        return self._figures.efficiency("write")

    @property
    def effective_capacity_bytes_per_s(self) -> float:
        """Capacity left for payload after protocol overhead [B/s] (writes, one way)."""
        return self.capacity_bytes_per_s * self.efficiency

    def costs(self, op: str = "write") -> tuple[float, float]:
        """Raw bytes per payload byte moved by ``op`` ("write" or "read"): on the direction the data
        takes, and on the other one (PCIe: read requests and the DLLPs that answer the data)."""
        back = _other_direction(self)
        return 1.0 / self._figures.efficiency(op), back[0] if op == "write" else back[1]

    def effective_for(self, op: str) -> float:
        """Effective capacity for transfers of kind ``op`` [B/s]."""
        return self.capacity_bytes_per_s * self._figures.efficiency(op)

    @property
    def read_bound_bytes_per_s(self) -> float | None:
        """One requester's reads through this link [B/s] (outstanding requests x round trip), or None."""
        return _other_direction(self)[2]

    @property
    def effective_both_ways_bytes_per_s(self) -> float:
        """Effective capacity each way while writes go one way and reads the other at the same
        rate [B/s]: lower than one way where each direction also carries the other's requests and
        DLLPs (PCIe).  The solvers count that traffic themselves; this is the figure alone."""
        fw, rw = self.costs("write")
        fr, rr = self.costs("read")
        return self.capacity_bytes_per_s / max(fw + rr, fr + rw)

    @property
    def formula(self) -> str:
        return self.definition.formula


class _Figures(tuple):
    """A link's figures, computed once when it is built (a 100,000-link fabric asks for each several
    times); a flat tuple: a dict per link would cost tens of MiB on such a fabric."""

    __slots__ = ()
    capacity = property(lambda s: s[0])
    duplex = property(lambda s: s[3])

    def efficiency(self, op: str) -> float:
        return self[1] if op == "write" else self[2]


def _figures(link: Link, definition, values: dict, key: str) -> _Figures:
    if definition.check is not None:
        problem = definition.check(values)
        if problem:
            raise ProfileError(problem[1], key=f"{key}.{problem[0]}")
    capacity = float(definition.capacity(values))
    write = 1.0 if definition.efficiency is None else float(definition.efficiency(values))
    read = write if definition.read_efficiency is None else float(definition.read_efficiency(values))
    for what, value in (("capacity", capacity), ("effective capacity", capacity * write),
                        ("effective capacity of reads", capacity * read)):
        # each parameter is in range, but their product may still overflow or underflow
        if not (math.isfinite(value) and value > 0):
            raise ProfileError(f"its {what} ({definition.formula}) comes to {value:g} B/s: expected a finite "
                               "rate above zero", key=key)
    return _Figures((capacity, write, read, definition.duplex(values)))


def _other_direction(link: Link) -> tuple[float, float, float | None]:
    """What reads and writes put on the link's other direction (per payload byte, as a share of
    its raw capacity) and the read bound: asked of the links flows cross, so made on first use."""
    hit = link.__dict__.get("_other")
    if hit is None:
        d, values = link.definition, link.values()
        back = (0.0, 0.0) if d.reverse_cost is None else (float(d.reverse_cost(values, "write")),
                                                          float(d.reverse_cost(values, "read")))
        bound = None if d.read_bound is None else d.read_bound(values)
        hit = (*back, None if bound is None else float(bound))
        _set(link, "_other", hit)
    return hit


@dataclass(frozen=True)
class Flow:
    """A named traffic flow: one or more legs, each routed from a component to another.

    ``passes`` overrides how many times a payload byte crosses a link (where routing alone
    cannot know, e.g. a read-for-ownership adding a fourth memory pass).  ``via`` names the
    forwarding components the route may cross (all of them when empty): a GPU copy that takes the
    PCIe switch instead of NVLink says ``via = ["pcisw0"]``.  ``initiator`` says who drives the
    transfers: ``"device"`` (DMA by the NIC, GPU or disk at the device end: the default) or
    ``"host"`` (the CPU's loads and stores); it decides which PCIe links carry writes and which reads.
    """

    name: str
    legs: tuple[tuple[str, str], ...]
    passes: Mapping[str, float] = field(default_factory=dict)
    description: str | None = None
    via: tuple[str, ...] = ()
    initiator: str = "device"

    def __post_init__(self):
        _set(self, "legs", tuple(tuple(leg) for leg in self.legs))
        _set(self, "passes", freeze_map(self.passes))
        _set(self, "via", tuple(self.via))
        key = f"flows.{self.name}"
        if not self.legs:
            raise ProfileError("a flow needs at least one leg", key=key)
        for i, leg in enumerate(self.legs):
            if len(leg) != 2 or not all(isinstance(x, str) for x in leg):
                raise ProfileError(f"expected [source, sink], got {list(leg)!r}", key=f"{key}.legs[{i}]")
            if leg[0] == leg[1]:
                raise ProfileError(f"source and sink are both {leg[0]!r}", key=key)
        for lid, n in self.passes.items():
            if not _number(n) or not n > 0:
                raise ProfileError(f"expected a number of passes > 0, got {n!r}", key=f"{key}.passes.{lid}")
        if self.initiator not in INITIATORS:
            raise ProfileError(f"expected one of {', '.join(INITIATORS)}, got {self.initiator!r}",
                               key=f"{key}.initiator")
        if not all(isinstance(c, str) for c in self.via) or len(set(self.via)) != len(self.via):
            raise ProfileError(f"expected a list of different component names, got {list(self.via)!r}",
                               key=f"{key}.via")

    @property
    def source(self) -> str:
        return self.legs[0][0]

    @property
    def sink(self) -> str:
        return self.legs[-1][1]

    @property
    def single_pass(self) -> bool:
        return len(self.legs) == 1 and not self.passes


@dataclass(frozen=True)
class Scenario:
    """Flows that run at once and share the links (e.g. send and receive together)."""

    name: str
    flows: tuple[str, ...]
    weights: tuple[float, ...]
    description: str | None = None

    def __post_init__(self):
        _set(self, "flows", tuple(self.flows))
        _set(self, "weights", tuple(self.weights))
        key = f"scenarios.{self.name}"
        if not self.flows or not all(isinstance(n, str) for n in self.flows):
            raise ProfileError("expected a non-empty list of flow names", key=f"{key}.flows")
        if len(self.weights) != len(self.flows) or not all(_number(w) and w > 0 for w in self.weights):
            raise ProfileError(f"expected {len(self.flows)} positive numbers", key=f"{key}.weights")


#: A flow inside a scenario is named "SCENARIO/FLOW" (its row in `ceilings`).
SCENARIO_FLOW_SEPARATOR = "/"


@dataclass(frozen=True)
class Profile:
    """A validated machine profile."""

    name: str
    description: str
    components: Mapping[str, Component]
    links: Mapping[str, Link]
    flows: Mapping[str, Flow]
    scenarios: Mapping[str, Scenario] = field(default_factory=dict)
    source: str | None = None
    path: str | None = None

    def __post_init__(self):
        for name in ("components", "links", "flows", "scenarios"):
            _set(self, name, freeze_map(getattr(self, name)))
        try:
            self._check_references()
            routing.check_routes(self)
        except ProfileError as exc:
            raise exc.located(file=self.path) from None

    def _check_references(self) -> None:
        """Every name a part uses refers to a part of this profile (the ids match their keys)."""
        for group, parts, ident in (("components", self.components, "id"), ("links", self.links, "id"),
                                    ("flows", self.flows, "name"), ("scenarios", self.scenarios, "name")):
            for k, part in parts.items():
                if getattr(part, ident) != k:
                    raise ProfileError(f"is named {getattr(part, ident)!r}", key=f"{group}.{k}")
        comps = self.components
        for lid, link in self.links.items():
            for end in link.between:
                if end not in comps:
                    raise ProfileError(f"no component {end!r} (components: {', '.join(comps)})",
                                       key=f"links.{lid}.between")
        for flow in self.flows.values():
            self._check_flow(flow)
        for name, sc in self.scenarios.items():
            for n in sc.flows:
                if n not in self.flows:
                    raise ProfileError(f"no flow {n!r}", key=f"scenarios.{name}.flows")

    def _check_flow(self, flow: Flow) -> None:
        key = f"flows.{flow.name}"
        for leg in flow.legs:
            for end in leg:
                if end not in self.components:
                    raise ProfileError(f"no component {end!r} (components: {', '.join(self.components)})", key=key)
        for lid in flow.passes:
            link = self.links.get(lid)
            if link is None:
                raise ProfileError(f"no link {lid!r}", key=f"{key}.passes.{lid}")
            if link.duplex != "half":
                raise ProfileError(f"link {lid!r} is full duplex: describe its two directions with legs; passes "
                                   "count crossings of a shared (half-duplex) link", key=f"{key}.passes.{lid}")

    def __repr__(self) -> str:
        return (f"Profile({self.name!r}: {len(self.components)} components, {len(self.links)} links "
                f"({names(self.links)}), {len(self.flows)} flows ({names(self.flows)}))")

    def link(self, link_id: str) -> Link:
        try:
            return self.links[link_id]
        except KeyError:
            raise ProfileError(f"no link {link_id!r} (links: {', '.join(self.links)})",
                               file=self.path) from None

    def flow(self, name: str) -> Flow:
        """The flow called ``name``; "SCENARIO/FLOW" names a flow of a scenario (its own Flow)."""
        flow = self.flows.get(name)
        if flow is not None:
            return flow
        scenario, sep, inner = name.partition(SCENARIO_FLOW_SEPARATOR)
        if sep and scenario in self.scenarios and inner in self.scenarios[scenario].flows:
            return self.flows[inner]
        scenario_flows = [f"{s}{SCENARIO_FLOW_SEPARATOR}{f}" for s, sc in self.scenarios.items() for f in sc.flows]
        raise ProfileError(f"no flow {name!r} (flows: {', '.join([*self.flows, *scenario_flows]) or 'none'})",
                           file=self.path) from None

    def has_flow(self, name: str) -> bool:
        """Whether ``name`` is a flow or a scenario's flow ("SCENARIO/FLOW")."""
        try:
            self.flow(name)
        except ProfileError:
            return False
        return True

    def cpus(self) -> list[Component]:
        return [c for c in self.components.values() if c.kind == "cpu"]

    def with_link_param(self, link_id: str, param: str, si_value: float) -> "Profile":
        """A copy with one link parameter replaced (used by solve and what-if sweeps)."""
        link = self.link(link_id)
        if not link.definition.has_param(param):
            raise ProfileError(f"link {link_id!r} of kind {link.kind!r} has no parameter {param!r}",
                               file=self.path)
        spec = link.definition.param(param)
        text = units.format_quantity(si_value, spec.dimension) if _number(si_value) else repr(si_value)
        value = Value(float(si_value) if _number(si_value) else si_value, text, "what-if", whatif=True)
        try:
            changed = replace(link, params=link.params | {param: value})
        except ProfileError as exc:  # the range (or, with the others, a capacity that underflows)
            raise ProfileError(f"link {link_id!r} ({link.kind}): {exc.message}", file=self.path,
                               key=exc.key) from None
        # the same link with other values: its ends, and so every reference of the profile, are
        # unchanged and the link has checked itself; copy without re-checking all n references
        out = copy.copy(self)
        _set(out, "links", self.links | {link_id: changed})
        return out

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "components": {k: {"kind": c.kind, "model": c.model, "forwards": c.forwards,
                               **{p: v.si for p, v in c.params.items()},
                               "caches": [x.to_dict() for x in c.caches]}
                           for k, c in self.components.items()},
            "links": {k: {"kind": l.kind, "between": list(l.between), "duplex": l.duplex,
                          **{p: v.si for p, v in l.params.items()}} for k, l in self.links.items()},
            "flows": {k: {"legs": [list(x) for x in f.legs], "passes": dict(f.passes), "via": list(f.via),
                          "initiator": f.initiator}
                      for k, f in self.flows.items()},
        }


__all__ = ["COMPONENT_PARAMS", "INITIATORS", "SCHEMA_VERSION", "Cache", "Component", "FrozenMap", "Flow", "Link",
           "Profile", "SCENARIO_FLOW_SEPARATOR", "Scenario", "Value", "check_values"]
