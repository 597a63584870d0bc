"""Pictures for reports and notebooks: theory beside measurement.

An edge module (layer 4): it only draws result objects the models computed.  matplotlib (a
core dependency) is imported lazily, with the non-interactive Agg backend when no display
is available (or when the caller has not chosen a backend yet), so importing this module costs
nothing.

- :func:`staircase` -- the MAPS staircase of a signature (drawn by
  :func:`pinchpoint.report.plots_signature.maps_staircase`, cache sizes marked) with theoretical ceilings as
  horizontal lines;
- :func:`ceiling_ladder` -- one bar per ceiling, the measured figure as a marker, the binding
  ceiling highlighted;
- :func:`link_graph` -- the profile's link graph laid out by topology
  (:mod:`pinchpoint.report.graph_layout`), capacities as edge labels, the binding link(s)
  highlighted;
- :func:`sweep_svg`, :func:`scale_svg` -- the sweep heat map and the USL fit of
  :mod:`pinchpoint.report.plots_planning`, as SVG text;
- :func:`svg` -- a figure as inline SVG text for an HTML page.

Every drawing function takes an optional matplotlib ``ax`` and returns the Axes it drew into.
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from pinchpoint.errors import InputError
from pinchpoint.physics.units import format_rate
from pinchpoint.report import graph_layout
from pinchpoint.report.plots_signature import pyplot, rate_axis
from pinchpoint.graph.resource_ids import convention, link_of

#: Colours: the binding element, other elements, the measured figure.
BINDING = "#d62728"
OTHER = "#9ecae1"
MEASURED = "#111111"

_salt = itertools.count(1)


def _pyplot():
    return pyplot(key="plot")


def _axes(ax, figsize):
    if ax is not None:
        return ax
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=figsize)
    return ax


def _label(x) -> str:
    return getattr(x, "name", None) or str(x)


def _value(x) -> float:
    v = getattr(x, "ceiling_bytes_per_s", None)
    if v is None:
        raise InputError(f"{x!r} has no ceiling_bytes_per_s: pass Ceiling or Limit objects", key="ceilings")
    return float(v)


# --- SVG -------------------------------------------------------------------------------------

def svg(fig_or_ax, *, close: bool = True) -> str:
    """The figure as SVG text for inline use in HTML (no XML prolog, no DOCTYPE).

    Text stays text (``svg.fonttype = none``: selectable, and searchable in the page's DOM),
    and element ids are salted per figure so that several SVGs in one page never share a
    clip-path id.
    """
    import io

    import matplotlib

    fig = getattr(fig_or_ax, "figure", fig_or_ax)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": f"pinchpoint-{next(_salt)}"}):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    if close:
        _pyplot().close(fig)
    text = buf.getvalue()
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def _svg_of_file(draw, *args, **kwargs) -> str:
    """Run a plots_planning function that writes to a path; return the SVG it wrote."""
    with tempfile.TemporaryDirectory(prefix="pinchpoint-plot-") as tmp:
        path = Path(tmp) / "plot.svg"
        draw(*args, path, **kwargs)
        text = path.read_text(encoding="utf-8")
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def sweep_svg(result) -> str:
    """The sweep of :func:`pinchpoint.solve.sweep.sweep` (a heat map for two axes) as SVG text,
    drawn by :func:`pinchpoint.report.plots_planning.plot_sweep`."""
    from pinchpoint.report.plots_planning import plot_sweep

    return _svg_of_file(plot_sweep, result)


def scale_svg(fits, unit: str = "1/s", mva=None) -> str:
    """Throughput vs clients with USL fits (and MVA) as SVG text, drawn by
    :func:`pinchpoint.report.plots_planning.plot_scale`."""
    from pinchpoint.report.plots_planning import plot_scale

    return _svg_of_file(plot_scale, fits, unit=unit, mva=mva)


# --- the MAPS staircase with ceilings --------------------------------------------------------

def staircase(signature, ceilings=(), ax=None, caches=None, *, threads: int = 1):
    """MAPS bandwidth vs working set with theoretical ceilings as horizontal lines.

    Parameters
    ----------
    signature : Signature
        With "maps" points (``working_set_bytes``); drawn by
        :func:`pinchpoint.report.plots_signature.maps_staircase`, which marks the cache sizes.
    ceilings : iterable
        Objects with ``name`` and ``ceiling_bytes_per_s`` [B/s] (Ceiling, Limit), or
        ``(label, bytes_per_s)`` pairs; each becomes a dashed horizontal line.
    ax : matplotlib Axes, optional
    caches : dict of int to int, optional
        Cache level -> size [B] (default: the signature's host caches).
    threads : int
        Thread count of the MAPS points to draw [1].

    Returns
    -------
    matplotlib Axes
    """
    from pinchpoint.report.plots_signature import maps_staircase

    ax = maps_staircase(signature, ax=ax, caches=caches, threads=threads)
    lines = []
    for c in ceilings:
        if isinstance(c, tuple):
            label, value = c
        else:
            label, value = _label(c), _value(c)
        if not value > 0:
            raise InputError(f"ceiling {label!r} must be > 0 B/s, got {value!r}", key="ceilings")
        lines.append((str(label), float(value)))
    merged: dict[float, list[str]] = {}  # equal ceilings (fsb0 and fsb1) share one line
    for label, value in lines:
        key = next((k for k in merged if abs(k - value) <= 1e-9 * value), value)
        merged.setdefault(key, []).append(label)
    lines = [(", ".join(labels), value) for value, labels in merged.items()]
    colours = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"]
    styles = ["--", "-.", ":"]
    for i, ((label, value), colour) in enumerate(zip(sorted(lines, key=lambda t: -t[1]), itertools.cycle(colours))):
        y = value / 1e9
        ax.axhline(y, color=colour, lw=1.4, ls=styles[i % len(styles)], label=f"{label}: {y:.3g} GB/s")
    if lines:
        ax.legend(fontsize=7, loc="lower left", ncol=2)
        lo, hi = ax.get_ylim()
        top = max(v for _, v in lines) / 1e9
        bottom = min(v for _, v in lines) / 1e9
        ax.set_ylim(min(lo, bottom / 1.5), max(hi, top * 1.5))
    return ax


# --- the ceiling ladder ----------------------------------------------------------------------

def ceiling_ladder(ceilings, measured_bytes_per_s: float | None = None, *, binding=None,
                   network: bool = True, ax=None, title: str | None = None,
                   measured_label: str = "measured", value_labels: dict | None = None,
                   highlight: bool = True):
    """One horizontal bar per ceiling, lowest at the top, the binding one highlighted.

    Parameters
    ----------
    ceilings : sequence
        Objects with ``name`` and ``ceiling_bytes_per_s`` [B/s]: the :class:`Ceiling` list of
        :func:`pinchpoint.solve.ceilings.all_ceilings`, or a Verdict's ``ceilings`` (Limits).
    measured_bytes_per_s : float, optional
        The measured figure [B/s], drawn as a vertical line with a marker on the binding bar.
    binding : str, optional
        Name of the ceiling to highlight (default: the lowest).
    network : bool
        Axis in bit/s (True: network rates) or B/s (False: memory, bus and host paths), the
        prefix after the largest value (:func:`pinchpoint.report.plots_signature.rate_axis`).
    highlight : bool
        False: no bar in red (a panel of a ladder whose binding ceiling is on another panel).
    value_labels : dict of str to str, optional
        Text written at the end of a bar instead of its number.

    Returns
    -------
    matplotlib Axes
    """
    items = [(_label(c), _value(c)) for c in ceilings]
    if not items:
        raise InputError("no ceilings to draw", key="ceilings")
    for name, value in items:
        if not value > 0:
            raise InputError(f"ceiling {name!r} must be > 0 B/s, got {value!r}", key="ceilings")
    if measured_bytes_per_s is not None and not measured_bytes_per_s > 0:
        raise InputError(f"the measured figure must be > 0 B/s, got {measured_bytes_per_s!r}", key="measured")
    items.sort(key=lambda t: t[1])
    if binding is None:
        binding = items[0][0]
    elif binding not in {n for n, _ in items}:
        raise InputError(f"binding ceiling {binding!r} is not among the ceilings "
                         f"({', '.join(n for n, _ in items)})", key="binding")
    k, unit = rate_axis([v for _, v in items] + [measured_bytes_per_s or 0.0], network)
    ax = _axes(ax, (8, 0.45 * len(items) + 1.8))
    ys = list(range(len(items)))[::-1]  # lowest ceiling on top
    values = [v * k for _, v in items]
    if not highlight:
        binding = None
    colours = [BINDING if n == binding else OTHER for n, _ in items]
    bars = ax.barh(ys, values, color=colours, edgecolor="#555555", height=0.6)
    for bar, (name, _), v in zip(bars, items, values):
        ax.annotate(f" {(value_labels or {}).get(name, f'{v:.4g}')}", (v, bar.get_y() + bar.get_height() / 2), va="center", ha="left", fontsize=8)
    _ladder_ticks(ax, ys, [n for n, _ in items], binding)
    if measured_bytes_per_s is not None:
        bind_y = ys[[n for n, _ in items].index(binding)] if binding is not None else ys[0]
        _mark_measured(ax, measured_bytes_per_s * k, bind_y, f"{measured_label}: {measured_bytes_per_s * k:.4g} {unit}")
    ax.set_xlim(0, max(values + ([measured_bytes_per_s * k] if measured_bytes_per_s else [])) * 1.18)
    ax.set_xlabel(f"ceiling [{unit}]")
    ax.grid(True, axis="x", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def flow_ladder(ceilings, network: dict, focus: str | None = None):
    """The ceiling of every flow: one panel in bit/s for the flows through a network, one in B/s
    for memory, bus and host paths (a rate is drawn in the unit of its quantity).  ``network``:
    flow name -> bool.  Returns the Axes of the first panel."""
    groups = [[c for c in ceilings if network[c.name]], [c for c in ceilings if not network[c.name]]]
    groups = [(g, net) for g, net in zip(groups, (True, False)) if g]
    if not groups:
        raise InputError("no ceilings to draw", key="ceilings")
    plt = _pyplot()
    fig, axes = plt.subplots(len(groups), 1, squeeze=False, figsize=(8, sum(0.45 * len(g) + 1.6 for g, _ in groups)),
                             gridspec_kw={"height_ratios": [len(g) + 2 for g, _ in groups]})
    for ax, (group, net) in zip(axes[:, 0], groups):
        names = {c.name for c in group}
        ceiling_ladder(group, binding=focus if focus in names else None, network=net, ax=ax,
                       highlight=focus in names,
                       title=(f"theoretical ceiling of every {'network' if net else 'memory, bus and host'} flow"
                              if len(groups) > 1 else "theoretical ceiling of every flow"))
    fig.tight_layout()
    return axes[0, 0]


def _ladder_ticks(ax, ys, names, binding) -> None:
    """One tick label per bar, the binding one red and bold."""
    ax.set_yticks(ys, [n + (" (binding)" if n == binding else "") for n in names], fontsize=8)
    for tick, name in zip(ax.get_yticklabels(), names):
        if name == binding:
            tick.set_color(BINDING)
            tick.set_fontweight("bold")


def _mark_measured(ax, m: float, y: float, label: str) -> None:
    """The measured figure: a dashed vertical line, a diamond on the binding bar, a legend."""
    ax.axvline(m, color=MEASURED, lw=1.5, ls="--")
    ax.plot([m], [y], marker="D", color=MEASURED, ms=8, ls="none", label=label)
    ax.legend(fontsize=8, loc="best")


# --- the link graph --------------------------------------------------------------------------

def graph_positions(profile, flow: str | None = None) -> dict:
    """Node positions of :func:`pinchpoint.report.graph_layout.layout`: rows by topology (memory
    and CPUs on top, then switches, devices, the network), the same every run.  ``flow`` is
    accepted for callers of the older layout and does not move anything."""
    return graph_layout.layout(profile).positions


#: Links labelled on the canvas when a graph has more (the rest: on the path of the flow in
#: focus; in the HTML report every link shows its figures on hover).
LABEL_ALL_LINKS = 30

#: Inches per column and per row of the layout.
_COLUMN_IN, _ROW_IN = 1.2, 1.25


def link_graph(profile, ceiling=None, ax=None, *, flow: str | None = None, effective: bool = False):
    """The profile's components and links, laid out by topology
    (:mod:`pinchpoint.report.graph_layout`).

    Parameters
    ----------
    profile : Profile
    ceiling : Ceiling, optional
        Its binding links are drawn thick and red, its path's links darker; default: the
        ceiling of ``flow`` (or of the profile's first flow) when the profile has flows.
    flow : str, optional
        The flow in focus (default: ``ceiling.name`` or the first flow).
    effective : bool
        Label links with their effective capacity (after protocol overhead) where it differs.

    Each link's line has the SVG id ``pp-link-<i>`` (its label ``pp-label-<i>``) and each
    component's label ``pp-node-<i>``
    (i: the position in ``profile.links`` / ``profile.components``), for the report's hover.

    Returns
    -------
    matplotlib Axes
    """
    if flow is not None and flow not in profile.flows:
        raise InputError(f"no flow {flow!r} in profile {profile.name!r} "
                         f"(flows: {', '.join(profile.flows) or 'none'})", key="flow")
    if ceiling is None and profile.flows:
        from pinchpoint.solve.ceilings import flow_ceiling

        ceiling = flow_ceiling(profile, flow or next(iter(profile.flows)))
    lay = graph_layout.layout(profile)
    pos = lay.positions
    binding = set(ceiling.binding) if ceiling is not None else set()
    used = {link_of(r) for r in ceiling.usage} if ceiling is not None else set()
    xs = [x for x, _ in pos.values()]
    columns = max(xs) - min(xs) + 1 if xs else 1
    ax = _axes(ax, (max(8.0, _COLUMN_IN * columns), max(3.5, _ROW_IN * len(lay.rows) + 0.8)))
    label_all = len(profile.links) <= LABEL_ALL_LINKS
    seen: dict[frozenset, int] = {}
    for i, link in enumerate(profile.links.values()):
        key = frozenset(link.between)
        k = seen.get(key, 0)
        seen[key] = k + 1
        (x0, y0), (x1, y1) = _draw_link(ax, link, pos, binding, used, i)
        if y0 < y1:  # from the upper end
            (x0, y0), (x1, y1) = (x1, y1), (x0, y0)
        t = 0.6 if y0 != y1 else 0.5  # nearer the lower end, where sibling links are further apart
        if label_all or link.id in used or link.id in binding:
            _label_link(ax, link, (x0 + t * (x1 - x0), y0 + t * (y1 - y0)), k, link.id in binding,
                        effective).set_gid(f"pp-label-{i}")
    _draw_nodes(ax, profile, pos)
    title = profile.name
    if ceiling is not None:
        title += (f": flow {ceiling.name}, binding {', '.join(ceiling.binding)} "
                  f"({format_rate(ceiling.ceiling_bytes_per_s, 'network' if ceiling_is_network(profile, ceiling) else 'memory')})")
    ax.set_title(title, fontsize=10)
    return ax


def _draw_nodes(ax, profile, pos) -> None:
    """Each component as a labelled box (SVG id ``pp-node-<i>``); the axes fitted around them."""
    for i, (node, comp) in enumerate(profile.components.items()):
        x, y = pos[node]
        ax.annotate(f"{node}\n({comp.kind})", (x, y), ha="center", va="center", fontsize=8, zorder=5,
                    bbox=dict(boxstyle="round,pad=0.35", fc="#f7f7f7", ec="#555555")).set_gid(f"pp-node-{i}")
    xs = [x for x, _ in pos.values()]
    ys = [y for _, y in pos.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.5, max(ys) + 0.5)
    ax.set_axis_off()


def ceiling_is_network(profile, ceiling) -> bool:
    from pinchpoint.graph.resource_ids import uses_network

    return uses_network(profile, ceiling.usage)


def _draw_link(ax, link, pos, binding, used, i):
    """One link's line (a shared bus: a polyline through a hub at its members' centroid); its
    label's end points."""
    if link.id in binding:
        style = dict(color=BINDING, lw=4.5, zorder=2)
    elif link.id in used:
        style = dict(color="#3b6ea5", lw=2.5, zorder=1)
    else:
        style = dict(color="#aaaaaa", lw=1.5, zorder=1)
    members = list(link.between)
    if len(members) == 2:
        (x0, y0), (x1, y1) = pos[members[0]], pos[members[1]]
        ax.plot([x0, x1], [y0, y1], solid_capstyle="round", **style)[0].set_gid(f"pp-link-{i}")
        return (x0, y0), (x1, y1)
    hx = sum(pos[m][0] for m in members) / len(members)
    hy = sum(pos[m][1] for m in members) / len(members)
    xs, ys = [], []
    for m in members:
        xs += [pos[m][0], hx]
        ys += [pos[m][1], hy]
    ax.plot(xs, ys, solid_capstyle="round", **style)[0].set_gid(f"pp-link-{i}")
    return (hx, hy), (hx, hy)


def _label_link(ax, link, at, k: int, binds: bool, effective: bool):
    conv = convention(link.definition.network)
    text = format_rate(link.capacity_bytes_per_s, conv)
    if link.duplex == "full":
        text += " each way"
    raw, eff = link.capacity_bytes_per_s, link.effective_capacity_bytes_per_s
    if effective and link.definition.efficiency and abs(eff - raw) > 1e-9 * raw:
        text += f"\n(effective {format_rate(eff, conv)})"
    return ax.annotate(f"{link.id}\n{text}", at, xytext=(0, 24 * k), textcoords="offset points",
                ha="center", va="center", fontsize=7, color=BINDING if binds else "#222222",
                fontweight="bold" if binds else "normal",
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none", alpha=0.85), zorder=4)


__all__ = ["staircase", "ceiling_ladder", "link_graph", "graph_positions", "flow_ladder", "svg", "sweep_svg", "scale_svg"]
