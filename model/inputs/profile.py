"""Machine profiles as data objects, validated on construction from a TOML document.

A profile has components (the nodes of the graph: cpu, memory, nic, bridge, controller,
disk, network, device, accelerator, switch), links between them (the edges: buses and lines, each of a kind in
:mod:`pinchpoint.physics.linkkinds`), named flows and scenarios.  Every numeric value is kept as an
SI float together with the text it was written as and its source, so that explanations can
quote both.

This module builds objects from an already-parsed document; reading files, ``extends`` and
finding bundled profiles live in :mod:`pinchpoint.inputs.profile_io`.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

from pinchpoint.physics import linkkinds, units
from pinchpoint.inputs import spread as _spread
from pinchpoint.inputs.document import Reader
from pinchpoint.errors import ProfileError, UnitError, shown
from pinchpoint.frozen import FrozenMap, freeze_map
from pinchpoint.physics.linkkinds import Param

SCHEMA_VERSION = 1
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")

# Every object below is frozen all the way down (mappings are FrozenMaps, sequences tuples), so it
# hashes and cannot be changed after it is built, and checks its own invariants on construction
# (as pint's definitions do): an invalid Link cannot exist, whoever builds it.  The document
# reader below still checks each value first, so that its errors name the file and key.
_set = object.__setattr__


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


class _ReaderChecked(FrozenMap):
    """Parameter values the document reader has just checked, each against its parameter with
    whole numbers required (stricter than a link's own check): a link built from them does not
    check them a second time (loading 100,000 links is the case this saves time in).  Any other
    mapping (a what-if, a replace, a caller's dict) is checked by the link itself."""

    __slots__ = ()


def _check_values(owner, key: str, params, specs: Mapping[str, Param]) -> None:
    """Each value is a finite number, a parameter of ``specs`` and within its range (what-ifs may
    ask for 5.3 lanes).  ``owner()`` names the holder, only for a message: the happy path, run
    for every value of a 100,000-link profile, formats nothing."""
    for name, v in params.items():
        spec = specs.get(name)
        if spec is None:
            raise ProfileError(f"{owner()} has no parameter {name!r}", key=f"{key}")
        si = v.si
        if not (isinstance(si, float) or type(si) is int):
            raise ProfileError(f"{name} = {si!r} is not a number", key=f"{key}.{name}")
        why = spec.problem(si, whole=False)
        if why is not None:
            raise ProfileError(f"{name} = {si:g} {why}", key=f"{key}.{name}")


@dataclass(frozen=True)
class Value:
    """A number as the profile wrote it: SI float, original text, source."""

    si: float
    text: str
    source: str | None = None
    spread: tuple[str, float, float] | None = None  # ("uniform", lo, hi) / ("normal", mean, sd), SI

    # A value's range depends on the parameter it is the value of: the Link or Component that
    # holds it checks it (finite, in range) when built, so a Value does not check itself twice.

    def to_dict(self) -> dict:
        out = {"si": self.si, "text": self.text, "source": self.source}
        if self.spread is not None:
            out["spread"] = list(self.spread)
        return out


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
            raise ProfileError(f"cache level: expected a whole number 1..5, got {self.level!r}")
        if not (self.size.si > 0 and self.line.si > 0):
            raise ProfileError(f"L{self.level} cache: size and line must be greater than zero")
        if not isinstance(self.shared_by, int) or self.shared_by < 1:
            raise ProfileError(f"L{self.level} cache: shared_by must be a whole number >= 1")
        if self.type not in ("data", "instruction", "unified"):
            raise ProfileError(f"L{self.level} cache: type must be 'data', 'instruction' or 'unified'")

    def to_dict(self) -> dict:
        return {"level": self.level, "size_bytes": self.size.si, "line_bytes": self.line.si,
                "associativity": self.associativity, "shared_by": self.shared_by, "type": self.type}


#: Component kinds and their numeric parameters; string fields ("model", "type") are free text.
COMPONENT_PARAMS: dict[str, tuple[Param, ...]] = {
    "cpu": (
        Param("clock", "frequency", "nominal core clock"),
        Param("current_clock", "frequency", "clock in use now (power saving lowers it)", required=False),
        Param("cores", "dimensionless", "cores per package", default=1.0, integer=True),
        Param("threads_per_core", "dimensionless", "hardware threads per core", default=1.0, integer=True),
        Param("fsb_ratio", "dimensionless", "core clock / FSB clock", required=False),
        Param("flops_per_cycle", "dimensionless", "double-precision flops per cycle per core", required=False),
        Param("cycles_per_byte", "dimensionless", "network stack cost per payload byte", required=False),
        Param("cycles_per_packet", "dimensionless", "network stack cost per packet", required=False),
    ),
    "memory": (
        Param("size", "size", "installed memory", required=False),
        Param("latency", "time", "load-to-use latency", required=False),
    ),
    "nic": (
        Param("line_rate", "bandwidth", "line rate of the port"),
        Param("max_mtu", "size", "largest MTU the NIC supports", required=False),
        Param("mtu", "size", "MTU configured", required=False),
    ),
    "disk": (
        Param("size", "size", "capacity", required=False),
        Param("rate", "bandwidth", "sustained transfer rate", required=False),
    ),
    "accelerator": (
        Param("memory_size", "size", "memory on the device (HBM, GDDR)", required=False),
        Param("clock", "frequency", "core clock", required=False),
        Param("sms", "dimensionless", "streaming multiprocessors (compute units)", required=False, integer=True),
    ),
    "switch": (
        Param("ports", "dimensionless", "ports (links join them; a crossbar: every port at full rate)",
              required=False, integer=True),
    ),
    "bridge": (),
    "controller": (),
    "network": (),
    "device": (),
}

#: The same, by name, for checking a component's values.
_COMPONENT_SPECS: dict[str, dict[str, Param]] = {k: {p.name: p for p in v} for k, v in COMPONENT_PARAMS.items()}

_COMPONENT_TEXT = {"kind", "model", "type", "description", "source", "caches", "unknown"}
_LINK_TEXT = {"kind", "between", "description", "source", "generation"}


@dataclass(frozen=True)
class Component:
    """A node of the graph: a device, controller, memory, CPU or the outside network."""

    id: str
    kind: str
    params: Mapping[str, Value]
    model: str | None = None
    description: str | None = None
    caches: tuple[Cache, ...] = ()
    unknown: tuple[str, ...] = ()  # parameters a detector could not determine
    source: str | None = None

    def __post_init__(self):
        _set(self, "params", freeze_map(self.params))
        _set(self, "caches", tuple(self.caches))
        _set(self, "unknown", tuple(self.unknown))
        specs = _COMPONENT_SPECS.get(self.kind)
        if specs is None:
            raise ProfileError(f"unknown component kind {self.kind!r} (expected one of: "
                               f"{', '.join(COMPONENT_PARAMS)})", key=f"components.{self.id}.kind")
        if self.params:
            _check_values(lambda: f"a {self.kind} component", f"components.{self.id}", self.params, specs)
        if self.caches and self.kind != "cpu":
            raise ProfileError(f"only cpu components have caches, this one is a {self.kind}",
                               key=f"components.{self.id}.caches")

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
        if type(params) is not _ReaderChecked:
            _check_values(lambda: f"link {self.id!r} of kind {self.kind!r}", key, params, definition._by_name)
        for name in definition._required:
            if name not in params:
                spec = definition.param(name)
                raise ProfileError(f"missing (expected a {spec.dimension}: {spec.doc})", key=f"{key}.{name}")
        values = {k: v.si for k, v in params.items()}
        if definition.check is not None:
            problem = definition.check(values)
            if problem:
                raise ProfileError(problem[1], key=f"{key}.{problem[0]}")
        capacity = float(definition.capacity(values))
        efficiency = 1.0 if definition.efficiency is None else float(definition.efficiency(values))
        effective = capacity * efficiency
        for what, value in (("capacity", capacity), ("effective capacity", effective)):
            # each parameter is in range, but their product may still overflow or underflow
            if not (math.isfinite(value) and value > 0):
                raise ProfileError(f"its {what} ({self.formula}) comes to {value:g} B/s: expected a finite "
                                   "rate above zero", key=key)
        duplex = definition.duplex(values)
        # Kept, not recomputed: the values cannot change, and a 100,000-link fabric asks for each
        # link's capacity several times (rebuilding the values dict every time was a second).
        _set(self, "_figures", (capacity, efficiency, duplex))
        if len(self.between) > 2 and duplex != "half":
            raise ProfileError(f"only a shared (half-duplex) bus joins more than two components; "
                               f"a {self.kind} link is full duplex", key=f"{key}.between")

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import rate

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
        return self._figures[2]

    @property
    def capacity_bytes_per_s(self) -> float:
        """Raw capacity [B/s]: per direction when full duplex, shared when half duplex."""
        return self._figures[0]

    @property
    def efficiency(self) -> float:
        """Protocol efficiency [-] (1 where the kind models none)."""
        return self._figures[1]

    @property
    def effective_capacity_bytes_per_s(self) -> float:
        """Capacity left for payload after protocol overhead [B/s]."""
        return self.capacity_bytes_per_s * self.efficiency

    @property
    def effective_both_ways_bytes_per_s(self) -> float:
        """Effective capacity each way while both directions carry data [B/s]: lower than one way
        where the reverse direction's ACKs and read requests share the link (PCIe)."""
        both = self.definition.both_ways
        return self.effective_capacity_bytes_per_s if both is None else float(both(self.values()))

    @property
    def formula(self) -> str:
        return self.definition.formula


@dataclass(frozen=True)
class Flow:
    """A named traffic flow: one or more legs, each routed from a component to another.

    ``passes`` overrides how many times a payload byte crosses a link (where routing alone
    cannot know, e.g. a read-for-ownership adding a fourth memory pass).
    """

    name: str
    legs: tuple[tuple[str, str], ...]
    passes: Mapping[str, float] = field(default_factory=dict)
    description: str | None = None

    def __post_init__(self):
        _set(self, "legs", tuple(tuple(leg) for leg in self.legs))
        _set(self, "passes", freeze_map(self.passes))
        key = f"flows.{self.name}"
        if not self.legs:
            raise ProfileError("a flow needs at least one leg", key=key)
        for a, b in self.legs:
            if a == b:
                raise ProfileError(f"source and sink are both {a!r}", key=key)
        for lid, n in self.passes.items():
            if not _number(n) or not n > 0:
                raise ProfileError(f"expected a number of passes > 0, got {n!r}", key=f"{key}.passes.{lid}")

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
        if not self.flows:
            raise ProfileError("expected a non-empty list of flow names", key=f"{key}.flows")
        if len(self.weights) != len(self.flows) or not all(_number(w) and w > 0 for w in self.weights):
            raise ProfileError(f"expected {len(self.flows)} positive numbers", key=f"{key}.weights")


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
                    raise ProfileError(f"no component {end!r}", key=f"links.{lid}.between")
        for name, flow in self.flows.items():
            for leg in flow.legs:
                for end in leg:
                    if end not in comps:
                        raise ProfileError(f"no component {end!r}", key=f"flows.{name}")
            for lid in flow.passes:
                if lid not in self.links:
                    raise ProfileError(f"no link {lid!r}", key=f"flows.{name}.passes.{lid}")
        for name, sc in self.scenarios.items():
            for n in sc.flows:
                if n not in self.flows:
                    raise ProfileError(f"no flow {n!r}", key=f"scenarios.{name}.flows")

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import names

        return (f"Profile({self.name!r}: {len(self.components)} components, {len(self.links)} links "
                f"({names(self.links)}), {len(self.flows)} flows ({names(self.flows)}))")

    def link(self, link_id: str) -> Link:
        try:
            return self.links[link_id]
        except KeyError:
            raise ProfileError(f"no link {link_id!r} (links: {', '.join(self.links)})",
                               file=self.path) from None

    def flow(self, name: str) -> Flow:
        try:
            return self.flows[name]
        except KeyError:
            raise ProfileError(f"no flow {name!r} (flows: {', '.join(self.flows) or 'none'})",
                               file=self.path) from None

    def cpus(self) -> list[Component]:
        return [c for c in self.components.values() if c.kind == "cpu"]

    def with_link_param(self, link_id: str, param: str, si_value: float) -> "Profile":
        """A copy with one link parameter replaced (used by solve and what-if sweeps)."""
        link = self.link(link_id)
        if param not in {p.name for p in link.definition.params}:
            raise ProfileError(f"link {link_id!r} of kind {link.kind!r} has no parameter {param!r}",
                               file=self.path)
        spec = link.definition.param(param)
        why = spec.problem(si_value, whole=False) if isinstance(si_value, (int, float)) else "is not a number"
        if why:  # the range, named with the link and parameter: a capacity of -40 B/s is not an answer
            raise ProfileError(f"link {link_id!r} ({link.kind}): {param} = {shown(si_value)} {why} ({spec.doc})",
                               file=self.path, key=f"links.{link_id}.{param}")
        value = Value(float(si_value), units.format_quantity(si_value, spec.dimension), "what-if")
        try:
            changed = replace(link, params=link.params | {param: value})
        except ProfileError as exc:  # in range alone, but not with the others (a capacity that underflows)
            raise exc.located(file=self.path) from None
        # the same link with other values: its ends, and so every reference of the profile, are
        # unchanged and the link has checked itself; copy without re-checking all n references
        out = copy.copy(self)
        _set(out, "links", self.links | {link_id: changed})
        return out

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "description": self.description,
            "components": {k: {"kind": c.kind, "model": c.model,
                               **{p: v.si for p, v in c.params.items()},
                               "caches": [x.to_dict() for x in c.caches]}
                           for k, c in self.components.items()},
            "links": {k: {"kind": l.kind, "between": list(l.between), "duplex": l.duplex,
                          **{p: v.si for p, v in l.params.items()}} for k, l in self.links.items()},
            "flows": {k: {"legs": [list(x) for x in f.legs], "passes": dict(f.passes)}
                      for k, f in self.flows.items()},
        }


# --- building from a document -------------------------------------------------------------

def _value(ctx: Reader, raw, param: Param, key: str, inherited_source: str | None) -> Value:
    """Parse one parameter: "133 MHz", 2, or {value = "133 MHz", source = "..."}."""
    source = inherited_source
    if isinstance(raw, dict):
        ctx.check_keys(raw, {"value", "source"}, key)
        if "value" not in raw:
            raise ctx.error(key, "a table value needs 'value' (and may have 'source')")
        source = ctx.text_field(raw, "source", key) or inherited_source
        raw = raw["value"]
    spread = None
    try:
        if _spread.looks_like_spread(raw):  # "6.4 GB/s +- 10 %", "0.7 us .. 1.0 us": si is the nominal
            si, spread = _spread.parse_spread(raw, param.dimension, file=ctx.file, key=key)
        else:
            si = units.parse(raw, param.dimension, file=ctx.file, key=key)
    except UnitError as exc:
        raise ctx.adopt(exc, key) from None
    why = param.problem(si)
    if why:
        raise ctx.error(key, f"{shown(raw)} {why} ({param.doc})")
    ctx.physical(si, key, raw)
    if spread is not None and spread[0] == "uniform" and param.positive and spread[1] <= 0:
        raise ctx.error(key, f"{raw!r} must stay greater than zero over its whole range")
    return Value(si, raw if isinstance(raw, str) else repr(raw), source, spread)


def _params(ctx, table, specs: tuple[Param, ...], key: str, source: str | None) -> dict[str, Value]:
    out = {}
    for spec in specs:
        pkey = f"{key}.{spec.name}"
        if spec.name in table:
            out[spec.name] = _value(ctx, table[spec.name], spec, pkey, source)
        elif spec.default is not None:
            out[spec.name] = Value(spec.default, f"{spec.default:g}", "default")
        elif spec.required:
            raise ctx.error(pkey, f"missing (expected a {spec.dimension}: {spec.doc})")
    return out


def _caches(ctx, raw, key, source) -> tuple[Cache, ...]:
    if not isinstance(raw, list):
        raise ctx.error(key, "expected an array of tables ([[components.X.caches]])")
    out = []
    for i, entry in enumerate(raw):
        ckey = f"{key}[{i}]"
        if not isinstance(entry, dict):
            raise ctx.error(ckey, "expected a table")
        ctx.check_keys(entry, {"level", "size", "line", "associativity", "shared_by", "type", "source"}, ckey)
        csource = ctx.text_field(entry, "source", ckey) or source
        level = entry.get("level")
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 5:
            raise ctx.error(f"{ckey}.level", f"expected a whole number 1..5, got {level!r}")
        size = _value(ctx, entry.get("size"), Param("size", "size", ""), f"{ckey}.size", csource) \
            if "size" in entry else None
        if size is None:
            raise ctx.error(f"{ckey}.size", "missing (expected a size such as '32 KiB')")
        line = _value(ctx, entry.get("line", "64 B"), Param("line", "size", ""), f"{ckey}.line", csource)
        assoc = entry.get("associativity")
        if assoc is not None and (not isinstance(assoc, int) or isinstance(assoc, bool) or assoc < 0):
            raise ctx.error(f"{ckey}.associativity", f"expected a whole number (0 = fully associative), got {assoc!r}")
        shared = entry.get("shared_by", 1)
        if not isinstance(shared, int) or isinstance(shared, bool) or shared < 1:
            raise ctx.error(f"{ckey}.shared_by", f"expected a whole number of cores >= 1, got {shared!r}")
        ctype = entry.get("type", "unified")
        if ctype not in ("data", "instruction", "unified"):
            raise ctx.error(f"{ckey}.type", f"expected 'data', 'instruction' or 'unified', got {ctype!r}")
        out.append(Cache(level, size, line, assoc, shared, ctype, csource))
    return tuple(out)


def _component(ctx, cid, table, source) -> Component:
    key = f"components.{cid}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    kind = ctx.text_field(table, "kind", key, required=True)
    if kind not in COMPONENT_PARAMS:
        raise ctx.error(f"{key}.kind", f"unknown component kind {kind!r} (expected one of: {', '.join(COMPONENT_PARAMS)})")
    specs = COMPONENT_PARAMS[kind]
    ctx.check_keys(table, _COMPONENT_TEXT | {p.name for p in specs}, key)
    csource = ctx.text_field(table, "source", key) or source
    unknown = table.get("unknown", [])
    if not isinstance(unknown, list) or not all(isinstance(u, str) for u in unknown):
        raise ctx.error(f"{key}.unknown", "expected a list of parameter names")
    present = {k: v for k, v in table.items() if k not in unknown}
    params = _params(ctx, present, tuple(p for p in specs if p.name not in unknown), key, csource)
    caches = _caches(ctx, table["caches"], f"{key}.caches", csource) if "caches" in table else ()
    if caches and kind != "cpu":
        raise ctx.error(f"{key}.caches", f"only cpu components have caches, this one is a {kind}")
    return Component(cid, kind, params, ctx.text_field(table, "model", key) or ctx.text_field(table, "type", key),
                     ctx.text_field(table, "description", key), caches, tuple(unknown), csource)


class _LinkReader(linkkinds.LinkReader):
    """The reader's checks, located under one link's key, for a kind's ``defaults`` hook."""

    def __init__(self, ctx: Reader, key: str):
        self.ctx, self.key = ctx, key

    def error(self, subkey: str, message: str) -> ProfileError:
        return self.ctx.error(f"{self.key}.{subkey}" if subkey else self.key, message)

    def check_keys(self, table, allowed, subkey) -> None:
        self.ctx.check_keys(table, allowed, f"{self.key}.{subkey}")

    def text(self, table, name, subkey) -> str | None:
        return self.ctx.text_field(table, name, f"{self.key}.{subkey}")


def _link(ctx, lid, table, components, source) -> Link:
    key = f"links.{lid}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    kname = ctx.text_field(table, "kind", key, required=True)
    if kname not in linkkinds.KINDS:
        raise ctx.error(f"{key}.kind", f"unknown link kind {kname!r} (expected one of: {', '.join(linkkinds.KINDS)})")
    definition = linkkinds.kind(kname)
    allowed = _LINK_TEXT | definition.text_keys | {p.name for p in definition.params}
    ctx.check_keys(table, allowed, key)
    if "generation" in table and "generation" not in definition.text_keys:
        having = [k.name for k in linkkinds.KINDS.values() if "generation" in k.text_keys]
        raise ctx.error(f"{key}.generation", f"only {' and '.join(having)} links have a generation")
    between = table.get("between")
    if (not isinstance(between, list) or len(between) < 2
            or not all(isinstance(x, str) for x in between)):
        raise ctx.error(f"{key}.between", f"expected a list of two (or, for a shared bus, more) "
                        f"component names, got {between!r}")
    for end in between:
        if end not in components:
            raise ctx.error(f"{key}.between", f"no component {end!r} (components: {', '.join(components)})")
    if len(set(between)) != len(between):
        raise ctx.error(f"{key}.between", "a link joins different components (a name appears twice)")
    lsource = ctx.text_field(table, "source", key) or source
    if definition.defaults is not None:  # a PCIe generation fills lane rate and line code
        table = definition.defaults(dict(table), _LinkReader(ctx, key))
    params = _params(ctx, table, definition.params, key, lsource)
    # the link checks the rest itself (the kind's joint rule, capacity above zero, duplex); its
    # errors name the key, and profile_from_document adds the file
    return Link(lid, kname, tuple(between), _ReaderChecked(params), ctx.text_field(table, "description", key), lsource)


def _endpoint_pair(ctx, raw, key, components) -> tuple[str, str]:
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(x, str) for x in raw):
        raise ctx.error(key, f"expected [source, sink], got {raw!r}")
    for end in raw:
        if end not in components:
            raise ctx.error(key, f"no component {end!r} (components: {', '.join(components)})")
    return raw[0], raw[1]


