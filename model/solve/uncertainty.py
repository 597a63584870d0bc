"""Uncertain profile values: a flow's ceiling as an interval, percentiles and binding shares.

Profile values may carry a spread ("6.4 GB/s +- 10 %", "0.7 us .. 1.0 us",
"normal(6.4 GB/s, 0.2 GB/s)": :mod:`pinchpoint.inputs.spread`), and the ``--uncertain`` flag adds or
overrides spreads.  We draw ``samples`` values of every uncertain link parameter at once with
numpy (uniform or normal; normal draws are truncated at zero for parameters that must be
positive, by redrawing), evaluate the same lambdified terms as the sweep
(:func:`pinchpoint.solve.sweep.build_terms`) on the sample arrays, and report the ceiling's mean,
standard deviation, percentiles and observed range, and how often each link binds.

On a graph with several routes (a mesh) the router may move traffic when a value changes, so
there each sample is solved again (:func:`pinchpoint.solve.sweep.resolved_points`), at most
:data:`MAX_RESOLVED_SAMPLES` of them.

The Monte Carlo standard error of a binding share ``p`` is ``sqrt(p (1 - p) / samples)``;
with the default 100 000 samples it is below 0.0016.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pinchpoint.errors import InputError, UnitError
from pinchpoint.inputs import spread as spreadmod
from pinchpoint.inputs.profile import Profile
from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.solve.sweep import Axis, build_terms, check_param, evaluate_terms, resolved_points

PERCENTILES = (1.0, 5.0, 25.0, 50.0, 75.0, 95.0, 99.0)


@dataclass(frozen=True)
class Uncertain:
    """One uncertain link parameter: ``spread`` is ("uniform", lo, hi) or ("normal", mean, sd) in SI."""

    link: str
    param: str
    spread: tuple[str, float, float]
    text: str = ""
    origin: str = "profile"  # or "--uncertain"

    @property
    def name(self) -> str:
        return f"{self.link}.{self.param}"

    def to_dict(self) -> dict:
        kind, a, b = self.spread
        keys = ("low", "high") if kind == "uniform" else ("mean", "sd")
        return {"name": self.name, "distribution": kind, keys[0]: a, keys[1]: b, "text": self.text,
                "origin": self.origin}


def profile_spreads(profile: Profile) -> list[Uncertain]:
    """Every link parameter of the profile that carries a spread."""
    out = []
    for link in profile.links.values():
        for name, v in link.params.items():
            spread = getattr(v, "spread", None)
            if spread is not None:
                out.append(Uncertain(link.id, name, tuple(spread), v.text, "profile"))
    return out


def parse_uncertain(text: str, profile: Profile, *, key: str = "uncertain") -> Uncertain:
    """Parse ``LINK.PARAM=SPREAD`` (e.g. ``mem.clock=200 MHz +- 5 %``)."""
    name, sep, value = text.partition("=")
    link_id, dot, param = name.strip().partition(".")
    if not sep or not dot or not value.strip():
        raise InputError(f"expected LINK.PARAM=SPREAD (e.g. mem.clock='200 MHz +- 5 %'), got {text!r}", key=key)
    spec = check_param(profile, link_id, param, key)
    where = f"{key} {link_id}.{param}"
    try:
        _, spread = spreadmod.parse_spread(value.strip(), spec.dimension, key=where)
    except UnitError as exc:
        raise exc.located(kind=InputError) from None
    if spread[0] == "uniform" and spec.positive and spread[1] <= 0:
        raise InputError(f"{value.strip()!r} must stay greater than zero", key=where)
    return Uncertain(link_id, param, spread, value.strip(), key)


def draw(u: Uncertain, samples: int, rng: np.random.Generator, *, positive: bool = True) -> np.ndarray:
    """``samples`` draws of one uncertain parameter [SI]."""
    kind, a, b = u.spread
    if kind == "uniform":
        return rng.uniform(a, b, samples) if b > a else np.full(samples, a)
    if kind == "normal":
        x = rng.normal(a, b, samples)
        if positive:
            for _ in range(100):  # truncate at zero by redrawing (rarely more than one round)
                bad = x <= 0
                if not bad.any():
                    break
                x[bad] = rng.normal(a, b, int(bad.sum()))
            else:
                raise InputError(f"{u.name}: normal({a:g}, {b:g}) keeps drawing values <= 0")
        return x
    raise InputError(f"{u.name}: unknown distribution {kind!r}")


@dataclass(frozen=True, eq=False)
class UncertainCeiling:
    """The distribution of one flow's ceiling under uncertain link parameters."""

    profile: str
    flow: str
    inputs: tuple[Uncertain, ...]
    samples: int
    seed: int | None
    nominal_bytes_per_s: float
    mean_bytes_per_s: float
    sd_bytes_per_s: float
    low_bytes_per_s: float  # smallest sample
    high_bytes_per_s: float  # largest sample
    percentiles: dict[float, float]  # percent -> B/s
    binding_share: dict[str, float]  # link -> fraction of samples in which it binds
    effective_percentiles: dict[float, float]
    effective_binding_share: dict[str, float]
    network: bool
    values: np.ndarray = field(repr=False, default=None)  # the samples [B/s]

    def interval(self, level: float = 90.0) -> tuple[float, float]:
        """The central ``level`` % interval of the sampled ceiling [B/s]."""
        lo, hi = np.percentile(self.values, [50 - level / 2, 50 + level / 2])
        return float(lo), float(hi)

    def to_dict(self) -> dict:
        lo, hi = self.interval(90.0)
        return {
            "profile": self.profile, "flow": self.flow, "samples": self.samples, "seed": self.seed,
            "inputs": [u.to_dict() for u in self.inputs],
            "nominal_ceiling_bytes_per_s": self.nominal_bytes_per_s,
            "mean_bytes_per_s": self.mean_bytes_per_s, "sd_bytes_per_s": self.sd_bytes_per_s,
            "interval_90_bytes_per_s": [lo, hi],
            "observed_range_bytes_per_s": [self.low_bytes_per_s, self.high_bytes_per_s],
            "percentiles_bytes_per_s": {f"p{p:g}": v for p, v in self.percentiles.items()},
            "binding_share": self.binding_share,
            "effective_percentiles_bytes_per_s": {f"p{p:g}": v for p, v in self.effective_percentiles.items()},
            "effective_binding_share": self.effective_binding_share,
        }


