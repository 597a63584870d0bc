"""Two network namespaces joined by a veth pair, made and removed by the tests themselves.

Each :class:`Pair` gets unique names (the process id and a counter), addresses in 10.231.N.0/24,
and is torn down in ``close()`` whatever happened (namespaces, and with them the veth pair and the
processes' sockets, go; processes started in them are killed by their pid).  Commands are
argument lists run with a time limit.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import time

import pytest

_COUNTER = itertools.count()


def can_make_namespaces() -> str | None:
    """None when namespaces can be made here, else the reason they cannot."""
    if shutil.which("ip") is None:
        return "iproute2's ip is not installed"
    if shutil.which("iperf3") is None:
        return "iperf3 is not installed"
    name = f"ppcheck{os.getpid()}"
    res = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True, timeout=10)
    if res.returncode != 0:
        return f"cannot create a network namespace: {res.stderr.strip() or res.returncode}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10)
    return None


def sh(*argv, check=True, timeout=20):
    res = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    if check and res.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {res.stderr.strip()}")
    return res


class Pair:
    """Namespaces ``client`` and ``server`` with veth ends ``cdev`` and ``sdev``."""

    def __init__(self):
        n = next(_COUNTER)
        tag = f"{os.getpid() % 100000}x{n}"
        self.client, self.server = f"ppc{tag}", f"pps{tag}"
        self.cdev, self.sdev = f"vc{tag}", f"vs{tag}"
        net = 10 + (os.getpid() + n) % 200
        self.client_ip, self.server_ip = f"10.231.{net}.1", f"10.231.{net}.2"
        self.procs: list[subprocess.Popen] = []
        try:
            for ns in (self.client, self.server):
                sh("ip", "netns", "add", ns)
                sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "link", "add", self.cdev, "netns", self.client, "type", "veth", "peer", "name", self.sdev,
               "netns", self.server)
            for ns, dev, ip in ((self.client, self.cdev, self.client_ip), (self.server, self.sdev, self.server_ip)):
                sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
                sh("ip", "-n", ns, "link", "set", dev, "up")
        except Exception:
            self.close()
            raise

    def run(self, ns, *argv, check=True, timeout=20):
        return sh("ip", "netns", "exec", ns, *argv, check=check, timeout=timeout)

    def iperf3_server(self, port=5201):
        p = subprocess.Popen(["ip", "netns", "exec", self.server, "iperf3", "-s", "-1", "-p", str(port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(p)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            out = self.run(self.server, "ss", "-ltn", check=False).stdout
            if f":{port} " in out:
                return p
            time.sleep(0.1)
        raise RuntimeError("iperf3 -s did not start listening")

    def slow_acks(self, rate: str = "200kbit") -> None:
        """Stretch the round trip from a veth's ~26 us to milliseconds without netem (which a
        kernel may lack): a tbf of ``rate`` on the server's egress, which carries only the ACKs
        of a client -> server transfer (and the control connection's few bytes), so the ACKs
        queue.  The receiver ACKs each 64 KiB GSO packet once or twice, so at 200 kbit/s (2.64 ms
        per 66-byte ACK) the round trip is 2.6 or 5.3 ms; its rate caps no forward flow whose
        window is below what one or two ACKs release."""
        self.run(self.server, "tc", "qdisc", "add", "dev", self.sdev, "root", "tbf", "rate", rate, "burst", "1600",
                 "latency", "1s")

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=10)
        for ns in (self.client, self.server):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@pytest.fixture
def pair():
    """A fresh namespace pair, removed afterwards; skipped with the reason where none can be made."""
    why = can_make_namespaces()
    if why is not None:
        pytest.skip(f"no network namespaces here: {why}")
    with Pair() as p:
        yield p
