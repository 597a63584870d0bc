"""Issue 12 items 1-3: the binding link after protocol overhead, discrete solve answers, and
parallel links whose capacities add.  Profiles in tests/fixtures/profiles (made up, numbers from
the PCIe base specification and Intel's UPI figures, as each file says)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pinchpoint.solve.ceilings import flow_ceiling, scenario_ceilings
from pinchpoint.inputs.profile_io import load_profile
from pinchpoint.solve.symbolic import explain_flow, flow_expression, solve

FIX = Path(__file__).parent.parent / "fixtures" / "profiles"
GBIT = 1e9 / 8
#: PCIe gen3 x8: 8 GT/s x 8 lanes x 128/130 / 8 [B/s] (PCIe 3.0 base specification, 4.2)
GEN3_X8 = 8e9 * 8 * 128 / 130 / 8


def _eff(mps):
    """Posted writes: mps / (mps + 24), a 4DW header with framing, sequence and LCRC per TLP (PCIe
    Base Specification 3.0, 2.2 and 4.2); the DLLPs that answer them travel the other way."""
    return mps / (mps + 24)


def test_56_gbit_line_into_pcie_gen3_x8_is_bound_by_pcie():
    p = load_profile(FIX / "nic56-pcie3x8.toml")
    c = flow_ceiling(p, "rx")
    assert c.effective_ceiling_bytes_per_s == pytest.approx(GEN3_X8 * _eff(128), rel=1e-12)
    assert c.effective_ceiling_bytes_per_s / GBIT == pytest.approx(53.07, abs=0.01)
    assert c.binding == ("pcie",)  # what users read: the link that binds after overhead
    assert c.raw_binding == ("wire",)  # the raw order, under its own name
    assert c.to_dict()["raw_binding"] == ["wire"] and c.to_dict()["binding"] == ["pcie"]


def test_ceilings_table_marks_the_link_that_binds_after_overhead(cli):
    out = cli("ceilings", str(FIX / "nic56-pcie3x8.toml"))
    assert out.returncode == 0, out.stderr
    assert "*pcie" in out.stdout and "*wire" not in out.stdout
    row = next(line for line in out.stdout.splitlines() if line.startswith("rx "))
    assert " pcie " in row


def test_solve_mps_for_56_gbit_finds_256():
    p = load_profile(FIX / "nic56-pcie3x8.toml")
    s = solve(p, "rx", 56 * GBIT, "pcie.mps")
    assert s.reachable and s.value_si == 256
    assert GEN3_X8 * _eff(128) < 56 * GBIT <= GEN3_X8 * _eff(256)  # 128 is not enough, 256 is


def test_solve_lanes_answers_a_pcie_width():
    # 10 GbE behind PCIe gen1 x4 answered 5 lanes
    p = load_profile(FIX / "nic10g-pcie1x4.toml")
    s = solve(p, "rx", 10 * GBIT, "pcie.lanes")
    assert s.value_si == 8 and s.reachable
    lane = 2.5e9 * 0.8 / 8 * _eff(256)  # one gen1 lane after 8b/10b and TLP overhead
    assert 4 * lane < 10 * GBIT and 5 * lane < 10 * GBIT <= 8 * lane  # x5 is no PCIe width
    assert s.ceiling_after_bytes_per_s == pytest.approx(10 * GBIT)  # the line binds at x8
    assert s.binding_after == ("ethernet",)


def test_solve_lanes_cli_says_what_it_gives(cli):
    out = cli("solve", str(FIX / "nic10g-pcie1x4.toml"), "--flow", "rx", "--target", "10 Gbit/s",
              "--vary", "pcie.lanes")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("pcie.lanes = 8 gives rx 10 Gbit/s")


def test_parallel_links_add_in_the_formula_and_the_explanation():
    p = load_profile(FIX / "upi-3link.toml")
    c = flow_ceiling(p, "remote")
    assert c.ceiling_bytes_per_s == pytest.approx(3 * 20.8e9)
    assert set(c.binding) == {"upi0", "upi1", "upi2"}
    import sympy

    expr = flow_expression(p, c.usage)
    r = [sympy.Symbol(f"upi{i}.rate", positive=True) for i in range(3)]
    d = sympy.Symbol("ddr0.rate", positive=True)
    assert sympy.simplify(expr - sympy.Min(d, r[0] + r[1] + r[2])) == 0
    e = explain_flow(p, "remote")
    assert e.result_bytes_per_s == pytest.approx(62.4e9)
    assert "upi0.rate) + (upi1.rate) + (upi2.rate" in e.formula


def test_solve_one_of_three_parallel_links():
    # "no value works" when upi0 at 28.4 GB/s gives 70 GB/s with the other two
    p = load_profile(FIX / "upi-3link.toml")
    s = solve(p, "remote", 70e9, "upi0.rate")
    assert s.reachable and s.value_si == pytest.approx(70e9 - 2 * 20.8e9, rel=1e-12)


def test_scenario_binding_parallel_links_all_carry_the_dual():
    p = load_profile(FIX / "upi-3link.toml")
    remote = next(c for c in scenario_ceilings(p, "both") if c.name == "both/remote")
    assert set(remote.binding) == {"upi0", "upi1", "upi2"}
    assert all(remote.duals[r] > 0 for r in remote.binding_resources if r in remote.duals)
    assert {r.split(":")[0] for r, v in remote.duals.items() if v > 0} == {"upi0", "upi1", "upi2"}


def test_scenario_flows_name_their_own_full_links_and_ties_have_no_dual():
    # remote (s0 -> s1) and back (s1 -> s0) run at one common rate; each fills its own direction
    # of the three UPI links, so each row names them (it used to name upi0 alone for back).  Two
    # directions bind at once: more of either alone gains nothing, so every dual is 0 (
    # a dual means the same on every flow)
    p = load_profile(FIX / "upi-3link.toml")
    for c in scenario_ceilings(p, "crossing"):
        assert set(c.binding) == {"upi0", "upi1", "upi2"}, c.name
        assert c.duals and all(c.duals[r] == 0 for r in c.binding_resources), (c.name, c.duals)
        assert c.ceiling_bytes_per_s == pytest.approx(3 * 20.8e9)
    remote, back = scenario_ceilings(p, "crossing")
    assert all(r.endswith("s0>s1") for r in remote.binding_resources)
    assert all(r.endswith("s1>s0") for r in back.binding_resources)