def _shares(links: tuple[str, ...], idx: np.ndarray) -> dict[str, float]:
    counts = np.bincount(idx, minlength=len(links))
    out: dict[str, float] = {}
    for link, n in zip(links, counts):
        out[link] = out.get(link, 0.0) + float(n) / idx.size
    return dict(sorted(((k, v) for k, v in out.items() if v > 0), key=lambda kv: -kv[1]))


#: Samples on a graph with several routes, where each is solved again (a few ms each); the
#: standard error of a binding share stays below 0.011.
MAX_RESOLVED_SAMPLES = 2_000


def monte_carlo(profile: Profile, flow: str, extra: list[Uncertain] | tuple[Uncertain, ...] = (), *,
                samples: int = 100_000, seed: int | None = 0) -> UncertainCeiling:
    """Monte Carlo distribution of ``flow``'s ceiling (see the module docstring).

    ``extra`` spreads (from ``--uncertain``) override the profile's own for the same parameter.
    On a graph with several routes each sample is solved again (the routing may change with the
    values), at most :data:`MAX_RESOLVED_SAMPLES` of them (``samples`` in the result says how many).

    Raises
    ------
    InputError
        No uncertain parameter at all, or ``samples`` < 2.
    """
    if samples < 2:
        raise InputError(f"need at least 2 samples, got {samples}", key="samples")
    profile.flow(flow)
    merged = {u.name: u for u in profile_spreads(profile)}
    for u in extra:
        merged[u.name] = u
    inputs = tuple(merged.values())
    if not inputs:
        raise InputError(f"profile {profile.name!r} has no value with a spread: write one as "
                         "'6.4 GB/s +- 10 %' or '0.7 us .. 1.0 us', or pass --uncertain LINK.PARAM=SPREAD",
                         key="uncertain")
    rng = np.random.default_rng(seed)
    terms = build_terms(profile, flow, [u.name for u in inputs])
    links = terms.links
    if not terms.forest:  # several routes: the router may move traffic, so each sample is solved again
        samples = min(samples, MAX_RESOLVED_SAMPLES)
    args = [draw(u, samples, rng, positive=profile.links[u.link].definition.param(u.param).positive)
            for u in inputs]
    if terms.forest:
        raw, idx = evaluate_terms(terms, args, (samples,))
        eff, eidx = evaluate_terms(terms, args, (samples,), effective=True)
    else:
        axes = [Axis(u.link, u.param, profile.links[u.link].definition.param(u.param).dimension, a)
                for u, a in zip(inputs, args)]
        same = np.arange(samples)
        raw, idx, eff, eidx = resolved_points(profile, flow, axes, tuple(same for _ in axes))
        links = tuple(profile.links)
    pct = dict(zip(PERCENTILES, (float(v) for v in np.percentile(raw, PERCENTILES))))
    epct = dict(zip(PERCENTILES, (float(v) for v in np.percentile(eff, PERCENTILES))))
    network = any(profile.links[l].definition.network for l in terms.links)
    return UncertainCeiling(
        profile.name, flow, inputs, samples, seed, flow_ceiling(profile, flow).ceiling_bytes_per_s,
        float(raw.mean()), float(raw.std(ddof=1)), float(raw.min()), float(raw.max()), pct,
        _shares(links, idx), epct, _shares(links, eidx), network, raw)
