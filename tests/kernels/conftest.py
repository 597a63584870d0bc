"""Fixtures for the kernel tests: compiled kernels and one quick-mode signature per session.

The quick signature is measured once (about 15 s on a 2-core machine) and shared by every
sanity test; fault tests start their own short runs.
"""

from __future__ import annotations

import pytest

from pinchpoint.errors import CompileError
from pinchpoint.measure.runner import KERNELS, compile_kernel, find_compiler


@pytest.fixture(scope="session")
def compiler():
    try:
        return find_compiler()
    except CompileError as exc:
        pytest.skip(f"no usable C compiler: {exc}")


@pytest.fixture(scope="session")
def binaries(compiler):
    return {k: compile_kernel(k, compiler) for k in KERNELS}


@pytest.fixture(scope="session")
def quick_signature(tmp_path_factory, compiler):
    from pinchpoint.measure.session import measure

    io_dir = tmp_path_factory.mktemp("io")
    sig = measure("quick", io_dir=str(io_dir))
    assert list(io_dir.iterdir()) == [], "measure left files in its I/O directory"
    return sig


@pytest.fixture(scope="session")
def host_caches():
    from pinchpoint.measure.hostinfo import caches as read_caches, data_cache_sizes

    caches = data_cache_sizes(read_caches())
    if len(caches) < 2:
        pytest.skip("the host does not report its cache sizes in /sys")
    return caches
