"""kernels/omp.c: the fork/join of an OpenMP parallel region, a barrier, and a worksharing loop
with a reduction (`parallel_for_reduction`) per team size, by the EPCC method (construct around
a delay less the delay alone).  Its points are sane, bad arguments are refused, and a compiler
without OpenMP skips the kernel with a note.

Bounds are generous (the machine is shared): a fork/join costs more than nothing and less than
a millisecond on any machine of the last two decades (Bull, EWOMP 1999, measured 1-40 us per
PARALLEL on 1999's 16- to 64-processor SMPs; today's libgomp takes under 2 us on 2-8 cores)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from pinchpoint.measure.hostinfo import usable_cpus
from pinchpoint.measure.runner import compile_kernel


def _bound(threads: int) -> float:
    """Most overhead [s] a fastest repetition may show: 1 ms; for a team of several threads on
    a machine with more runnable processes than CPUs, 100 ms (a few scheduler time slices: each
    fork then waits for a worker's CPU; 28 ms per region at load average 10 on 2 vCPUs)."""
    busy = os.getloadavg()[0] >= len(usable_cpus())
    return 0.1 if threads > 1 and busy else 1e-3


def _run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def omp_binary(compiler):
    from pinchpoint.errors import CompileError

    try:
        return compile_kernel("omp", compiler)
    except CompileError as exc:
        pytest.skip(f"the compiler has no OpenMP: {exc}")


def test_points_per_team_size(omp_binary):
    cpus = sorted(usable_cpus())
    teams = list(range(1, min(len(cpus), 4) + 1))
    r = _run(omp_binary, "--threads", ",".join(map(str, teams)), "--pin", ",".join(map(str, cpus)),
             "--reps", "5", "--min-time", "0.002")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1]["status"] == "complete"
    pts = {(p["params"]["op"], p["params"]["threads"]): p for p in lines[:-1]}
    assert set(pts) == {(op, t) for op in ("parallel", "barrier", "parallel_for_reduction")
                        for t in teams}
    for (op, t), p in pts.items():
        reps = p["repetitions"]
        assert p["unit"] == "s" and len(reps) == 5
        # the fastest repetition under the bound (a busy machine deschedules workers for time
        # slices), the median more than nothing
        assert min(reps) >= 0 and min(reps) < _bound(t) and sorted(reps)[2] > 0, (op, t, reps)
    one = sorted(pts[("parallel", 1)]["repetitions"])[2]
    for t in teams[1:]:
        # a bigger team is not cheaper than one thread beyond noise (wakes more threads)
        assert max(pts[("parallel", t)]["repetitions"]) >= 0.2 * one, t
    for t in teams:
        # a parallel for with a reduction is a region plus its split and combine: not cheaper
        # than a bare region beyond noise
        loop = sorted(pts[("parallel_for_reduction", t)]["repetitions"])[2]
        assert loop >= 0.2 * min(pts[("parallel", t)]["repetitions"]), (t, loop)


@pytest.mark.parametrize("args, says", [(["--threads", "0"], "out of range"),
                                        (["--ops", "fork"], "unknown value 'fork'"),
                                        (["--delay-ns", "x"], "not a number"),
                                        (["--bogus"], "unknown argument")])
def test_bad_arguments_exit_2(omp_binary, args, says):
    r = _run(omp_binary, *args)
    assert r.returncode == 2 and says in r.stderr and r.stdout == "", r


def test_time_bound_truncates(omp_binary):
    r = _run(omp_binary, "--threads", "1,1,1,1,1,1", "--max-seconds", "0.001", "--min-time", "0.002")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 0 and lines[-1]["status"] == "truncated"
    assert len(lines) - 1 < 12


@pytest.mark.slow
def test_quick_signature_has_every_team(quick_signature):
    for op in ("parallel", "parallel_for_reduction"):  # quick mode measures both per team
        teams = {p["threads"] for p in quick_signature.points("omp", op=op)}
        assert teams == set(range(1, len(usable_cpus()) + 1)), op
    for p in quick_signature.points("omp"):
        assert p.result.min < _bound(p["threads"]) and p.result.median > 0, p.params


def test_no_openmp_skips_with_a_note(tmp_path, compiler):
    """A compiler whose -fopenmp does nothing (as clang without libomp fails to build): the
    kernel's #error stops the build, measure records the skip and goes on."""
    from pinchpoint.measure.session import measure

    fake = tmp_path / "cc-no-openmp"
    fake.write_text(f"#!{sys.executable}\nimport os, sys\n"
                    f"args = [a for a in sys.argv[1:] if a != '-fopenmp']\n"
                    f"os.execvp({compiler.command[0]!r}, [{compiler.command[0]!r}, *args])\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    sig = measure("quick", only=["omp"], cc=str(fake), flags=("-O2",))
    assert "omp" not in sig.kernels
    skipped = sig.host["run"]["skipped"]
    assert len(skipped) == 1 and skipped[0].startswith("omp:") and "OpenMP" in skipped[0], skipped
    assert os.access(fake, os.X_OK)
