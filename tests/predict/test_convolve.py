"""The convolution against hand-computed values on a synthetic signature (tests/predict/conftest.py)."""

from __future__ import annotations

import math

import pytest
from synthetic_signature import synthetic_signature

from pinchpoint.prediction.convolve import convolve, log_interp, message_time, overlap_range
from pinchpoint.errors import WorkloadError
from pinchpoint.inputs.signature import load_bundled
from pinchpoint.inputs.workload import loads_workload

GiB, MiB, KiB = 2 ** 30, 2 ** 20, 2 ** 10


def wl(body: str):
    return loads_workload("schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\n" + body, file="w.toml")


def mem(bytes_, ws, op="load", extra=""):
    return f"[[phases.memory]]\nbytes = '{bytes_}'\nworking_set = '{ws}'\nop = '{op}'\n{extra}"


def test_pure_formulas():
    assert log_interp(2.0, [1.0, 4.0], [100.0, 25.0]) == pytest.approx(50.0)
    assert message_time(10, 1000, 1e-6, 1e9) == pytest.approx(10 * (1e-6 + 1e-6))
    assert overlap_range([1.0, 2.0, 0.5]) == (2.0, 3.5)


def test_memory_at_a_measured_point(sig):
    p = convolve(sig, wl(mem("1 GiB", "4 MiB")))
    assert p.seconds("memory") == pytest.approx(GiB / 20e9, rel=1e-12)
    assert p.binding == "memory" and p.low_s == p.high_s


def test_memory_interpolates_in_log_log(sig):
    # 1 MiB is the geometric midpoint of 256 KiB (50 GB/s) and 4 MiB (20 GB/s): sqrt(50 x 20) GB/s
    p = convolve(sig, wl(mem("1 GiB", "1 MiB")))
    assert p.seconds("memory") == pytest.approx(GiB / math.sqrt(50e9 * 20e9), rel=1e-9)


def test_hit_rates(sig):
    # L1 (32 KiB) read at 16 KiB: 2/3 of the way from 4 KiB (200) to 32 KiB (100) in log size;
    # L2 (512 KiB) at 256 KiB: 50 GB/s; memory at the largest working set: 10 GB/s
    p = convolve(sig, wl("[[phases.memory]]\nbytes = '1 GiB'\nhit_rates = {L1 = 0.5, L2 = 0.3, memory = 0.2}\n"))
    l1 = 200e9 * 0.5 ** (2 / 3)
    assert p.seconds("memory") == pytest.approx(GiB * (0.5 / l1 + 0.3 / 50e9 + 0.2 / 10e9), rel=1e-9)


def test_hit_rate_for_a_cache_the_signature_lacks(sig):
    with pytest.raises(WorkloadError, match="L3"):
        convolve(sig, wl("[[phases.memory]]\nbytes = '1 GiB'\nhit_rates = {L3 = 1.0}\n"))


def copy_signature(copy_factor: float, op: str = "copy"):
    """The synthetic signature with MAPS ``op`` at ``copy_factor`` x the load rate."""
    from synthetic_signature import synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    for p in doc["kernels"]["maps"]["points"]:
        if p["op"] == op:
            load = next(q for q in doc["kernels"]["maps"]["points"] if q["op"] == "load"
                        and q["pattern"] == p["pattern"] and q["threads"] == p["threads"]
                        and q["working_set_bytes"] == p["working_set_bytes"])
            p["result"] = {k: (v * copy_factor if k != "unit" and k != "repetitions" else v)
                           for k, v in load["result"].items()}
            p["result"]["repetitions"] = [r * copy_factor for r in load["result"]["repetitions"]]
    return Signature.from_dict(doc)