def _flow(ctx, name, table, components, links) -> Flow:
    key = f"flows.{name}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    ctx.check_keys(table, {"source", "sink", "legs", "passes", "description"}, key)
    if "legs" in table:
        if "source" in table or "sink" in table:
            raise ctx.error(key, "give either source and sink, or legs, not both")
        if not isinstance(table["legs"], list) or not table["legs"]:
            raise ctx.error(f"{key}.legs", "expected a non-empty list of [source, sink] pairs")
        legs = tuple(_endpoint_pair(ctx, leg, f"{key}.legs[{i}]", components)
                     for i, leg in enumerate(table["legs"]))
    else:
        for k in ("source", "sink"):
            if k not in table:
                raise ctx.error(f"{key}.{k}", "missing (a flow needs source and sink, or legs)")
        legs = (_endpoint_pair(ctx, [table["source"], table["sink"]], key, components),)
    for i, (a, b) in enumerate(legs):
        if a == b:
            raise ctx.error(f"{key}.legs[{i}]" if "legs" in table else key, f"source and sink are both {a!r}")
    passes = table.get("passes", {})
    if not isinstance(passes, dict):
        raise ctx.error(f"{key}.passes", "expected a table of link = number")
    clean = {}
    for lid, n in passes.items():
        if lid not in links:
            raise ctx.error(f"{key}.passes.{lid}", f"no link {lid!r}")
        if links[lid].duplex != "half":
            raise ctx.error(f"{key}.passes.{lid}", f"link {lid!r} is full duplex: describe its two "
                            "directions with legs; passes count crossings of a shared (half-duplex) link")
        if isinstance(n, bool) or not isinstance(n, (int, float)) or not n > 0:
            raise ctx.error(f"{key}.passes.{lid}", f"expected a number of passes > 0, got {n!r}")
        clean[lid] = float(n)
    return Flow(name, legs, clean, ctx.text_field(table, "description", key))


