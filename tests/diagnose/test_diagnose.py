"""`diagnose`: acceptance cases from the published sources, verdicts, advice and bad input."""

from __future__ import annotations

import json
import math

import pytest

from pinchpoint.diagnose import DiagnoseInputs, diagnose
from pinchpoint.errors import InputError
from pinchpoint.inputs.profile_io import load_profile

MBIT = 1e6 / 8
GBIT = 1e9 / 8
MIB = 2 ** 20


@pytest.fixture(scope="module")
def g5():
    return load_profile("powermac-g5")


def kinds(v):
    return [c.kind for c in v.ceilings]


# --- AARNet's 10 Gbit/s talk (2008): AARNet, Canberra to Perth ------------------------------------------------------

#: AARNet's 10 Gbit/s talk (2008) "Canberra to Perth": up to 705 Mbps un-tweaked; RTT 44.5 ms; auto-tuning max 4 MB;
#: "Tested with Interface MTU of 1500, but mostly 9000"; 10 GbE.
AARNET_705 = dict(measured_bytes_per_s=705 * MBIT, rtt_s=0.0445, window_bytes=4 * MIB,
                  line_bytes_per_s=10 * GBIT, mtu_bytes=9000)
#: AARNet's 10 Gbit/s talk (2008) "Canberra to Perth Results": 8.98 Gbps over 10 minutes once max buffers were 100 MB.
AARNET_898 = dict(AARNET_705, measured_bytes_per_s=8.98 * GBIT, window_bytes=100e6)


def test_aarnet_705_is_at_the_window_ceiling():
    v = diagnose(DiagnoseInputs(**AARNET_705))
    assert v.binding.kind == "window"
    assert v.verdict == "at-ceiling"
    assert v.binding.ceiling_bytes_per_s / MBIT == pytest.approx(4 * MIB * 8 / 0.0445 / 1e6, rel=1e-12)
    assert v.binding.ceiling_bytes_per_s / MBIT == pytest.approx(754.0, abs=0.1)
    # the talk's own convention, 4M * 8 / 0.045 = 711 Mbps, shown beside the exact figure
    assert v.binding.rough_ceiling_bytes_per_s / MBIT == pytest.approx(711.1, abs=0.1)
    assert "711.1 Mbit/s" in v.binding.note and "754 Mbit/s" in v.binding.note
    assert v.efficiency == pytest.approx(705 / 754.03, rel=1e-4)
    assert v.limited_by == "the TCP window"


def test_aarnet_705_advice_names_the_buffer_size():
    v = diagnose(DiagnoseInputs(**AARNET_705))
    text = " ".join(v.advice)
    # the bandwidth-delay product 10 Gbit/s x 44.5 ms = 55.625e6 B = 53.05 MiB, rounded up to
    # two figures of its binary prefix (buffers are sized in MiB): 54 MiB
    assert 53 * 2**20 < 10e9 / 8 * 44.5e-3 <= 54 * 2**20
    assert "raise net.ipv4.tcp_rmem max to at least 54 MiB for 10 Gbit/s at 44.5 ms" in text


def test_aarnet_898_binds_at_the_path():
    v = diagnose(DiagnoseInputs(**AARNET_898))
    assert v.binding.kind == "framing"
    assert v.binding.ceiling_bytes_per_s / GBIT == pytest.approx(10 * 8948 / 9038, rel=1e-12)  # ~9.9
    assert v.binding.ceiling_bytes_per_s / GBIT == pytest.approx(9.9, abs=0.01)
    assert v.efficiency == pytest.approx(0.90, abs=0.01)  # "about 90 % of it"
    window = next(c for c in v.ceilings if c.kind == "window")
    assert window.ceiling_bytes_per_s > v.binding.ceiling_bytes_per_s


# --- "We're getting 260 Mbps from our 1Gbps optical circuit. Is that good?" (AARNet's 10 Gbit/s talk (2008)) --------

Q260 = dict(measured_bytes_per_s=260 * MBIT, line_bytes_per_s=1 * GBIT)


