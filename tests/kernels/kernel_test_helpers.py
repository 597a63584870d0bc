"""Helpers shared by the kernel tests (imported by name: the test folders are not packages)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def cli_command() -> list[str]:
    """The pinchpoint CLI as an argument list that works without the console script."""
    return [sys.executable, "-m", "pinchpoint.cli"]


def tool_missing(name: str) -> bool:
    return shutil.which(name) is None


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
