"""The unit policy: network rates in bit/s; memory, bus and host paths in B/s (decimal prefixes);
sizes of caches, working sets, windows and buffers in binary prefixes; flop rates in Gflop/s or
Tflop/s; ``--units bits|bytes`` for every rate.  Inputs take sizes as iperf3 does ("64K")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.cli import RATE_UNITS, main
from pinchpoint.physics import readable, units


@given(st.integers(min_value=1, max_value=1023))
def test_whole_kib_and_mib_print_as_written(n):
    assert units.format_size(n * 1024) == f"{n} KiB"
    assert units.format_size(n * 2**20) == f"{n} MiB"


@given(st.floats(min_value=1024, max_value=2.0**50, allow_nan=False))
def test_a_printed_size_reads_back_within_its_four_figures(x):
    text = units.format_size(x)
    assert units.parse(text, "size") == pytest.approx(x, rel=5e-4)


@pytest.mark.parametrize("value, text", [
    (32 * 1024, "32 KiB"),  # an L1 cache: not "32.77 kB"
    (4096, "4 KiB"),  # MMRBC 4096 B: not "4.096 kB"
    (23373 * 1024, "22.83 MiB"),  # a window of 23373 KiB
    (1500, "1500 B"),  # an MTU is no whole number of KiB: as written
    (87380, "87380 B"),  # Linux's tcp_rmem default
])
def test_sizes_in_binary_prefixes(value, text):
    assert units.format_quantity(value, "size") == text


def test_flop_rates_in_gflops_or_tflops():
    assert units.format_quantity(1.951e10, "flop_rate") == "19.51 Gflop/s"  # not "1.951e+04 Mflop/s"
    assert units.format_quantity(2.8866e8, "flop_rate") == "0.2887 Gflop/s"
    assert units.format_quantity(6.7e13, "flop_rate") == "67 Tflop/s"


def test_rates_follow_the_convention_unless_a_unit_is_chosen():
    assert units.format_rate(1.25e9, "network") == "10 Gbit/s"
    assert units.format_rate(6.4e9, "memory") == "6.4 GB/s"
    with units.rate_units("bytes"):
        assert units.format_rate(1.25e9, "network") == "1.25 GB/s"
        assert readable.rate(6.4e9) == "6.4 GB/s"
    with units.rate_units("bits"):
        assert units.format_rate(6.4e9, "memory") == "51.2 Gbit/s"
    assert readable.rate(1.064e9) == "1.064 GB/s = 8.512 Gbit/s"
    with pytest.raises(ValueError):
        with units.rate_units("nibbles"):
            pass


def test_the_cli_offers_the_formatter_choices():
    assert RATE_UNITS == units.RATE_UNIT_CHOICES


@pytest.mark.parametrize("text, expected", [
    ("64K", 65536.0), ("64k", 65536.0), ("64KB", 65536.0), ("64 KiB", 65536.0), ("64 K", 65536.0),
    ("4M", 4 * 2.0**20), ("1G", 2.0**30),  # iperf3 -w 64K, -l 4M: binary
    ("64 kB", 64000.0), ("4 MB", 4e6),  # SI symbols keep their SI meaning
])
def test_sizes_as_people_type_them(text, expected):
    assert units.parse(text, "size") == expected


@pytest.mark.parametrize("text", ["64Kb", "-5K", "64KK", "K"])
def test_not_sizes(text):
    with pytest.raises(units.UnitError):
        units.parse(text, "size")


def test_explain_prints_memory_in_bytes_and_units_flag(capsys):
    # HBM3 on H100 PCIe: 5120 bit x 2619 MHz x 2 / 8 = 3.352e12 B/s
    assert 5120 * 2619e6 * 2 / 8 == pytest.approx(3.352e12, rel=1e-3)
    assert main(["explain", "h100-pcie-host", "hbm"]) == 0
    out = capsys.readouterr().out
    assert "= 3.352 TB/s" in out and "Tbit/s" not in out
    assert main(["--units", "bits", "explain", "h100-pcie-host", "hbm"]) == 0
    assert "= 26.82 Tbit/s" in capsys.readouterr().out
    # PCIe 5.0 x16: 32 GT/s x 16 x 128/130 / 8 = 63.02 GB/s = 504.1 Gbit/s
    assert main(["ceilings", "h100-pcie-host", "--units", "bits"]) == 0
    assert "504.1 Gbit/s" in capsys.readouterr().out
    assert main(["ceilings", "h100-pcie-host"]) == 0
    assert "63.02 GB/s" in capsys.readouterr().out


def test_diagnose_writes_a_window_with_a_readable_binary_prefix():
    from pinchpoint.diagnose.wording import size

    assert size(23373 * 1024) == "22.8 MiB"  # was "23373 KiB"
    assert size(64 * 1024) == "64 KiB" and size(4 * 2**20) == "4 MiB"  # as people write them
    assert size(100e6) == "100 MB" and size(87380) == "87380 B"  # a decimal size stays as typed