def test_260_with_2ms_and_64k_window_is_the_window():
    v = diagnose(DiagnoseInputs(**Q260, rtt_s=0.002, window_bytes=64 * 1024))
    assert v.binding.kind == "window"
    assert v.binding.ceiling_bytes_per_s / MBIT == pytest.approx(262.1, abs=0.05)
    assert v.verdict == "at-ceiling"
    assert v.efficiency == pytest.approx(260 / 262.144, rel=1e-4)


def test_260_without_rtt_lists_hypotheses():
    v = diagnose(DiagnoseInputs(**Q260))
    windows = {round(h.rtt_s, 3): h for h in v.hypotheses if h.kind == "window"}
    losses = {round(h.rtt_s, 3): h for h in v.hypotheses if h.kind == "loss"}
    assert sorted(windows) == [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2]
    assert windows[0.002].window_bytes == pytest.approx(260e6 / 8 * 0.002)  # 65 kB
    assert windows[0.002].fits and "64 KiB" in windows[0.002].text  # the classic window without scaling
    assert not windows[0.01].fits
    # the loss that explains it by Mathis, e.g. at 20 ms: 7.4e-6 (docs/formulas.md)
    assert losses[0.02].loss == pytest.approx(7.4e-6, rel=0.01)
    assert v.verdict == "far-below-all"  # 28 % of the 941.5 Mbit/s framing ceiling: nothing modelled explains it
    assert any("--rtt" in a for a in v.advice)


def test_260_with_2ms_and_large_window_is_below_framing():
    v = diagnose(DiagnoseInputs(**Q260, rtt_s=0.002, window_bytes=16e6))
    assert v.binding.kind == "framing"
    assert v.binding.ceiling_bytes_per_s / MBIT == pytest.approx(941.5, abs=0.05)
    assert v.verdict != "at-ceiling"
    assert v.efficiency == pytest.approx(260 / 941.48, rel=1e-4)
    text = " ".join(v.advice)
    assert "packet loss" in text and "0.00074" in text  # the loss that would explain it by Mathis
    assert "policed" in text


# --- the UvA G5 report (2004): the G5 ------------------------------------------------------------------------

#: the UvA G5 report (2004), 4.4.1 Iperf UDP: "Maximum speed attained is 7.8 Gigabit/s" (sender side), with the
#: PCI-X burst raised to 4096 and MTU 9000 / 16000; the 133 MHz 64-bit slot.
G5_UDP = dict(measured_bytes_per_s=7.8 * GBIT, protocol="udp", side="sender", mtu_bytes=9000, flow="nic-tx")
#: the UvA G5 report (2004), 4.4.1 Iperf TCP: "Maximum achieved performance is 3.5 Gigabit/s with 16 ... streams".
G5_TCP = dict(measured_bytes_per_s=3.5 * GBIT, protocol="tcp", mtu_bytes=9000, flow="nic-tx", streams=16)


def test_g5_udp_is_near_the_pcix_ceiling(g5):
    v = diagnose(DiagnoseInputs(**G5_UDP, profile=g5, mmrbc_bytes=4096))
    assert v.binding.kind == "pci-x"
    assert v.verdict == "at-ceiling"
    assert v.limited_by.startswith("hardware")
    # 133e6 x 8 B x (4096/8)/(4096/8 + 8): independently computed, the figure `ceilings` prints
    expect = 133e6 * 8 * (512 / 520)
    assert v.binding.ceiling_bytes_per_s == pytest.approx(expect, rel=1e-9)
    assert v.binding.raw_ceiling_bytes_per_s == pytest.approx(133e6 * 8, rel=1e-9)
    assert 0.9 <= v.efficiency < 1.0
    assert any("receiver" in n for n in v.notes)  # a UDP sender's figure


