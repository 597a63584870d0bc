"""The compile cache, the plans and host probing (a fake sysfs tree, no hardware needed)."""

from __future__ import annotations

import os

import pytest

from pinchpoint.errors import InputError
from pinchpoint.measure.hostinfo import (caches, clocks, data_cache_sizes, last_level_cache_bytes,
                                 parse_cache_size)
from pinchpoint.measure.runner import (KERNELS, compile_kernel, find_compiler, source_bundle,
                                      source_sha256)
from pinchpoint.measure.session import make_plan, maps_sizes

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


def fake_sysfs(root, entries):
    for i, (level, kind, size, line) in enumerate(entries):
        d = root / "cpu0" / "cache" / f"index{i}"
        d.mkdir(parents=True)
        for name, value in (("level", level), ("type", kind), ("size", size),
                            ("coherency_line_size", line), ("shared_cpu_list", "0-1")):
            (d / name).write_text(f"{value}\n")
    freq = root / "cpu0" / "cpufreq"
    freq.mkdir(parents=True)
    (freq / "cpuinfo_max_freq").write_text("3700000\n")
    return root


def test_caches_from_fake_sysfs(tmp_path):
    root = fake_sysfs(tmp_path, [(1, "Data", "32K", 64), (1, "Instruction", "32K", 64),
                                 (2, "Unified", "1024K", 64), (3, "Unified", "32768K", 64)])
    found = caches(root)
    assert data_cache_sizes(found) == {1: 32 * KiB, 2: MiB, 3: 32 * MiB}
    assert last_level_cache_bytes(found) == 32 * MiB
    assert all(c["line_bytes"] == 64 for c in found)
    assert clocks(root, tmp_path)["max_hz"] == 3_700_000_000


def test_physical_cores_from_topology(tmp_path):
    from pinchpoint.measure.hostinfo import physical_cores

    for cpu, (pkg, core) in enumerate([(0, 0), (0, 0), (0, 1), (0, 1)]):  # 2 cores, 2 threads each
        topo = tmp_path / f"cpu{cpu}" / "topology"
        topo.mkdir(parents=True)
        (topo / "physical_package_id").write_text(f"{pkg}\n")
        (topo / "core_id").write_text(f"{core}\n")
    assert physical_cores(tmp_path) == 2
    assert physical_cores(tmp_path / "nothing") is None


def test_no_caches_reported(tmp_path):
    assert caches(tmp_path) == []
    assert last_level_cache_bytes([]) is None


@pytest.mark.parametrize("text,value", [("32K", 32768), ("1024K", 1 << 20), ("8M", 8 << 20),
                                        ("512", 512)])
def test_parse_cache_size(text, value):
    assert parse_cache_size(text) == value


def test_maps_sizes_reach_four_times_llc():
    for mode in ("quick", "full"):
        sizes = maps_sizes(32 * MiB, mode)
        assert sizes[0] == 4 * KiB and sizes[-1] >= 4 * 32 * MiB
        assert sizes == sorted(set(sizes))
    assert len(maps_sizes(32 * MiB, "full")) > 2 * len(maps_sizes(32 * MiB, "quick"))
    # a machine with little memory: the sweep stops at a quarter of what is available
    assert maps_sizes(32 * MiB, "quick", memory_bytes=256 * MiB)[-1] == 64 * MiB


@pytest.mark.parametrize("mode", ["quick", "full"])
@pytest.mark.parametrize("llc", [260 * MiB, 36 * MiB, 32 * MiB, 3 * MiB])
def test_no_point_crowds_the_top(mode, llc):
    """A point less than NEAR_TOP below 4 x LLC measures the same plateau again: a nominal
    260 MiB L3 put 1 GiB beside a 1040 MiB top.  Powers of 2 further down all stay."""
    from pinchpoint.measure.kernels import NEAR_TOP, random_sizes
    for sizes in (maps_sizes(llc, mode), random_sizes(llc, mode)):
        top = sizes[-1]
        assert top == 4 * llc
        assert all(s * NEAR_TOP < top for s in sizes[:-1])
    below = [s for s in random_sizes(llc, mode)[:-1] if s & (s - 1) == 0]
    assert below == [2 ** k for k in range(12, 40) if 2 ** k * NEAR_TOP < 4 * llc]


def test_quick_stream_repeats_three_times_unless_told():
    def stream_reps(**kw):
        (job,) = make_plan(kw.pop("mode", "quick"), ("stream",), llc_bytes=MiB, cpus=2, mpi=False, **kw).jobs
        return job.args[job.args.index("--reps") + 1]
    assert stream_reps() == "3"
    assert stream_reps(reps=7) == "7"  # the user's --reps wins
    assert stream_reps(mode="full") == "11"


