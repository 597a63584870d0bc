"""What-if sweeps: a flow's ceiling and binding link over a grid of link parameters, vectorised.

A flow's ceiling is ``min over the resources r it uses of capacity_r / passes_r``
(:func:`pinchpoint.solve.symbolic.flow_expression`).  Each term is a sympy expression in the link
parameters (:func:`pinchpoint.solve.symbolic.link_expression`, symbols named ``"link.param"``); we
substitute the profile's values for every parameter that is not swept, turn each term into a
numpy function with :func:`sympy.lambdify`, evaluate all terms over the whole grid at once and
take the minimum (the ceiling) and the arg-minimum (the binding link) along the term axis.
There is no Python loop over grid points.  Large grids are evaluated in chunks of consecutive
points (:class:`SweepPlan`, :class:`SweepChunk`): the same arithmetic on each point, so the
same floats, with memory bounded by the chunk; the CLI streams CSV and its summary that way.

The routing (how many times a payload byte crosses each resource, the ``usage``) is taken from
the ceiling at the profile's own values and kept fixed over the grid.  That is exact when each
leg of the flow has a single route (the graph is a forest: every bundled profile).  On a graph
with several routes the router moves traffic to another path when a capacity changes (keeping
the nominal routing was up to 10x pessimistic on random meshes), so there each point is solved
again by :func:`pinchpoint.solve.ceilings.flow_ceiling` (:func:`resolved_points`): a sweep point
is the ceiling at that point, at a few ms per point (at most :data:`MAX_RESOLVED_POINTS`).

The same evaluator serves :mod:`pinchpoint.solve.uncertainty` (Monte Carlo samples instead of a
grid).  The axes (parsing the ``--vary`` text) are :mod:`pinchpoint.solve.sweep_axes`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from pinchpoint.errors import InputError
from pinchpoint.graph.resource_ids import link_of
from pinchpoint.inputs.profile import Profile
from pinchpoint.solve.sweep_axes import MAX_POINTS, Axis, check_param, parse_vary  # noqa: F401 (the sweep's API)

#: Most points a sweep solves one by one (graphs with several routes): a few ms each.
MAX_RESOLVED_POINTS = 100_000

#: Points per chunk when each point is solved again (so a progress bar moves).
RESOLVE_CHUNK_POINTS = 256

# --- the vectorised evaluator ----------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Terms:
    """The terms capacity_r / passes_r of one flow, as numpy functions of the free symbols."""

    resources: tuple[str, ...]
    links: tuple[str, ...]  # link id of each term
    raw: tuple  # callables (one per term) of the free parameters, in ``names`` order
    effective: tuple
    names: tuple[str, ...]
    raw_exprs: tuple
    usage: dict
    forest: bool
    nominal: float = math.nan  # the flow's ceiling at the profile's own values [B/s]


def build_terms(profile: Profile, flow: str, free: list[str]) -> _Terms:
    """Lambdify each term of ``flow``'s ceiling in the parameters ``free`` ("link.param")."""
    import sympy

    from pinchpoint.solve import ceilings
    from pinchpoint.graph import graph
    from pinchpoint.solve.symbolic import link_expression, profile_values

    c = ceilings.flow_ceiling(profile, flow)
    values = profile_values(profile)
    free_syms = [sympy.Symbol(name, positive=True) for name in free]  # == symbolic.symbol(link, param)
    fixed = {s: v for s, v in values.items() if s.name not in set(free)}
    resources, links, raw, eff, raw_exprs = [], [], [], [], []
    for rid, u in sorted(c.usage.items()):
        link = profile.links[link_of(rid)]
        passes = sympy.nsimplify(u)
        op = "read" if rid in c.read_resources else "write"  # a PCIe read is priced by its completions
        for effective, out in ((False, raw), (True, eff)):
            expr = link_expression(link, effective=effective, op=op) / passes
            # only this link's symbols: the same substitutions in the same order, without a
            # walk of the expression for each of the profile's other parameters
            expr = expr.subs({s: v for s, v in fixed.items() if s in expr.free_symbols})
            if not effective:
                raw_exprs.append(expr)
            # The numpy module itself, not "numpy": the same printer and functions, without
            # lambdify's `from numpy import *`, which loads numpy.f2py, numpy.testing ... (0.2 s).
            out.append(sympy.lambdify(free_syms, expr, modules=[np]))
        resources.append(rid)
        links.append(link.id)
    forest = ceilings.is_forest(graph.build(profile))
    return _Terms(tuple(resources), tuple(links), tuple(raw), tuple(eff), tuple(free),
                  tuple(raw_exprs), dict(c.usage), forest, c.ceiling_bytes_per_s)


