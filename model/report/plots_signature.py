"""Plots of signatures.  matplotlib (a core dependency) is imported only when a plot is asked for."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pinchpoint.errors import InputError, SignatureError
from pinchpoint.measure.hostinfo import data_cache_sizes


#: Values further apart than this factor are drawn on a log axis (machines differ by orders of magnitude).
LOG_AXIS_SPAN = 30.0


def wants_log_axis(values) -> bool:
    """True when the positive values span more than :data:`LOG_AXIS_SPAN` (max / min)."""
    v = [float(x) for x in values if x > 0]
    return len(v) > 1 and max(v) / min(v) > LOG_AXIS_SPAN


def pyplot(key: str = "plot"):
    """matplotlib.pyplot, with the Agg backend only where nothing could show a window.

    Agg is chosen on Linux without an X or Wayland display, unless the user chose a backend
    (MPLBACKEND; Jupyter's inline backend is left alone), so notebooks keep their figures.
    """
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("plots need matplotlib, a dependency of pinchpoint: reinstall with pip install pinchpoint", key=key) from None
    headless = sys.platform.startswith("linux") and not (os.environ.get("DISPLAY")
                                                         or os.environ.get("WAYLAND_DISPLAY"))
    if headless and not os.environ.get("MPLBACKEND") and "inline" not in str(matplotlib.get_backend()).lower():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _new_axes(figsize=(8, 5)):
    """Axes on a new matplotlib Figure (no pyplot: no global state, no backend switch)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise SignatureError("plotting needs matplotlib, a dependency of pinchpoint: reinstall it") \
            from None
    return Figure(figsize=figsize).subplots()


# long: one figure's drawing: axes, the staircase, the cache-size marks and labels, step by step
def maps_staircase(signature, ax=None, caches=None, *, threads: int = 1):
    """MAPS bandwidth vs working-set size, one line per op and pattern, cache sizes marked.

    Parameters
    ----------
    signature : Signature
        Must contain a "maps" kernel with ``working_set_bytes`` points.
    ax : matplotlib Axes, optional
        Drawn into if given, else a new figure is made.
    caches : dict of int to int, optional
        Cache level -> size [B] to mark with vertical lines; default: the signature's
        ``host.caches`` (data and unified caches).
    threads : int
        Thread count to plot [1].

    Returns
    -------
    matplotlib Axes
    """
    if ax is None:
        ax = _new_axes()
    series = {}
    kernel = next((k for k in STAIRCASE_KERNELS if k in signature.kernels), "maps")
    for p in signature.points(kernel, threads=threads):
        if "working_set_bytes" not in p.params or p.shaped:  # shape sweeps: not the staircase
            continue
        key = (p.get("op", "?"), p.get("pattern", "?"))
        series.setdefault(key, []).append((p["working_set_bytes"], p.result))
    if not series:
        raise SignatureError(f"no MAPS points with threads={threads} to plot", key="kernels.maps")
    for (op, pattern), pts in sorted(series.items()):
        pts.sort(key=lambda t: t[0])
        xs = [x for x, _ in pts]
        med = [r.median / 1e9 for _, r in pts]
        lo = [r.min / 1e9 for _, r in pts]
        hi = [r.max / 1e9 for _, r in pts]
        line, = ax.plot(xs, med, marker="o", ms=3, label=f"{op} {pattern}",
                        ls="-" if pattern == "stride1" else "--")
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    if caches is None:
        caches = data_cache_sizes(list(signature.host.get("caches", [])))
    for level, size in sorted(caches.items()):
        ax.axvline(size, color="grey", lw=0.8, ls=":")
        ax.annotate(f"L{level} {_fmt_size(size)}", (size, 1.0), xycoords=("data", "axes fraction"),
                    rotation=90, va="top", ha="right", fontsize=8, color="grey")
    from matplotlib.ticker import FuncFormatter

    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: _fmt_size(int(round(x)))))
    ax.set_yscale("log")
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("working set [B]")
    ax.set_ylabel("bandwidth [GB/s] (1 GB = 1e9 B)")
    ax.set_title(f"{'MAPS' if kernel == 'maps' else 'likwid-bench'}: {signature.host.get('cpu_model', '')} ({threads} thread"
                 f"{'s' if threads != 1 else ''})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return ax


#: Kernels whose points form a bandwidth-vs-working-set staircase (MAPS and imported likwid-bench).
STAIRCASE_KERNELS = ("maps", "likwid_bench")

#: Display scale and unit per signature result unit (human units, decimal prefixes).
_DISPLAY = {"B/s": (1e-9, "GB/s"), "flop/s": (1e-9, "Gflop/s"), "s": (1e6, "us")}

#: Point parameters that label a bar (the rest, such as repetitions, only add noise).
_LABEL_SKIP = ("approximate", "source")


def plain_log_ticks(axis) -> None:
    """Ticks of a log axis as plain numbers (0.2, 60), not 2 x 10^-1."""
    import math

    from matplotlib.ticker import FuncFormatter

    def minor(v, _):  # label 2 and 5 between the decades, leave the rest blank (no overlap)
        return f"{v:g}" if v > 0 and round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else ""

    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(minor))


