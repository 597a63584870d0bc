"""Plots of signatures.  matplotlib (a core dependency) is imported only when a plot is asked for."""

from __future__ import annotations

import os
import sys

from .errors import InputError, SignatureError
from .hostinfo import data_cache_sizes


def pyplot(key: str = "--plot"):
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
    for p in signature.points("maps", threads=threads):
        if "working_set_bytes" not in p.params:
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
    ax.set_xlabel("working set [B]")
    ax.set_ylabel("bandwidth [GB/s] (1 GB = 1e9 B)")
    ax.set_title(f"MAPS: {signature.host.get('cpu_model', '')} ({threads} thread"
                 f"{'s' if threads != 1 else ''})", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return ax


def _fmt_size(n: int) -> str:
    for unit, div in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= div and n % div == 0:
            return f"{n // div} {unit}"
    return f"{n} B"


def save(ax, path) -> None:
    """Save the figure of ``ax`` (format from the suffix: .svg, .png, .pdf)."""
    ax.figure.savefig(path, bbox_inches="tight")
