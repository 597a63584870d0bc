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
from pinchpoint.report.plots_signature import pyplot


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


def _rate_scale(network: bool) -> tuple[float, str]:
    return (8e-9, "Gbit/s") if network else (1e-9, "GB/s")


#: Values further apart than this factor are drawn on a log axis (machines differ by orders of magnitude).
LOG_AXIS_SPAN = 30.0


def wants_log_axis(values) -> bool:
    """True when the positive values span more than :data:`LOG_AXIS_SPAN` (max / min)."""
    v = np.asarray([x for x in values if x > 0], dtype=float)
    return v.size > 1 and float(v.max() / v.min()) > LOG_AXIS_SPAN


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
    """1 axis: the ceiling vs the parameter, coloured by binding link.  2 axes: a map of the
    ceiling with the regions of each binding link outlined.  More axes: the first two, at the
    first value of the others.  Parameters in human units (MHz, GB/s, KiB)."""
    return _save(draw_sweep(result), path)


def draw_sweep(result):
    """The figure of :func:`plot_sweep` (not saved)."""
    plt = _pyplot()
    k, unit = _rate_scale(result.network)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    links = list(dict.fromkeys(result.links))
    binding_link = np.vectorize(links.index)(result.binding_links()) if result.size else result.binding
    if len(result.axes) == 1:
        a = result.axes[0]
        ka, ua = human_unit(a.values, a.dimension)
        xs = a.values * ka
        y = result.ceiling * k
        ax.plot(xs, y, color="0.6", lw=1)
        for i, name in enumerate(links):
            mask = binding_link == i
            if mask.any():
                ax.scatter(xs[mask], y[mask], s=10, label=f"{name} binds")
        ax.set_xlabel(f"{a.name} [{ua}]")
        ax.set_ylabel(f"{result.flow} ceiling [{unit}]")
        if a.spacing == "log":
            ax.set_xscale("log")
        if wants_log_axis(y.ravel()):
            ax.set_yscale("log")
        ax.legend()
    else:
        a, b = result.axes[:2]
        (ka, ua), (kb, ub) = human_unit(a.values, a.dimension), human_unit(b.values, b.dimension)
        av, bv = a.values * ka, b.values * kb
        index = (slice(None), slice(None)) + (0,) * (len(result.axes) - 2)
        z = result.ceiling[index] * k
        mesh = ax.pcolormesh(bv, av, z, shading="auto")
        fig.colorbar(mesh, ax=ax, label=f"{result.flow} ceiling [{unit}]")
        ids = binding_link[index]
        if len(links) > 1:
            ax.contour(bv, av, ids, levels=np.arange(len(links)) + 0.5, colors="white",
                       linewidths=1)
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
    ax.set_title(f"{result.profile}: {result.flow}")
    return fig


def plot_compare(comparison, path) -> Path:
    """Grouped bars: one group per flow, one bar per machine, labelled with the binding link."""
    plt = _pyplot()
    flows, machines = comparison.flows, comparison.machines
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(flows) * max(1, len(machines)) / 2), 4.5))
    width = 0.8 / max(len(machines), 1)
    for j, m in enumerate(machines):
        xs, ys, labels = [], [], []
        for i, f in enumerate(flows):
            c = comparison.cell(f, m)
            if c is None:
                continue
            xs.append(i + (j - (len(machines) - 1) / 2) * width)
            ys.append(c.ceiling.ceiling_bytes_per_s * 8e-9)
            labels.append(",".join(c.ceiling.binding))
        bars = ax.bar(xs, ys, width, label=m)
        for bar, text in zip(bars, labels):
            ax.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center",
                        va="bottom", fontsize=7, rotation=90)
    ax.set_xticks(range(len(flows)), flows)
    if wants_log_axis([c.ceiling.ceiling_bytes_per_s for f in flows for m in machines
                       if (c := comparison.cell(f, m)) is not None]):
        ax.set_yscale("log")
    ax.set_ylabel("ceiling [Gbit/s]")
    ax.set_title("ceilings side by side (label: binding link)")
    ax.legend(fontsize=8)
    return _save(fig, path)


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
    ax.set_ylabel(f"predicted time [{unit}]")
    ax.set_title(f"{predictions[0].workload} (label: binding resource)")
    ax.legend(fontsize=8)
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
