"""A live iperf3 run against a peer while the socket's TCP_INFO is sampled (``ss -ti``).

``ss -tin`` (iproute2) prints Linux's ``struct tcp_info`` per socket: ``rtt:<ms>/<var>``,
``cwnd:``, ``mss:`` (what this side sends: the peer's MSS or the path MTU's), ``advmss:`` (what
this side advertises, from its own MTU), ``pmtu:``, ``retrans:<now>/<total>``, ``bytes_sent:``,
``busy:<ms>``, ``rwnd_limited:<ms>(<pct>%)`` and ``sndbuf_limited:<ms>(<pct>%)`` (Linux 4.9 and
later, ``tcpi_busy_time``, ``tcpi_rwnd_limited``, ``tcpi_sndbuf_limited``: the time the sender had
data but was held by the receiver's window or its own buffer).  The counters are cumulative, so
the last sample of the data socket (the one that sent the most bytes) covers the run.

Edge layer: commands run as argument lists (never a shell), each bounded in time.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field

_FIELD = re.compile(r"(?P<key>[a-z_]+):(?P<value>\S+)")
_MS_PCT = re.compile(r"(?P<ms>[\d.]+)ms(?:\((?P<pct>[\d.]+)%\))?")


def parse_ss(text: str) -> list[dict]:
    """One dict per socket of ``ss -tin`` output: the figures above in SI units (s, B), and the
    peer (``peer``: "host:port")."""
    sockets: list[dict] = []
    current: dict | None = None
    for line in text.splitlines():
        if line.startswith(("ESTAB", "SYN-", "FIN-", "CLOSE", "LAST-", "TIME-")):
            parts = line.split()
            current = {"state": parts[0], "peer": parts[4] if len(parts) > 4 else None}
            sockets.append(current)
        elif current is not None and line.startswith(("\t", " ")):
            current.update(_info_fields(line))
    return sockets


def _info_fields(line: str) -> dict:
    out: dict = {}
    words = line.split()
    if words and words[0].isalpha() and ":" not in words[0]:
        out["congestion_control"] = words[0]
    for m in _FIELD.finditer(line):
        key, value = m.group("key"), m.group("value")
        if key == "rtt":
            rtt, _, var = value.partition("/")
            out["rtt_s"], out["rttvar_s"] = _float(rtt, 1e-3), _float(var, 1e-3)
        elif key in ("cwnd", "mss", "advmss", "rcvmss", "pmtu", "bytes_sent", "bytes_acked", "snd_wnd",
                     "rcv_space", "ssthresh"):
            out[key] = _float(value)
        elif key == "retrans":
            out["retrans_total"] = _float(value.partition("/")[2] or value)
        elif key in ("busy", "rwnd_limited", "sndbuf_limited"):
            t = _MS_PCT.match(value)
            if t:
                out[f"{key}_s"] = float(t.group("ms")) * 1e-3
    return out


def _float(text, scale=1.0):
    try:
        return float(text) * scale
    except ValueError:
        return None


def limit_shares(sample: dict) -> dict:
    """The TCP_INFO limit shares of a socket sample: rwnd_limited and sndbuf_limited over busy time."""
    busy = sample.get("busy_s")
    out = {k: sample.get(k) for k in ("rtt_s", "cwnd", "mss", "advmss", "pmtu", "retrans_total", "busy_s",
                                      "rwnd_limited_s", "sndbuf_limited_s", "snd_wnd", "congestion_control")}
    if busy:
        out["rwnd_limited_share"] = min(1.0, (sample.get("rwnd_limited_s") or 0.0) / busy)
        out["sndbuf_limited_share"] = min(1.0, (sample.get("sndbuf_limited_s") or 0.0) / busy)
    return out


@dataclass
class PeerRun:
    """What a run against the peer gave: iperf3's JSON text, the last TCP_INFO sample, warnings."""

    iperf3_json: str | None = None
    tcp_info: dict | None = None
    warnings: list[str] = field(default_factory=list)
    command: list[str] = field(default_factory=list)
    ss_failed: bool = False  # ss could not run: no socket is ever seen