def evaluate_terms(terms: _Terms, args: list, shape: tuple[int, ...], *, effective: bool = False):
    """(ceiling, binding term index) arrays of ``shape`` for broadcastable parameter arrays ``args``."""
    funcs = terms.effective if effective else terms.raw
    stack = np.empty((len(funcs),) + shape)
    for i, f in enumerate(funcs):
        stack[i] = f(*args)  # broadcasts scalars and grid axes alike
    if np.isnan(stack).any():  # argmin's rule for NaN (the first one wins) is not the loop's
        idx = np.argmin(stack, axis=0)
        return np.take_along_axis(stack, idx[None], axis=0)[0], idx
    # argmin along the first axis is a strided reduction, a few times slower than one pass of
    # comparisons per term; a strict "<" keeps the first minimum on ties, as argmin does.
    ceiling = stack[0].copy()
    idx = np.zeros(shape, dtype=np.intp)
    for i in range(1, len(funcs)):
        lower = stack[i] < ceiling
        idx[lower] = i
        np.copyto(ceiling, stack[i], where=lower)
    return ceiling, idx


# --- the result -------------------------------------------------------------------------------

#: Grid points evaluated (and written to CSV) at a time when a sweep is streamed: small enough
#: that a chunk's arrays and CSV text stay a few tens of MB, large enough that the per-chunk
#: Python work is noise.
CHUNK_POINTS = 1 << 16


@dataclass(frozen=True, eq=False)
class SweepChunk:
    """Consecutive grid points ``start`` .. ``start + size`` in C order (last axis fastest).

    ``index`` holds, per axis, the index into ``Axis.values`` of each point; the other arrays
    are flat, one entry per point, as in :class:`SweepResult` (``binding``: term index).
    """

    start: int
    index: tuple[np.ndarray, ...]
    ceiling: np.ndarray
    binding: np.ndarray
    effective: np.ndarray
    effective_binding: np.ndarray

    @property
    def size(self) -> int:
        return int(self.ceiling.size)


def _flat_chunks(shape: tuple[int, ...], points: int, evaluate):
    """SweepChunks of at most ``points`` over a grid of ``shape``; ``evaluate(flat, index)`` gives
    (ceiling, binding, effective, effective_binding) for the flat indices ``flat``."""
    total = math.prod(shape)
    for start in range(0, total, max(1, points)):
        flat = np.arange(start, min(start + points, total))
        index = np.unravel_index(flat, shape)
        yield SweepChunk(start, tuple(index), *evaluate(flat, index))


def _shares(links: tuple[str, ...], counts, total: int) -> dict[str, float]:
    """Fraction of points at which each link binds, from per-term counts (terms in link order)."""
    out: dict[str, float] = {}
    for link, n in zip(links, counts):
        out[link] = out.get(link, 0.0) + n / total
    return {k: v for k, v in out.items() if v > 0}