def test_g5_tcp_is_software_bound(g5):
    v = diagnose(DiagnoseInputs(**G5_TCP, profile=g5, mmrbc_bytes=4096))
    assert v.verdict == "far-below-all"
    assert "software" in v.limited_by
    hardware = [c for c in v.ceilings if c.kind in ("pci-x", "hypertransport", "memory", "cpu")]
    assert {c.kind for c in hardware} >= {"pci-x", "hypertransport", "memory", "cpu"}
    assert all(v.measured_bytes_per_s < 0.5 * c.ceiling_bytes_per_s for c in hardware)


def test_g5_mmrbc_512_lowers_pcix_and_advice_names_mmrbc(g5):
    low = diagnose(DiagnoseInputs(**G5_UDP, profile=g5, mmrbc_bytes=512))
    high = diagnose(DiagnoseInputs(**G5_UDP, profile=g5, mmrbc_bytes=4096))
    pcix = lambda v: next(c for c in v.ceilings if c.kind == "pci-x")  # noqa: E731
    assert pcix(low).ceiling_bytes_per_s == pytest.approx(pcix(high).ceiling_bytes_per_s * (64 / 72) / (512 / 520))  # (M/8)/(M/8 + 8)
    assert pcix(low).ceiling_bytes_per_s < pcix(high).ceiling_bytes_per_s
    assert pcix(low).raw_ceiling_bytes_per_s == pytest.approx(pcix(high).raw_ceiling_bytes_per_s)  # raw beside effective
    assert low.binding.kind == "pci-x"
    assert any("MMRBC to 4096" in a for a in low.advice)
    assert not any("MMRBC to 4096" in a for a in high.advice)
    # the profile's default burst is 512 B too
    default = diagnose(DiagnoseInputs(**G5_UDP, profile=g5))
    assert pcix(default).ceiling_bytes_per_s == pytest.approx(pcix(low).ceiling_bytes_per_s)


def test_g5_line_rate_comes_from_the_profile(g5):
    v = diagnose(DiagnoseInputs(**G5_UDP, profile=g5))
    line = next(c for c in v.ceilings if c.kind == "line")
    assert line.ceiling_bytes_per_s == pytest.approx(10 * GBIT)


def test_g5_cpu_rule_of_thumb_is_marked_an_estimate(g5):
    v = diagnose(DiagnoseInputs(**G5_TCP, profile=g5))
    cpu = next(c for c in v.ceilings if c.kind == "cpu")
    assert cpu.estimate and "rule of thumb" in cpu.note
    # 2 CPUs x 2 GHz (16 streams use both), 12000 cycles per packet, MSS 8948
    assert cpu.ceiling_bytes_per_s == pytest.approx(2 * 2e9 / 12000 * 8948)


def test_throttled_clock_lowers_the_cpu_ceiling_and_advises(g5):
    # AARNet's 10 Gbit/s talk (2008): "cpuspeed" service ran the CPUs at a lower clock than nominal
    v = diagnose(DiagnoseInputs(**G5_TCP, profile=g5, clock_hz=1.0e9))
    cpu = next(c for c in v.ceilings if c.kind == "cpu")
    assert cpu.ceiling_bytes_per_s == pytest.approx(2 * 1e9 / 12000 * 8948)
    assert any("power saving" in a for a in v.advice)


# --- Apple's Open Transport FAQ (1996): Open Transport ----------------------------------------------------------------

def test_open_transport_93_on_10mbit_is_at_ceiling():
    # Apple's Open Transport FAQ (1996): "Open Transport has been clocked at over 9.3 Mbps ... approach theoretical maximum
    # performance for 10 Mbps Ethernet"
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=9.3 * MBIT, line_bytes_per_s=10 * MBIT, timestamps=False))
    assert v.binding.kind == "framing" and v.verdict == "at-ceiling"
    assert v.efficiency == pytest.approx(9.3 / (10 * 1460 / 1538), rel=1e-9)
    assert v.hypotheses == ()  # explained: nothing to guess


def test_open_transport_48_on_fast_ethernet_is_not():
    # Apple's Open Transport FAQ (1996): "48 Mbps with a Rockwell fast Ethernet card and driver (1500 byte block size)"
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=48 * MBIT, line_bytes_per_s=100 * MBIT, timestamps=False))
    assert v.binding.kind == "framing"
    assert v.verdict != "at-ceiling"
    assert v.efficiency == pytest.approx(48 / (100 * 1460 / 1538), rel=1e-9)


