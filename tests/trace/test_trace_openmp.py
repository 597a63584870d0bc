"""OpenMP parallel regions counted from Callgrind's call counts: the parser keeps every call
(caller, call site, callee, count); a region is one call of a runtime entry, attributed to the
phase of its body where the entry calls the body (libgomp's GOMP_parallel), else of its call
site (GOMP_parallel_start, LLVM's __kmpc_fork_call); the bundled OpenMP example traced for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from pinchpoint.prediction.trace.callgrind import merge_threads, parse_callgrind
from pinchpoint.prediction.trace.openmp import CALLS_BODY, REGION_ENTRY, parallel_regions, region_calls

EVENTS = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw ILdmr DLdmr DLdmw"

# A libgomp program, written after the Callgrind Format Specification
# (valgrind.org/docs/manual/cl-format.html) and the shape Callgrind 3.19 gave ompsum.c: kernel
# calls GOMP_parallel 50 times, main once; GOMP_parallel calls a helper of its own object
# (no cob= line) and the bodies in the program's object (cob=).
GOMP = f"""version: 1
positions: instr line
{EVENTS}

ob=(1) /bin/prog
fn=(1) kernel
0x1000 0 5
cob=(2) /lib/libgomp.so.1
cfn=(3) GOMP_parallel
calls=50 0x14070 0
0x1004 0 900
fn=(2) main
0x1100 0 3
cob=(2)
cfn=(3)
calls=1 0x14070 0
0x1108 0 40
ob=(2)
fn=(3)
0x14070 0 51
cfn=(4) 0x000000000001cdc0
calls=51 0x1cdc0 0
+4 0 6635
cob=(1)
cfn=(5) kernel._omp_fn.0
calls=50 0x1440 0
+8 0 800
cob=(1)
cfn=(6) main._omp_fn.0
calls=1 0x1340 0
+8 0 30
fn=(4)
0x1cdc0 0 6635
ob=(1)
fn=(5)
0x1440 0 800
fn=(6)
0x1340 0 30
"""


@pytest.mark.parametrize("name, opens, runs_body", [
    ("GOMP_parallel", True, True), ("GOMP_parallel_loop_static", True, True),
    ("GOMP_parallel_loop_nonmonotonic_dynamic", True, True), ("GOMP_parallel_sections", True, True),
    ("GOMP_parallel_reductions", True, True), ("GOMP_parallel_start", True, False),
    ("GOMP_parallel_loop_static_start", True, False), ("GOMP_parallel_sections_start", True, False),
    ("__kmpc_fork_call", True, False), ("GOMP_parallel_end", False, False),
    ("GOMP_barrier", False, False), ("GOMP_loop_static_start", False, False)])
def test_region_entries(name, opens, runs_body):
    assert bool(REGION_ENTRY.match(name)) is opens
    assert bool(CALLS_BODY.match(name)) is runs_body


def _fns(*names):
    return lambda key: key[1] in names


def test_calls_are_kept_with_site_and_callee():
    p = parse_callgrind(GOMP)
    assert p.calls[("/bin/prog", "kernel", 0x1004, ("/lib/libgomp.so.1", "GOMP_parallel"))] == 50
    assert p.calls[("/bin/prog", "main", 0x1108, ("/lib/libgomp.so.1", "GOMP_parallel"))] == 1
    # no cob=: the callee is in the caller's object
    assert p.calls[("/lib/libgomp.so.1", "GOMP_parallel", 0x14074,
                    ("/lib/libgomp.so.1", "0x000000000001cdc0"))] == 51
    assert p.calls[("/lib/libgomp.so.1", "GOMP_parallel", 0x1407c,
                    ("/bin/prog", "kernel._omp_fn.0"))] == 50
    # the calls' inclusive costs stay out of the callers' own
    assert p.functions()[("/bin/prog", "kernel")]["Ir"] == 5


def test_regions_follow_their_bodies():
    p = parse_callgrind(GOMP)
    sites, bodies = region_calls(p)
    assert sum(sites.values()) == 51
    assert bodies == {("GOMP_parallel", ("/bin/prog", "kernel._omp_fn.0")): 50,
                      ("GOMP_parallel", ("/bin/prog", "main._omp_fn.0")): 1}
    assert parallel_regions(p) == 51
    assert parallel_regions(p, _fns("kernel._omp_fn.0")) == 50
    assert parallel_regions(p, _fns("main._omp_fn.0")) == 1
    # the caller's phase does not count them again
    assert parallel_regions(p, _fns("kernel", "main")) == 0


def test_entries_without_a_body_count_at_their_call_site():
    text = GOMP.split("ob=(2)\nfn=(3)")[0].replace("GOMP_parallel", "GOMP_parallel_start")
    text = text.replace("cfn=(3)\ncalls=1", "cfn=(7) __kmpc_fork_call\ncalls=3")
    p = parse_callgrind(text)
    assert parallel_regions(p) == 50 + 3
    assert parallel_regions(p, _fns("kernel")) == 50
    assert parallel_regions(p, _fns("main")) == 3
    # GOMP_parallel_end closes a region; it opens none
    p = parse_callgrind(GOMP.replace("cfn=(3) GOMP_parallel", "cfn=(3) GOMP_parallel_end"))
    assert parallel_regions(p, _fns("kernel")) == 0


def test_threads_merge_their_calls():
    worker = GOMP.replace("calls=50 0x14070", "calls=0 0x14070")
    p = merge_threads([GOMP, worker], ["cg-01", "cg-02"])
    assert parallel_regions(p, _fns("kernel._omp_fn.0")) == 100


EXAMPLE = Path(__file__).resolve().parents[2] / "benchmarks" / "trace_examples" / "ompsum.c"


@pytest.fixture(scope="module")
def ompsum(tmp_path_factory):
    cc = shutil.which("gcc")
    if cc is None or shutil.which("valgrind") is None or shutil.which("objdump") is None:
        pytest.skip("needs gcc, valgrind and objdump")
    exe = tmp_path_factory.mktemp("ompsum") / "ompsum"
    r = subprocess.run([cc, "-O2", "-march=x86-64-v3", "-fopenmp", "-o", str(exe), str(EXAMPLE)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"no OpenMP compiler: {r.stderr.strip()[:200]}")
    return exe


@pytest.mark.parametrize("phases, expected", [("program", {"*": 7 + 1}),
                                              ("functions", {"kernel._omp_fn.0": 7,
                                                             "main._omp_fn.0": 1})])
def test_bundled_ompsum_regions_exactly(tmp_path, ompsum, phases, expected):
    """ompsum.c N REPS: one region per call of kernel (REPS), one in main filling the array."""
    out = tmp_path / "w.toml"
    r = subprocess.run([sys.executable, "-m", "pinchpoint.cli", "trace", "--no-progress", "-o", str(out),
                        "--profile", "powermac-g5", "--phases", phases, "--", str(ompsum), "3072", "7"],
                       capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "2"},
                       timeout=600)
    assert r.returncode == 0, r.stderr
    doc = tomllib.loads(out.read_text())
    got = {p["name"]: p.get("parallel_regions", 0) for p in doc["phases"]}
    if "*" in expected:
        assert list(got.values()) == [expected["*"]]
    else:
        for name, n in expected.items():
            assert got.get(name) == n, got
        assert sum(got.values()) == sum(expected.values()), got
    body = next(p for p in doc["phases"] if p.get("parallel_regions") in (7, 8))
    assert body["threads"] == 2
