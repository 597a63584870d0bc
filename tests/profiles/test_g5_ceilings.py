"""The Power Mac G5 ceilings worked by hand in the UvA G5 report (2004), section 2, as named fixtures."""

from __future__ import annotations

import json

import pytest

from pinchpoint.solve.ceilings import all_ceilings, flow_ceiling, scenario_ceilings
from pinchpoint.inputs.profile_io import load_profile

GBIT = 1e9 / 8  # bytes per second in one Gbit/s

# Visser & Hilster, G5 Performance Report (UvA, 2004), 2.1.1: 133e6 x 64 = 8.5 Gbit/s.
# The profile states 133 MHz, so the exact figure is 8.512 Gbit/s.
G5_PCIX_GBIT = 8.512
# the UvA G5 report (2004), 2.1.3: HT 2 x 16 bit x 800 MHz = 25.6 Gbit/s (3.2 GB/s) per direction.
G5_HT_GBIT = 25.6
# the UvA G5 report (2004), 2.1.4: each FSB two 32-bit paths at 1 GHz: 4 GB/s each way, 8 GB/s in all.
G5_FSB_EACH_WAY = 4e9
# the UvA G5 report (2004), 2.1.5: DDR-400, 128 bit: 6.4 GB/s (its formula prints 12.8; the text says 6.4).
G5_MEMORY = 6.4e9


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


def test_nic_rx_is_bound_by_pcix(g5):
    c = flow_ceiling(g5, "nic-rx")
    assert c.ceiling_bytes_per_s == pytest.approx(G5_PCIX_GBIT * GBIT, rel=1e-12)
    assert c.binding == ("pcix",)
    assert g5.links["pcix"].kind == "pci-x"
    assert c.path == ("network", "nic", "pcix-bridge", "u3", "memory")


def test_link_capacities_match_the_report(g5):
    assert g5.links["ht"].capacity_bytes_per_s == pytest.approx(G5_HT_GBIT * GBIT, rel=1e-12)
    assert g5.links["ht"].duplex == "full"
    for fsb in ("fsb0", "fsb1"):
        assert g5.links[fsb].capacity_bytes_per_s == pytest.approx(G5_FSB_EACH_WAY, rel=1e-12)
        assert g5.links[fsb].duplex == "full"  # 8 GB/s in all = 4 GB/s each way
    assert g5.links["mem"].capacity_bytes_per_s == pytest.approx(G5_MEMORY, rel=1e-12)
    assert g5.links["mem"].duplex == "half"
    assert g5.links["pcix"].duplex == "half"


def test_the_other_flows_exist_and_make_sense(g5):
    by_name = {c.name: c for c in all_ceilings(g5)}
    assert {"nic-rx", "nic-tx", "tcp-rx-copy"} <= set(by_name)
    assert by_name["nic-tx"].ceiling_bytes_per_s == pytest.approx(G5_PCIX_GBIT * GBIT)
    copy = by_name["tcp-rx-copy"]
    # DMA write + copy read + copy write: three passes through the shared DDR bus.
    assert copy.usage["mem"] == 3
    assert copy.ceiling_bytes_per_s == pytest.approx(G5_PCIX_GBIT * GBIT)
    # a CPU copy alone: two memory passes, so 6.4 / 2 = 3.2 GB/s.
    assert by_name["mem-copy"].ceiling_bytes_per_s == pytest.approx(G5_MEMORY / 2)
    assert by_name["mem-copy"].binding == ("mem",)


def test_what_binds_next(g5):
    c = flow_ceiling(g5, "nic-rx")
    # With PCI-X unbounded the 10 Gbit/s line binds: PCI-X must grow by 10/8.512.
    assert c.next_binding == ("ethernet",)
    # growth is counted after overhead: PCI-X at MMRBC 512 carries 64/(64 + 8) of 8.512 Gbit/s
    assert c.growth == pytest.approx(10 / (8.512 * 64 / 72))


def test_send_and_receive_share_the_half_duplex_pcix_bus(g5):
    both = scenario_ceilings(g5, "bidirectional")
    assert [c.ceiling_bytes_per_s for c in both] == pytest.approx([G5_PCIX_GBIT * GBIT / 2] * 2)
    assert all(c.binding == ("pcix",) for c in both)


def test_effective_pcix_ceiling_with_default_mmrbc(g5):
    # PCI-X burst efficiency with MMRBC 512 and 8 overhead clocks: 64 / 72 (docs/formulas.md).
    c = flow_ceiling(g5, "nic-rx")
    assert c.effective_ceiling_bytes_per_s == pytest.approx(G5_PCIX_GBIT * GBIT * 64 / 72)
    bigger = flow_ceiling(g5.with_link_param("pcix", "burst", 4096.0), "nic-rx")
    assert bigger.effective_ceiling_bytes_per_s == pytest.approx(G5_PCIX_GBIT * GBIT * 512 / 520)