@dataclass(frozen=True, eq=False)
class SweepResult:
    """A flow's ceiling over a grid of parameter values.

    ``ceiling`` and ``effective`` [B/s] have one axis per :class:`Axis` (``indexing="ij"``);
    ``binding`` / ``effective_binding`` hold indices into ``links`` (the link of the term that is
    the minimum; on exact ties the first in resource order).
    """

    profile: str
    flow: str
    axes: tuple[Axis, ...]
    ceiling: np.ndarray
    binding: np.ndarray
    effective: np.ndarray
    effective_binding: np.ndarray
    resources: tuple[str, ...]
    links: tuple[str, ...]
    nominal_bytes_per_s: float
    network: bool
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        from pinchpoint.physics.readable import rate

        axes = " x ".join(f"{a.name} ({a.values.size})" for a in self.axes)
        lo, hi = (float(self.ceiling.min()), float(self.ceiling.max())) if self.ceiling.size else (None, None)
        return f"SweepResult({self.profile} {self.flow} over {axes}: {rate(lo)} .. {rate(hi)})"

    @property
    def shape(self) -> tuple[int, ...]:
        return self.ceiling.shape

    @property
    def size(self) -> int:
        return int(self.ceiling.size)

    def binding_links(self, *, effective: bool = False) -> np.ndarray:
        """The binding link id at each point (an array of str)."""
        return np.asarray(self.links, dtype=object)[self.effective_binding if effective else self.binding]

    def binding_share(self, *, effective: bool = False) -> dict[str, float]:
        """Fraction of grid points at which each link binds."""
        idx = (self.effective_binding if effective else self.binding).ravel()
        return _shares(self.links, np.bincount(idx, minlength=len(self.links)), idx.size)

    def chunks(self, points: int = CHUNK_POINTS):
        """The grid as :class:`SweepChunk` slices of the arrays held (what :class:`SweepPlan` computes)."""
        flat = [a.ravel() for a in (self.ceiling, self.binding, self.effective, self.effective_binding)]
        return _flat_chunks(self.shape, points, lambda f, _: [a[f[0]:f[-1] + 1] for a in flat])

    def columns(self) -> dict[str, np.ndarray]:
        """Flat columns, one row per grid point (C order, last axis fastest)."""
        grids = np.meshgrid(*[a.values for a in self.axes], indexing="ij")
        cols: dict[str, np.ndarray] = {f"{a.name}_{a.unit}": g.ravel() for a, g in zip(self.axes, grids)}
        cols["ceiling_bytes_per_s"] = self.ceiling.ravel()
        cols["binding"] = self.binding_links().ravel()
        cols["effective_ceiling_bytes_per_s"] = self.effective.ravel()
        cols["effective_binding"] = self.binding_links(effective=True).ravel()
        return cols

    def to_dict(self, *, points: bool = True) -> dict:
        out = {
            "profile": self.profile, "flow": self.flow,
            "axes": [a.to_dict() for a in self.axes],
            "points": self.size,
            "nominal_ceiling_bytes_per_s": self.nominal_bytes_per_s,
            "min_ceiling_bytes_per_s": float(self.ceiling.min()),
            "max_ceiling_bytes_per_s": float(self.ceiling.max()),
            "binding_share": self.binding_share(),
            "effective_binding_share": self.binding_share(effective=True),
            "resources": list(self.resources),
            "notes": list(self.notes),
        }
        if points:
            cols = self.columns()
            out["grid"] = [{k: (v[i] if isinstance(v[i], str) else float(v[i])) for k, v in cols.items()}
                           for i in range(self.size)]
        return out