@pytest.mark.parametrize("copy_factor, hidden", [(1.0, 1.0), (0.8, 0.5), (2 / 3, 0.0)])
def test_stores_overlap_the_loads_as_maps_copy_shows(copy_factor, hidden):
    """Stores to other lines hide behind the loads by the fraction MAPS copy (8 B loaded and
    8 B stored per element) shows beside load and store at the same working set:
    phi = (t_l + t_s - t_c) / min(t_l, t_s).  Loads at L, stores at L / 2, copy at c L:
    t_l = 8/L, t_s = 16/L, t_c = 16/(c L): c = 1 -> phi = 1, c = 0.8 -> 0.5, c = 2/3 -> 0."""
    loads, stores = 2 * GiB / 20e9, GiB / 10e9  # 4 MiB: loads 20 GB/s, stores 10 GB/s
    p = convolve(copy_signature(copy_factor), wl(mem("2 GiB", "4 MiB") + mem("1 GiB", "4 MiB", "store")))
    assert p.seconds("memory") == pytest.approx(loads + stores - hidden * min(loads, stores), rel=1e-9)
    memory = next(r for r in p.phases[0].resources if r.name == "memory")
    assert f"stores {hidden:.0%} hidden behind the loads (MAPS copy" in memory.detail


def test_in_place_stores_overlap_the_loads():
    """In-place stores (to lines just loaded) are priced by MAPS update, whatever copy shows."""
    sig = copy_signature(2 / 3)  # stores to other lines: serial
    loads = mem("2 GiB", "4 MiB")
    # stores at half the load bandwidth (10 GB/s): 1 GiB of stores takes as long as 2 GiB of loads
    serial = convolve(sig, wl(loads + mem("1 GiB", "4 MiB", "store")))
    overlapped = convolve(sig, wl(loads + mem("1 GiB", "4 MiB", "store", "in_place = true\n")))
    assert serial.seconds("memory") == pytest.approx(2 * GiB / 20e9 + GiB / 10e9)
    assert overlapped.seconds("memory") == pytest.approx(2 * GiB / 20e9)


@pytest.mark.parametrize("update_factor", [4 / 3, 10.0])
def test_in_place_stores_can_cost_less_than_a_store_stream(update_factor):
    """An in-place store finds its line in the cache: no read for ownership, only the
    write-back, so MAPS update (load and store in place) can run faster than its store part
    alone.  Equal bytes of loads and in-place stores are then priced at the update's time,
    but never below the loads' own time.  Loads at L = 20 GB/s, stores at 10 GB/s, update at
    u L: t_l = 8/L, t_s = 16/L, t_u = 16/(u L); u = 4/3 gives phi = 1.5 and T = N t_u, u = 10
    would hide more than the stores take: T = the loads' time."""
    sig = copy_signature(update_factor, op="update")
    p = convolve(sig, wl(mem("1 GiB", "4 MiB") + mem("1 GiB", "4 MiB", "store", "in_place = true\n")))
    loads = GiB / 20e9
    paired = GiB / 8 * 16 / (update_factor * 20e9)  # N elements x t_u
    assert p.seconds("memory") == pytest.approx(max(paired, loads), rel=1e-9)


def test_stores_without_copy_points_are_priced_after_the_loads():
    """Quick mode sweeps only load and store on several threads: no copy there, so the stores
    are priced serially (plain PMaC), and a note says why."""
    from synthetic_signature import synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    for threads in (2, 4):
        for ws, bw in ((4 * KiB, 400e9 * threads / 2), (64 * MiB, 5e9 * threads)):
            doc["kernels"]["maps"]["points"].append(
                {"op": "store", "pattern": "stride1", "threads": threads, "working_set_bytes": ws,
                 "result": {"unit": "B/s", "min": bw, "median": bw, "max": bw, "repetitions": [bw]}})
    body = "threads = 4\n" + mem("2 GiB", "64 MiB") + mem("1 GiB", "64 MiB", "store")
    p = convolve(Signature.from_dict(doc), wl(body))
    assert p.seconds("memory") == pytest.approx(2 * GiB / 25e9 + GiB / 20e9, rel=1e-9)
    assert any("no MAPS copy sweep on 4 thread(s)" in n for n in p.notes)


def test_flops_peak_rates(sig):
    p = convolve(sig, wl("[phases.flops]\ndivision = 1e9\n"))
    assert p.seconds("fp") == pytest.approx(1.0)  # best division rate 1 Gflop/s
    p = convolve(sig, wl("[phases.flops]\nfma = 1e10\nadd_multiply = 5e9\nloop_length = 1024\n"))
    assert p.seconds("fp") == pytest.approx(1.5)  # poly5 at 1024: 10 Gflop/s


