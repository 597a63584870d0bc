"""Plots for capacity planning: sweeps, machines side by side, throughput vs clients.

An edge module: each function takes a result object, draws with matplotlib (imported here,
lazily, with the non-interactive Agg backend) and writes the figure atomically to ``path``
(the format follows the suffix: .png, .svg, .pdf).  matplotlib is a core dependency, imported lazily.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from pinchpoint.errors import InputError
from pinchpoint.paths import atomic_write
from pinchpoint.report.plots_signature import plain_log_ticks, pyplot, rate_axis
from pinchpoint.report.plots_signature import LOG_AXIS_SPAN, wants_log_axis  # noqa: F401 - also this module's API


def _pyplot():
    return pyplot(key="plot")


def _save(fig, path) -> Path:
    plt = _pyplot()
    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or "png"
    if fmt not in ("png", "svg", "pdf"):
        raise InputError(f"the plot file must end in .png, .svg or .pdf, got {path.name!r}", key="plot")
    with atomic_write(path, "wb") as fh:
        fig.savefig(fh, format=fmt, bbox_inches="tight", dpi=120)
    plt.close(fig)
    return path


_PREFIXED = {"frequency": ("Hz", 1000.0, ("", "k", "M", "G", "T")),
             "bandwidth": ("B/s", 1000.0, ("", "k", "M", "G", "T")),
             "size": ("B", 1024.0, ("", "Ki", "Mi", "Gi", "Ti"))}


def human_unit(values, dimension: str) -> tuple[float, str]:
    """A factor and unit that put the largest value of an axis in [1, 1000) ("MHz", "GB/s",
    "MiB"), so that tick labels read 133 MHz rather than 1.33 x 1e8 Hz."""
    if dimension == "time":
        return _time_scale([abs(float(v)) for v in values])
    if dimension not in _PREFIXED:
        return 1.0, "1" if dimension == "dimensionless" else dimension
    unit, step, prefixes = _PREFIXED[dimension]
    top = float(np.max(np.abs(values))) if len(values) else 1.0
    k = 0
    while k < len(prefixes) - 1 and top >= step ** (k + 1):
        k += 1
    return 1.0 / step ** k, prefixes[k] + unit


def _time_scale(seconds) -> tuple[float, str]:
    """A factor and unit that put the largest time in a readable range (s, ms, us)."""
    top = max(seconds) if len(seconds) else 1.0
    for k, unit in ((1.0, "s"), (1e3, "ms"), (1e6, "us")):
        if top * k >= 1.0:
            return k, unit
    return 1e9, "ns"


def plot_sweep(result, path) -> Path:
    """1 axis: the effective ceiling (after protocol overhead) vs the parameter, coloured by
    binding link, the raw ceiling as a thin line.  2 axes: a map of the effective ceiling with
    the regions of each binding link outlined, and beside it what each axis changes alone (the
    effective and raw ceilings along it, the other axis at its middle value).  More axes: the
    first two, at the first value of the others.  Parameters in human units (MHz, KiB)."""
    return _save(draw_sweep(result), path)


def _param_axis(axis, a, ka: float) -> None:
    """Log scale for a log sweep, ticks that never overlap: the swept values themselves when
    there are few (discrete MMRBC, lanes), else at most six plain numbers."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter, NullLocator

    values = a.values * ka
    if values.size <= 8:
        axis.set_ticks(values, [f"{v:g}" for v in values])
    else:
        axis.set_major_locator(MaxNLocator(6) if a.spacing != "log" else _log_locator())
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _log_locator():
    from matplotlib.ticker import LogLocator

    return LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=6)


def _binding_ids(result, links):
    if not result.size:
        return result.effective_binding
    return np.vectorize(links.index)(result.binding_links(effective=True))


def draw_sweep(result):
    """The figure of :func:`plot_sweep` (not saved)."""
    plt = _pyplot()
    k, unit = rate_axis(np.concatenate([result.effective.ravel(), result.ceiling.ravel()]), result.network)
    links = list(dict.fromkeys(result.links))
    ids = _binding_ids(result, links)
    if len(result.axes) == 1:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        _sweep_line(ax, result, result.axes[0], result.effective * k, result.ceiling * k, ids, links, unit)
        ax.set_title(f"{result.profile}: {result.flow}")
        return fig
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), gridspec_kw={"width_ratios": [1.6, 1, 1]})
    a, b = result.axes[:2]
    index = (slice(None), slice(None)) + (0,) * (len(result.axes) - 2)
    _sweep_map(fig, axes[0], result, a, b, result.effective[index] * k, ids[index], links, unit)
    mid_a, mid_b = a.values.size // 2, b.values.size // 2
    for ax, axis, cut in ((axes[1], a, (slice(None), mid_b)), (axes[2], b, (mid_a, slice(None)))):
        cut = cut + (0,) * (len(result.axes) - 2)
        other = b if axis is a else a
        where = other.values[mid_b if axis is a else mid_a]
        ka, ua = human_unit(other.values, other.dimension)
        _sweep_line(ax, result, axis, result.effective[cut] * k, result.ceiling[cut] * k, ids[cut], links, unit)
        ax.set_title(f"{axis.name} alone ({other.name} = {where * ka:.4g} {ua})", fontsize=9)
    axes[0].set_title(f"{result.profile}: {result.flow}, effective ceiling")
    fig.tight_layout()
    return fig


