"""What-if sweeps: parsing --vary, the vectorised grid against hand-computed ceilings, CSV/JSON."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from pinchpoint.solve.ceilings import flow_ceiling
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.sweep import parse_vary, sweep

GBIT = 1e9 / 8  # B/s in one Gbit/s

# Visser & Hilster, G5 Performance Report, UvA 2004, 2.1.1: PCI-X ceiling = clock x 64 bit;
# the 10 GbE port (3.4) caps nic-rx at 10 Gbit/s, so PCI-X stops binding at 10e9 / 64 = 156.25 MHz.
G5_PCIX_WIDTH_BITS = 64
G5_CROSSOVER_HZ = 10e9 / G5_PCIX_WIDTH_BITS
# PCI-X 2.0 addendum burst efficiency with the default 512 B MMRBC and 8 overhead clocks on a
# 64-bit bus: (512/8) / (512/8 + 8) = 64/72.
PCIX_EFFICIENCY = 64 / 72


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


def test_parse_linear_range_in_units(g5):
    a = parse_vary("pcix.clock=66MHz..266MHz:41", g5)
    assert a.name == "pcix.clock" and a.dimension == "frequency"
    assert a.values.size == 41
    np.testing.assert_allclose(np.diff(a.values), 5e6)  # (266 - 66) / 40 MHz
    assert a.values[0] == 66e6 and a.values[-1] == pytest.approx(266e6)


def test_parse_log_range_and_bits(g5):
    a = parse_vary("pcix.clock=33 MHz..264 MHz:4:log", g5)
    np.testing.assert_allclose(a.values, [33e6, 66e6, 132e6, 264e6])  # doubling
    assert a.spacing == "log" and not a.discrete


def test_discrete_parameters_take_only_the_values_that_exist(g5):
    # PCI-X MMRBC is 512, 1024, 2048 or 4096 B and the bus 32 or 64 bit wide (PCI-X Addendum 1.0b)
    a = parse_vary("pcix.burst=512B..4096B:1000", g5)
    assert a.discrete and a.values.tolist() == [512.0, 1024.0, 2048.0, 4096.0]
    assert parse_vary("pcix.burst=512B..4096B:2", g5).values.tolist() == [512.0, 4096.0]
    assert parse_vary("pcix.burst=600B..3000B:9:log", g5).values.tolist() == [1024.0, 2048.0]
    np.testing.assert_allclose(parse_vary("pcix.width=16 bit..128 bit:4:log", g5).values, [4, 8])  # bytes
    with pytest.raises(InputError, match="512 B, 1 KiB.*none lies in the range"):
        parse_vary("pcix.burst=600B..1000B:5", g5)


@pytest.mark.parametrize("text, fragment", [
    ("pcix.clock=266MHz..66MHz:41", "is empty"),  # reversed: an empty range
    ("pcix.clock=66MHz..266MHz:0", "is empty"),  # zero points
    ("pcix.clock=66MHz..66MHz:5", "is empty"),
    ("pcix.clock=32bit..64bit:5", "is not a frequency"),  # a range in the wrong unit
    ("pcix.speed=66MHz..266MHz:5", "has no parameter 'speed'"),  # a parameter that does not exist
    ("agp.clock=66MHz..266MHz:5", "no link 'agp'"),
    ("pcix.clock=66MHz..266MHz", "expected LINK.PARAM=LO..HI:N"),
    ("pcix.clock=66MHz..266MHz:4:cubic", "spacing"),
    ("fsb0.paths=1..2:2", "duplex"),  # would change the routing
])
def test_bad_vary_is_an_input_error(g5, text, fragment):
    with pytest.raises(InputError) as e:
        parse_vary(text, g5)
    assert fragment in str(e.value)
    assert e.value.key.split()[0] == "vary"  # the parameter: the CLI shows it as --vary (test_cli_names_the_flag)


def test_one_axis_against_hand_computed_ceilings(g5):
    a = parse_vary("pcix.clock=66MHz..266MHz:41", g5)
    r = sweep(g5, "nic-rx", [a])
    expected = np.minimum(a.values * G5_PCIX_WIDTH_BITS / 8, 10 * GBIT)
    np.testing.assert_allclose(r.ceiling, expected, rtol=1e-12)
    links = r.binding_links()
    assert set(links[a.values < G5_CROSSOVER_HZ]) == {"pcix"}
    assert set(links[a.values > G5_CROSSOVER_HZ]) == {"ethernet"}
    # effective: PCI-X payload after burst overhead, still capped by the port
    pcix_payload = a.values * G5_PCIX_WIDTH_BITS / 8 * PCIX_EFFICIENCY
    np.testing.assert_allclose(r.effective, np.minimum(pcix_payload, 10 * GBIT), rtol=1e-12)
    assert r.nominal_bytes_per_s == pytest.approx(133e6 * 8)


def test_multi_pass_flow_divides_by_passes(g5):
    # tcp-rx-copy crosses the DDR bus three times (DMA write, CPU read, CPU write)
    a = parse_vary("mem.clock=25MHz..200MHz:8", g5)
    r = sweep(g5, "tcp-rx-copy", [a])
    mem = a.values * 16 * 2 / 3  # 128 bit, DDR, 3 passes
    np.testing.assert_allclose(r.ceiling, np.minimum(mem, 133e6 * 8), rtol=1e-12)
    assert r.binding_links()[0] == "mem" and r.binding_links()[-1] == "pcix"


def test_grid_shape_and_shares(g5):
    axes = [parse_vary("pcix.clock=66MHz..266MHz:5", g5), parse_vary("ht.clock=100MHz..800MHz:3", g5)]
    r = sweep(g5, "nic-rx", axes)
    assert r.shape == (5, 3)
    hand = np.minimum.reduce([axes[0].values[:, None] * 8 + 0 * axes[1].values[None, :],
                              np.broadcast_to(axes[1].values[None, :] * 2 * 2, (5, 3)),
                              np.full((5, 3), 10 * GBIT)])
    np.testing.assert_allclose(r.ceiling, hand, rtol=1e-12)
    assert sum(r.binding_share().values()) == pytest.approx(1.0)


def test_variant_point_agrees_with_numeric_path(g5):
    a = parse_vary("ht.clock=100MHz..400MHz:4", g5)
    r = sweep(g5, "nic-rx", [a])
    for i, v in enumerate(a.values):
        c = flow_ceiling(g5.with_link_param("ht", "clock", float(v)), "nic-rx")
        assert r.ceiling[i] == pytest.approx(c.ceiling_bytes_per_s, rel=1e-12)
        assert r.binding_links()[i] in c.binding


def test_unknown_flow_and_no_axes(g5):
    from pinchpoint.errors import ProfileError

    with pytest.raises(ProfileError):
        sweep(g5, "nope", [parse_vary("pcix.clock=66MHz..133MHz:2", g5)])
    with pytest.raises(InputError):
        sweep(g5, "nic-rx", [])
    a = parse_vary("pcix.clock=66MHz..133MHz:2", g5)
    with pytest.raises(InputError, match="twice"):
        sweep(g5, "nic-rx", [a, a])


def test_csv_and_json_outputs(g5, tmp_path):
    from pinchpoint.cli.planning_cmds import write_sweep_csv

    axes = [parse_vary("pcix.clock=66MHz..266MHz:4", g5), parse_vary("pcix.width=32bit..64bit:2", g5)]
    r = sweep(g5, "nic-rx", axes)
    out = tmp_path / "sweep.csv"
    write_sweep_csv(r, out)
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 8
    assert list(rows[0]) == ["pcix.clock_Hz", "pcix.width_B", "ceiling_bytes_per_s", "binding",
                             "effective_ceiling_bytes_per_s", "effective_binding"]
    assert float(rows[0]["ceiling_bytes_per_s"]) == pytest.approx(66e6 * 4)
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.csv"]  # no temporary file left behind
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["points"] == 8 and len(d["grid"]) == 8
    assert d["grid"][0]["binding"] == "pcix"  # 66 MHz x 32 bit = 2.1 Gbit/s
    assert d["grid"][-1]["binding"] == "ethernet"  # 266 MHz x 64 bit = 17 Gbit/s > the 10 Gbit/s port


def test_terms_are_the_symbolic_flow_expression(g5):
    # the sweep's terms are the arguments of symbolic.flow_expression: their min at the profile's
    # values is the same number
    from pinchpoint.solve.symbolic import evaluate, flow_expression
    from pinchpoint.solve.sweep import build_terms

    for flow in ("nic-rx", "tcp-rx-copy"):
        c = flow_ceiling(g5, flow)
        terms = build_terms(g5, flow, ["pcix.clock"])
        values = [float(f(133e6)) for f in terms.raw]
        assert min(values) == pytest.approx(evaluate(flow_expression(g5, c.usage), g5), rel=1e-12)
        assert len(values) == len(c.usage)


def test_solve_answers_discrete_and_stepped_parameters():
    """PCIe generation, MPS and transfer size: capacities with steps (TLPs per transfer) have no
    useful derivative; the answers must still be the values that reach the target."""
    from pinchpoint.solve.ceilings import flow_ceiling
    from pinchpoint.solve.generations import with_generation
    from pinchpoint.solve.symbolic import solve

    p = load_profile("h100-pcie-host-1mib")
    s = solve(p, "h2d", 30e9, "pcie.generation")
    assert s.reachable and s.value_si == 5.0  # gen4 halves the lane rate: below 30 GB/s on this host
    assert flow_ceiling(with_generation(p, "pcie", 4), "h2d").effective_ceiling_bytes_per_s < 30e9
    s = solve(p, "h2d", 40e9, "pcie.mps")
    assert s.reachable and s.value_si in (128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0)
    below = [v for v in (128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0) if v < s.value_si]
    for v in below:  # the smallest valid MPS that reaches it
        assert flow_ceiling(p.with_link_param("pcie", "mps", v), "h2d").effective_ceiling_bytes_per_s < 40e9
    s = solve(p, "h2d", 45e9, "pcie.transfer_size")
    assert s.reachable
    assert flow_ceiling(p.with_link_param("pcie", "transfer_size", s.value_si), "h2d") \
        .effective_ceiling_bytes_per_s >= 45e9 * (1 - 1e-9)


def test_an_unreachable_target_names_the_target():
    from pinchpoint.solve.symbolic import solve

    with pytest.raises(InputError) as err:
        solve(load_profile("powermac-g5"), "nic-rx", 1e300 / 8 * 1e9, "pcix.clock")
    assert err.value.key == "target"
