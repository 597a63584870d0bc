"""Symbolic ceilings: every link capacity and flow ceiling as a sympy expression.

The capacity functions of :mod:`pinchpoint.physics.linkkinds` are plain arithmetic, so calling them with
sympy symbols yields the same formula the numeric path evaluates.  Symbols are named
``LINK.PARAM`` ("pcix.clock").  On top of that: explanations (the formula, the values with their
sources, the result) and the inverse question (which value of one parameter reaches a target).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from pinchpoint.physics import units
from pinchpoint.errors import InputError, ProfileError
from pinchpoint.inputs.profile import Link, Profile
from pinchpoint.graph.resource_ids import link_of, uses_network
from pinchpoint.solve.descriptions import stale_description


def symbol(link_id: str, param: str):
    import sympy

    return sympy.Symbol(f"{link_id}.{param}", positive=True)


def link_expression(link: Link, *, effective: bool = False, op: str = "write"):
    """The capacity of a link [B/s] as a sympy expression in its parameters; ``effective``: after
    protocol overhead for transfers of kind ``op`` ("write", or "read": a PCIe read's completions)."""
    p = {name: symbol(link.id, name) for name in link.params}
    expr = link.definition.capacity(p)
    efficiency = link.definition.efficiency_for(op)
    if effective and efficiency is not None:
        expr = expr * efficiency(p)
    return expr


def link_values(link: Link) -> dict:
    """Symbol -> SI value for every parameter of a link."""
    return {symbol(link.id, name): v.si for name, v in link.params.items()}


def flow_expression(profile: Profile, usage: dict[str, float], *, effective: bool = False):
    """A flow's ceiling as min over the resources it uses of capacity / passes.

    Exact wherever each leg has one route (every bundled profile); on meshes it is the
    expression of the routing the solver chose, except that parallel links between the same two
    components count with their summed capacity (:func:`pinchpoint.solve.ceilings.parallel_groups`).
    """
    import sympy

    from pinchpoint.solve.ceilings import parallel_groups

    terms = []
    for rids, u in parallel_groups(profile, usage):
        total = sum(link_expression(profile.links[link_of(r)], effective=effective) for r in rids)
        terms.append(total / sympy.nsimplify(u))
    return sympy.Min(*terms) if len(terms) > 1 else terms[0]


def profile_values(profile: Profile) -> dict:
    values = {}
    for link in profile.links.values():
        values.update(link_values(link))
    return values


def evaluate(expr, profile: Profile) -> float:
    """Evaluate an expression at the profile's values."""
    return float(expr.subs(profile_values(profile)))


# --- explanations ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Term:
    name: str
    text: str
    si: float
    source: str | None


@dataclass(frozen=True)
class Explanation:
    """What a link's capacity (or a flow's ceiling) is, how it is computed, and from what."""

    target: str
    kind: str
    description: str
    formula: str
    substituted: str
    result_bytes_per_s: float
    network: bool
    terms: tuple[Term, ...] = ()
    effective_formula: str = ""
    effective_bytes_per_s: float | None = None
    parts: tuple[tuple[str, float, float], ...] = ()  # flows: (resource, capacity, passes)
    binding: tuple[str, ...] = field(default=())
    warnings: tuple[str, ...] = ()  # a description that no longer fits the link

    def to_dict(self) -> dict:
        return {
            "target": self.target, "kind": self.kind, "description": self.description,
            "formula": self.formula, "substituted": self.substituted,
            "result_bytes_per_s": self.result_bytes_per_s,
            "effective_formula": self.effective_formula,
            "effective_bytes_per_s": self.effective_bytes_per_s,
            "values": [{"name": t.name, "text": t.text, "si": t.si, "source": t.source} for t in self.terms],
            "parts": [{"resource": r, "capacity_bytes_per_s": c, "passes": u} for r, c, u in self.parts],
            "binding": list(self.binding),
            "warnings": list(self.warnings),
        }


def _substitute(formula: str, link: Link) -> str:
    names = sorted(link.params, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    text = pattern.sub(lambda m: f"({link.params[m.group(1)].text})", formula)
    return text.replace("*", " × ")


def _efficiency_text(link: Link) -> str:
    d = link.definition
    return d.transfer_formula if d.transfer_formula and "transfer_size" in link.params else d.efficiency_formula


def explain_link(profile: Profile, link_id: str) -> Explanation:
    link = profile.link(link_id)
    d = link.definition
    expr = link_expression(link)
    value = float(expr.subs(link_values(link)))
    if not math.isclose(value, link.capacity_bytes_per_s, rel_tol=1e-12):  # the two paths must agree
        raise RuntimeError(f"symbolic and numeric capacity of {link_id} differ: {value} vs {link.capacity_bytes_per_s}")
    terms = tuple(Term(n, v.text, v.si, v.source) for n, v in link.params.items())
    duplex = ("half duplex: one capacity shared by both directions" if link.duplex == "half"
              else "full duplex: this capacity in each direction")
    if len(link.between) > 2:
        duplex = "a shared bus: one capacity for all traffic between its devices"
    return Explanation(
        target=link_id, kind=link.kind,
        description=f"{d.name} link {' <-> '.join(link.between)}, {duplex}" + (f"; {link.description}" if link.description else ""),
        formula=f"{d.formula}", substituted=_substitute(d.formula, link),
        result_bytes_per_s=value, network=d.network, terms=terms,
        effective_formula=(f"capacity × {_efficiency_text(link)}" if d.efficiency else ""),
        effective_bytes_per_s=link.effective_capacity_bytes_per_s if d.efficiency else None,
        warnings=tuple(w for w in (stale_description(link),) if w),
    )


def flow_parts(profile: Profile, ceiling) -> tuple[tuple[str, float, float], ...]:
    """(resource, capacity [B/s], passes) per term of a solved flow's ceiling; parallel links are
    one term with their capacities added.  Read from the :class:`Ceiling`, nothing is solved."""
    from pinchpoint.solve.ceilings import parallel_groups

    parts = []
    for rids, u in parallel_groups(profile, ceiling.usage):
        parts.append((" + ".join(rids), sum(profile.links[link_of(r)].capacity_bytes_per_s for r in rids), u))
    return tuple(parts)


def flow_substituted(profile: Profile, ceiling) -> str:
    """The ceiling's formula with the values in: ``min(rate [resource / passes], ...)``, built
    from a solved :class:`Ceiling` without solving again (the report holds every ceiling)."""
    conv = "network" if uses_network(profile, ceiling.usage) else "memory"  # the flow's own unit
    return "min(" + ", ".join(
        f"{units.format_rate(cap / u, conv)}" + (f" [{rid} / {u:g}]" if u != 1 else f" [{rid}]")
        for rid, cap, u in flow_parts(profile, ceiling)) + ")"


def link_substituted(profile: Profile, link_id: str) -> str:
    """A link's capacity formula with its parameters' values written in (text only)."""
    link = profile.link(link_id)
    return _substitute(link.definition.formula, link)


def explain_flow(profile: Profile, flow_name: str) -> Explanation:
    from pinchpoint.solve.ceilings import flow_ceiling

    c = flow_ceiling(profile, flow_name)
    # the solver's figure, as `ceilings` prints it (one truth per flow, not a re-evaluation)
    value = c.ceiling_bytes_per_s
    network = uses_network(profile, c.usage)
    return Explanation(
        target=flow_name, kind="flow", description=c.description or "",
        formula=c.formula, substituted=flow_substituted(profile, c), result_bytes_per_s=value, network=network,
        parts=flow_parts(profile, c), binding=c.binding, effective_bytes_per_s=c.effective_ceiling_bytes_per_s,
    )


def explain(profile: Profile, target: str) -> Explanation:
    """Explain a link (by id) or a flow (by name)."""
    if target in profile.links:
        return explain_link(profile, target)
    if target in profile.flows:
        return explain_flow(profile, target)
    raise ProfileError(f"no link or flow {target!r} (links: {', '.join(profile.links)}; "
                       f"flows: {', '.join(profile.flows) or 'none'})", file=profile.path)


# --- the inverse question --------------------------------------------------------------------

@dataclass(frozen=True)
class Solved:
    """The value of one parameter at which a flow reaches a target rate after protocol overhead."""

    flow: str
    link: str
    param: str
    target_bytes_per_s: float
    value_si: float
    dimension: str
    equation: str
    reachable: bool
    ceiling_after_bytes_per_s: float  # the effective ceiling at value_si
    binding_after: tuple[str, ...]
    note: str = ""
    raw_value_si: float | None = None  # the link's raw capacity alone reaches the target here
    network: bool = False  # the flow's figures read in bit/s

    def to_dict(self) -> dict:
        return {"flow": self.flow, "link": self.link, "param": self.param,
                "target_bytes_per_s": self.target_bytes_per_s, "value": self.value_si,
                "unit": units.BASE_UNITS[self.dimension], "equation": self.equation,
                "reachable": self.reachable, "effective_ceiling_after_bytes_per_s": self.ceiling_after_bytes_per_s,
                "ceiling_after_bytes_per_s": self.ceiling_after_bytes_per_s,
                "binding_after": list(self.binding_after), "raw_value": self.raw_value_si, "note": self.note}


#: Relative tolerance for "reaches the target" (solver round-off, not a margin).
_REACH = 1e-9


def _positive_roots(expr, sym, target, others) -> list[float]:
    """Positive real roots of expr = target; none where the expression has steps (ceiling of
    transfer size over MPS): there the search on the flow's ceiling answers alone."""
    import sympy

    if expr.has(sympy.ceiling, sympy.floor):
        return []
    try:
        roots = sympy.solve(sympy.Eq(expr.subs(others), sympy.Float(target)), sym)
    except NotImplementedError:
        return []
    return sorted(float(r) for r in roots if r.is_real and r > 0)


def _grows(profile: Profile, link_id: str, param: str, current: float) -> bool:
    """Whether the link's effective capacity grows with the parameter, from its values at a
    half and twice the current value (a difference: capacities with steps, such as TLPs per
    transfer, have no useful derivative).  InputError when it does not change."""
    from pinchpoint.inputs.param_values import valid_values

    link = profile.link(link_id)
    choices = valid_values(link.kind, param)
    probes = (choices[0], choices[-1]) if choices else (current / 2, current * 2)
    spec = link.definition.param(param)
    if spec.maximum is not None and not choices:
        probes = (current / 2, min(current * 2, (current + spec.maximum) / 2))
    caps = []
    for v in probes:
        try:
            caps.append(profile.with_link_param(link_id, param, v).links[link_id].effective_capacity_bytes_per_s)
        except ProfileError:  # outside the parameter's range: probe closer
            caps.append(profile.with_link_param(link_id, param, current).links[link_id].effective_capacity_bytes_per_s)
    if caps[0] == caps[1]:
        raise InputError(f"{link_id}.{param} does not change the capacity of link {link_id!r}", key="vary")
    return caps[1] > caps[0]


def _threshold(reaches, start: float, guess: float | None) -> float | None:
    """The smallest w > 0 with ``reaches(w)``, for a ``reaches`` that is false below a
    threshold and true above it (a flow's ceiling never falls as a capacity grows).

    Exact where the link's own equation is the answer (``guess``); else bracketing by factors of
    two and bisection to round-off.  None when no w up to 2^60 times the start reaches.
    """
    if guess is not None and reaches(guess) and not reaches(guess * (1 - 1e-7)):
        return guess
    hi = max(start, guess or 0.0)
    for _ in range(60):
        if reaches(hi):
            break
        hi *= 2
    else:
        return None
    lo = hi / 2
    for _ in range(200):
        if not reaches(lo):
            break
        lo /= 2
    else:
        return lo
    for _ in range(100):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (lo, mid) if reaches(mid) else (mid, hi)
    return hi


def solve(profile: Profile, flow_name: str, target_bytes_per_s: float, vary: str) -> Solved:
    """The value of LINK.PARAM at which the flow's ceiling after protocol overhead reaches a target.

    The flow's effective ceiling never falls as a capacity grows, so the answer is a threshold:
    the smallest value (the largest, for a parameter that lowers the capacity, such as an
    overhead) that reaches the target.  The link's own equation gives it exactly where that
    link alone binds; otherwise (parallel links, another link in the way, capacities with steps)
    it is found on the flow's ceiling itself.  Discrete parameters answer a value that exists
    (:mod:`pinchpoint.inputs.param_values`: PCIe lanes, MPS, PCI-X MMRBC; ``LINK.generation`` of
    a PCIe link: :mod:`pinchpoint.solve.generations`), whole-number ones are rounded the safe
    way.  Where no value reaches the target, the answer says so, with the value that comes
    closest and what binds there.

    Raises
    ------
    InputError
        A target that is not a positive finite rate, or one no finite value of the parameter
        reaches (key ``target``); a parameter the link does not have, or that does not change
        its capacity, or a link the flow does not cross (key ``vary``).
    """
    from pinchpoint.solve.ceilings import flow_ceiling
    from pinchpoint.solve.generations import has_generation

    if target_bytes_per_s <= 0 or not math.isfinite(target_bytes_per_s):
        raise InputError(f"the target must be a positive rate, got {target_bytes_per_s!r}", key="target")
    link_id, _, param = vary.partition(".")
    if not param:
        raise InputError(f"expected LINK.PARAM (e.g. pcix.clock), got {vary!r}", key="vary")
    link = profile.link(link_id)
    generation = param == "generation" and has_generation(link)
    if param not in link.params and not generation:
        extra = ", generation" if has_generation(link) else ""
        raise InputError(f"link {link_id!r} ({link.kind}) has no parameter {param!r} "
                         f"(it has: {', '.join(link.params)}{extra})", key="vary")
    before = flow_ceiling(profile, flow_name)
    if not any(link_of(r) == link_id for r in before.usage):
        raise InputError(f"flow {flow_name!r} does not cross link {link_id!r} "
                         f"(its path: {' -> '.join(before.path)})", key="vary")
    if generation:
        return _solve_generation(profile, flow_name, target_bytes_per_s, link, before)
    return _solve_param(profile, flow_name, target_bytes_per_s, link, param, before)


def _solve_generation(profile: Profile, flow_name: str, target: float, link: Link, before) -> Solved:
    """The lowest PCIe generation at which the flow reaches the target (generations are discrete)."""
    from pinchpoint.solve.ceilings import flow_ceiling
    from pinchpoint.solve.generations import generation_values, generations, with_generation

    after = None
    for gen in generations():
        after = flow_ceiling(with_generation(profile, link.id, gen), flow_name)
        if after.effective_ceiling_bytes_per_s >= target * (1 - _REACH):
            break
    reachable = after.effective_ceiling_bytes_per_s >= target * (1 - _REACH)
    values = generation_values(link, gen)
    equation = f"generation {gen}: " + ", ".join(
        f"{k} = {units.format_quantity(v, link.definition.param(k).dimension)}" for k, v in values.items())
    note = ("generation takes the values " + ", ".join(map(str, generations()))
            + ": the lowest that reaches the target" if reachable else
            f"at generation {gen} the flow is bound by {', '.join(after.binding)} at "
            f"{units.format_rate(after.effective_ceiling_bytes_per_s)}: no generation alone reaches the target")
    return Solved(flow_name, link.id, "generation", target, float(gen), "dimensionless", equation, reachable,
                  after.effective_ceiling_bytes_per_s, after.binding, note,
                  network=uses_network(profile, before.usage))


def _group_expressions(profile: Profile, before, link_id: str):
    """(effective, raw, passes) of the link's term in the flow: parallel siblings add."""
    import sympy

    from pinchpoint.solve.ceilings import parallel_groups

    rids, u = next((g, n) for g, n in parallel_groups(profile, before.usage)
                   if any(link_of(r) == link_id for r in g))
    group = list({x.id: x for x in (profile.links[link_of(r)] for r in rids)}.values())
    return (sum(link_expression(x, effective=True) for x in group), sum(link_expression(x) for x in group),
            sympy.nsimplify(u))


def _solve_param(profile: Profile, flow_name: str, target: float, link: Link, param: str, before) -> Solved:
    import sympy

    from pinchpoint.solve.ceilings import flow_ceiling
    from pinchpoint.inputs.param_values import valid_values

    link_id = link.id
    vary = f"{link_id}.{param}"
    effective, raw, u = _group_expressions(profile, before, link_id)
    sym = symbol(link_id, param)
    values = profile_values(profile)
    others = {s: v for s, v in values.items() if s != sym}
    current = values[sym]
    increasing = _grows(profile, link_id, param, current)
    spec = link.definition.param(param)

    def ceiling(v):
        try:
            return flow_ceiling(profile.with_link_param(link_id, param, v), flow_name)
        except ProfileError:  # a value whose capacity is not finite: the target asked for it
            shown = units.format_rate(target) if math.isfinite(target * 8) else f"{target:.4g} B/s"
            raise InputError(f"no finite value of {vary} gives {flow_name} {shown}: "
                             f"at {vary} = {units.format_quantity(v, spec.dimension)} the capacity is no longer "
                             "a finite rate; give a smaller --target", key="target") from None

    def reaches(v) -> bool:
        return ceiling(v).effective_ceiling_bytes_per_s >= target * (1 - _REACH)

    equation = sympy.Eq(effective / u, sympy.Float(target))
    eff_roots = _positive_roots(effective / u, sym, target, others)
    raw_roots = (_positive_roots(raw / u, sym, target, others)
                 if link.definition.efficiency is not None else [])
    note = ""
    choices = valid_values(link.kind, param)
    if choices:
        ordered = choices if increasing else tuple(reversed(choices))
        found = next((v for v in ordered if reaches(v)), None)
        value = ordered[-1] if found is None else found
        note = (f"{param} takes the values {', '.join(units.format_quantity(v, spec.dimension) for v in choices)}: "
                f"the {'smallest' if increasing else 'largest'} that reaches the target")
    else:
        value, note = _continuous(lambda v: ceiling(v).effective_ceiling_bytes_per_s, target, current, eff_roots,
                                  increasing, spec, param)
    after = ceiling(value)
    reachable = after.effective_ceiling_bytes_per_s >= target * (1 - _REACH)
    if not reachable:
        note = (f"at {param} = {units.format_quantity(value, spec.dimension)} the flow is bound by "
                f"{', '.join(after.binding)} at {units.format_rate(after.effective_ceiling_bytes_per_s)}: "
                f"no value of {vary} alone reaches the target")
    return Solved(flow_name, link_id, param, target, float(value), spec.dimension,
                  str(equation), reachable, after.effective_ceiling_bytes_per_s, after.binding, note,
                  raw_value_si=raw_roots[0] if raw_roots else None,
                  network=uses_network(profile, before.usage))


def _continuous(level, target: float, current: float, eff_roots: list[float], increasing: bool, spec,
                param: str):
    """(value, note) of a parameter that takes any value of its dimension (rounded the safe way
    when it is a whole number); ``level(v)`` is the flow's effective ceiling at v.  Unreached:
    where the link alone would reach the target (another link binds before), or, without such a
    root (capacities with steps), the first value in steps of two from the current one that gets
    within 0.1 % of the best this parameter can do (not the far end of the search)."""
    def reaches(v) -> bool:
        return level(v) >= target * (1 - _REACH)

    step = 2.0 if increasing else 0.5
    if increasing:
        found = _threshold(reaches, current, eff_roots[0] if eff_roots else None)
    else:  # search in 1/v, in which the ceiling grows
        guess = 1 / eff_roots[-1] if eff_roots else None
        w = _threshold(lambda x: reaches(1 / x), 1 / current, guess)
        found = None if w is None else 1 / w
    if found is None and eff_roots:  # the link's own equation: beyond it another link binds
        return (eff_roots[0] if increasing else eff_roots[-1]), ""
    if found is None:
        best = level(current * step ** 60)
        found = next(current * step ** k for k in range(61) if level(current * step ** k) >= best * (1 - 1e-3))
        return found, ""
    if spec.integer and found != int(found):
        return (float(math.ceil(found) if increasing else max(1, math.floor(found))),
                f"{param} is a whole number: rounded {'up' if increasing else 'down'}")
    return found, ""