def test_other_media():
    # Apple's Open Transport FAQ (1996): 93 Mbit/s on ATM-155 with 8K blocks; 72 Mbit/s on FDDI with 4K blocks
    atm = diagnose(DiagnoseInputs(measured_bytes_per_s=93 * MBIT, line_bytes_per_s=155.52 * MBIT, medium="atm",
                                  timestamps=False))
    assert atm.binding.kind == "framing" and atm.binding.ceiling_bytes_per_s / MBIT == pytest.approx(134.5, abs=0.1)
    fddi = diagnose(DiagnoseInputs(measured_bytes_per_s=72 * MBIT, line_bytes_per_s=100 * MBIT, medium="fddi",
                                   timestamps=False))
    assert fddi.binding.ceiling_bytes_per_s / MBIT == pytest.approx(98.27, abs=0.01)
    assert fddi.verdict == "below-ceiling"


# --- loss, streams, buffers ------------------------------------------------------------------

def test_loss_ceiling_and_streams():
    base = dict(measured_bytes_per_s=50 * MBIT, line_bytes_per_s=1 * GBIT, rtt_s=0.08, loss=1e-5,
                mss_bytes=1460, mathis_c=1.22, loss_model="reno")
    v = diagnose(DiagnoseInputs(**base))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert loss.ceiling_bytes_per_s / MBIT == pytest.approx(56.33, abs=0.01)  # the Mathis fixture
    assert v.binding is loss
    v4 = diagnose(DiagnoseInputs(**base, streams=4))
    assert next(c for c in v4.ceilings if c.kind == "loss").ceiling_bytes_per_s == pytest.approx(
        4 * loss.ceiling_bytes_per_s)


def test_high_loss_switches_to_pftk():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1 * MBIT, line_bytes_per_s=1 * GBIT, rtt_s=0.05, loss=0.05))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert loss.formula.startswith("PFTK")
    assert any("validity" in n for n in v.notes)


def test_rcvbuf_is_turned_into_a_window():
    # --so-rcvbuf 64 KiB (setsockopt): Linux doubles it, advertises half: a 64 KiB window
    v = diagnose(DiagnoseInputs(**Q260, rtt_s=0.002, buffer_bytes=65536, buffer_requested=True))
    assert v.binding.kind == "window"
    assert v.binding.ceiling_bytes_per_s == pytest.approx(65536 / 0.002)
    # a 4 MiB tcp_rmem max at the pre-3.4 default tcp_adv_win_scale = 2: a 3 MiB window
    v = diagnose(DiagnoseInputs(**AARNET_705 | {"window_bytes": None}, buffer_bytes=4 * MIB, adv_win_scale=2))
    assert next(c for c in v.ceilings if c.kind == "window").ceiling_bytes_per_s == pytest.approx(3 * MIB / 0.0445)


def test_sender_rate_limit_binds():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=0.99 * MBIT, protocol="udp", side="receiver",
                                line_bytes_per_s=1 * GBIT, target_bytes_per_s=1 * MBIT))
    assert v.binding.kind == "target" and v.verdict == "at-ceiling"


# --- JSON ------------------------------------------------------------------------------------

def test_verdict_json_keys():
    d = diagnose(DiagnoseInputs(**AARNET_705)).to_dict()
    json.dumps(d, allow_nan=False)
    for key in ("measured_bytes_per_s", "ceilings", "binding", "efficiency", "verdict", "advice", "hypotheses"):
        assert key in d
    for c in d["ceilings"]:
        assert {"name", "kind", "ceiling_bytes_per_s", "formula"} <= set(c)
    assert d["binding"] in d["ceilings"]
    assert d["binding"]["kind"] == "window"
    values = [c["ceiling_bytes_per_s"] for c in d["ceilings"]]
    assert values == sorted(values)