def rate_axis(values_bytes_per_s, network: bool) -> tuple[float, str]:
    """The factor from B/s and the unit of a rate axis: the unit of the quantity (network rates
    in bit/s, memory, bus and host paths in B/s; decimal prefixes) with the prefix that suits
    the largest value.  The one place plots choose a rate unit, through
    :func:`pinchpoint.physics.units.format_rate`."""
    from pinchpoint.physics.units import format_rate

    top = max((abs(float(v)) for v in values_bytes_per_s if v == v and abs(v) != float("inf")), default=0.0)
    if not top > 0:
        top = 1.0
    text = format_rate(top, "network" if network else "memory", digits=17)
    number, unit = text.split(" ", 1)
    return float(number) / top, unit


def point_label(kernel: str, params: dict) -> str:
    """A readable label of a signature point: sizes in KiB/MiB, thread counts in words
    ("maps 32 KiB, 2 threads, read"), instead of raw ``working_set_bytes=32768`` text."""
    parts = []
    for k, v in params.items():
        if k in _LABEL_SKIP:
            continue
        if k.endswith("_bytes") and isinstance(v, (int, float)) and float(v).is_integer():
            parts.append(_fmt_size(int(v)))
        elif k == "threads":
            parts.append(f"{v} thread{'s' if v != 1 else ''}")
        elif isinstance(v, str):
            parts.append(v.replace("_", " "))
        else:
            parts.append(f"{k.replace('_', ' ')} {v:g}" if isinstance(v, float) else f"{k.replace('_', ' ')} {v}")
    return f"{kernel} " + ", ".join(parts) if parts else kernel


def has_staircase(signature, threads: int = 1) -> bool:
    """True when some staircase kernel has points with ``working_set_bytes`` at ``threads``."""
    return any(k in signature.kernels and any("working_set_bytes" in p.params
                                              for p in signature.points(k, threads=threads))
               for k in STAIRCASE_KERNELS)


def plot_signature(signature, ax=None, *, threads: int = 1):
    """What a signature has: the MAPS (or likwid-bench) staircase where it has one, else
    :func:`signature_bars` (PEAK, STREAM, ping ... as bars)."""
    if has_staircase(signature, threads):
        return maps_staircase(signature, ax, threads=threads)
    return signature_bars(signature)


def signature_bars(signature):
    """Every point of every kernel as a horizontal bar (median, min..max whiskers), one panel per
    result unit in human units (GB/s, Gflop/s, us), a log axis where values span orders of
    magnitude.  Returns the Axes of the first panel."""
    import numpy as np

    by_unit: dict[str, list] = {}
    for kernel, run in signature.kernels.items():
        for p in run.points:
            by_unit.setdefault(p.result.unit, []).append((point_label(kernel, p.params), p.result))
    if not by_unit:
        raise SignatureError("the signature has no points to plot", key="kernels")
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise SignatureError("plotting needs matplotlib, a dependency of pinchpoint: reinstall it") from None
    heights = [len(rows) for rows in by_unit.values()]
    fig = Figure(figsize=(9, 1.2 + 0.22 * sum(heights) + 0.6 * len(heights)))
    axes = fig.subplots(len(by_unit), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, (unit, rows) in zip(axes, by_unit.items()):
        k, shown = _DISPLAY.get(unit, (1.0, unit))
        med = np.array([r.median for _, r in rows]) * k
        err = np.array([[r.median - r.min for _, r in rows], [r.max - r.median for _, r in rows]]) * k
        ys = np.arange(len(rows))
        ax.barh(ys, med, xerr=err, height=0.7, color="tab:blue", ecolor="0.3", capsize=2)
        ax.set_yticks(ys, [label for label, _ in rows], fontsize=7)
        ax.invert_yaxis()
        if wants_log_axis(med):
            ax.set_xscale("log")
            plain_log_ticks(ax.xaxis)
        ax.set_xlabel(f"median [{shown}] (whiskers: min .. max)")
        ax.grid(True, axis="x", which="both", alpha=0.3)
    axes[0].set_title(f"signature {signature.name}: {signature.host.get('cpu_model', '')}", fontsize=10)
    return axes[0]


def _fmt_size(n: int) -> str:
    for unit, div in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def save(ax, path, *, key: str = "-o") -> None:
    """Save the figure of ``ax`` (format from the suffix: .svg, .png, .pdf), atomically: an
    interrupted or failed write (SIGTERM, a full disk, ``/dev/full``) leaves an existing file as
    it was and is an error naming ``key``, never a "wrote" line."""
    from pinchpoint.paths import atomic_write

    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    with atomic_write(path, "wb", key=key) as fh:
        ax.figure.savefig(fh, format=fmt, bbox_inches="tight")
