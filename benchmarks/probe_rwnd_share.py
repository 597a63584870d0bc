"""How firmly a 64 KiB receive window binds a veth run, as TCP_INFO samples it, with and without CPU load.

Usage (as root, where network namespaces can be made)::

    python3 benchmarks/probe_rwnd_share.py [--runs 10] [--load 2] [--ack-rate 200kbit] [--cc cubic] [--time 3]

Each run makes a fresh namespace pair (the tests' :class:`Pair`), sets the receiver's tcp_rmem to
``4096 65536 65536``, optionally puts a tbf of ``--ack-rate`` on the receiver's egress (the ACK path
only: the data flows client -> server; :meth:`Pair.slow_acks`), starts ``iperf3 -s`` and runs ``pinchpoint probe --peer`` (with ``--congestion`` ``--cc``)
for ``--time`` seconds.  ``--load N`` keeps N busy-loop processes (nice 0) running meanwhile, as
other jobs on a shared CI machine do.  Prints one line per run (rate, RTT, rwnd_limited share,
the verdict's binding ceiling and what limited it) and the min / median / max share.

Measured on a 2-CPU shared machine (Linux 6.18, iperf3 3.12, host default congestion control BBR):

=================================  ======  =====================================  ======================
setup                              load    rwnd_limited share min / median / max  measured / window ceil.
=================================  ======  =====================================  ======================
--cc cubic, no tbf (37-148 us)     2       0.623 / 0.883 / 0.969                  0.23 .. 7.4 (RTT noise)
--cc cubic --ack-rate 200kbit      2       0.837 / 0.884 / 0.924 (and 0.819 /    0.817 / 1.046 / 1.231
                                           0.900 / 0.929 in a second ten)
--ack-rate 200kbit (BBR)           0       0.274 / 0.384 / 0.506 (six runs)       0.925 / 1.039 / 1.428
--ack-rate 200kbit (BBR)           2       0.536 / 0.803 / 0.985                  0.701 / 1.022 / 1.340
=================================  ======  =====================================  ======================

A tbf of 2 Mbit/s with one ACK per one-MSS segment (quickack route, TSO/GSO off) is no use: the
ACK path then carries 66 B per 1448 B and caps the forward flow at 2 Mbit/s x 1448 / 66 = 44
Mbit/s whatever the window (measured 41-45 Mbit/s): a reverse-path bottleneck, not a window one.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "probe"))
from conftest import Pair, can_make_namespaces  # noqa: E402


def one_run(ack_rate: str | None, seconds: float, cc: str | None) -> dict:
    with Pair() as pair:
        pair.run(pair.server, "sysctl", "-w", "net.ipv4.tcp_rmem=4096 65536 65536")
        if ack_rate:
            pair.slow_acks(ack_rate)
        pair.iperf3_server()
        res = pair.run(pair.client, sys.executable, "-m", "pinchpoint.cli", "probe", "--peer", pair.server_ip,
                       "--time", f"{seconds:g}", "--json", "--no-detect",
                       *(("--congestion", cc) if cc else ()), check=False, timeout=90)
        if res.returncode != 0:
            raise RuntimeError(res.stderr)
        return json.loads(res.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--load", type=int, default=0, help="busy-loop processes during the runs")
    ap.add_argument("--ack-rate", default=None, help="tbf rate on the receiver's egress (e.g. 200kbit)")
    ap.add_argument("--time", type=float, default=3.0)
    ap.add_argument("--cc", default=None, help="the sender's congestion control (default: the host's)")
    args = ap.parse_args()
    why = can_make_namespaces()
    if why:
        print(f"cannot run: {why}")
        return 1
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    shares, efficiencies = [], []
    try:
        for i in range(args.runs):
            out = one_run(args.ack_rate, args.time, args.cc)
            info, v = out["tcp_info"], out["verdict"]
            shares.append(info["rwnd_limited_share"])
            efficiencies.append(v["efficiency"])
            print(f"run {i + 1}: {v['measured_bytes_per_s'] * 8 / 1e6:8.1f} Mbit/s  rtt {info['rtt_s'] * 1e3:7.3f} ms  "
                  f"rwnd_limited {info['rwnd_limited_share']:.3f}  sndbuf_limited "
                  f"{info.get('sndbuf_limited_share') or 0:.3f}  binding {v['binding']['kind']} "
                  f"({v['binding']['ceiling_bytes_per_s'] * 8 / 1e6:.1f} Mbit/s, efficiency {v['efficiency']:.3f})  {v['verdict']}; "
                  f"limited by {v['limited_by']}", flush=True)
    finally:
        for p in load:
            p.kill()
            p.wait()
    print(f"cc {args.cc or 'default'}, ack-rate {args.ack_rate or 'none'}, load {args.load}, {len(shares)} runs: rwnd_limited share "
          f"min {min(shares):.3f}  median {statistics.median(shares):.3f}  max {max(shares):.3f}; efficiency (measured / "
          f"binding) min {min(efficiencies):.3f}  median {statistics.median(efficiencies):.3f}  "
          f"max {max(efficiencies):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