def _sweep_line(ax, result, a, eff, raw, ids, links, unit) -> None:
    ka, ua = human_unit(a.values, a.dimension)
    xs = a.values * ka
    ax.plot(xs, raw, color="0.55", lw=1, ls="--", label="raw ceiling")
    ax.plot(xs, eff, color="0.3", lw=1)
    for i, name in enumerate(links):
        mask = ids == i
        if mask.any():
            ax.scatter(xs[mask], eff[mask], s=12, zorder=3, label=f"effective, {name} binds")
    ax.set_xlabel(f"{a.name} [{ua}]")
    ax.set_ylabel(f"{result.flow} ceiling [{unit}]")
    if a.spacing == "log":
        ax.set_xscale("log")
    _param_axis(ax.xaxis, a, ka)
    if wants_log_axis(np.concatenate([eff.ravel(), raw.ravel()])):
        ax.set_yscale("log")
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)


def _sweep_map(fig, ax, result, a, b, z, ids, links, unit) -> None:
    (ka, ua), (kb, ub) = human_unit(a.values, a.dimension), human_unit(b.values, b.dimension)
    av, bv = a.values * ka, b.values * kb
    mesh = ax.pcolormesh(bv, av, z, shading="auto")
    fig.colorbar(mesh, ax=ax, label=f"effective ceiling [{unit}]")
    if len(links) > 1 and min(z.shape) > 1:
        ax.contour(bv, av, ids, levels=np.arange(len(links)) + 0.5, colors="white", linewidths=1)
    for i, name in enumerate(links):
        mask = ids == i
        if mask.any():
            r, c = np.argwhere(mask)[len(np.argwhere(mask)) // 2]
            ax.annotate(name, (bv[c], av[r]), color="white", ha="center")
    ax.set_xlabel(f"{b.name} [{ub}]")
    ax.set_ylabel(f"{a.name} [{ua}]")
    if a.spacing == "log":
        ax.set_yscale("log")
    if b.spacing == "log":
        ax.set_xscale("log")
    _param_axis(ax.yaxis, a, ka)
    _param_axis(ax.xaxis, b, kb)


def plot_compare(comparison, path) -> Path:
    """Grouped bars of the effective ceilings: one group per flow, one bar per machine, labelled
    with the binding link; network flows on a panel in bit/s, memory, bus and host flows on one
    in B/s (a rate in the unit of its quantity); the legend outside the bars."""
    plt = _pyplot()
    flows, machines = comparison.flows, comparison.machines
    network = {f: any(c.network for c in comparison.cells if c.flow == f) for f in flows}
    panels = [p for p in ([f for f in flows if network[f]], [f for f in flows if not network[f]]) if p]
    width = max(6, 1.6 * max(len(p) for p in panels) * max(1, len(machines)) / 2)
    fig, axes = plt.subplots(len(panels), 1, squeeze=False, figsize=(width, 4.2 * len(panels)))
    for ax, group in zip(axes[:, 0], panels):
        _compare_panel(ax, comparison, group, network[group[0]])
    axes[0, 0].set_title("effective ceilings side by side (label: binding link)")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 0.95))
    fig.tight_layout()
    return _save(fig, path)


def _compare_panel(ax, comparison, flows, network: bool) -> None:
    machines = comparison.machines
    cells = [c for c in comparison.cells if c.flow in flows]
    k, unit = rate_axis([c.effective for c in cells], network)
    width = 0.8 / max(len(machines), 1)
    for j, m in enumerate(machines):
        xs, ys, labels = [], [], []
        for i, f in enumerate(flows):
            c = comparison.cell(f, m)
            if c is None:
                continue
            xs.append(i + (j - (len(machines) - 1) / 2) * width)
            ys.append(c.effective * k)
            labels.append(",".join(c.ceiling.binding))
        bars = ax.bar(xs, ys, width, label=m, color=f"C{j}")
        for bar, text in zip(bars, labels):
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                        va="bottom", fontsize=7, rotation=90)
    ax.set_xticks(range(len(flows)), flows, rotation=30 if len(flows) > 6 else 0, ha="right" if len(flows) > 6 else "center")
    if wants_log_axis([c.effective for c in cells]):
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    else:
        ax.set_ylim(0, max(c.effective for c in cells) * k * 1.3)  # room for the labels above the bars
    ax.set_ylabel(f"{'network' if network else 'memory, bus and host'} flows [{unit}]")