# --- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("change, key, words", [
    ({"rtt_s": -0.002}, "rtt_s", "greater than zero"),
    ({"loss": 0.0}, "loss", "between 0 and 1"),
    ({"loss": 1.0}, "loss", "between 0 and 1"),
    ({"loss": -0.1}, "loss", "between 0 and 1"),
    ({"measured_bytes_per_s": 1.2 * GBIT}, "measured_bytes_per_s", "the figure or the link must be wrong"),
    ({"measured_bytes_per_s": -1.0}, "measured_bytes_per_s", "greater than zero"),
    ({"streams": 0}, "streams", "streams"),
    ({"mtu_bytes": 40}, "mtu_bytes", "headers"),
    ({"window_bytes": 1000, "buffer_bytes": 2000}, "window_bytes", "not both"),
    ({"protocol": "sctp"}, "protocol", "tcp"),
    ({"mmrbc_bytes": 4096}, "mmrbc_bytes", "profile"),
    ({"flow": "nic-rx"}, "flow", "profile"),
])
def test_bad_input_is_an_input_error(change, key, words):
    with pytest.raises(InputError) as exc:
        diagnose(DiagnoseInputs(**(Q260 | {"rtt_s": 0.002} | change)))
    assert exc.value.key == key
    assert words in str(exc.value)


def test_bad_profile_inputs(g5):
    with pytest.raises(InputError, match="flows: nic-rx"):
        diagnose(DiagnoseInputs(**Q260, profile=g5))
    with pytest.raises(InputError, match="no flow 'nope'"):
        diagnose(DiagnoseInputs(**Q260, profile=g5, flow="nope"))
    with pytest.raises(InputError, match="512, 1024, 2048, 4096"):
        diagnose(DiagnoseInputs(**G5_UDP, profile=g5, mmrbc_bytes=3000))


def test_nothing_to_compare_with():
    with pytest.raises(InputError, match="nothing to compare"):
        diagnose(DiagnoseInputs(measured_bytes_per_s=1e6))


def test_pcix_split_read_bound(g5):
    # docs/formulas.md: X <= N x MMRBC / (T_latency + MMRBC / B_peak); 1 us, MMRBC 512: 2.77 Gbit/s per read
    # 2.6 Gbit/s: the UvA G5 report (2004)'s 7.8 was measured at MMRBC 4096 and is above this bound (above-ceiling)
    at_512 = {**G5_UDP, "measured_bytes_per_s": 2.6 * GBIT}
    v = diagnose(DiagnoseInputs(**at_512, profile=g5, mmrbc_bytes=512, outstanding_reads=1, read_latency_s=1e-6))
    split = next(c for c in v.ceilings if "split reads" in c.name)
    share = 1.0  # host-path figures are the bus's own, as `ceilings` prints them
    assert split.ceiling_bytes_per_s * share / GBIT == pytest.approx(512 / (1e-6 + 512 / (133e6 * 8)) / GBIT, rel=1e-9)
    assert split.ceiling_bytes_per_s * share / GBIT == pytest.approx(2.77, abs=0.01)
    assert v.binding is split and split.kind == "pci-x"
    assert sum("MMRBC to 4096" in a for a in v.advice) == 1
    # more outstanding reads or a larger MMRBC lift it
    v4 = diagnose(DiagnoseInputs(**G5_UDP, profile=g5, mmrbc_bytes=4096, outstanding_reads=1, read_latency_s=1e-6))
    split4 = next(c for c in v4.ceilings if "split reads" in c.name)
    assert split4.ceiling_bytes_per_s * share == pytest.approx(4096 / (1e-6 + 4096 / (133e6 * 8)), rel=1e-9)
    assert split4.ceiling_bytes_per_s * share / GBIT == pytest.approx(6.8, abs=0.05)  # docs/formulas.md (133.33 MHz)
    # a receive flow (DMA writes) has no split-read bound
    rx = diagnose(DiagnoseInputs(**(G5_UDP | {"flow": "nic-rx"}), profile=g5, outstanding_reads=1, read_latency_s=1e-6))
    assert not any("split reads" in c.name for c in rx.ceilings)