def test_chained_adds_are_latency_bound(sig):
    # 1e10 adds, poly5's best 10 Gflop/s: 1 s of throughput; in 4 chains of 2.5e9 adds at
    # 1 ns each (add_chain 1 Gflop/s): 2.5 s
    p = convolve(sig, wl("[phases.flops]\nadd_multiply = 1e10\nchained_adds = 1e10\nchains = 4\n"))
    assert p.seconds("fp") == pytest.approx(2.5)
    fp = next(r for r in p.phases[0].resources if r.name == "fp")
    assert "latency-bound" in fp.detail and "4 chains" in fp.detail
    # 40 chains: 0.25 s of latency, so the throughput (1 s) binds
    p = convolve(sig, wl("[phases.flops]\nadd_multiply = 1e10\nchained_adds = 1e10\nchains = 40\n"))
    assert p.seconds("fp") == pytest.approx(1.0)
    # FMA: 2e9 flop = 1e9 FMAs in 2 chains, 2 ns per FMA: 1 s; plus 1e9 chained adds / 2: 0.5 s
    p = convolve(sig, wl("[phases.flops]\nfma = 2e9\nchained_fma = 2e9\nadd_multiply = 1e9\n"
                         "chained_adds = 1e9\nchains = 2\n"))
    assert p.seconds("fp") == pytest.approx(1.5)


def test_bundled_one_accumulator_sum_is_latency_bound(sig):
    from pinchpoint.inputs.workload import load_workload
    p = convolve(sig, load_workload("sum-one-accumulator"))
    # 2048 dependent adds at 1 ns (synthetic add_chain) vs 16 KiB of loads at 4 KiB-32 KiB rates
    assert p.seconds("fp") == pytest.approx(2048e-9)
    assert p.binding == "fp" and p.seconds("memory") < 2048e-9 / 10


def test_chained_flops_without_the_chain_loops_are_noted():
    # the published POWER4 PEAK tables have no chain loops: throughput only, and a note says so
    sig = load_bundled("p690")
    chained = convolve(sig, wl("[phases.flops]\nadd_multiply = 8e9\nchained_adds = 8e9\nchains = 2\n"))
    plain = convolve(sig, wl("[phases.flops]\nadd_multiply = 8e9\n"))
    assert chained.seconds("fp") == plain.seconds("fp") > 0
    assert any("phases[0].flops.chained_adds" in n and "no PEAK add_chain" in n for n in chained.notes)
    assert not plain.notes


def test_a_zero_chain_rate_is_a_signature_error():
    from synthetic_signature import synthetic_doc
    from pinchpoint.errors import SignatureError
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    for p in doc["kernels"]["peak"]["points"]:
        if p["op"] == "add_chain":
            p["result"] = {"unit": "flop/s", "min": 0.0, "median": 0.0, "max": 0.0, "repetitions": [0.0]}
    # refused where the signature is read, naming the point: a run that did nothing failed
    with pytest.raises(SignatureError, match=r"kernels\.peak\.points\[\d+\]\.result\.max: a rate of 0.0 flop/s"):
        Signature.from_dict(doc)


def test_chained_flops_built_in_code_need_chains():
    from pinchpoint.inputs.workload import Flops
    with pytest.raises(WorkloadError, match="chains >= 1"):
        Flops(add_multiply=8, chained_adds=8)


def test_range_shares_and_binding(sig):
    p = convolve(sig, wl(mem("20 GB", "4 MiB") + "[phases.flops]\ndivision = 2e9\n"))
    assert p.low_s == pytest.approx(2.0) and p.high_s == pytest.approx(3.0)
    assert p.binding == "fp"
    shares = {r.name: r.share for r in p.resources}
    assert shares["memory"] == pytest.approx(1 / 3) and shares["fp"] == pytest.approx(2 / 3)
    d = p.to_dict()
    assert d["predicted_s"] == {"estimate": p.low_s, "low": p.low_s, "high": p.high_s}
    assert {"name", "seconds", "share"} <= set(d["resources"][0]) and d["binding"] == "fp"


def test_phases_add_up(sig):
    w = loads_workload("schema = 1\n[[phases]]\n" + mem("20 GB", "4 MiB") +
                       "[[phases]]\nrepeat = 3\n[phases.flops]\ndivision = 1e9\n")
    p = convolve(sig, w)
    assert p.low_s == pytest.approx(1.0 + 3.0) and p.high_s == pytest.approx(4.0)
    assert [ph.binding for ph in p.phases] == ["memory", "fp"]


