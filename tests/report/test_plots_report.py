"""plots_report: the ladder, the link graph, the staircase with ceilings, SVG output."""

from __future__ import annotations

import re

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import pytest

from pinchpoint.report import plots_report as pr
from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling
from pinchpoint.errors import InputError


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _same(c1, c2) -> bool:
    return mcolors.to_hex(c1) == mcolors.to_hex(c2)


# --- ladder -------------------------------------------------------------------------------------

def test_ladder_one_bar_per_ceiling_binding_red_measured_marker(g5_verdict):
    v = g5_verdict
    ax = pr.ceiling_ladder(v.ceilings, v.measured_bytes_per_s, binding=v.binding.name)
    bars = ax.patches
    assert len(bars) == len(v.ceilings)
    red = [b for b in bars if _same(b.get_facecolor(), pr.BINDING)]
    assert len(red) == 1
    # bar lengths are the ceilings in Gbit/s; the red one is the binding (lowest) ceiling
    widths = sorted(b.get_width() for b in bars)
    assert widths == pytest.approx(sorted(c.ceiling_bytes_per_s * 8e-9 for c in v.ceilings))
    assert red[0].get_width() == pytest.approx(v.binding.ceiling_bytes_per_s * 8e-9)
    assert red[0].get_width() == pytest.approx(min(widths))
    # the lowest ceiling is drawn on top
    assert red[0].get_y() == max(b.get_y() for b in bars)
    # the measured marker: 3.5 Gbit/s (Visser & Hilster, G5 Performance Report, UvA 2004)
    markers = [l for l in ax.lines if l.get_marker() == "D"]
    assert len(markers) == 1 and markers[0].get_xdata()[0] == pytest.approx(3.5)


def test_ladder_highlights_a_named_ceiling(g5):
    cs = all_ceilings(g5)
    ax = pr.ceiling_ladder(cs, binding="mem-copy", network=False)
    red = [b for b in ax.patches if _same(b.get_facecolor(), pr.BINDING)]
    assert len(red) == 1 and red[0].get_width() == pytest.approx(3.2)  # 6.4 GB/s / 2 passes, in GB/s
    assert "GB/s" in ax.get_xlabel()


@pytest.mark.parametrize("ceilings, kwargs, match", [
    ([], {}, "no ceilings"),
    ("g5", {"binding": "nope"}, "not among"),
    ("g5", {"measured_bytes_per_s": -1.0}, "measured"),
    ([("x", 1.0)], {}, "ceiling_bytes_per_s"),
])
def test_ladder_bad_input(g5, ceilings, kwargs, match):
    if ceilings == "g5":
        ceilings = all_ceilings(g5)
    with pytest.raises(InputError, match=match):
        pr.ceiling_ladder(ceilings, **kwargs)


# --- link graph -----------------------------------------------------------------------------------

def test_link_graph_positions_and_binding_highlight(g5):
    pos = pr.graph_positions(g5, "nic-rx")
    assert set(pos) == set(g5.components)
    # rows by topology: the CPUs on top, the U3 bridge, then memory and the PCI-X bridge, the NIC,
    # the network at the bottom
    y = {n: p[1] for n, p in pos.items()}
    assert y["cpu0"] == y["cpu1"] > y["u3"] > y["memory"] == y["pcix-bridge"] > y["nic"] > y["network"]
    assert pos["cpu0"][0] < pos["cpu1"][0]  # natural order, every run
    ax = pr.link_graph(g5, flow_ceiling(g5, "nic-rx"))
    assert len(ax.lines) == len(g5.links)
    red = [l for l in ax.lines if _same(l.get_color(), pr.BINDING)]
    assert len(red) == 1  # pcix binds nic-rx (Visser & Hilster, G5 Performance Report, UvA 2004: 8.5 Gbit/s PCI-X)
    (x0, x1), (y0, y1) = red[0].get_xdata(), red[0].get_ydata()
    assert {(x0, y0), (x1, y1)} == {tuple(pos["nic"]), tuple(pos["pcix-bridge"])}
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("pcix\n1.064 GB/s") for t in texts)  # 64 bit x 133 MHz
    assert any(t.startswith("ht\n3.2 GB/s each way") for t in texts)  # 2 x 16 bit x 800 MHz DDR / 8
    assert any(t.startswith("ethernet\n10 Gbit/s") for t in texts)