#: Seconds iperf3 may take to connect to the peer.
CONNECT_S = 5


def run_peer(peer: str, *, port: int = 5201, seconds: float = 5.0, extra: tuple[str, ...] = (),
             interval: float = 0.2, iperf3: str = "iperf3", ss: str = "ss") -> PeerRun:
    """Run ``iperf3 -c PEER -J`` for ``seconds`` while sampling ``ss -tin`` on its sockets.

    Bounded: iperf3 gets ``seconds`` + 15 s, or :data:`CONNECT_S` + 2 s where no data has
    moved by then (its own connect timeout is :data:`CONNECT_S`, which iperf3 3.12 with ``-J``
    can outlive, hanging after its error report), then is killed.
    """
    cmd = [iperf3, "-c", peer, "-p", str(port), "-t", f"{seconds:g}", "-J", "--connect-timeout",
           f"{CONNECT_S * 1000:.0f}", *extra]
    out = PeerRun(command=cmd)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        out.warnings.append(f"skipped the run against {peer}: cannot start iperf3 ({exc.strerror or exc})")
        return out
    best, silent = _watch(proc, peer, port, seconds, interval, ss, out)
    stdout, stderr = proc.communicate()
    out.iperf3_json = None if silent else _checked_json(stdout, stderr, peer, out)
    out.tcp_info = limit_shares(best) if best else None
    if best is None and out.iperf3_json is not None:
        out.warnings.append("no TCP_INFO sample of the data socket (ss missing or the run too short)")
    return out


def _watch(proc, peer: str, port: int, seconds: float, interval: float, ss: str,
           out: PeerRun) -> tuple[dict | None, bool]:
    """(the data socket's fullest ss sample, whether iperf3 was killed having moved no data):
    sample while iperf3 runs, within run_peer's bounds, and kill it past them."""
    best: dict | None = None
    start = time.monotonic()
    deadline, connect_by = start + seconds + 15, start + CONNECT_S + 2
    while proc.poll() is None and time.monotonic() < deadline:
        sample = _sample(ss, peer, port, out)
        if sample is not None and (best is None or (sample.get("bytes_sent") or 0) >= (best.get("bytes_sent") or 0)):
            best = sample
        if best is None and time.monotonic() > connect_by and not out.ss_failed:
            break  # no data socket though ss sees sockets: no connection
        time.sleep(interval)
    if proc.poll() is not None:
        return best, False
    proc.kill()
    if best is not None:
        out.warnings.append(f"iperf3 against {peer} did not finish in {seconds + 15:g} s: killed")
        return best, False
    out.warnings.append(f"iperf3 moved no data to {peer} port {port} in {time.monotonic() - start:.0f} s "
                        f"(is iperf3 -s running there?): killed")
    return None, True


def _sample(ss, peer, port, out) -> dict | None:
    """The data socket's sample: the one to the peer's port that sent the most."""
    try:
        res = subprocess.run([ss, "-tin", "dst", peer, "dport", "=", str(port)], capture_output=True, text=True,
                             timeout=5)
    except (OSError, subprocess.TimeoutExpired) as exc:
        if not out.ss_failed:
            out.warnings.append(f"skipped TCP_INFO: cannot run ss ({getattr(exc, 'strerror', None) or exc})")
        out.ss_failed = True
        return None
    socks = [s for s in parse_ss(res.stdout) if s.get("bytes_sent")]
    return max(socks, key=lambda s: s["bytes_sent"]) if socks else None


def _checked_json(stdout, stderr, peer, out) -> str | None:
    try:
        data = json.loads(stdout) if stdout.strip() else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        reason = (stderr or stdout or "no output").strip().splitlines()
        out.warnings.append(f"skipped the verdict: iperf3 against {peer} gave no report "
                            f"({reason[-1] if reason else 'no output'})")
        return None
    if data.get("error"):
        out.warnings.append(f"skipped the verdict: the peer {peer} did not answer ({data['error']})")
        return None
    return stdout