def _scenario(ctx, name, table, flows) -> Scenario:
    key = f"scenarios.{name}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    ctx.check_keys(table, {"flows", "weights", "description"}, key)
    names = table.get("flows")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ctx.error(f"{key}.flows", "expected a non-empty list of flow names")
    for n in names:
        if n not in flows:
            raise ctx.error(f"{key}.flows", f"no flow {n!r}")
    weights = table.get("weights", [1.0] * len(names))
    if (not isinstance(weights, list) or len(weights) != len(names)
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool) and w > 0 for w in weights)):
        raise ctx.error(f"{key}.weights", f"expected {len(names)} positive numbers")
    return Scenario(name, tuple(names), tuple(float(w) for w in weights), ctx.text_field(table, "description", key))


def _table(ctx, doc, name) -> dict:
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise ctx.error(name, "expected a table")
    return value


def _check_id(ctx, key, ident):
    if not _ID.match(ident):
        raise ctx.error(key, f"{ident!r} is not a valid name (letters, digits, '-' and '_', starting with a letter)")


def profile_from_document(doc: Mapping[str, Any], *, file: str | None = None,
                          default_name: str | None = None) -> Profile:
    """Validate a parsed (and already merged) profile document and build a :class:`Profile`."""
    try:
        return _profile(doc, file, default_name)
    except ProfileError as exc:  # raised by an object checking itself: it knows the key, not the file
        raise exc if exc.file else exc.located(file=file) from None