def test_ceilings_json_command(cli):
    out = cli("ceilings", "powermac-g5", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["profile"] == "powermac-g5"
    flows = {f["name"]: f for f in doc["flows"]}
    assert flows["nic-rx"]["ceiling_bytes_per_s"] * 8 / 1e9 == pytest.approx(G5_PCIX_GBIT)
    links = {l["id"]: l for l in doc["links"]}
    assert [links[b]["kind"] for b in flows["nic-rx"]["binding"]] == ["pci-x"]
    assert links["ht"]["capacity_bytes_per_s"] * 8 / 1e9 == pytest.approx(G5_HT_GBIT)
    assert links["mem"]["capacity_bytes_per_s"] == pytest.approx(G5_MEMORY)
    for link in doc["links"]:
        assert set(link) >= {"id", "kind", "capacity_bytes_per_s", "duplex", "formula"}
    for flow in doc["flows"]:
        assert set(flow) >= {"name", "ceiling_bytes_per_s", "binding", "path"}


def test_solve_pcix_clock_for_10_gbit(cli):
    # the G5's PCI-X clock for 10 Gbit/s at 64 bit is 156.25 MHz.
    out = cli("solve", "powermac-g5", "--flow", "nic-rx", "--target", "10 Gbit/s", "--vary", "pcix.clock", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    # 10 Gbit/s of payload after PCI-X overhead at MMRBC 512: 64 of every 72 clocks carry data,
    # so 156.25 MHz x 72 / 64; the raw-capacity answer is kept beside it
    assert doc["value"] == pytest.approx(156.25e6 * 72 / 64, rel=1e-12)
    assert doc["raw_value"] == pytest.approx(156.25e6, rel=1e-12)
    assert doc["reachable"] is True


def test_solve_says_when_another_link_binds_first(g5):
    from pinchpoint.solve.symbolic import solve

    s = solve(g5, "nic-rx", 20e9 / 8, "pcix.clock")
    assert s.value_si == pytest.approx(312.5e6 * 72 / 64)
    assert not s.reachable and s.binding_after == ("ethernet",)


def test_solve_does_not_claim_an_unreachable_target(cli):
    # "312.5 MHz gives nic-rx 20 Gbit/s" followed by "reaches 10 Gbit/s"
    out = cli("solve", "powermac-g5", "--flow", "nic-rx", "--target", "20 Gbit/s", "--vary", "pcix.clock")
    assert out.returncode == 1
    first = out.stdout.splitlines()[0]
    assert "MHz gives nic-rx 20 Gbit/s" not in out.stdout and "would do" not in out.stdout
    assert first.startswith("no value of pcix.clock alone gives nic-rx 20 Gbit/s") and "10 Gbit/s" in first


def test_explain_prints_formula_values_and_sources(cli):
    out = cli("explain", "powermac-g5", "pcix")
    assert out.returncode == 0, out.stderr
    assert "width*clock" in out.stdout
    assert "(64 bit) × (133 MHz)" in out.stdout
    assert "= 1.064 GB/s" in out.stdout  # a bus: B/s (the unit policy); 8.512 Gbit/s
    assert "the UvA G5 report (2004), 2.1.1" in out.stdout


def test_a_shared_bus_adds_up_all_traffic_between_its_devices(tmp_path, toy_text):
    """An Intel-style FSB with two CPUs and the bridge on it: both copies share one capacity."""
    text = toy_text.replace('between = ["bridge", "cpu"]', 'between = ["bridge", "cpu", "cpu2"]')
    text = text.replace('[links.eth]', '[components.cpu2]\nkind = "cpu"\nclock = "1 GHz"\n\n[links.eth]')
    text += '\n[flows.copy2]\nlegs = [["mem", "cpu2"], ["cpu2", "mem"]]\n\n[scenarios.both]\nflows = ["copy", "copy2"]\n'
    path = tmp_path / "bus.toml"
    path.write_text(text)
    from pinchpoint.inputs.profile_io import load_profile as load

    p = load(path)
    fsb = p.links["fsb"].capacity_bytes_per_s  # 8 B x 100 MHz x 4 = 3.2 GB/s, shared by everything on it
    ddr = p.links["ddr"].capacity_bytes_per_s  # 8 B x 100 MHz x 2 = 1.6 GB/s
    assert (fsb, ddr) == (3.2e9, 1.6e9)
    one = flow_ceiling(p, "copy")
    assert one.usage["fsb"] == 2  # read in, write out: two crossings of the one bus
    assert one.ceiling_bytes_per_s == pytest.approx(min(fsb / 2, ddr / 2))
    both = scenario_ceilings(p, "both")
    # two copies at once: the DDR bus carries 4 passes per unit rate, the FSB 4 as well
    assert [c.ceiling_bytes_per_s for c in both] == pytest.approx([min(fsb, ddr) / 4] * 2)


def test_a_full_duplex_link_cannot_be_a_bus(tmp_path, toy_text):
    from pinchpoint.errors import ProfileError
    from pinchpoint.inputs.profile_io import load_profile as load

    text = toy_text.replace('between = ["net", "nic"]', 'between = ["net", "nic", "bridge"]')
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ProfileError, match="links.eth.between: only a shared"):
        load(path)
