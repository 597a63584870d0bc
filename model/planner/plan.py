"""A purchase decision: every candidate against every need, the cheapest that meets them all,
and the cost-versus-headroom Pareto front.

``headroom`` of a candidate is its smallest margin over the needs (negative: it fails one);
a candidate is on the front when no other is at most as expensive with at least as much
headroom, and strictly better in one of the two (Pareto, as in multi-objective procurement).
With value ranges in a profile ("6.4 GB/s +- 10 %"), the probability that a candidate meets a
one-flow need is the share of the Monte Carlo ceilings of ``pinchpoint uncertainty`` that reach it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pinchpoint.inputs.requirements import Need, PlanSpec, load_plan
from pinchpoint.planner.batch import fast_outcomes, structure_key
from pinchpoint.planner.evaluate import Evaluator, Outcome, at_once, check_needs_match, matched_flows
from pinchpoint.planner.fixes import Fix, smallest_fix
from pinchpoint.planner.space import Candidate, all_candidates
from pinchpoint.solve.sweep import build_terms, evaluate_terms
from pinchpoint.solve.uncertainty import draw, profile_spreads

#: Fixes are searched for this many candidates at most (the cheapest first): each is a search.
MAX_FIXED = 24
#: Monte Carlo samples per probability.
SAMPLES = 4000


@dataclass(frozen=True)
class Row:
    """One candidate against every need."""

    name: str
    price: float | None
    outcomes: tuple[Outcome, ...]
    choices: tuple[str, ...] = ()
    fixes: dict = field(default_factory=dict)          # need -> Fix
    probability: dict = field(default_factory=dict)    # need -> P(meets) with value ranges

    @property
    def meets_all(self) -> bool:
        return all(o.met for o in self.outcomes)

    @property
    def headroom(self) -> float:
        """The smallest margin over the needs (-inf where one cannot be evaluated)."""
        return min((o.margin if o.margin is not None else -np.inf) for o in self.outcomes)

    @property
    def failing(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if not o.met)

    def to_dict(self) -> dict:
        return {"name": self.name, "price": self.price, "choices": list(self.choices),
                "meets_all": self.meets_all, "headroom": None if not np.isfinite(self.headroom) else self.headroom,
                "needs": [o.to_dict() | {"fix": self.fixes[o.need].to_dict() if o.need in self.fixes else None,
                                         "probability": self.probability.get(o.need)}
                          for o in self.outcomes]}


@dataclass(frozen=True)
class Plan:
    name: str
    needs: tuple[Need, ...]
    rows: tuple[Row, ...]
    cheapest: str | None                 # the cheapest candidate that meets every need
    front: tuple[str, ...]               # Pareto front, cheapest first
    solved: int = 0                      # distinct ceilings solved
    asked: int = 0                       # outcomes asked for

    def row(self, name: str) -> Row:
        return next(r for r in self.rows if r.name == name)

    def verdict(self) -> str:
        """One sentence a planner can forward."""
        priced = any(r.price is not None for r in self.rows)
        if self.cheapest is None:
            best = max(self.rows, key=lambda r: r.headroom)
            return (f"no candidate meets every need; closest: {best.name} "
                    f"({_failure_text(best)})")
        win = self.row(self.cheapest)
        head = f"{win.name} meets every need" + (f" at the lowest price ({win.price:,.0f})" if priced else "")
        others = [r for r in self.rows if not r.meets_all and r.price is not None and win.price is not None
                  and r.price < win.price]
        if others:
            cheaper = min(others, key=lambda r: r.price)
            head += f"; {cheaper.name}, cheaper, fails: {_failure_text(cheaper)}"
        return head

    def to_dict(self) -> dict:
        return {"plan": self.name, "needs": [n.name for n in self.needs], "cheapest": self.cheapest,
                "verdict": self.verdict(), "pareto_front": list(self.front),
                "candidates": [r.to_dict() for r in self.rows],
                "evaluations": {"asked": self.asked, "solved": self.solved}}


def _failure_text(row: Row) -> str:
    parts = []
    for o in row.failing:
        if o.margin is None:
            parts.append(f"{o.need}: {o.note}")
        else:
            verb = "binds" if len(o.binding) == 1 else "bind"
            why = f" because {', '.join(o.binding)} {verb}" if o.binding else ""
            parts.append(f"{o.need} by {-o.margin:.0%}{why}")
    return "; ".join(parts)


def pareto_front(rows) -> tuple[str, ...]:
    """Names of the rows no other row dominates on (price lower, headroom higher)."""
    priced = [r for r in rows if r.price is not None]
    out = []
    for r in sorted(priced, key=lambda r: (r.price, -r.headroom)):
        if not any(o is not r and o.price <= r.price and o.headroom >= r.headroom
                   and (o.price < r.price or o.headroom > r.headroom) for o in priced):
            out.append(r.name)
    return tuple(out)


def _cheapest(rows) -> str | None:
    ok = [r for r in rows if r.meets_all]
    if not ok:
        return None
    return min(ok, key=lambda r: (r.price if r.price is not None else np.inf, -r.headroom)).name


def _probability(c: Candidate, need: Need, outcome: Outcome) -> float | None:
    """P(the need is met) under the profile's value ranges (one flow alone only)."""

    spreads = profile_spreads(c.profile)
    flows = matched_flows(c.profile, need)
    if not spreads or need.kind != "rate" or len(flows) != 1 or at_once(need, flows) and len(flows) > 1:
        return None
    rng = np.random.default_rng(0)
    terms = build_terms(c.profile, flows[0], [u.name for u in spreads])
    args = [draw(u, SAMPLES, rng, positive=c.profile.links[u.link].definition.param(u.param).positive)
            for u in spreads]
    values, _ = evaluate_terms(terms, args, (SAMPLES,), effective=need.basis == "effective")
    return float(np.mean(values >= outcome.required * (1 - 1e-9)))


