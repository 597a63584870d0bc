"""Progress bars (tqdm on stderr) only on a terminal and never under -q: detect --measure and
measure ask cli.common.show_progress."""

from __future__ import annotations

import io
import sys

import pytest

from pinchpoint.api import load_signature
from pinchpoint.cli import main
from pinchpoint.cli.common import show_progress
from pinchpoint.cli.output import set_verbosity


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    """Call it in the test body: pytest's capture resets sys.stderr between setup and call."""
    yield lambda: monkeypatch.setattr(sys, "stderr", Terminal())
    set_verbosity(0)


def test_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or a log file
    set_verbosity(0)
    assert show_progress() is False


def test_on_a_terminal_unless_quiet_or_asked_not_to(terminal):
    terminal()
    set_verbosity(0)
    assert show_progress() is True
    assert show_progress(no_progress=True) is False
    set_verbosity(-1)
    assert show_progress() is False


@pytest.mark.parametrize("quiet, expected", [([], True), (["-q"], False)])
def test_detect_measure_asks_for_progress_on_a_terminal(quiet, expected, terminal, monkeypatch, tmp_path):
    asked = []

    def fake_measure(mode, only, **options):  # the kernels themselves are tested in tests/kernels
        asked.append(options["progress"])
        return load_signature("powermac-g5-linux-memory")

    monkeypatch.setattr("pinchpoint.measure.session.measure", fake_measure)
    terminal()
    assert main([*quiet, "detect", "--measure", "-o", str(tmp_path / "here.toml")]) == 0
    assert asked == [expected]
