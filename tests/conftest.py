"""Shared fixtures: the toy profile and a helper that runs the CLI as a whole process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def toy_path() -> Path:
    return FIXTURES / "profiles" / "toy.toml"


@pytest.fixture
def toy_text(toy_path) -> str:
    return toy_path.read_text()


def run_cli(*args: str, cwd: str | Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``pinchpoint ARGS`` in a fresh interpreter, capturing text output."""
    return subprocess.run([sys.executable, "-m", "pinchpoint.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


@pytest.fixture
def cli():
    return run_cli
