"""``compare --workload`` options that did nothing: --plot wrote no file, a second
--signature replaced the first."""

from __future__ import annotations

import json

from pinchpoint.cli import main


def test_compare_workload_plot_writes_the_file(tmp_path, capsys):
    out = tmp_path / "cmp.png"
    assert main(["compare", "--workload", "power4-memory-heavy", "--signature", "p690", "p650",
                 "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot: {out}" in capsys.readouterr().out


def test_compare_workload_plot_svg_names_every_signature(tmp_path):
    out = tmp_path / "cmp.svg"
    assert main(["compare", "--workload", "power4-memory-heavy", "--signature", "p690", "p650",
                 "--plot", str(out), "--json"]) == 0
    svg = out.read_text()
    assert "p690" in svg and "p650" in svg


def test_repeated_signature_options_are_all_kept(capsys):
    assert main(["compare", "--workload", "power4-memory-heavy", "--signature", "p690",
                 "--signature", "p650", "p655-1.3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["signature"] for p in doc["predictions"]] == ["p690", "p650", "p655-1.3"]


def test_log_axis_only_when_values_span_orders_of_magnitude():
    from pinchpoint.report.plots_planning import wants_log_axis

    assert wants_log_axis([1e6, 1e9])
    assert not wants_log_axis([1e9, 2e9, 5e9])
    assert not wants_log_axis([0.0, 1e9])


def test_sweep_plot_axes_in_human_units():
    """Issue 17: 'pcix.clock [Hz]' with ticks of 1e8 Hz; now MHz, and GHz/GB/s where they fit."""
    from pinchpoint.report.plots_planning import draw_sweep, human_unit
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.solve.sweep import parse_vary, sweep

    g5 = load_profile("powermac-g5")
    fig = draw_sweep(sweep(g5, "nic-rx", [parse_vary("pcix.clock=66MHz..266MHz:5", g5)]))
    ax = fig.axes[0]
    assert ax.get_xlabel() == "pcix.clock [MHz]" and ax.get_ylabel() == "nic-rx ceiling [Gbit/s]"
    xs = ax.get_lines()[0].get_xdata()
    assert xs[0] == 66.0 and xs[-1] == 266.0
    assert human_unit([2.0e9], "frequency") == (1e-9, "GHz")
    assert human_unit([6.4e9], "bandwidth") == (1e-9, "GB/s")
    assert human_unit([4096.0], "size") == (1 / 1024, "KiB")
    assert human_unit([512.0], "size") == (1.0, "B")
    assert human_unit([44.5e-3], "time") == (1e3, "ms")
