"""atomic_write: atomic for regular files, in place for devices and pipes, refusals that say
why."""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import pytest

from pinchpoint.errors import InputError, PinchpointError
from pinchpoint.paths import atomic_write, output_target


def _write(path, text="new\n", **kw):
    with atomic_write(path, **kw) as fh:
        fh.write(text)


def test_regular_file_is_replaced_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    _write(target)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_new_file_gets_the_umask_default_not_0600(tmp_path):
    mask = os.umask(0o022)
    try:
        _write(tmp_path / "fresh.txt")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "fresh.txt").stat().st_mode) == 0o644


def test_symbolic_link_is_followed_and_stays_a_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    _write(link)
    assert link.is_symlink()
    assert real.read_text() == "new\n"


def test_a_pipe_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    _write(fifo, "through the pipe\n")
    reader.join(10)
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # still a pipe, not a regular file
    assert got == ["through the pipe\n"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


def test_dev_null_stays_a_device():
    _write("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_is_a_clear_error_and_stays_a_device():
    with pytest.raises(InputError, match="writing failed"):
        _write("/dev/full", "x" * 100_000, key="-o")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_folder_is_refused_and_nothing_is_left(tmp_path):
    with pytest.raises(InputError, match="is a folder") as err:
        _write(tmp_path, key="--csv")
    assert "--csv" in str(err.value)
    assert list(tmp_path.iterdir()) == []


def test_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        _write(tmp_path / "no" / "such.txt", key="-o")
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_target_is_refused(tmp_path):
    if os.geteuid() == 0:
        target = Path("/proc/version")  # root writes anything but a read-only file system
        if not target.exists():
            pytest.skip("no /proc")
    else:
        target = tmp_path / "ro.txt"
        target.write_text("old\n")
        os.chmod(target, 0o444)
    before = target.read_text()
    with pytest.raises(InputError, match="cannot be written"):
        _write(target, key="-o")
    assert target.read_text() == before


def test_bad_suffix_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"must end in \.png or \.svg"):
        output_target(tmp_path / "x.bmp", key="-o", suffixes=(".png", ".svg"))


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_refusals_are_pinchpoint_errors():
    assert issubclass(InputError, PinchpointError)


def test_a_signal_inside_the_probes_mkstemp_leaves_no_probe(tmp_path, monkeypatch):
    """Found by the long fuzz run (SIGTERM during ``signature plot -o``): a signal arriving
    after mkstemp made the writability probe and before it returned the name left
    ``.out.svg.*.probe`` behind.  Signals are now held over the probe's life."""
    import signal
    import tempfile

    class Stop(Exception):
        pass

    real_mkstemp = tempfile.mkstemp

    def mkstemp_then_signal(*a, **kw):
        made = real_mkstemp(*a, **kw)
        os.kill(os.getpid(), signal.SIGTERM)  # delivered here, unless held
        return made

    stopped = []

    def stop(signum, frame):
        stopped.append(signum)
        raise Stop

    old = signal.signal(signal.SIGTERM, stop)
    monkeypatch.setattr(tempfile, "mkstemp", mkstemp_then_signal)
    try:
        try:
            output_target(tmp_path / "out.svg")
        finally:  # a held signal's handler runs a few bytecodes after it is let through
            deadline = time.monotonic() + 5
            while not stopped and time.monotonic() < deadline:
                pass
    except Stop:
        pass
    finally:
        signal.signal(signal.SIGTERM, old)
    assert stopped == [signal.SIGTERM]
    assert list(tmp_path.iterdir()) == []
