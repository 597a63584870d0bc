"""Building a :class:`~pinchpoint.inputs.profile.Profile` from a parsed document.

The reader turns text into the data objects and leaves every check of a value to the object that
holds it: it checks a document's shape (tables, lists, known keys), parses quantities ("133 MHz",
"6.4 GB/s +- 10 %") and places each object's own error at its key and file.  One value that two
places could state has one owner: an Ethernet port's rate is its NIC's ``line_rate``, which
fills the link (a disagreement is an error naming both keys; see ``LinkKind.owners``).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from pinchpoint.errors import ProfileError, UnitError
from pinchpoint.gc_pause import gc_paused
from pinchpoint.inputs import spread as _spread
from pinchpoint.inputs.document import Reader
from pinchpoint.inputs.profile_objects import SCHEMA_VERSION, Cache, Component, Flow, Link, Profile, Scenario, Value
from pinchpoint.inputs.values import default_value
from pinchpoint.physics import linkkinds, units
from pinchpoint.physics.componentkinds import COMPONENT_KINDS
from pinchpoint.physics.kind_types import LinkReader, Param

_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_COMPONENT_TEXT = {"kind", "model", "type", "description", "source", "caches", "unknown", "forwards"}
_LINK_TEXT = {"kind", "between", "description", "source", "generation"}
_FLOW_KEYS = {"source", "sink", "legs", "passes", "description", "via", "initiator"}
_SIZE = Param("size", "size", "")


def profile_from_document(doc: Mapping[str, Any], *, file: str | None = None,
                          default_name: str | None = None) -> Profile:
    """Validate a parsed (and already merged) profile document and build a :class:`Profile`."""
    try:
        with gc_paused():  # a fabric's document makes millions of containers, none in a cycle
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
    components = {_checked_id(ctx, "components", cid): _component(ctx, cid, table, source)
                  for cid, table in comps_raw.items()}
    links = {_checked_id(ctx, "links", lid): _link(ctx, lid, table, components, source)
             for lid, table in _table(ctx, doc, "links").items()}
    flows = {n: _flow(ctx, n, t) for n, t in _table(ctx, doc, "flows").items()}
    scenarios = {n: _scenario(ctx, n, t) for n, t in _table(ctx, doc, "scenarios").items()}
    return Profile(name, ctx.text_field(doc, "description", "") or "", components, links, flows, scenarios,
                   source, file)


def _table(ctx, doc, name) -> dict:
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise ctx.error(name, "expected a table")
    return value


def _checked_id(ctx, group: str, ident: str) -> str:
    if not _ID.match(ident):
        raise ctx.error(f"{group}.{ident}", f"{ident!r} is not a valid name (letters, digits, '-' and '_', "
                                            "starting with a letter)")
    return ident


def _built(make, key: str):
    """``make()``, an object checking itself, with its error (keyed inside it) placed under ``key``."""
    try:
        return make()
    except ProfileError as exc:
        raise exc.located(key_prefix=key) from None


# --- values ------------------------------------------------------------------------------------

def _value(ctx: Reader, raw, param: Param, key: str, inherited_source: str | None) -> Value:
    """Parse one parameter: "133 MHz", 2, or {value = "133 MHz", source = "..."}; its range is the
    holder's to check."""
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
    ctx.physical(si, key, raw)
    return Value(si, raw if isinstance(raw, str) else repr(raw), source, spread)


def _params(ctx, table, specs: tuple[Param, ...], key: str, source: str | None) -> dict[str, Value]:
    out = {}
    for spec in specs:
        if spec.name in table:
            out[spec.name] = _value(ctx, table[spec.name], spec, f"{key}.{spec.name}", source)
        elif spec.default is not None:
            out[spec.name] = default_value(spec)
    return out


# --- components ----------------------------------------------------------------------------------

def _caches(ctx, raw, key, source) -> tuple[Cache, ...]:
    if not isinstance(raw, list):
        raise ctx.error(key, "expected an array of tables ([[components.X.caches]])")
    out = []
    for i, entry in enumerate(raw):
        ckey = f"{key}[{i}]"
        if not isinstance(entry, dict):
            raise ctx.error(ckey, "expected a table")
        ctx.check_keys(entry, {"level", "size", "line", "associativity", "shared_by", "type", "source"}, ckey)
        if "size" not in entry:
            raise ctx.error(f"{ckey}.size", "missing (expected a size such as '32 KiB')")
        csource = ctx.text_field(entry, "source", ckey) or source
        size = _value(ctx, entry["size"], _SIZE, f"{ckey}.size", csource)
        line = _value(ctx, entry.get("line", "64 B"), _SIZE, f"{ckey}.line", csource)
        out.append(_built(lambda: Cache(entry.get("level"), size, line, entry.get("associativity"),
                                        entry.get("shared_by", 1), entry.get("type", "unified"), csource), ckey))
    return tuple(out)


def _component(ctx, cid, table, source) -> Component:
    key = f"components.{cid}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    kind_name = ctx.text_field(table, "kind", key, required=True)
    kind = COMPONENT_KINDS.get(kind_name)
    if kind is None:
        raise ctx.error(f"{key}.kind", f"unknown component kind {kind_name!r} (expected one of: "
                                       f"{', '.join(COMPONENT_KINDS)})")
    ctx.check_keys(table, _COMPONENT_TEXT | {p.name for p in kind.params}, key)
    csource = ctx.text_field(table, "source", key) or source
    unknown = table.get("unknown", [])
    if not isinstance(unknown, list) or not all(isinstance(u, str) for u in unknown):
        raise ctx.error(f"{key}.unknown", "expected a list of parameter names")
    present = {k: v for k, v in table.items() if k not in unknown}
    params = _params(ctx, present, tuple(p for p in kind.params if p.name not in unknown), key, csource)
    caches = _caches(ctx, table["caches"], f"{key}.caches", csource) if "caches" in table else ()
    return Component(cid, kind_name, params, ctx.text_field(table, "model", key) or ctx.text_field(table, "type", key),
                     ctx.text_field(table, "description", key), caches, tuple(unknown), csource,
                     table.get("forwards"))


