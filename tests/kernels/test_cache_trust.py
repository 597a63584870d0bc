"""Nothing in the cache folder runs as code unless we built it: cached kernel
binaries are checked against the record of the source hash they were built from and their own
hash, and the unit cache holds no pickle."""

from __future__ import annotations

import os
import stat

import pytest

from pinchpoint.measure import runner as kernel_runner
from pinchpoint.physics import units
from pinchpoint.measure.runner import compile_kernel


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PINCHPOINT_CACHE", str(tmp_path))
    return tmp_path


def _hash(path):
    return kernel_runner._file_sha256(path)


def _plant(binary, text="#!/bin/sh\necho planted\n"):
    binary.write_text(text)
    os.chmod(binary, 0o755)


def test_a_replaced_binary_is_rebuilt_not_run(own_cache, compiler):
    built = compile_kernel("peak", compiler)
    good = _hash(built)
    _plant(built)
    again = compile_kernel("peak", compiler)
    assert again == built and _hash(again) == good


def test_a_binary_without_its_record_is_rebuilt(own_cache, compiler):
    built = compile_kernel("peak", compiler)
    good = _hash(built)
    kernel_runner._record_of(built).unlink()
    _plant(built)
    assert _hash(compile_kernel("peak", compiler)) == good
    assert kernel_runner._record_of(built).is_file()


def test_a_record_that_others_may_write_is_not_trusted(own_cache, compiler):
    built = compile_kernel("peak", compiler)
    record = kernel_runner._record_of(built)
    os.chmod(record, 0o666)
    assert not kernel_runner._trusted_binary(built, __import__("json").loads(record.read_text())["source_sha256"])
    compile_kernel("peak", compiler)
    assert not stat.S_IMODE(record.stat().st_mode) & 0o022


def test_the_unit_cache_holds_no_pickle_and_is_checked(own_cache):
    units.registry.cache_clear()
    try:
        definitions = units._definitions_file()
        units.registry()
        assert not [p for p in own_cache.rglob("*") if p.suffix == ".pickle"]
        definitions.write_text(definitions.read_text().replace("byte = 8 * bit", "byte = 9 * bit"))
        assert units._definitions_file().read_text().count("byte = 9 * bit") == 0
    finally:
        units.registry.cache_clear()