def _pcie_host(cpb=None, cpp=None, current="3.16 GHz"):
    """A 10 GbE NIC in a PCIe 1.1 x8 slot (AARNet's 10 Gbit/s talk (2008)'s Myricom card), one quad-core CPU."""
    from pinchpoint.inputs.profile import profile_from_document

    cpu = {"kind": "cpu", "clock": "3.16 GHz", "current_clock": current, "cores": 4}
    if cpb is not None:
        cpu["cycles_per_byte"] = cpb
    if cpp is not None:
        cpu["cycles_per_packet"] = cpp
    doc = {
        "schema": 1, "name": "pcie-host",
        "components": {"net": {"kind": "network"}, "nic": {"kind": "nic", "line_rate": "10 Gbit/s"},
                       "mch": {"kind": "controller"}, "mem": {"kind": "memory"}, "cpu": cpu},
        "links": {"eth": {"kind": "ethernet", "between": ["net", "nic"], "rate": "10 Gbit/s"},
                  "slot": {"kind": "pcie", "between": ["nic", "mch"], "generation": 1, "lanes": 8},
                  "ddr": {"kind": "memory", "between": ["mch", "mem"], "width": "64 bit", "clock": "400 MHz",
                          "channels": 2},
                  "fsb": {"kind": "fsb", "between": ["mch", "cpu"], "width": "64 bit", "clock": "333 MHz",
                          "transfers_per_clock": 4}},
        "flows": {"rx": {"source": "net", "sink": "mem"}},
    }
    return profile_from_document(doc)


def test_pcie_ceiling_and_measured_cpu_costs():
    p = _pcie_host(cpb=0.5, cpp=10000)
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=8.9 * GBIT, mtu_bytes=9000, profile=p, flow="rx"))
    slot = next(c for c in v.ceilings if c.kind == "pcie")
    # gen1 x8: 2.5 GT/s x 8 x 8/10 = 16 Gbit/s raw; x 256/(256+24) effective (the NIC's posted writes)
    assert slot.raw_ceiling_bytes_per_s == pytest.approx(16 * GBIT)
    assert slot.ceiling_bytes_per_s == pytest.approx(16 * GBIT * 256 / 280)
    cpu = next(c for c in v.ceilings if c.kind == "cpu")
    assert not cpu.estimate  # the profile carries measured costs: no rule of thumb
    assert cpu.ceiling_bytes_per_s == pytest.approx(3.16e9 / (0.5 + 10000 / 8948))
    assert v.binding.kind == "framing"  # 9.9 Gbit/s at MTU 9000


def test_throttled_cpu_binds_aarnet_2008():
    # AARNet's 10 Gbit/s talk (2008): "Servers reported only running @ 2.0 GHz ... 'cpuspeed' service was saving power"
    p = _pcie_host(cpb=1.0, cpp=10000, current="2.0 GHz")
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=0.9 * 2e9 / (1.0 + 10000 / 8948), mtu_bytes=9000,
                                profile=p, flow="rx"))
    assert v.binding.kind == "cpu" and v.verdict == "at-ceiling"
    assert "2 GHz of its nominal 3.16 GHz" in v.binding.note
    assert any("power saving" in a and "cpupower" in a for a in v.advice)


# --- an earlier review, a figure above a ceiling -------------------------------------

def test_figure_above_the_loss_bound_names_the_wrong_inputs():
    # 500 Mbit/s over 90 ms with p = 4.6e-5 is 3.5x Mathis' bound
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=500e6 / 8, line_bytes_per_s=10 * GBIT, rtt_s=0.090,
                                mtu_bytes=9000, loss=4.6e-5, window_bytes=256 * 2**20, loss_model="reno"))
    assert v.verdict == "above-ceiling" and v.binding.kind == "loss"
    mathis = 8948 / 0.090 * math.sqrt(1.5) / math.sqrt(4.6e-5)  # independently: C = sqrt(3/2)
    assert v.binding.ceiling_bytes_per_s == pytest.approx(mathis, rel=1e-12)
    over = (500e6 / 8) / mathis
    text = " ".join(v.causes)
    # the loss must be at most p / over^2 and the RTT at most 90 ms / over for the figure to fit
    assert f"{4.6e-5 / over ** 2:.2g}" in text and "loss rate must be at most" in text
    assert "RTT at most" in text and not v.advice
    assert "at-ceiling" not in v.verdict and "packet loss" not in v.limited_by


