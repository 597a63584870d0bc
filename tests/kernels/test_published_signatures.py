"""The bundled published signatures load like measured ones and hold the published numbers.

Fixtures are typed again from the published documents (not generated from the JSON files), each
with the document and table in a comment; transcription must be exact (relative 1e-9).
"""

from __future__ import annotations

import pytest

from pinchpoint.errors import SignatureError
from pinchpoint.inputs.signature import (bundled_dir, bundled_signatures, find_bundled, load_bundled,
                                  load_signature)

MB = 1e6
US = 1e-6
MIB = 2 ** 20
GIB = 2 ** 30
EXACT = 1e-9

# Chen and Ebbers, IBM Redpaper, Table 5 (PEAK, MFLOPS): (machine, op, loop length) -> value
PEAK_TABLE5 = {
    ("p690", "division", 1024): 68.04,
    ("p690", "daxpy", 4194304): 288.60,
    ("p690", "dot", 524288): 559.24,
    ("p690", "poly5", 1024): 2718.58,
    ("p650", "daxpy", 1024): 1638.40,
    ("p650", "poly5", 4194304): 1747.63,
    ("p655-1.3", "dot", 65536): 907.42,
    ("p655-1.1", "division", 4194304): 52.87,
    ("p655-1.1", "poly5", 1046576): 1427.15,  # loop length as printed in Table 5
}

# Chen and Ebbers, Table 3 (MAPS-PING): (machine, placement) -> (MB/s per CPU, latency us)
PING_TABLE3 = {
    ("p690", "on_node_close"): (1513.19, 4.42),
    ("p650", "on_node"): (1654.11, 4.60),
    ("p655-1.1", "off_node"): (412.36, 19.9),
    ("p655-1.3", "on_node_close"): (1633.00, 4.18),
}

# Chen and Ebbers, Table 2 (MAPS-CG): (machine, nodes, cpus/node) -> (MB/s per CPU, latency us)
MAPS_CG_TABLE2 = {
    ("p690", 1, 32): (211.92, 9.8),
    ("p655-1.1", 2, 8): (407.94, 10.0),
    ("p655-1.3", 4, 4): (638.23, 8.6),
}

# Chen and Ebbers, Table 4 (EFF-BW): (machine, PEs) -> (EFF-BW MB/s, per PE MB/s, lat simple, lat cross)
EFFBW_TABLE4 = {
    ("p690", 32): (5726.83, 178.96, 5.00, 5.11),
    ("p655-1.3", 4): (1651.62, 412.91, 2.39, 2.61),
    ("p650", 8): (1560.90, 195.11, 4.46, 4.71),
}

# Chen and Ebbers, Table 6 (IO-BENCH, MB/s max, min, avg; 10 MB file, 4 KB buffer)
IO_TABLE6 = {
    ("p690", "seq_write"): (166.67, 142.86, 154.76),
    ("p650", "backward_write"): (333.33, 250.00, 292.65),
    ("p655-1.1", "seq_read"): (1000.00, 500.00, 750.00),
    ("p655-1.3", "backward_read"): (83.33, 76.92, 80.13),
}

# Visser and Hilster, "G5 Performance Report" (UvA 2004), Appendix 1 (Xbench 1.1.3, MB/sec), "Maximum performance"
XBENCH_MAX = {("xbench_memory", "fill"): 2721.69, ("xbench_memory", "copy"): 1396.39,
              ("stream", "copy"): 1785.12, ("stream", "scale"): 1795.03,
              ("stream", "add"): 2054.27, ("stream", "triad"): 2095.43}
# same appendix, "PowerSaving settings: Automatic"
XBENCH_AUTO = {("xbench_memory", "fill"): 2090.14, ("stream", "triad"): 2134.10}


def test_every_bundled_file_loads():
    files = sorted(bundled_dir().glob("*.json"))
    assert len(files) == 6
    for f in files:
        sig = load_signature(f)
        assert sig.schema == 1
        assert "Chen and M. Ebbers" in sig.host["source"] or "Visser and D. Hilster" in sig.host["source"]
        assert all(run.source_sha256 is None for run in sig.kernels.values())


@pytest.mark.parametrize("name", ["p690", "p650", "p655-1.1", "p655-1.3", "powermac-g5-xbench",
                                  "powermac-g5-linux-memory"])
def test_find_by_short_name(name):
    assert name in bundled_signatures()
    assert load_bundled(name).name == name
    assert find_bundled(find_bundled(name).stem) == find_bundled(name)


def test_unknown_short_name():
    with pytest.raises(SignatureError, match="no bundled signature named 'p999'"):
        find_bundled("p999")


@pytest.mark.parametrize("key,mflops", PEAK_TABLE5.items())
def test_peak_table5(key, mflops):
    machine, op, length = key
    v = load_bundled(machine).value("peak", op=op, loop_length=length)
    assert v == pytest.approx(mflops * 1e6, rel=EXACT)


def test_p690_poly5_typo_corrected_and_noted():
    # Table 5 prints "170389" for p690, poly5, 262144: a dropped decimal point.
    sig = load_bundled("p690")
    assert sig.value("peak", op="poly5", loop_length=262144) == pytest.approx(1703.89e6, rel=EXACT)
    assert any("170389" in note for note in sig.host["notes"])


