"""Run the CLI with stderr on a pseudo-terminal (progress bars show only on a terminal)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios


def on_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal; return (exit code, what stderr showed)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a 100-column terminal
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pinchpoint.cli", *argv], stdout=subprocess.DEVNULL,
                                stderr=slave)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        return proc.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(master)
