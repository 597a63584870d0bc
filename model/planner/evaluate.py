"""How far a candidate is above or below each need: the ceilings a need asks for, and its margin.

A rate need is read off the same ceilings ``pinchpoint ceilings`` prints: one flow alone is
:func:`~pinchpoint.solve.ceilings.flow_ceiling`; flows at once are a scenario of the profile
(its own, or one made of the matched flows at equal weights) solved by
:func:`~pinchpoint.solve.scenarios.scenario_ceilings`.  The margin is achieved / required - 1:
+0.12 is 12 % of headroom, -0.19 misses the need by 19 %.

Candidates generated from options share most of their links, and a need depends only on the
links between its flows' ends, so each answer is kept under the capacities of those links:
1,000 candidates that differ in NIC and memory options solve a GPU need a handful of times.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace

from pinchpoint.errors import InputError, PinchpointError
from pinchpoint.inputs.profile import Profile, Scenario
from pinchpoint.inputs.routing import leg_rule
from pinchpoint.inputs.requirements import Need
from pinchpoint.solve.ceilings import flow_ceiling, scenario_ceilings


@dataclass(frozen=True)
class Outcome:
    """One need on one candidate."""

    need: str
    required: float                      # B/s, or s for a workload's deadline
    achieved: float | None               # None: the candidate cannot run the need at all
    margin: float | None                 # achieved / required - 1 (deadline / time - 1)
    binding: tuple[str, ...] = ()        # links (or the resource) that bind the worst flow
    flows: tuple[str, ...] = ()          # the flows the need covered on this candidate
    note: str = ""
    unit: str = "B/s"

    @property
    def met(self) -> bool:
        return self.margin is not None and self.margin >= -1e-9

    def to_dict(self) -> dict:
        return {"need": self.need, "required": self.required, "achieved": self.achieved, "unit": self.unit,
                "margin": self.margin, "met": self.met, "binding": list(self.binding),
                "flows": list(self.flows), "note": self.note}


def matched_flows(profile: Profile, need: Need) -> tuple[str, ...]:
    """The profile's flows a need names (globs in the order the profile lists its flows)."""
    if need.scenario:
        sc = profile.scenarios.get(need.scenario)
        return () if sc is None else tuple(sc.flows)
    out = []
    for pattern in need.flows:
        out += [f for f in profile.flows if fnmatch.fnmatchcase(f, pattern) and f not in out]
    return tuple(out)


def _weights(profile: Profile, need: Need, flows: tuple[str, ...]) -> tuple[float, ...]:
    if need.scenario:
        return tuple(profile.scenarios[need.scenario].weights)
    return (1.0,) * len(flows)


def at_once(need: Need, flows: tuple[str, ...]) -> bool:
    return bool(need.scenario) or (need.at_once if need.at_once is not None else len(flows) > 1)


def _rates(profile: Profile, need: Need, flows: tuple[str, ...]):
    """(rate, binding links) per flow, alone or at once, effective or raw."""
    effective = need.basis == "effective"
    if at_once(need, flows) and len(flows) > 1:
        name = need.scenario or "plan-need"
        if not need.scenario:
            sc = Scenario(name, flows, _weights(profile, need, flows), f"the flows of need {need.name!r} at once")
            profile = replace(profile, scenarios=dict(profile.scenarios) | {name: sc})
        ceilings = scenario_ceilings(profile, name)
    else:
        ceilings = [flow_ceiling(profile, f) for f in flows]
    out = []
    for c in ceilings:
        rate = c.effective_ceiling_bytes_per_s if effective and c.effective_ceiling_bytes_per_s is not None \
            else c.ceiling_bytes_per_s
        binding = c.binding if effective else (getattr(c, "raw_binding", ()) or c.binding)
        out.append((rate, tuple(binding)))
    return out


def failing_binding(rates, bindings, required: float, worst: int) -> tuple[str, ...]:
    """What binds a need that every flow must meet: the links binding each flow that falls short
    (all of them must grow for the need to pass), or the slowest flow's where none does."""
    short = [b for r, b in zip(rates, bindings) if r < required * (1 - 1e-9)]
    return tuple(dict.fromkeys(x for b in short for x in b)) if short else tuple(bindings[worst])


def rate_outcome(profile: Profile, need: Need) -> Outcome:
    flows = matched_flows(profile, need)
    required = need.rate_bytes_per_s if need.rate_bytes_per_s is not None else need.total_bytes_per_s
    if not flows:
        what = f"scenario {need.scenario!r}" if need.scenario else f"a flow matching {', '.join(need.flows)}"
        return Outcome(need.name, required, None, None, note=f"has no {what}")
    rates = _rates(profile, need, flows)
    if need.rate_bytes_per_s is not None:
        worst = min(range(len(rates)), key=lambda i: rates[i][0])
        achieved = rates[worst][0]
        binding = failing_binding([r for r, _ in rates], [b for _, b in rates], need.rate_bytes_per_s, worst)
        note = f"slowest: {flows[worst]}" if len(flows) > 1 else ""
    else:
        achieved = sum(r for r, _ in rates)
        binding = tuple(dict.fromkeys(b for _, bs in rates for b in bs))
        note = f"sum of {len(flows)} flows"
    return Outcome(need.name, required, achieved, achieved / required - 1, binding, flows, note)


