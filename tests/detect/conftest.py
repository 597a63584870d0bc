"""Fixtures of the detect and importer tests (paths in detect_paths.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from detect_paths import SYSFS


@pytest.fixture
def sysfs_copy(tmp_path) -> Path:
    """A writable copy of the sysfs fixture (symlinks kept) for tests that break a file."""
    dest = tmp_path / "root"
    shutil.copytree(SYSFS, dest, symlinks=True)
    return dest