def _profile(doc, file, default_name) -> Profile:
    ctx = Reader(file, ProfileError)
    ctx.check_keys(doc, {"schema", "name", "description", "source", "extends",
                           "components", "links", "flows", "scenarios"}, "")
    schema = doc.get("schema")
    if schema != SCHEMA_VERSION:
        raise ctx.error("schema", f"expected schema = {SCHEMA_VERSION}, got {schema!r}")
    name = ctx.text_field(doc, "name", "") or default_name or "unnamed"
    source = ctx.text_field(doc, "source", "")
    comps_raw = _table(ctx, doc, "components")
    if not comps_raw:
        raise ctx.error("components", "a profile needs at least one component")
    components = {}
    for cid, table in comps_raw.items():
        _check_id(ctx, f"components.{cid}", cid)
        components[cid] = _component(ctx, cid, table, source)
    links = {}
    for lid, table in _table(ctx, doc, "links").items():
        _check_id(ctx, f"links.{lid}", lid)
        links[lid] = _link(ctx, lid, table, components, source)
    flows = {n: _flow(ctx, n, t, components, links) for n, t in _table(ctx, doc, "flows").items()}
    _check_paths(ctx, components, links, flows)
    scenarios = {n: _scenario(ctx, n, t, flows) for n, t in _table(ctx, doc, "scenarios").items()}
    return Profile(name, ctx.text_field(doc, "description", "") or "", components, links, flows, scenarios,
                   source, file)


def _check_paths(ctx: Reader, components, links, flows) -> None:
    """Every leg of every flow must connect: links carry traffic both ways (see duplex).

    The connected components are labelled once (union-find), so each leg costs a lookup, not a
    search of the whole profile (seconds on a 100,000-link fabric with 64 flows)."""
    parent: dict[str, str] = {}

    def root(n: str) -> str:
        while parent.get(n, n) != n:
            parent[n] = parent.get(parent[n], parent[n])  # path halving
            n = parent[n]
        return n

    for link in links.values():
        first = root(link.between[0])
        for m in link.between[1:]:
            other = root(m)
            if other != first:
                parent[other] = first
    for flow in flows.values():
        for a, b in flow.legs:
            if root(a) != root(b):
                raise ctx.error(f"flows.{flow.name}", f"no path from {a!r} to {b!r}: no chain of links connects them")
