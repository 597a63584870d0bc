"""``measure`` control like likwid-bench: which CPUs (--cpus LIST, --threads N), pinning, working
sets, repetitions, and a noise report recorded in the signature."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.errors import InputError
from pinchpoint.measure.runner import _limits, find_compiler
from pinchpoint.measure.session import make_plan, parse_cpus, parse_sizes, pinning

MiB = 2 ** 20
AVAIL = (0, 1, 2, 3, 4, 5, 6, 7)


def test_cpus_are_lists_as_taskset_takes_them():
    assert parse_cpus("3", AVAIL) == (3,)  # CPU 3, not "3 CPUs" (taskset -c 3, likwid-pin -c 3)
    assert parse_cpus("0-2,5", AVAIL) == (0, 1, 2, 5)
    assert parse_cpus("4,", AVAIL) == (4,)
    assert parse_cpus(None, AVAIL) is None


@pytest.mark.parametrize("text, message", [("9", "CPU 9 not available"),
                                           ("0-9", "CPU 8,9 not available"),
                                           ("3-1", "runs backwards"), ("a,b", "not a CPU list"),
                                           (",", "names no CPU")])
def test_bad_cpus_name_the_problem(text, message):
    with pytest.raises(InputError, match=message):
        parse_cpus(text, AVAIL)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.sampled_from(AVAIL), min_size=1))
def test_a_list_round_trips_and_pins_each_thread_inside_it(ids):
    text = ",".join(map(str, sorted(ids))) + ","
    cpus = parse_cpus(text, AVAIL)
    assert cpus == tuple(sorted(ids))
    arg, _ = pinning(cpus)
    assert [int(c) for c in arg.split(",")] == sorted(ids)


def test_threads_count_within_the_cpus():
    from pinchpoint.measure.session import parse_threads

    assert parse_threads(2, (4, 5, 6)) == 2 and parse_threads(None, (4,)) is None
    with pytest.raises(InputError, match="4 threads asked for, 3 CPUs"):
        parse_threads(4, (4, 5, 6))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_default_pinning_stays_inside_the_inherited_mask():
    """Under taskset -c C the kernels were pinned to CPU 0 whatever the mask said."""
    cpu = max(os.sched_getaffinity(0))
    code = ("import os; os.sched_setaffinity(0, {%d}); "
            "from pinchpoint.measure.session import make_plan; "
            "print(sorted({a for j in make_plan('quick', ('maps',), llc_bytes=2**20, mpi=False).jobs "
            "for a in [j.args[list(j.args).index('--pin') + 1]]}))") % cpu
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"['{cpu}']"


def test_sizes_parse_with_units():
    assert parse_sizes("16 KiB, 1 MiB,256MiB") == [16 * 1024, MiB, 256 * MiB]
    with pytest.raises(InputError, match="below 1 KiB"):
        parse_sizes("64 B")
    with pytest.raises(InputError, match="^sizes: "):  # the parameter; the CLI shows --sizes
        parse_sizes("16 GHz")


def test_plan_uses_cpus_sizes_reps_and_pinning():
    plan = make_plan("quick", ("maps",), llc_bytes=MiB, cpu_list=(2, 3, 4), sizes=[16384, 64 * MiB],
                     reps=7, mpi=False)
    for job in plan.jobs:
        a = list(job.args)
        assert job.cpus == (2, 3, 4) and a[a.index("--reps") + 1] == "7"
        assert a[a.index("--pin") + 1] == "2,3,4"
        if job.label != "maps trips":  # the trip-count sweep stays inside L1
            assert a[a.index("--sizes") + 1].split(",")[-1] == str(64 * MiB)
    threaded = [j for j in plan.jobs if j.label == "maps threads"]
    assert threaded and threaded[0].args[threaded[0].args.index("--threads") + 1] == "3"
    two = make_plan("quick", ("maps",), llc_bytes=MiB, cpu_list=(2, 3, 4), cpus=2, mpi=False)
    threaded = [j for j in two.jobs if j.label == "maps threads"]
    assert threaded[0].args[threaded[0].args.index("--threads") + 1] == "2"
    assert all("--pin" not in j.args for j in make_plan("quick", ("maps",), llc_bytes=MiB, cpus=2,
                                                          pin=False, mpi=False).jobs)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_the_kernel_process_runs_inside_the_mask():
    cpu = min(os.sched_getaffinity(0))
    out = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                         capture_output=True, text=True, preexec_fn=_limits(None, (cpu,)), check=True)
    assert out.stdout.strip() == f"[{cpu}]"


@pytest.mark.slow
def test_measure_records_cpus_pinning_and_noise(tmp_path):
    try:
        find_compiler(None, None)
    except Exception as exc:  # noqa: BLE001 - any reason the compiler is unusable
        pytest.skip(f"no C compiler: {exc}")
    cpu = min(os.sched_getaffinity(0))
    out = tmp_path / "m.json"
    r = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "measure", "--only", "maps", "--cpus", f"{cpu},",
                        "--sizes", "16 KiB", "--reps", "3", "-o", str(out), "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    run = json.loads(out.read_text())["host"]["run"]
    assert run["cpus"] == [cpu] and f"CPUs {cpu}" in run["pinning"]
    assert run["noise"]["limit_max_over_min"] == 1.2
    points = json.loads(out.read_text())["kernels"]["maps"]["points"]
    # the requested 16 KiB, less what does not split into whole elements per array (gather
    # copy holds three arrays: 3 x 682 elements of 8 B = 16368 B)
    assert all(16384 - 48 < p["working_set_bytes"] <= 16384 for p in points)
    assert 16384 in {p["working_set_bytes"] for p in points}
    assert all(len(p["result"]["repetitions"]) == 3 for p in points)
    noisy = [n for n in run["noise"]["noisy_points"]]
    assert all(n["spread"] > 1.2 for n in noisy)
    assert ("warning" in r.stderr) == bool(noisy)


def test_bad_noise_limit_fails_before_measuring(tmp_path, capsys):
    from pinchpoint.cli import main

    assert main(["measure", "--only", "peak", "--noise-limit", "0.9", "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "--noise-limit" in err and "above 1" in err
    assert not (tmp_path / "x.json").exists()