@dataclass(frozen=True, eq=False)
class SweepPlan:
    """A checked sweep with its terms built, evaluated whole (:meth:`result`) or in chunks.

    Chunks keep memory flat for grids of millions of points (a 1e7-point CSV in a few hundred MB
    instead of gigabytes): each evaluates the same lambdified terms on the gathered values of
    its points, element by element the same arithmetic as the whole grid, so the same floats.
    """

    profile: str
    flow: str
    axes: tuple[Axis, ...]
    terms: _Terms
    network: bool
    notes: tuple[str, ...]
    #: the profile, when the graph has several routes: each point is solved again (:func:`resolved_points`)
    source: Profile | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(a.values.size for a in self.axes)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def resolves(self) -> bool:
        """True when every point is solved again (routing may change over the grid)."""
        return self.source is not None

    @property
    def links(self) -> tuple[str, ...]:
        return tuple(self.source.links) if self.source is not None else self.terms.links

    @property
    def resources(self) -> tuple[str, ...]:
        return tuple(self.source.links) if self.source is not None else self.terms.resources

    @property
    def nominal_bytes_per_s(self) -> float:
        return self.terms.nominal

    def result(self, each=None) -> SweepResult:
        """Every grid point at once (broadcast axes, no meshgrid copies); ``each(n)`` is called
        as points are done (a progress bar) where points are solved one by one."""
        if self.source is not None:
            parts = list(self.chunks(RESOLVE_CHUNK_POINTS, each))
            raw, raw_idx, eff, eff_idx = (np.concatenate([getattr(c, k) for c in parts]).reshape(self.shape)
                                          for k in ("ceiling", "binding", "effective", "effective_binding"))
            return SweepResult(self.profile, self.flow, self.axes, raw, raw_idx, eff, eff_idx, self.resources,
                               self.links, self.nominal_bytes_per_s, self.network, self.notes)
        args = []
        for i, a in enumerate(self.axes):
            view = [1] * len(self.axes)
            view[i] = a.values.size
            args.append(a.values.reshape(view))
        raw, raw_idx = evaluate_terms(self.terms, args, self.shape)
        eff, eff_idx = evaluate_terms(self.terms, args, self.shape, effective=True)
        return SweepResult(self.profile, self.flow, self.axes, raw, raw_idx, eff, eff_idx, self.terms.resources,
                           self.terms.links, self.nominal_bytes_per_s, self.network, self.notes)

    def chunks(self, points: int = CHUNK_POINTS, each=None):
        """:class:`SweepChunk` after :class:`SweepChunk`, at most ``points`` each, evaluated lazily."""
        if self.source is not None:
            return _flat_chunks(self.shape, min(points, RESOLVE_CHUNK_POINTS),
                                lambda flat, index: resolved_points(self.source, self.flow, self.axes, index, each))

        def evaluate(flat, index):
            args = [a.values[i] for a, i in zip(self.axes, index)]
            raw, raw_idx = evaluate_terms(self.terms, args, flat.shape)
            eff, eff_idx = evaluate_terms(self.terms, args, flat.shape, effective=True)
            return raw, raw_idx, eff, eff_idx

        return _flat_chunks(self.shape, points, evaluate)


class SweepSummary:
    """What the CLI prints about a sweep, accumulated chunk by chunk: the ranges of the raw and
    effective ceilings, the binding shares (raw and effective) and, for one axis, where the effective
    binding link changes.  The figures equal :class:`SweepResult`'s for the same grid."""

    def __init__(self, links: tuple[str, ...], *, changes: bool = False):
        self.links = links
        self._track = changes
        self.points = 0
        self.low = math.inf
        self.high = -math.inf
        self.effective_low = math.inf
        self.effective_high = -math.inf
        self._counts = np.zeros(len(links), dtype=np.int64)
        self._effective_counts = np.zeros(len(links), dtype=np.int64)
        #: (i, link at i, link at i + 1) where the effective binding link changes (with ``changes``:
        #: meant for one axis, where i indexes the axis values)
        self.changes: list[tuple[int, str, str]] = []
        self._last: str | None = None

    def add(self, chunk: SweepChunk) -> None:
        if not chunk.size:
            return
        self.points += chunk.size
        self.low = min(self.low, float(chunk.ceiling.min()))
        self.high = max(self.high, float(chunk.ceiling.max()))
        self.effective_low = min(self.effective_low, float(chunk.effective.min()))
        self.effective_high = max(self.effective_high, float(chunk.effective.max()))
        self._counts += np.bincount(chunk.binding, minlength=len(self.links))
        self._effective_counts += np.bincount(chunk.effective_binding, minlength=len(self.links))
        if not self._track:
            return
        links = np.asarray(self.links, dtype=object)[chunk.effective_binding]
        if self._last is not None and links[0] != self._last:
            self.changes.append((chunk.start - 1, self._last, links[0]))
        for i in np.flatnonzero(links[1:] != links[:-1]).tolist():
            self.changes.append((chunk.start + i, links[i], links[i + 1]))
        self._last = links[-1]

    def binding_share(self, *, effective: bool = False) -> dict[str, float]:
        return _shares(self.links, self._effective_counts if effective else self._counts, self.points)