def test_link_graph_memory_flow_and_unknown_flow(g5):
    ax = pr.link_graph(g5, flow_ceiling(g5, "mem-copy"))
    red = [l for l in ax.lines if _same(l.get_color(), pr.BINDING)]
    assert len(red) == 1  # the DDR bus, crossed twice
    with pytest.raises(InputError, match="no flow"):
        pr.link_graph(g5, flow="nope")


# --- staircase ------------------------------------------------------------------------------------

def test_staircase_reuses_maps_staircase_and_adds_ceilings(maps_sig, g5):
    ax = pr.staircase(maps_sig, [("DDR", 6.4e9), flow_ceiling(g5, "mem-copy")])
    horizontal = sorted(l.get_ydata()[0] for l in ax.lines if len(set(l.get_ydata())) == 1
                        and tuple(l.get_xdata()) == (0, 1))
    assert horizontal == pytest.approx([3.2, 6.4])
    # maps_staircase's cache markers (vertical lines at 32 KiB and 1 MiB) are there
    vertical = sorted(l.get_xdata()[0] for l in ax.lines if tuple(l.get_ydata()) == (0, 1))
    assert vertical == [32768, 1048576]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "DDR: 6.4 GB/s" in legend and "mem-copy: 3.2 GB/s" in legend
    assert "load stride1" in legend  # maps_staircase's own series stay in the legend
    lo, hi = ax.get_ylim()
    assert lo < 3.2 and hi > 100


def test_staircase_rejects_nonpositive_ceiling(maps_sig):
    with pytest.raises(InputError, match="must be > 0"):
        pr.staircase(maps_sig, [("zero", 0.0)])


# --- SVG ------------------------------------------------------------------------------------------

def test_svg_is_inline_text_with_unique_ids(g5, g5_verdict):
    a = pr.svg(pr.link_graph(g5))
    b = pr.svg(pr.ceiling_ladder(g5_verdict.ceilings, g5_verdict.measured_bytes_per_s))
    for s in (a, b):
        assert s.startswith("<svg") and "<?xml" not in s and "<!DOCTYPE" not in s
        assert s.rstrip().endswith("</svg>")
    assert "1.064 GB/s" in a and "<text" in a  # text stays text (svg.fonttype none)
    ids_a = set(re.findall(r'id="(p[0-9a-f]{6,})"', a))
    ids_b = set(re.findall(r'id="(p[0-9a-f]{6,})"', b))
    assert ids_a and ids_b and not ids_a & ids_b


def test_planning_plots_as_svg(g5):
    import numpy as np

    from pinchpoint.physics import usl
    from pinchpoint.solve.sweep import parse_vary, sweep

    res = sweep(g5, "nic-rx", [parse_vary("pcix.clock=66MHz..266MHz:5", g5),
                               parse_vary("pcix.width=32bit..64bit:2", g5)])
    s = pr.sweep_svg(res)
    assert s.startswith("<svg") and "pcix" in s
    n = np.array([1, 2, 4, 8, 16])
    fit = usl.fit(n, usl.usl(n, 100.0, 0.05, 0.01), series="synthetic")
    s = pr.scale_svg([fit], unit="queries/s")
    assert s.startswith("<svg") and "queries/s" in s


def test_link_graph_draws_shared_buses(tmp_path):
    """A bus joining three components (xeon-dual-3.6's FSB: mch, cpu0, cpu1) is one polyline via a hub."""
    from pinchpoint.inputs.profile_io import load_profile

    xeon = load_profile("xeon-dual-3.6")
    shared = [l for l in xeon.links.values() if len(l.between) > 2]
    assert shared
    ax = pr.link_graph(xeon)
    assert len(ax.lines) == len(xeon.links)
    pos = pr.graph_positions(xeon)
    for link in shared:
        line = next(l for l in ax.lines if {(x, y) for x, y in zip(l.get_xdata(), l.get_ydata())}
                    >= {tuple(pos[m]) for m in link.between})
        assert len(line.get_xdata()) == 2 * len(link.between)


def test_staircase_merges_equal_ceilings(maps_sig):
    ax = pr.staircase(maps_sig, [("fsb0", 4e9), ("fsb1", 4e9), ("mem", 6.4e9)])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "fsb0, fsb1: 4 GB/s" in legend and "mem: 6.4 GB/s" in legend