def test_ping_pong_interpolates_measured_sizes(sig):
    p = convolve(sig, wl("[[phases.messages]]\ncount = 1000\nsize = '64 B'\n"))
    one = 1e-5 + (64 - 1) / (1024 - 1) * 2e-6
    assert p.seconds("communication") == pytest.approx(1000 * one)


def test_exchange_latency_plus_size_over_bandwidth(sig):
    p = convolve(sig, wl("[[phases.messages]]\ncount = 1000\nsize = '4 kB'\npattern = 'exchange'\n"))
    assert p.seconds("communication") == pytest.approx(1000 * (3e-6 + 4000 / 4e8))


def test_io_nearest_buffer(sig):
    p = convolve(sig, wl("[[phases.io]]\nbytes = '1 GB'\nbuffer = '256 KiB'\n"))
    assert p.seconds("io") == pytest.approx(1.0)
    p = convolve(sig, wl("[[phases.io]]\nbytes = '1 GB'\n"))  # default: the smallest buffer
    assert p.seconds("io") == pytest.approx(10.0)


def test_network_loopback_and_profile_flow(sig):
    from pinchpoint.inputs.profile_io import load_profile

    p = convolve(sig, wl("[[phases.network]]\nbytes = '2 GB'\n"))
    assert p.seconds("network") == pytest.approx(1.0)  # netstream 2 GB/s
    g5 = load_profile("powermac-g5")
    p = convolve(sig, wl("[[phases.network]]\nbytes = '1 GB'\nflow = 'tcp-rx-copy'\nmemory_passes = 2\n"),
                 profile=g5)
    # the UVA Power Mac G5 report (2004): PCI-X 133 MHz x 64 bit binds, 945.8 MB/s after burst overhead (512 B MMRBC)
    assert p.seconds("network") == pytest.approx(1e9 / 945.7777e6, rel=1e-5)
    assert p.seconds("memory") == pytest.approx(2e9 / 10e9)  # copy at the DRAM plateau
    assert p.binding == "network"


def test_best_statistic(sig):
    fast = synthetic_signature(spread=2.0)
    w = wl(mem("1 GiB", "4 MiB"))
    assert convolve(fast, w, stat="best").low_s == pytest.approx(convolve(fast, w).low_s / 2)
    with pytest.raises(WorkloadError, match="unknown statistic"):
        convolve(fast, w, stat="mean")


# ---- bad input: a clear error each -------------------------------------------------------------

def test_kernel_the_signature_lacks():
    w = wl("[[phases.memory]]\nops = 1000\nworking_set = '1 MiB'\npattern = 'random'\n")
    with pytest.raises(WorkloadError) as exc:
        convolve(load_bundled("p690"), w)
    assert "needs the 'maps' kernel" in exc.value.message and "'p690'" in exc.value.message
    assert exc.value.key == "phases[0].memory[0]" and exc.value.file == "w.toml"
    with pytest.raises(WorkloadError, match="needs the 'ping' kernel"):
        convolve(load_bundled("powermac-g5-xbench"), wl("[[phases.messages]]\ncount = 1\nsize = '8 B'\n"))
    with pytest.raises(WorkloadError, match="needs the 'peak' kernel"):
        convolve(load_bundled("powermac-g5-xbench"), wl("[phases.flops]\nfma = 1\n"))


@pytest.mark.parametrize("ws", ["1 KiB", "1 GiB"])
def test_working_set_outside_the_measured_range_is_refused(sig, ws):
    with pytest.raises(WorkloadError) as exc:
        convolve(sig, wl(mem("1 GiB", ws)))
    assert "outside the measured range" in exc.value.message and "--extrapolate" in exc.value.message
    assert exc.value.key == "phases[0].memory[0]"


def test_extrapolation_is_flagged(sig):
    p = convolve(sig, wl(mem("1 GiB", "1 GiB")), extrapolate=True)
    assert p.extrapolated and "outside the measured range" in p.extrapolations[0]
    assert p.seconds("memory") == pytest.approx(GiB / 10e9)  # the DRAM plateau
    assert p.to_dict()["extrapolated"] is True
    assert not convolve(sig, wl(mem("1 GiB", "4 MiB"))).extrapolated