def test_peak_memory_consistency_formulas_section7():
    # Chen and Ebbers, IBM Redpaper, Table 5: p690 long-loop DAXPY 289 MFLOPS moves 24 B per 2 flops
    # (about 3.5 GB/s); DOT 559 MFLOPS 16 B per 2 flops (about 4.5 GB/s).
    sig = load_bundled("p690")
    daxpy = sig.value("peak", op="daxpy", loop_length=4194304) * 24 / 2
    dot = sig.value("peak", op="dot", loop_length=524288) * 16 / 2
    assert daxpy == pytest.approx(3.5e9, rel=0.02)
    assert dot == pytest.approx(4.5e9, rel=0.02)


@pytest.mark.parametrize("key,vals", PING_TABLE3.items())
def test_ping_table3(key, vals):
    machine, placement = key
    sig = load_bundled(machine)
    assert sig.value("ping", placement=placement, metric="bandwidth") == \
        pytest.approx(vals[0] * MB, rel=EXACT)
    assert sig.value("ping", placement=placement, metric="latency") == \
        pytest.approx(vals[1] * US, rel=EXACT)


@pytest.mark.parametrize("key,vals", MAPS_CG_TABLE2.items())
def test_maps_cg_table2(key, vals):
    machine, nodes, cpn = key
    sig = load_bundled(machine)
    assert sig.value("maps_cg", nodes=nodes, cpus_per_node=cpn, metric="bandwidth_per_cpu") == \
        pytest.approx(vals[0] * MB, rel=EXACT)
    assert sig.value("maps_cg", nodes=nodes, cpus_per_node=cpn, metric="latency") == \
        pytest.approx(vals[1] * US, rel=EXACT)


@pytest.mark.parametrize("key,vals", EFFBW_TABLE4.items())
def test_effbw_table4(key, vals):
    machine, pes = key
    sig = load_bundled(machine)
    total, per, simple, cross = vals
    assert sig.value("effbw", processes=pes, metric="bandwidth") == pytest.approx(total * MB, rel=EXACT)
    assert sig.value("effbw", processes=pes, metric="bandwidth_per_process") == \
        pytest.approx(per * MB, rel=EXACT)
    assert sig.value("effbw", processes=pes, metric="latency", mapping="simple") == \
        pytest.approx(simple * US, rel=EXACT)
    assert sig.value("effbw", processes=pes, metric="latency", mapping="cross") == \
        pytest.approx(cross * US, rel=EXACT)
    # the table's own arithmetic: EFF-BW / PEs = EFF-BW per PE (to the printed precision)
    assert total / pes == pytest.approx(per, abs=0.01)


@pytest.mark.parametrize("key,vals", IO_TABLE6.items())
def test_iobench_table6(key, vals):
    machine, test = key
    mx, mn, avg = vals
    (p,) = load_bundled(machine).points("iobench", test=test)
    assert p["file_bytes"] == 10 * MIB and p["buffer_bytes"] == 4096
    assert p.result.max == pytest.approx(mx * MB, rel=EXACT)
    assert p.result.min == pytest.approx(mn * MB, rel=EXACT)
    reps = p.result.repetitions
    assert sum(reps) / len(reps) == pytest.approx(avg * MB, rel=1e-4)


@pytest.mark.parametrize("table,setting", [(XBENCH_MAX, "maximum"), (XBENCH_AUTO, "automatic")])
def test_g5_xbench_appendix1(table, setting):
    sig = load_bundled("powermac-g5-xbench")
    for (kernel, op), mb in table.items():
        assert sig.value(kernel, op=op, power_setting=setting) == pytest.approx(mb * MIB, rel=EXACT)


def test_g5_xbench_matches_report_text():
    # Visser and Hilster, section 4.1: "maximum memory fill rate of 2.7 GibiByte/s and a maximum memory
    # copy rate of 1.4 GibiByte/s. All memory stream tests ... scored around 2 GibiByte/s."
    sig = load_bundled("powermac-g5-xbench")
    assert sig.value("xbench_memory", op="fill", power_setting="maximum") / GIB == \
        pytest.approx(2.7, abs=0.05)
    assert sig.value("xbench_memory", op="copy", power_setting="maximum") / GIB == \
        pytest.approx(1.4, abs=0.05)
    for p in sig.points("stream"):
        # "around 2": the lowest (automatic setting, copy) is 1713.80 MB/sec = 1.67 GiB/s
        assert p.result.median / GIB == pytest.approx(2.0, rel=0.2)


def test_g5_linux_plateaus_section_4_2():
    # Visser and Hilster, section 4.2.1 (Memperf: around 20 GiB/s in cache, around 2 GiB/s from memory,
    # single-operation drop after 256 KiB) and 4.2.2 (CacheBench memcpy 14, memset 7.5 GiB/s
    # below 256 KB)
    sig = load_bundled("powermac-g5-linux-memory")
    assert sig.value("memperf", level="cache") == 20 * GIB
    assert sig.value("memperf", level="memory") == 2 * GIB
    assert sig.points("memperf", level="cache")[0]["working_set_max_bytes"] == 256 * 1024
    assert sig.value("cachebench", op="memcpy") == 14 * GIB
    assert sig.value("cachebench", op="memset") == 7.5 * GIB
