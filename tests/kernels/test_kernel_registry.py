"""Kernels are entries of a registry: one registered from outside is planned and its bookkeeping
keys are kept out of points (as pyhf's test_custom_mods registers a modifier)."""

from __future__ import annotations

import pytest

from pinchpoint.errors import InputError
from pinchpoint.kernel_plans import KERNEL_PLANS, kernel_names, register_kernel
from pinchpoint.kernel_runner import KERNELS, MPI_KERNELS
from pinchpoint.measure import make_plan, parse_only, point_from_record

MiB = 1 << 20


@pytest.fixture
def fake_kernel():
    """A kernel that sweeps message sizes and prints how many laps it ran (bookkeeping)."""
    seen = []

    def plan(ctx):
        seen.append((ctx.mode, ctx.cpus))
        ctx.add("fakebw", ["--sizes", "64" if ctx.quick else "64,4096"], "fake bandwidth")

    register_kernel("fakebw", plan, bookkeeping=("laps",))
    try:
        yield seen
    finally:
        KERNEL_PLANS.pop("fakebw")


def test_registered_kernel_is_planned(fake_kernel):
    plan = make_plan("quick", ("peak", "fakebw"), llc_bytes=MiB, cpus=2, mpi=False)
    assert fake_kernel == [("quick", 2)]
    fake = [j for j in plan.jobs if j.kernel == "fakebw"]
    assert [j.label for j in fake] == ["fake bandwidth"]
    assert fake[0].args == ("--reps", "5", "--min-time", "0.005", "--max-seconds", "20.0", "--sizes", "64")
    assert fake[0].timeout_s == 70.0
    assert plan.kernels == ("peak", "fakebw")
    assert parse_only("fakebw,maps") == ("maps", "fakebw")
    # its bookkeeping key stays out of points; its real parameters stay in
    p = point_from_record({"params": {"bytes": 64, "laps": 1000}, "unit": "B/s", "repetitions": [1.0, 2.0]})
    assert p.params == {"bytes": 64}


def test_unregistered_kernel_is_refused_and_duplicates_too():
    with pytest.raises(InputError, match="unknown kernel 'fakebw'"):
        make_plan("quick", ("fakebw",), llc_bytes=MiB, cpus=2, mpi=False)
    with pytest.raises(ValueError, match="already registered"):
        register_kernel("maps", lambda ctx: None)
    with pytest.raises(ValueError, match="not registered"):
        register_kernel("maps_mpi", lambda ctx: None, variant_of="nosuch")


def test_registry_matches_the_kernels_the_runner_builds():
    assert kernel_names() == KERNELS
    assert tuple(k for k, e in KERNEL_PLANS.items() if e.variant_of) == MPI_KERNELS


def test_mpi_variants_follow_their_kernel():
    with_mpi = make_plan("quick", ("ping",), llc_bytes=MiB, cpus=2, mpi=True)
    assert [j.kernel for j in with_mpi.jobs] == ["ping", "ping_mpi"]
    assert with_mpi.kernels == ("ping", "ping_mpi")
    assert [j.kernel for j in make_plan("quick", ("ping",), llc_bytes=MiB, cpus=2, mpi=False).jobs] == ["ping"]