def plan_sweep(profile: Profile, flow: str, axes: list[Axis] | tuple[Axis, ...]) -> SweepPlan:
    """Check a sweep of ``flow`` over ``axes`` and build its terms (see :func:`sweep`)."""
    axes = tuple(axes)
    if not axes:
        raise InputError("a sweep needs at least one axis (LINK.PARAM=LO..HI:N)", key="vary")
    names = [a.name for a in axes]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise InputError(f"{sorted(dup)[0]} is varied twice", key="vary")
    profile.flow(flow)  # ProfileError naming the flows if there is none
    shape = tuple(a.values.size for a in axes)
    if math.prod(shape) > MAX_POINTS:
        raise InputError(f"the grid has {math.prod(shape):,} points ({' x '.join(map(str, shape))}): at most "
                         f"{MAX_POINTS:,}; use fewer points per --vary", key="vary")
    terms = build_terms(profile, flow, names)
    notes, source = [], None
    if not terms.forest:  # the router may move traffic when a capacity changes: solve each point
        if math.prod(shape) > MAX_RESOLVED_POINTS:
            raise InputError(f"the graph has more than one route between some components, so each point is "
                             f"solved again: at most {MAX_RESOLVED_POINTS:,} points, the grid has "
                             f"{math.prod(shape):,}; use fewer points per --vary", key="vary")
        notes.append("the graph has more than one route between some components: every point was solved "
                     "again (the routing may change over the grid)")
        source = profile
    network = any(profile.links[l].definition.network for l in terms.links)
    return SweepPlan(profile.name, flow, axes, terms, network, tuple(notes), source)


def resolved_points(profile: Profile, flow: str, axes, index, each=None):
    """(ceiling, binding, effective, effective_binding) arrays of the points ``index``, each
    solved by :func:`pinchpoint.solve.ceilings.flow_ceiling` at its values (bindings: index of
    the first binding link in ``profile.links``)."""
    from pinchpoint.solve.ceilings import flow_ceiling

    position = {l: i for i, l in enumerate(profile.links)}
    n = index[0].size if index else 0
    out = (np.empty(n), np.empty(n, dtype=np.intp), np.empty(n), np.empty(n, dtype=np.intp))
    for k in range(n):
        p = profile
        for a, i in zip(axes, index):
            p = p.with_link_param(a.link, a.param, float(a.values[i[k]]))
        c = flow_ceiling(p, flow)
        eff = c.effective_ceiling_bytes_per_s
        out[0][k], out[2][k] = c.ceiling_bytes_per_s, c.ceiling_bytes_per_s if eff is None else eff
        out[1][k] = position[(c.raw_binding or c.binding)[0]]
        out[3][k] = position[(c.effective_binding or c.binding)[0]]
    if each is not None:
        each(n)
    return out


def sweep(profile: Profile, flow: str, axes: list[Axis] | tuple[Axis, ...]) -> SweepResult:
    """Evaluate ``flow``'s ceiling over the grid spanned by ``axes`` (vectorised, see module doc).

    Raises
    ------
    InputError
        No axes, or the same parameter twice.
    ProfileError
        No such flow.
    """
    return plan_sweep(profile, flow, axes).result()
