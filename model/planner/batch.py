"""Needs on many candidates at once, vectorised where the routing cannot change.

Candidates generated from one base profile differ only in link parameters.  Where every flow
of a need has a unique route (one simple path between the ends of each leg), no
parameter can move its traffic elsewhere, so each flow's ceiling is min over the resources r
on its route of capacity_r / passes_r, and flows at once at weights w share each resource:
t = min over r of capacity_r / sum_f w_f passes_f,r.  These are the terms
:func:`pinchpoint.solve.sweep.build_terms` lambdifies from the link kinds' own formulas; they are
evaluated here for all candidates in one numpy pass.

A fast answer is used only after it matched the solver's own answer (value and binding links)
on the group's first candidate; anything else (several routes, a mismatch) is solved candidate
by candidate.
"""

from __future__ import annotations

import numpy as np

from pinchpoint.errors import PinchpointError
from pinchpoint.graph.resource_ids import link_of
from pinchpoint.inputs.profile import Profile
from pinchpoint.inputs.requirements import Need
from pinchpoint.planner.evaluate import Outcome, at_once, failing_binding, leg_nodes, matched_flows, rate_outcome
from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.solve.sweep import build_terms

#: Relative agreement asked of the fast answer with the solver's (round-off, not a margin).
_AGREE = 1e-9


def unique_route(profile: Profile, flow: str, leg: tuple[str, str]) -> bool:
    """True when one simple path joins the leg's ends under the routing rules: what is left
    after pruning every dead end is a chain of two-ended links (a cycle anywhere on the way,
    or a shared bus, would give traffic a second route or a share to work out)."""
    core = leg_nodes(profile, flow, leg)
    links = [l for l in profile.links.values() if sum(e in core for e in l.between) >= 2]
    return all(len(l.between) == 2 for l in links) and len(links) == len(core) - 1


def structure_key(profile: Profile):
    """What routing depends on: components and whether they forward, links' ends, flows (a
    component's other parameters reach the solvers only through the links that read them)."""
    return (tuple((c.id, c.kind, getattr(c, "forwards", True)) for c in profile.components.values()),
            tuple((k, l.kind, l.between, l.duplex) for k, l in profile.links.items()),
            tuple((k, f.legs, tuple(sorted(f.passes.items()))) for k, f in profile.flows.items()),
            tuple((k, s.flows, s.weights) for k, s in profile.scenarios.items()))


class FastNeed:
    """One need over candidates that share a structure, or None where it cannot be vectorised."""

    def __init__(self, base: Profile, need: Need):
        self.need = need
        self.flows = matched_flows(base, need)
        if need.kind != "rate" or not self.flows:
            raise ValueError("not a rate need")
        if not all(unique_route(base, f, leg) for f in self.flows for leg in base.flows[f].legs):
            raise ValueError("a flow with several routes")
        ceilings = [flow_ceiling(base, f) for f in self.flows]
        links = sorted({link_of(r) for c in ceilings for r in c.usage})
        self.names = [f"{l}.{p}" for l in links for p in base.links[l].params]
        self.terms = [build_terms(base, f, self.names) for f in self.flows]
        self.together = at_once(need, self.flows) and len(self.flows) > 1
        if need.scenario:
            self.weights = tuple(base.scenarios[need.scenario].weights)
        else:
            self.weights = (1.0,) * len(self.flows)
        self.effective = need.basis == "effective"

    def _args(self, profiles: list[Profile]) -> list[np.ndarray]:
        cols = []
        for name in self.names:
            lid, _, param = name.partition(".")
            cols.append(np.array([p.links[lid].params[param].si for p in profiles]))
        return cols

    def _flow_terms(self, args, n: int):
        """Per flow: (resource ids, value array [terms x n]) of capacity_r / passes_r."""
        out = []
        for t in self.terms:
            funcs = t.effective if self.effective else t.raw
            stack = np.empty((len(funcs), n))
            for i, f in enumerate(funcs):
                stack[i] = f(*args)
            out.append((t.resources, stack))
        return out

    def outcomes(self, profiles: list[Profile]) -> list[Outcome]:
        n = len(profiles)
        per_flow = self._flow_terms(self._args(profiles), n)
        if self.together:
            # resource r carries sum_f w_f passes_f,r per unit of the common rate t
            load: dict[str, np.ndarray] = {}
            for w, (res, stack) in zip(self.weights, per_flow):
                for r, row in zip(res, stack):
                    load[r] = load.get(r, 0.0) + w / row
            rids = list(load)
            t = 1.0 / np.vstack([load[r] for r in rids])          # [resources x n]
            common = t.min(axis=0)
            rates = np.outer(self.weights, common)                  # [flows x n]
            # a flow is bound by its own links that set the common rate, else by those that do
            # on another flow's route (as the scenario solver words it)
            bindings = []
            for res, _ in per_flow:
                own = [i for i, r in enumerate(rids) if r in set(res)]
                bindings.append([_ties([rids[i] for i in own], t[own, j], common[j])
                                 or _ties(rids, t[:, j], common[j]) for j in range(n)])
        else:
            rates = np.vstack([stack.min(axis=0) for _, stack in per_flow])
            bindings = [[_ties(res, stack[:, j], stack[:, j].min()) for j in range(n)] for res, stack in per_flow]
        return [self._outcome(rates[:, j], [b[j] for b in bindings]) for j in range(n)]

    def _outcome(self, rates, bindings) -> Outcome:
        need = self.need
        if need.rate_bytes_per_s is not None:
            worst = int(np.argmin(rates))
            achieved = float(rates[worst])
            binding = failing_binding(list(rates), bindings, need.rate_bytes_per_s, worst)
            return Outcome(need.name, need.rate_bytes_per_s, achieved, achieved / need.rate_bytes_per_s - 1,
                           binding, self.flows,
                           f"slowest: {self.flows[worst]}" if len(self.flows) > 1 else "")
        achieved = float(rates.sum())
        binding = tuple(dict.fromkeys(b for bs in bindings for b in bs))
        return Outcome(need.name, need.total_bytes_per_s, achieved, achieved / need.total_bytes_per_s - 1,
                       binding, self.flows, f"sum of {len(self.flows)} flows")


def _ties(rids, values, low) -> tuple[str, ...]:
    return tuple(sorted({link_of(r) for r, v in zip(rids, values) if v <= low * (1 + _AGREE)}))


def _agrees(fast: Outcome, slow: Outcome) -> bool:
    if fast.achieved is None or slow.achieved is None:
        return False
    return (abs(fast.achieved - slow.achieved) <= _AGREE * max(abs(slow.achieved), 1.0)
            and set(fast.binding) == set(slow.binding))


def fast_outcomes(profiles: list[Profile], need: Need) -> list[Outcome] | None:
    """The need's outcome on every profile (one structure), or None where it must be solved one by one."""
    try:
        fast = FastNeed(profiles[0], need)
    except (ValueError, PinchpointError):
        return None
    outs = fast.outcomes(profiles)
    try:
        check = rate_outcome(profiles[0], need)
    except PinchpointError:
        return None
    return outs if _agrees(outs[0], check) else None