def test_flow_needs_a_profile(sig):
    with pytest.raises(WorkloadError, match="needs a machine profile"):
        convolve(sig, wl("[[phases.network]]\nbytes = '1 GB'\nflow = 'nic-rx'\n"))


def test_zero_work_needs_no_kernel():
    p = convolve(load_bundled("powermac-g5-xbench"), wl("[phases.flops]\nfma = 0\n"))
    assert p.low_s == 0 and p.binding is None


def test_real_quick_measurement(tmp_path):
    """A tiny real MAPS run through the kernel runner: at a measured working set the prediction is
    exactly bytes / measured bandwidth."""
    from pinchpoint.errors import CompileError
    from pinchpoint.measure.runner import compile_kernel, find_compiler, run_kernel, source_sha256
    from pinchpoint.measure.session import point_from_record
    from pinchpoint.inputs.signature import KernelRun, Signature

    try:
        binary = compile_kernel("maps", find_compiler())
    except CompileError as exc:
        pytest.skip(f"no C compiler: {exc}")
    out = run_kernel(binary, ["--ops", "load", "--sizes", "16K,64K", "--reps", "3", "--min-time", "0.001"],
                     kernel="maps", timeout=60)
    points = tuple(point_from_record(r) for r in out.points)
    s = Signature({"name": "tiny", "cpu_model": "this host"}, {}, "now",
                  {"maps": KernelRun(source_sha256("maps"), points)})
    bw = s.value("maps", op="load", pattern="stride1", working_set_bytes=16384)
    p = convolve(s, wl(mem("1 GiB", "16 KiB")))
    assert p.seconds("memory") == pytest.approx(GiB / bw, rel=1e-12)


def test_memory_passes_from_stream_copy_without_maps():
    # the UVA Power Mac G5 report (2004): the G5's Xbench/STREAM signature has no MAPS; STREAM copy (1871.83 MB/s at the
    # 'maximum' power setting, appendix 1) prices the TCP receive copy (2 passes of 1 GB)
    from pinchpoint.inputs.profile_io import load_profile
    from pinchpoint.inputs.workload import load_workload

    sig = load_bundled("powermac-g5-xbench")
    copy = max(p.result.median for p in sig.points("stream", op="copy"))
    p = convolve(sig, load_workload("tcp-receive-one-copy"), profile=load_profile("powermac-g5"))
    assert p.seconds("memory") == pytest.approx(2e9 / copy)
    assert p.binding == "memory"  # the copy, not the PCI-X bus, binds


# ---- independent random access, threads, the headline estimate ---------------------

def test_gather_is_priced_by_the_independent_random_curve(sig):
    """A gather's loads are independent: priced by MAPS gather (1 GB/s at 64 MiB), not by the
    dependent chain (MAPS random, 20 MB/s there), which would predict it 50x too slow.  MAPS
    gather's 64 MiB hold its index array and its target in equal parts: a gather over a
    32 MiB x is read at that point; a chase over 64 MiB at MAPS random's 64 MiB."""
    body = "[[phases.memory]]\nbytes = '1 GiB'\nworking_set = '{}'\npattern = '{}'\n"
    gather = convolve(sig, wl(body.format("32 MiB", "gather")))
    chase = convolve(sig, wl(body.format("64 MiB", "random")))
    assert gather.seconds("memory") == pytest.approx(GiB / 1e9, rel=1e-12)
    assert chase.seconds("memory") == pytest.approx(GiB / 2e7, rel=1e-12)
    with pytest.raises(WorkloadError, match="working set"):  # x beyond MAPS gather's 32 MiB
        convolve(sig, wl(body.format("64 MiB", "gather")))


def test_gather_needs_gather_points():
    """A signature measured before MAPS had the gather pattern says what is missing."""
    from synthetic_signature import synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    doc["kernels"]["maps"]["points"] = [p for p in doc["kernels"]["maps"]["points"]
                                        if p["pattern"] != "gather"]
    with pytest.raises(WorkloadError, match="needs MAPS load gather points"):
        convolve(Signature.from_dict(doc),
                 wl("[[phases.memory]]\nbytes = '1 MiB'\nworking_set = '1 MiB'\npattern = 'gather'\n"))