def test_figure_above_the_window_bound_names_the_window():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=100e6 / 8, line_bytes_per_s=GBIT, rtt_s=0.050,
                                mtu_bytes=1500, window_bytes=65536))
    assert v.verdict == "above-ceiling" and v.binding.kind == "window"
    need = 100e6 / 8 * 0.050  # W >= X x RTT
    assert any("window must be at least" in c and f"{need / 1e3:.3g} kB" in c for c in v.causes), v.causes


def test_g5_tcp_figure_refutes_the_cpu_rule_of_thumb(g5):
    # 3.5 Gbit/s on nic-rx was "efficiency 181 %, at-ceiling; limited by the host CPU"
    # although PCI-X sits at 46 %: the
    # rule of thumb is refuted and the hard ceilings judge it
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=3.5 * GBIT, profile=g5, flow="nic-rx"))
    cpu = next(c for c in v.set_aside if c.kind == "cpu")
    assert cpu.estimate and 3.5 * GBIT > 1.05 * cpu.ceiling_bytes_per_s
    assert all(c.kind != "cpu" for c in v.ceilings)  # set aside: out of the table, into a note
    assert v.binding.kind == "pci-x" and v.verdict == "far-below-all"
    assert v.efficiency == pytest.approx(3.5 / 7.566, abs=0.002)
    assert any("refutes" in n and "rule of thumb" in n for n in v.notes)


# --- advice consistent with its inputs --------------------------------------

def test_no_tcp_rmem_advice_when_the_window_is_already_large():
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1e6 / 8, rtt_s=0.040, window_bytes=32 * 2**20))
    assert v.binding.kind == "window"
    assert not any("tcp_rmem" in a for a in v.advice), v.advice


def test_window_advice_says_the_window_covers_the_bdp():
    # a 32 MiB window at 40 ms carries 6.7 Gbit/s: on a 1 Gbit/s line it cannot bind, but with
    # 8 streams of 32 KiB it does, and then raising it is the advice
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=40e6 / 8, line_bytes_per_s=GBIT, rtt_s=0.040,
                                window_bytes=32 * 2**10, streams=8))
    assert v.binding.kind == "window"
    assert any("tcp_rmem max to at least" in a for a in v.advice)


def test_no_jumbo_frames_on_10_mbit_ethernet():
    # IEEE 802.3 at 10 and 100 Mbit/s carries at most 1500 B of payload
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=9.4e6 / 8, line_bytes_per_s=10e6 / 8))
    assert v.binding.kind == "framing" and v.verdict == "at-ceiling"
    assert not any("jumbo" in a for a in v.advice), v.advice
    g = diagnose(DiagnoseInputs(measured_bytes_per_s=940e6 / 8, line_bytes_per_s=GBIT))
    assert any("jumbo" in a for a in g.advice)  # still advised at 1 Gbit/s


def test_one_mathis_constant():
    from pinchpoint.physics import tcp
    from pinchpoint.diagnose import DEFAULT_C

    assert DEFAULT_C == tcp.C_MATHIS == math.sqrt(1.5)
    v = diagnose(DiagnoseInputs(measured_bytes_per_s=1e6, line_bytes_per_s=GBIT, rtt_s=0.08, loss=1e-5,
                                mss_bytes=1460, loss_model="reno"))
    loss = next(c for c in v.ceilings if c.kind == "loss")
    assert loss.ceiling_bytes_per_s == pytest.approx(1460 / 0.08 * math.sqrt(1.5) / math.sqrt(1e-5), rel=1e-12)
