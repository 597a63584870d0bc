"""Symbolic ceilings: every link capacity and flow ceiling as a sympy expression.

The capacity functions of :mod:`pinchpoint.linkkinds` are plain arithmetic, so calling them with
sympy symbols yields the same formula the numeric path evaluates.  Symbols are named
``LINK.PARAM`` ("pcix.clock").  On top of that: explanations (the formula, the values with their
sources, the result) and the inverse question (which value of one parameter reaches a target).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from . import units
from .errors import InputError, ProfileError
from .profile import Link, Profile


def symbol(link_id: str, param: str):
    import sympy

    return sympy.Symbol(f"{link_id}.{param}", positive=True)


def link_expression(link: Link, *, effective: bool = False):
    """The capacity of a link [B/s] as a sympy expression in its parameters."""
    p = {name: symbol(link.id, name) for name in link.params}
    expr = link.definition.capacity(p)
    if effective and link.definition.efficiency is not None:
        expr = expr * link.definition.efficiency(p)
    return expr


def link_values(link: Link) -> dict:
    """Symbol -> SI value for every parameter of a link."""
    return {symbol(link.id, name): v.si for name, v in link.params.items()}


def flow_expression(profile: Profile, usage: dict[str, float], *, effective: bool = False):
    """A flow's ceiling as min over the resources it uses of capacity / passes.

    Exact wherever each leg has one route (every bundled profile); on meshes it is the
    expression of the routing the solver chose.
    """
    import sympy

    terms = []
    for rid, u in usage.items():
        link = profile.links[rid.split(":", 1)[0]]
        terms.append(link_expression(link, effective=effective) / sympy.nsimplify(u))
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
    if not math.isclose(value, link.capacity, rel_tol=1e-12):  # the two paths must agree
        raise RuntimeError(f"symbolic and numeric capacity of {link_id} differ: {value} vs {link.capacity}")
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
        effective_bytes_per_s=link.effective_capacity if d.efficiency else None,
    )


def explain_flow(profile: Profile, flow_name: str) -> Explanation:
    from .ceilings import flow_ceiling

    c = flow_ceiling(profile, flow_name)
    expr = flow_expression(profile, c.usage)
    value = evaluate(expr, profile)
    parts = []
    for rid, u in sorted(c.usage.items()):
        link = profile.links[rid.split(":", 1)[0]]
        parts.append((rid, link.capacity, u))
    substituted = "min(" + ", ".join(
        f"{units.format_rate(cap / u)}" + (f" [{rid} / {u:g}]" if u != 1 else f" [{rid}]")
        for rid, cap, u in parts) + ")"
    network = any(profile.links[r.split(":", 1)[0]].definition.network for r in c.usage)
    return Explanation(
        target=flow_name, kind="flow", description=c.description or "",
        formula=c.formula, substituted=substituted, result_bytes_per_s=value, network=network,
        parts=tuple(parts), binding=c.binding, effective_bytes_per_s=c.effective_bytes_per_s,
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
    """The value of one parameter at which a flow reaches a target rate."""

    flow: str
    link: str
    param: str
    target_bytes_per_s: float
    value_si: float
    dimension: str
    equation: str
    reachable: bool
    ceiling_after_bytes_per_s: float
    binding_after: tuple[str, ...]
    note: str = ""

    def to_dict(self) -> dict:
        return {"flow": self.flow, "link": self.link, "param": self.param,
                "target_bytes_per_s": self.target_bytes_per_s, "value": self.value_si,
                "unit": units.BASE_UNITS[self.dimension], "equation": self.equation,
                "reachable": self.reachable, "ceiling_after_bytes_per_s": self.ceiling_after_bytes_per_s,
                "binding_after": list(self.binding_after), "note": self.note}


def solve(profile: Profile, flow_name: str, target_bytes_per_s: float, vary: str) -> Solved:
    """Solve ``capacity(LINK.PARAM) / passes = target`` for the parameter, then check the flow.

    ``vary`` is "LINK.PARAM".  The answer says whether the flow really reaches the target at
    that value, or whether another link binds first (then no value of this parameter will do).
    """
    import sympy

    from .ceilings import flow_ceiling

    if target_bytes_per_s <= 0 or not math.isfinite(target_bytes_per_s):
        raise InputError(f"the target must be a positive rate, got {target_bytes_per_s!r}", key="--target")
    link_id, _, param = vary.partition(".")
    if not param:
        raise InputError(f"expected LINK.PARAM (e.g. pcix.clock), got {vary!r}", key="--vary")
    link = profile.link(link_id)
    if param not in link.params:
        raise InputError(f"link {link_id!r} ({link.kind}) has no parameter {param!r} "
                         f"(it has: {', '.join(link.params)})", key="--vary")
    before = flow_ceiling(profile, flow_name)
    passes = [u for r, u in before.usage.items() if r.split(":", 1)[0] == link_id]
    if not passes:
        raise InputError(f"flow {flow_name!r} does not cross link {link_id!r} "
                         f"(its path: {' -> '.join(before.path)})", key="--vary")
    u = max(passes)
    sym = symbol(link_id, param)
    others = {s: v for s, v in link_values(link).items() if s != sym}
    equation = sympy.Eq(link_expression(link) / sympy.nsimplify(u), sympy.Float(target_bytes_per_s))
    roots = [r for r in sympy.solve(equation.subs(others), sym) if r.is_real and r > 0]
    if not roots:
        raise InputError(f"no positive value of {vary} gives {units.format_rate(target_bytes_per_s)}")
    value = float(min(roots))
    spec = link.definition.param(param)
    note = ""
    if spec.integer and value != int(value):
        value = float(math.ceil(value))
        note = f"{param} is a whole number: rounded up"
    after = flow_ceiling(profile.with_link_param(link_id, param, value), flow_name)
    reachable = after.ceiling_bytes_per_s >= target_bytes_per_s * (1 - 1e-9)
    if not reachable:
        note = (f"at {param} = {units.format_quantity(value, spec.dimension)} the flow is bound by "
                f"{', '.join(after.binding)} at {units.format_rate(after.ceiling_bytes_per_s)}: "
                f"no value of {vary} alone reaches the target")
    return Solved(flow_name, link_id, param, target_bytes_per_s, value, spec.dimension,
                  str(equation), reachable, after.ceiling_bytes_per_s, after.binding, note)