def test_plan_only_and_modes():
    plan = make_plan("quick", ("peak", "ping"), llc_bytes=MiB, cpus=2, mpi=False)
    assert {j.kernel for j in plan.jobs} == {"peak", "ping"}
    with pytest.raises(InputError, match="unknown mode"):
        make_plan("medium", llc_bytes=MiB, cpus=2)
    full = make_plan("full", llc_bytes=MiB, cpus=4, mpi=False)
    assert any("--threads" in j.args and "2,3,4" in j.args for j in full.jobs)
    # full mode: every maps repetition is the best of 10 short calls; quick mode: one call
    maps_full = [j.args for j in full.jobs if j.kernel == "maps"]
    assert maps_full and all(a[a.index("--trials") + 1] == "10" for a in maps_full)
    quick = make_plan("quick", ("maps",), llc_bytes=MiB, cpus=2, mpi=False)
    assert all("--trials" not in j.args for j in quick.jobs)


@pytest.mark.slow
def test_maps_trials_are_recorded(binaries):
    from pinchpoint.measure.runner import run_kernel
    out = run_kernel(binaries["maps"], ["--sizes", "16K", "--reps", "3", "--trials", "4",
                                        "--min-time", "0.001"], kernel="maps", timeout=60)
    (point,) = out.points
    assert point["params"]["trials"] == 4 and len(point["repetitions"]) == 3
    assert all(r > 0 for r in point["repetitions"])


def test_source_hash_covers_headers():
    bundle = source_bundle("maps")
    assert b"common.h\0" in bundle
    assert len({source_sha256(k) for k in KERNELS}) == len(KERNELS)


@pytest.mark.slow
def test_compile_cache_keyed_by_flags(tmp_path, monkeypatch, compiler):
    monkeypatch.setenv("PINCHPOINT_CACHE", str(tmp_path))
    a = compile_kernel("peak", compiler)
    again = compile_kernel("peak", compiler)
    assert a == again and os.access(a, os.X_OK)
    other = compile_kernel("peak", find_compiler(" ".join(compiler.command), ["-O2"]))
    assert other != a
    # each binary beside the record of the source hash it was built from
    assert sorted(p.name for p in (tmp_path / "kernels").iterdir()) == \
        sorted([a.name, other.name, a.name + ".json", other.name + ".json"])


def test_default_flags_cap_vectors_on_x86_only_where_accepted(compiler):
    from pinchpoint.measure.runner import DEFAULT_FLAGS, X86_VECTOR_FLAG, default_flags
    assert default_flags(compiler.command, "aarch64") == DEFAULT_FLAGS
    assert default_flags(("false",), "x86_64") == DEFAULT_FLAGS  # a compiler that rejects it
    if "gcc" in compiler.version.lower() or "clang" in compiler.version.lower():
        assert default_flags(compiler.command, "x86_64") == DEFAULT_FLAGS + (X86_VECTOR_FLAG,)


def test_plan_for_a_64_core_512_gib_host_gives_threads_their_address_space():
    """Issue 13: on a 16-core, 128 GiB server `measure --quick` failed with "cannot allocate"
    because the address-space limit was the data + 1 GiB whatever the thread count.  Each
    thread reserves a stack and a malloc arena: the limit must grow with the threads."""
    from pinchpoint.measure.session import THREAD_RESERVE_BYTES, address_space_limit
    plan = make_plan("quick", ("maps",), llc_bytes=256 * MiB, cpus=64, mpi=False,
                     memory_bytes=512 * 1024 ** 3)
    threaded = [j for j in plan.jobs if j.label == "maps threads"]
    assert threaded and "64" in threaded[0].args
    top = int(threaded[0].args[threaded[0].args.index("--sizes") + 1].split(",")[-1])
    assert top == 4 * 256 * MiB  # 512 GiB does not cap a 1 GiB sweep
    assert threaded[0].memory_bytes >= top + 64 * THREAD_RESERVE_BYTES
    assert threaded[0].memory_bytes == address_space_limit(top, 64)
    full = make_plan("full", ("maps",), llc_bytes=256 * MiB, cpus=64, mpi=False,
                     memory_bytes=512 * 1024 ** 3)
    assert all(j.memory_bytes == address_space_limit(top, 64) for j in full.jobs
               if j.label == "maps threads")


@pytest.mark.slow
def test_many_threads_run_under_the_planned_limit(binaries):
    """The real maps kernel on 64 threads (2 cores here: oversubscribed, but the address space
    is what matters) runs under the planned limit.  (Under the old data + 1 GiB limit it fails
    only when the threads contend for malloc and glibc opens new 64 MiB arenas, which depends
    on scheduling: on 16 busy cores it failed every time, on this 2-core VM in some runs.)"""
    from pinchpoint.measure.runner import run_kernel
    from pinchpoint.measure.session import address_space_limit
    ws = 64 * 32 * 8 * 4  # 4 stride-1 arrays of 32 lanes x 8 B per thread, 64 threads
    args = ["--ops", "triad", "--threads", "64", "--sizes", str(ws), "--reps", "1",
            "--min-time", "0.0001"]
    out = run_kernel(binaries["maps"], args, kernel="maps", timeout=120,
                     memory_bytes=address_space_limit(ws, 64))
    assert out.points and out.points[0]["params"]["threads"] == 64