def _outcomes(needs, candidates: list[Candidate], ev: Evaluator) -> list[list[Outcome]]:
    """outcome[candidate][need]: vectorised over candidates of one structure where the routing
    cannot change (:mod:`pinchpoint.planner.batch`), else solved once per distinct capacities."""
    table: list[list[Outcome | None]] = [[None] * len(needs) for _ in candidates]
    groups: dict = {}
    for j, c in enumerate(candidates):
        groups.setdefault(structure_key(c.profile), []).append(j)
    for members in groups.values():
        profiles = [candidates[j].profile for j in members]
        for i, need in enumerate(needs):
            fast = fast_outcomes(profiles, need) if len(members) > 1 else None
            for k, j in enumerate(members):
                table[j][i] = fast[k] if fast is not None else ev.outcome(
                    candidates[j].profile, i, need, candidates[j].signature)
            if fast is not None:
                ev.asked += len(members)
                ev.solved += 1
    return table


def evaluate(spec: PlanSpec, candidates: list[Candidate], *, fixes: bool = True,
             probabilities: bool = True) -> Plan:
    """Every candidate against every need of ``spec``."""
    check_needs_match(spec.needs, candidates, file=spec.file)
    ev = Evaluator()
    table = _outcomes(spec.needs, candidates, ev)
    rows = [Row(c.name, c.price, tuple(table[j]), c.choices) for j, c in enumerate(candidates)]
    by_price = sorted(range(len(rows)), key=lambda i: (rows[i].price is None, rows[i].price or 0))
    for i in by_price[:MAX_FIXED] if fixes else ():
        r, c = rows[i], candidates[i]
        fx = {o.need: f for n, o in zip(spec.needs, r.outcomes) if (f := smallest_fix(c.profile, n, o)) is not None}
        pr = {}
        if probabilities:
            pr = {o.need: p for n, o in zip(spec.needs, r.outcomes)
                  if (p := _probability(c, n, o)) is not None}
        rows[i] = Row(r.name, r.price, r.outcomes, r.choices, fx, pr)
    rows = tuple(rows)
    return Plan(spec.name, spec.needs, rows, _cheapest(rows), pareto_front(rows), ev.solved, ev.asked)


def plan(requirements, candidates=(), **options) -> Plan:
    """The purchase answer for a plan file (or :class:`PlanSpec`) and extra candidates
    (profile names, paths or objects)."""
    spec = requirements if isinstance(requirements, PlanSpec) else load_plan(requirements)
    return evaluate(spec, all_candidates(spec, candidates), **options)


__all__ = ["Plan", "Row", "Fix", "plan", "evaluate", "pareto_front"]