def phase_threads(n, body):
    return loads_workload(f"schema = 1\nname = 'w'\n[[phases]]\nname = 'p'\nthreads = {n}\n" + body,
                          file="w.toml")


def test_threads_read_the_maps_points_at_that_thread_count(sig):
    # 4 threads at the DRAM plateau: 25 GB/s aggregate (one thread: 10 GB/s)
    p = convolve(sig, phase_threads(4, mem("1 GiB", "64 MiB")))
    assert p.seconds("memory") == pytest.approx(GiB / 25e9, rel=1e-12)
    # 1 thread 10 GB/s, 2 threads 18, 4 threads 25: 90 % of 25 is first reached at 4
    assert any("10 GB/s on 1 thread(s), 25 GB/s at best; memory saturates (90 %) at 4 threads"
               in n for n in p.notes)
    one = convolve(sig, phase_threads(1, mem("1 GiB", "64 MiB")))
    assert one.seconds("memory") == pytest.approx(GiB / 10e9, rel=1e-12)


def test_threads_between_measured_counts_interpolate(sig):
    # 3 threads: halfway between 2 (18 GB/s) and 4 (25 GB/s) threads
    p = convolve(sig, phase_threads(3, mem("1 GiB", "64 MiB")))
    assert p.seconds("memory") == pytest.approx(GiB / 21.5e9, rel=1e-12)
    assert any("interpolated between MAPS at 2 and 4 threads" in n for n in p.notes)


def test_threads_beyond_the_measured_counts(sig):
    with pytest.raises(WorkloadError, match="thread count 8 is outside the measured range"):
        convolve(sig, phase_threads(8, mem("1 GiB", "64 MiB")))
    p = convolve(sig, phase_threads(8, mem("1 GiB", "64 MiB")), extrapolate=True)
    assert p.seconds("memory") == pytest.approx(GiB / 25e9, rel=1e-12)
    assert p.extrapolations and "thread count" in p.extrapolations[0]


def test_threads_multiply_the_flop_rate(sig):
    flops = "[phases.flops]\nadd_multiply = 1e10\nloop_length = 1024\n"
    one = convolve(sig, phase_threads(1, flops)).seconds("fp")
    four = convolve(sig, phase_threads(4, flops)).seconds("fp")
    assert one == pytest.approx(1e10 / 1e10) and four == pytest.approx(one / 4)


@pytest.mark.parametrize("bad", ["0", "1.5", "2000", "'two'"])
def test_bad_thread_counts(bad):
    with pytest.raises(WorkloadError) as exc:
        phase_threads(bad, mem("1 MiB", "1 MiB"))
    assert exc.value.key == "phases[0].threads"


def test_headline_estimate_lies_in_the_range_and_is_in_json(sig):
    p = convolve(sig, wl(mem("1 GiB", "4 MiB") + "[phases.flops]\nadd_multiply = 1e10\n"))
    assert p.low_s < p.high_s and p.estimate_s == p.low_s
    d = p.to_dict()
    assert d["predicted_s"]["estimate"] == p.estimate_s and "overlapped" in d["estimate_rule"]


def _with_update(factor_of_serial_time: float):
    """The synthetic signature with MAPS update set so that one element's update takes
    t_l + t_s - f x min(t_l, t_s), i.e. an in-place overlap phi = f."""
    from synthetic_signature import LOAD, synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    for p in doc["kernels"]["maps"]["points"]:
        if p["op"] == "update":
            load = LOAD[p["working_set_bytes"]]
            t_l, t_s = 8 / load, 8 / (load / 2)
            bw = 16 / (t_l + t_s - factor_of_serial_time * min(t_l, t_s))
            p["result"] = {"unit": "B/s", "min": bw, "median": bw, "max": bw, "repetitions": [bw]}
    return Signature.from_dict(doc)


@pytest.mark.parametrize("phi", [0.0, 0.5, 1.0])
def test_in_place_overlap_is_read_from_maps_update(phi):
    """Issue 13: whether in-place stores hide behind the loads is measured (MAPS update vs load
    and store), not assumed: T = loads + stores - phi x min(loads, stores)."""
    sig = _with_update(phi)
    body = mem("2 GiB", "4 MiB") + mem("2 GiB", "4 MiB", "store", "in_place = true\n")
    loads, stores = 2 * GiB / 20e9, 2 * GiB / 10e9
    p = convolve(sig, wl(body))
    assert p.seconds("memory") == pytest.approx(loads + stores - phi * min(loads, stores), rel=1e-9)


