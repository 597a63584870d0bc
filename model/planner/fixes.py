"""The smallest change that makes a failing need pass: one parameter of the links that bind it.

For each parameter of the binding links, the smallest value that makes the need pass is found
on the need's own outcome, which never falls as a capacity grows: the valid values of a
discrete parameter in order (PCIe lanes, a whole number of channels, the next PCIe
generation), or bisection on a clock or a rate; for one flow alone that is the value
``pinchpoint solve`` answers (:func:`pinchpoint.solve.symbolic.solve`), and flows at once, which
``solve`` does not take, are answered alike.  Parallel binding links (four switch uplinks)
change together.  Of the answers, the one that overshoots the need least is the smallest change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pinchpoint.errors import PinchpointError
from pinchpoint.inputs.param_values import valid_values
from pinchpoint.inputs.profile import Profile
from pinchpoint.inputs.requirements import Need
from pinchpoint.physics import units
from pinchpoint.planner.evaluate import Outcome, rate_outcome
from pinchpoint.solve.generations import current_generation, generations, has_generation, with_generation

#: Dimensions of parameters that a purchase can raise continuously (a faster clock or rate);
#: other continuous parameters are properties of a protocol (overheads, encodings), not options.
_CONTINUOUS = ("frequency", "bandwidth")
#: Parameters a PCIe generation sets: the generation is the option, not these.
_FOLLOW_GENERATION = ("lane_rate", "encoding", "flit_payload")
#: How far a whole-number parameter is tried above its value (x 4: 8 -> 32 channels).
_WHOLE_RANGE = 4.0


@dataclass(frozen=True)
class Fix:
    links: tuple[str, ...]
    param: str
    before: str
    after: str
    reaches: str                          # the need's figure after the change
    relative: float                       # how far it then overshoots the need (0: exactly)

    def text(self) -> str:
        return (f"{', '.join(self.links)}.{self.param}: {self.before} -> {self.after} "
                f"(reaches {self.reaches})")

    def to_dict(self) -> dict:
        return {"links": list(self.links), "param": self.param, "before": self.before, "after": self.after,
                "reaches": self.reaches, "overshoot": self.relative}


def _with(profile: Profile, links, param: str, value: float) -> Profile:
    for lid in links:
        profile = profile.with_link_param(lid, param, value)
    return profile


def _trials(profile: Profile, link_id: str, param: str):
    """The values to try above the current one, smallest first (None: bisect)."""
    link = profile.links[link_id]
    spec = link.definition.param(param)
    now = link.params[param].si
    choices = valid_values(link.kind, param) or spec.choices
    if choices:
        return now, spec, [v for v in sorted(choices) if v > now]
    if spec.integer:
        return now, spec, [float(v) for v in range(int(now) + 1, int(now * _WHOLE_RANGE) + 1)]
    if spec.dimension in _CONTINUOUS:
        return now, spec, None
    return now, spec, []


def _shown(link, spec):
    """How a parameter value prints: a network link's rate in bit/s, anything else in its unit."""
    if spec.dimension == "bandwidth" and link.definition.network:
        return lambda v: units.format_rate(v, "network")
    return lambda v: units.format_quantity(v, spec.dimension)


def _bisect(ok, lo: float, hi: float) -> float | None:
    if not ok(hi):
        return None
    for _ in range(40):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        if hi / lo - 1 < 1e-4:
            break
    return hi


def _grows(profile: Profile, links, param: str, now: float, need: Need, base: float) -> bool:
    try:
        up = rate_outcome(_with(profile, links, param, now * 1.5), need).achieved or 0.0
    except PinchpointError:
        return True  # no half-step value exists (a discrete parameter): try its values
    return up > base * (1 + 1e-9)


def _with_generation(profile: Profile, links, gen: int) -> Profile:
    for lid in links:
        profile = with_generation(profile, lid, gen)
    return profile


def _generation_fix(profile: Profile, need: Need, links) -> Fix | None:
    """The lowest PCIe generation above the links' own that makes the need pass."""
    group = tuple(l for l in links if has_generation(profile.links[l]))
    now = current_generation(profile.links[group[0]]) if group else None
    if now is None:
        return None
    for gen in (g for g in generations() if g > now):
        try:
            after = rate_outcome(_with_generation(profile, group, gen), need)
        except PinchpointError:
            continue
        if after.met:
            return Fix(group, "generation", str(now), str(gen), units.format_rate(after.achieved, need.convention),
                       after.achieved / need_figure(need) - 1)
    return None


def need_figure(need: Need) -> float:
    return need.rate_bytes_per_s if need.rate_bytes_per_s is not None else need.total_bytes_per_s


# long: one loop over binding links and their parameters; the branches skip what cannot change and keep the least overshoot
def smallest_fix(profile: Profile, need: Need, outcome: Outcome) -> Fix | None:
    """One parameter change on the binding links that makes ``need`` pass, the one that
    overshoots the need least (``Fix.relative``: the need's figure after the change, relative
    to what it asks); None where no single parameter is enough.  A PCIe link's lane rate and
    line code follow its generation, so the generation is tried instead of them."""
    if need.kind != "rate" or outcome.achieved is None or outcome.met or not outcome.binding:
        return None
    links = tuple(l for l in outcome.binding if l in profile.links)
    candidates = [f for f in [_generation_fix(profile, need, links)] if f is not None]
    kinds = {profile.links[l].kind for l in links}
    for param in dict.fromkeys(p for l in links for p in profile.links[l].params):
        group = tuple(l for l in links if param in profile.links[l].params)
        if len(kinds) > 1 and len(group) < len(links):
            continue  # a parameter of some binding links only cannot lift a shared limit alone
        if param in _FOLLOW_GENERATION and has_generation(profile.links[group[0]]):
            continue
        now, spec, trials = _trials(profile, group[0], param)

        def ok(v, group=group, param=param):
            try:
                return rate_outcome(_with(profile, group, param, v), need).met
            except PinchpointError:
                return False

        if trials is None:
            if not _grows(profile, group, param, now, need, outcome.achieved):
                continue
            found = _bisect(ok, now, now * 1000.0)
        else:
            found = next((v for v in trials if ok(v)), None)
        if found is None:
            continue
        after = rate_outcome(_with(profile, group, param, found), need)
        shown = _shown(profile.links[group[0]], spec)
        candidates.append(Fix(group, param, shown(now), shown(found),
                              units.format_rate(after.achieved, need.convention),
                              after.achieved / need_figure(need) - 1))
    return min(candidates, key=lambda f: f.relative, default=None)