# --- links ---------------------------------------------------------------------------------------

class _LinkReader(LinkReader):
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
    definition = linkkinds.KINDS.get(kname)
    if definition is None:
        raise ctx.error(f"{key}.kind", f"unknown link kind {kname!r} (expected one of: {', '.join(linkkinds.KINDS)})")
    ctx.check_keys(table, _LINK_TEXT | definition.text_keys | set(definition.by_name), key)
    if "generation" in table and "generation" not in definition.text_keys:
        having = [k.name for k in linkkinds.KINDS.values() if "generation" in k.text_keys]
        raise ctx.error(f"{key}.generation", f"only {' and '.join(having)} links have a generation")
    between = table.get("between")
    if not isinstance(between, list) or not all(isinstance(x, str) for x in between):
        raise ctx.error(f"{key}.between", f"expected a list of two (or, for a shared bus, more) "
                        f"component names, got {between!r}")
    lsource = ctx.text_field(table, "source", key) or source
    if definition.defaults is not None:  # a PCIe generation fills lane rate and line code
        table = definition.defaults(dict(table), _LinkReader(ctx, key))
    params = _params(ctx, table, definition.params, key, lsource)
    if definition.owners:
        params.update(_owned(ctx, lid, definition, between, params, components))
    # the link checks its values itself (ranges, the kind's joint rule, capacity above zero,
    # duplex); its errors name the key, and profile_from_document adds the file
    return Link(lid, kname, tuple(between), params, ctx.text_field(table, "description", key), lsource)


def _owned(ctx, lid, definition, between, params, components) -> dict[str, Value]:
    """The link's parameters a component at one end owns (an Ethernet port's rate is its NIC's
    line rate): taken from it where the link does not state them; a disagreement is an error
    naming both keys."""
    out: dict[str, Value] = {}
    for end in between:
        comp = components.get(end)
        owner = None if comp is None else definition.owners.get(comp.kind)
        if owner is None or owner[0] not in comp.params:
            continue
        cparam, lparam = owner
        theirs = comp.params[cparam]
        ours = out.get(lparam) or params.get(lparam)
        if ours is None:
            out[lparam] = Value(theirs.si, theirs.text, theirs.source or f"components.{end}.{cparam}", theirs.spread)
        elif abs(ours.si - theirs.si) > 1e-9 * max(abs(ours.si), abs(theirs.si)):
            where = f"components.{end}.{cparam}"
            raise ctx.error(f"links.{lid}.{lparam}", f"{ours.text} disagrees with {where} = {theirs.text}: the "
                                                     f"{comp.kind} owns it, state it once (there)")
    return out


# --- flows and scenarios -------------------------------------------------------------------------

def _endpoint_pair(ctx, raw, key) -> tuple[str, str]:
    if not isinstance(raw, list) or len(raw) != 2 or not all(isinstance(x, str) for x in raw):
        raise ctx.error(key, f"expected [source, sink], got {raw!r}")
    return raw[0], raw[1]


def _legs(ctx, table, key) -> tuple[tuple[str, str], ...]:
    if "legs" in table:
        if "source" in table or "sink" in table:
            raise ctx.error(key, "give either source and sink, or legs, not both")
        if not isinstance(table["legs"], list) or not table["legs"]:
            raise ctx.error(f"{key}.legs", "expected a non-empty list of [source, sink] pairs")
        return tuple(_endpoint_pair(ctx, leg, f"{key}.legs[{i}]") for i, leg in enumerate(table["legs"]))
    for k in ("source", "sink"):
        if k not in table:
            raise ctx.error(f"{key}.{k}", "missing (a flow needs source and sink, or legs)")
    return (_endpoint_pair(ctx, [table["source"], table["sink"]], key),)


def _flow(ctx, name, table) -> Flow:
    key = f"flows.{name}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    ctx.check_keys(table, _FLOW_KEYS, key)
    passes = table.get("passes", {})
    if not isinstance(passes, dict):
        raise ctx.error(f"{key}.passes", "expected a table of link = number")
    via = table.get("via", [])
    if not isinstance(via, list):
        raise ctx.error(f"{key}.via", f"expected a list of component names, got {via!r}")
    clean = {lid: float(n) if isinstance(n, int) and not isinstance(n, bool) else n for lid, n in passes.items()}
    return Flow(name, _legs(ctx, table, key), clean, ctx.text_field(table, "description", key), tuple(via),
                ctx.text_field(table, "initiator", key) or "device")


def _scenario(ctx, name, table) -> Scenario:
    key = f"scenarios.{name}"
    if not isinstance(table, dict):
        raise ctx.error(key, "expected a table")
    ctx.check_keys(table, {"flows", "weights", "description"}, key)
    names = table.get("flows")
    if not isinstance(names, list):
        raise ctx.error(f"{key}.flows", "expected a non-empty list of flow names")
    weights = table.get("weights", [1.0] * len(names))
    if not isinstance(weights, list):
        raise ctx.error(f"{key}.weights", f"expected {len(names)} positive numbers")
    return Scenario(name, tuple(names), tuple(float(w) if isinstance(w, int) and not isinstance(w, bool) else w
                                              for w in weights), ctx.text_field(table, "description", key))