def test_in_place_overlap_without_an_update_sweep_is_assumed_and_said():
    from synthetic_signature import synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    doc["kernels"]["maps"]["points"] = [p for p in doc["kernels"]["maps"]["points"]
                                        if p["op"] != "update"]
    p = convolve(Signature.from_dict(doc),
                 wl(mem("2 GiB", "4 MiB") + mem("1 GiB", "4 MiB", "store", "in_place = true\n")))
    assert p.seconds("memory") == pytest.approx(2 * GiB / 20e9)
    assert any("no MAPS update" in n for n in p.notes)


def test_in_place_overlap_formula():
    from pinchpoint.prediction.convolve import in_place_overlap
    assert in_place_overlap(2.0, 1.0, 2.0) == 1.0       # update takes the store's time
    assert in_place_overlap(3.0, 1.0, 2.0) == 0.0       # load + store
    assert in_place_overlap(2.5, 1.0, 2.0) == 0.5
    assert in_place_overlap(1.5, 1.0, 2.0) == 1.0       # noise below the longer: clipped
    assert in_place_overlap(3.5, 1.0, 2.0) == 0.0


def test_mpi_ping_points_price_mpi_messages():
    """`measure` files the MPI ping-pong under kernel ping_mpi (transport "mpi"); a workload
    that asks for MPI messages is priced from those points, not refused."""
    from synthetic_signature import result, synthetic_doc
    from pinchpoint.inputs.signature import Signature
    doc = synthetic_doc()
    doc["kernels"]["ping_mpi"] = {"source_sha256": None, "points": [
        {"transport": "mpi", "metric": "latency", "message_bytes": 8, "result": result("s", 4e-7)},
        {"transport": "mpi", "metric": "latency", "message_bytes": 1 << 20,
         "result": result("s", 1e-4)}]}
    w = wl("[[phases.messages]]\ncount = 10\nsize = '8 B'\nmatch = { transport = 'mpi' }\n")
    assert convolve(Signature.from_dict(doc), w).seconds("communication") == pytest.approx(4e-6)
    with pytest.raises(WorkloadError, match="no ping points match"):
        convolve(synthetic_signature(), w)


def test_short_chains_overlap_out_of_order(sig):
    """Issue 13: matvec with one accumulator per row is a chain per row; consecutive rows'
    chains overlap out of order, which PEAK add_chains measures (synthetic: 4 Gflop/s for
    chains of 8 adds, 1 Gflop/s, one latency per add, for chains of 1024)."""
    body = "[phases.flops]\nadd_multiply = 1e9\nchained_adds = 1e9\nchains = 1\n"
    long_chain = convolve(sig, wl(body)).seconds("fp")
    assert long_chain == pytest.approx(1.0)  # add_chain: 1 ns per add
    short = convolve(sig, wl(body + "chain_length = 8\n")).seconds("fp")
    assert short == pytest.approx(0.25)
    # 90 adds: between 8 and 1024 in log length
    mid = convolve(sig, wl(body + "chain_length = 90\n")).seconds("fp")
    rate = 4e9 * (1e9 / 4e9) ** (math.log(90 / 8) / math.log(1024 / 8))
    assert mid == pytest.approx(1e9 / rate)
    # beyond the longest measured chain: one long chain
    assert convolve(sig, wl(body + "chain_length = 5000\n")).seconds("fp") == pytest.approx(1.0)


@pytest.mark.parametrize("extra, key", [("chain_length = 0\n", "chain_length"),
                                        ("chain_length = 2.5\n", "chain_length"),
                                        ("chain_length = 11\n", "chain_length")])
def test_bad_chain_length(extra, key):
    with pytest.raises(WorkloadError) as exc:
        wl("[phases.flops]\nadd_multiply = 10\nchained_adds = 10\nchains = 1\n" + extra)
    assert exc.value.key == f"phases[0].flops.{key}"
    with pytest.raises(WorkloadError, match="needs chained_adds"):
        wl("[phases.flops]\nadd_multiply = 10\nchain_length = 4\n")