def plot_predictions(predictions, path) -> Path:
    """One workload on several signatures (``compare --workload``): per signature a bar from 0 to
    the overlapped time and a thinner one to the serial time, labelled with the binding resource."""
    plt = _pyplot()
    if not predictions:
        raise InputError("no predictions to plot", key="plot")
    k, unit = _time_scale([p.high_s for p in predictions])
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(predictions) + 2), 4.5))
    xs = np.arange(len(predictions))
    ax.bar(xs, [p.high_s * k for p in predictions], 0.3, color="0.75", label="serial (sum of resources)")
    bars = ax.bar(xs, [p.low_s * k for p in predictions], 0.6, label="overlapped (slowest resource)")
    for bar, p in zip(bars, predictions):
        ax.annotate(p.binding or "-", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs, [p.signature for p in predictions])
    if wants_log_axis([p.low_s for p in predictions] + [p.high_s for p in predictions]):
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    else:
        ax.set_ylim(0, max(p.high_s for p in predictions) * k * 1.15)  # room for the labels
    ax.set_ylabel(f"predicted time [{unit}]")
    ax.set_title(f"{predictions[0].workload} (label: binding resource)")
    # the legend below the axes: inside, it covered the label of a bar
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    return _save(fig, path)


def plot_scale(fits, path, unit: str = "1/s", mva=None) -> Path:
    """Measured throughput vs clients with the USL fit (or the beta = 0 fit) and, if given,
    the MVA curve and its asymptotic bound.

    A fitted curve is solid between the smallest and largest measured client counts and dashed
    beyond them (extrapolated); a curve the points cannot determine (two points, alpha held)
    is drawn between the points only, dotted; one point gets no curve."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    top = max([float(f.clients.max()) for f in fits] + ([float(mva.clients.max())] if mva is not None else []))
    low = min([float(f.clients.min()) for f in fits] + [1.0])
    grid = np.linspace(low, max(top * 1.5, 2), 400)
    extrapolated = False
    for f in fits:
        line = ax.plot(f.clients, f.throughput, "o", label=f"{f.series} (measured)")[0]
        extrapolated |= _draw_fit(ax, f, grid, line.get_color())
    if mva is not None:
        from pinchpoint.physics.queueing import throughput_bound

        ax.plot(mva.clients, mva.throughput, "k--", label=f"MVA ({mva.method})")
        ax.plot(mva.clients, throughput_bound(mva.clients, mva.total_demand, mva.max_demand, mva.think_time),
                "k:", label="asymptotic bound")
    ax.set_xlabel("concurrent clients N")
    ax.set_ylabel(f"throughput [{unit}]")
    if extrapolated:
        ax.plot([], [], color="grey", linestyle="--", label="dashed: extrapolated beyond the measured N")
    ax.legend(fontsize=8)
    return _save(fig, path)


def _draw_fit(ax, f, grid, color) -> bool:
    """Draw one series' curve; True when a dashed (extrapolated) part was drawn."""
    if f.amdahl is None:  # one point: nothing fitted
        return False
    lo, hi = float(f.clients.min()), float(f.clients.max())
    if f.fitted and f.tested:
        tag = "USL"
    elif f.alpha_held is not None:
        inside = np.linspace(lo, hi, 100)
        ax.plot(inside, f.predict(inside), ":", color=color,
                label=f"{f.series}: one USL curve through the points (alpha held; undetermined)")
        return False
    else:
        tag = "USL, exact through the points" if f.fitted else "beta = 0 fit"
    inside = (grid >= lo) & (grid <= hi)
    y = f.predict(grid)
    ax.plot(np.r_[lo, grid[inside], hi], f.predict(np.r_[lo, grid[inside], hi]), "-", color=color,
            label=f"{f.series}: {tag}{' (retrograde)' if f.retrograde else ''}")
    for part in (grid <= lo, grid >= hi):
        if part.sum() > 1:
            ax.plot(grid[part], y[part], "--", color=color)
    return bool((grid <= lo).sum() > 1 or (grid >= hi).sum() > 1)