def workload_outcome(profile: Profile, need: Need, signature) -> Outcome:
    # start-up cost: the readers and the convolution serve only needs with a workload, so plans
    # of rates alone never load them
    from pinchpoint.inputs.signature import resolve_signature  # (start-up cost, above)
    from pinchpoint.inputs.workload import resolve_workload  # (start-up cost, above)
    from pinchpoint.prediction.convolve import convolve  # (start-up cost, above)

    sig = need.signature or signature
    if sig is None:
        return Outcome(need.name, need.deadline_s, None, None, unit="s",
                       note="no signature: give the candidate (or the need) a signature")
    p = convolve(resolve_signature(sig), resolve_workload(need.workload), profile=profile)
    t = p.estimate_s  # the headline estimate, as `predict` prints it
    return Outcome(need.name, need.deadline_s, t, need.deadline_s / t - 1 if t > 0 else float("inf"),
                   (str(p.binding),), note=f"{need.workload} on {sig}", unit="s")


# --- memo -------------------------------------------------------------------------------------

def _prune(profile: Profile, nodes: set[str], terminals: set[str]) -> set[str]:
    """``nodes`` less, again and again, every non-terminal joined to at most one other node that
    is left (a dead end): no simple path between terminals passes through what is pruned."""
    alive = set(nodes)
    nbrs: dict[str, set[str]] = {c: set() for c in alive}
    for link in profile.links.values():
        ends = [e for e in link.between if e in alive]
        for a in ends:
            nbrs[a].update(b for b in ends if b != a)
    stack = [c for c in alive if len(nbrs[c]) <= 1 and c not in terminals]
    while stack:
        c = stack.pop()
        if c not in alive:
            continue
        alive.discard(c)
        for n in nbrs[c]:
            nbrs[n].discard(c)
            if n in alive and len(nbrs[n]) <= 1 and n not in terminals:
                stack.append(n)
    return alive


def leg_nodes(profile: Profile, flow: str, leg: tuple[str, str]) -> set[str]:
    """The components a route of one leg may cross under the profile's routing rules
    (:mod:`pinchpoint.inputs.routing`), dead ends pruned."""
    rule = leg_rule(profile, profile.flows[flow], *leg)
    nodes = set(leg) | rule.entry | rule.exit
    nodes |= rule.allowed if rule.allowed is not None else {c for c, comp in profile.components.items()
                                                               if comp.forwards}
    return _prune(profile, nodes, set(leg))


class Evaluator:
    """Outcomes of needs on candidates, each solved once per distinct set of relevant capacities."""

    def __init__(self):
        self._cache: dict = {}
        self._core: dict = {}
        self.solved = 0
        self.asked = 0

    def _relevant(self, profile: Profile, flows: tuple[str, ...]) -> tuple[str, ...]:
        shape = (profile.path, profile.name, flows, tuple((k, l.between) for k, l in profile.links.items()))
        if shape not in self._core:
            core = {n for f in flows for leg in profile.flows[f].legs for n in leg_nodes(profile, f, leg)}
            self._core[shape] = tuple(k for k, l in profile.links.items()
                                      if sum(e in core for e in l.between) >= 2)
        return self._core[shape]

    def _key(self, profile: Profile, need_index: int, need: Need):
        flows = matched_flows(profile, need)
        links = self._relevant(profile, flows)
        caps = tuple((k, profile.links[k].capacity_bytes_per_s, profile.links[k].effective_capacity_bytes_per_s,
                      profile.links[k].duplex) for k in links)
        comps = tuple((c.id, c.kind, tuple(sorted((p, v.si) for p, v in c.params.items())))
                      for c in profile.components.values())
        flow_defs = tuple((f, profile.flows[f].legs, tuple(sorted(profile.flows[f].passes.items())))
                          for f in flows)
        return (need_index, flows, flow_defs, caps, comps)

    def outcome(self, profile: Profile, need_index: int, need: Need, signature=None) -> Outcome:
        self.asked += 1
        if need.kind == "workload":
            key = (need_index, "workload", signature, profile.path, profile.name,
                   tuple((k, l.capacity_bytes_per_s) for k, l in profile.links.items()))
        else:
            key = self._key(profile, need_index, need)
        if key not in self._cache:
            self.solved += 1
            try:
                self._cache[key] = (workload_outcome(profile, need, signature) if need.kind == "workload"
                                    else rate_outcome(profile, need))
            except PinchpointError as exc:
                self._cache[key] = Outcome(need.name, need.deadline_s or need.rate_bytes_per_s
                                           or need.total_bytes_per_s, None, None, note=f"cannot evaluate: {exc}")
        return self._cache[key]


def check_needs_match(needs, candidates, *, file=None) -> None:
    """A need that no candidate can evaluate (a flow or scenario none has) is a mistake in the file."""
    for i, need in enumerate(needs):
        if need.kind == "workload":
            continue
        if not any(matched_flows(c.profile, need) for c in candidates):
            what = (f"scenario {need.scenario!r}" if need.scenario
                    else f"flows {', '.join(need.flows)}")
            key = f"needs[{i}].{'scenario' if need.scenario else 'flows'}"
            raise InputError(f"{what}: no candidate has it (e.g. {candidates[0].name}: "
                             f"{', '.join(list(candidates[0].profile.flows)[:8]) or 'no flows'})",
                             file=file, key=key)

