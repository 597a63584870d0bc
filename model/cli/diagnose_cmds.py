"""``pinchpoint diagnose``: is a measured throughput good?  Every ceiling, the binding one, a verdict.

Examples::

    pinchpoint diagnose --measured "705 Mbit/s" --link "10 Gbit/s" --mtu 9000 --rtt "44.5 ms" --window "4 MiB"
    pinchpoint diagnose --measured "260 Mbit/s" --link "1 Gbit/s"
    pinchpoint diagnose --measured "7.8 Gbit/s" --protocol udp --side sender --profile powermac-g5 \\
        --flow nic-tx --mtu 9000 --mmrbc 4096
    pinchpoint diagnose --iperf3 run.json --link "10 Gbit/s" --json
"""

from __future__ import annotations

import argparse

#: DiagnoseInputs field -> the flag a user types (errors name the flag).
FLAGS = {
    "measured_bytes_per_s": "--measured", "line_bytes_per_s": "--link", "rtt_s": "--rtt",
    "window_bytes": "--window", "buffer_bytes": "--rcvbuf", "mtu_bytes": "--mtu", "loss": "--loss",
    "streams": "--streams", "protocol": "--protocol", "side": "--side", "flow": "--flow",
    "clock_hz": "--clock", "cores": "--cores", "mmrbc_bytes": "--mmrbc", "mss_bytes": "--mss",
    "mathis_c": "--mathis-c", "outstanding_reads": "--outstanding-reads", "read_latency_s": "--read-latency", "adv_win_scale": "--adv-win-scale", "medium": "--medium",
    "loss_model": "--loss-model", "retransmit_rate": "--retransmit-rate", "os": "--os",
}


#: The flags of each group, in the order ``--help`` lists them (``report`` takes a subset).
MEASUREMENT = ("measured", "iperf3", "protocol", "side", "streams")
NETWORK_PATH = ("link", "medium", "mtu", "mss", "ipv6", "no_timestamps", "vlan", "rtt", "window", "rcvbuf",
                "so_rcvbuf", "adv_win_scale", "os", "loss", "retransmit_rate", "loss_model", "mathis_c")
HOST = ("profile", "flow", "clock", "cores", "mmrbc", "outstanding_reads", "read_latency")
#: One of these at most: each says what the TCP window is.
_WINDOW = ("window", "rcvbuf", "so_rcvbuf")


def _measurement_flags() -> dict[str, tuple[str, dict]]:
    """Parameter -> (flag, add_argument keywords): the one definition of diagnose's inputs, shared
    by every command that judges a measurement (diagnose, report)."""
    from pinchpoint.physics import tcp
    from pinchpoint.diagnose.inputs import MEDIA
    from pinchpoint.diagnose.os_defaults import OPERATING_SYSTEMS

    return {
        "measured": ("--measured", dict(metavar="RATE", help="the measured payload rate, e.g. '260 Mbit/s'")),
        "iperf3": ("--iperf3", dict(metavar="FILE", help="read the rate, RTT, MSS, buffers and retransmits from "
                                                         "iperf3 -J output ('-': standard input) (flags given as "
                                                         "well override it)")),
        "protocol": ("--protocol", dict(choices=("tcp", "udp"), help="default tcp (or the iperf3 file's)")),
        "side": ("--side", dict(choices=("sender", "receiver"), help="which end reported the figure")),
        "streams": ("--streams", dict(type=int, metavar="N", help="parallel streams (default 1)")),
        "link": ("--link", dict(metavar="RATE", help="raw line rate, e.g. '1 Gbit/s' (or from the profile)")),
        "medium": ("--medium", dict(choices=MEDIA, default="ethernet",
                                    help="framing on the line (atm: AAL5 over SONET OC-3c; appletalk: DDP on "
                                         "Ethernet)")),
        "mtu": ("--mtu", dict(metavar="SIZE", help="MTU (default: the profile NIC's, else 1500 on Ethernet, "
                                                   "9180 ATM, 4352 FDDI)")),
        "mss": ("--mss", dict(metavar="SIZE", help="TCP MSS (default MTU minus headers)")),
        "ipv6": ("--ipv6", dict(action="store_true", help="IPv6 headers (40 B instead of 20)")),
        "no_timestamps": ("--no-timestamps", dict(action="store_true",
                                                  help="TCP without the 12-byte timestamps option")),
        "vlan": ("--vlan", dict(action="store_true", help="802.1Q tagged frames (+4 B)")),
        "rtt": ("--rtt", dict(metavar="TIME", help="round-trip time, e.g. '44.5 ms'")),
        "window": ("--window", dict(metavar="SIZE", help="TCP window per stream, e.g. '4 MiB' or iperf3's '64K'")),
        "rcvbuf": ("--rcvbuf", dict(metavar="SIZE", help="receive buffer as the kernel holds it (tcp_rmem max, "
                                                         "getsockopt); the window is a share of it")),
        "so_rcvbuf": ("--so-rcvbuf", dict(metavar="SIZE", help="the value passed to setsockopt(SO_RCVBUF) or "
                                                               "iperf -w (Linux doubles it)")),
        "adv_win_scale": ("--adv-win-scale", dict(type=int, default=None, metavar="N",
                                                  help="net.ipv4.tcp_adv_win_scale (default 1: the window is "
                                                       "half the buffer)")),
        "loss": ("--loss", "--loss-events", dict(dest="loss", metavar="P",
                                                 help="the loss-event rate (congestion episodes per segment), "
                                                      "e.g. '1e-5' or '0.01%%'")),
        "retransmit_rate": ("--retransmit-rate", dict(metavar="P",
                                                      help="retransmitted / sent segments (iperf3's Retr / "
                                                           "segments): overstates the loss-event rate, so its "
                                                           "ceiling is a lower bound")),
        "os": ("--os", dict(choices=OPERATING_SYSTEMS + ("host",),
                            help="the window is what this OS's default buffers allow (linux: tcp_rmem max 6 MiB, "
                                 "half of it as window; host: the tcp_rmem this host runs with)")),
        "loss_model": ("--loss-model", dict(metavar="NAME",
                                            help="the TCP model: cubic (default, Linux's), reno (Mathis), pftk, "
                                                 "bbr, or any in pinchpoint.diagnose.LOSS_MODELS")),
        "mathis_c": ("--mathis-c", dict(type=float, metavar="C",
                                        help=f"Mathis constant (default sqrt(3/2) = {tcp.C_MATHIS:.4g}; "
                                             f"sqrt(3/4) = {tcp.C_MATHIS_DELAYED_ACK:.2g} with delayed ACKs)")),
        "profile": ("--profile", dict(help="machine profile (bundled name or .toml path) for host path ceilings")),
        "flow": ("--flow", dict(help="the profile flow the data takes (e.g. nic-rx, nic-tx)")),
        "clock": ("--clock", dict(metavar="FREQ", help="the CPU clock in use now (a throttled CPU), e.g. '2.0 GHz'")),
        "cores": ("--cores", dict(type=int, metavar="N",
                                  help="CPU cores available (default: the profile's, else 1)")),
        "mmrbc": ("--mmrbc", dict(metavar="SIZE", help="PCI-X MMRBC (burst) in bytes: 512, 1024, 2048 or 4096")),
        "outstanding_reads": ("--outstanding-reads", dict(type=int, metavar="N",
                                                          help="PCI-X split reads the NIC keeps in flight (with "
                                                               "--read-latency: the DMA-read bound)")),
        "read_latency": ("--read-latency", dict(metavar="TIME", help="memory read latency seen from the bus, e.g. "
                                                                     "'1 us' (default: the profile memory's "
                                                                     "latency)")),
    }


def add_measurement_arguments(group, names) -> None:
    """Add diagnose's flags ``names`` (parameter names, see :data:`MEASUREMENT` ...) to ``group``;
    the window flags among them exclude each other."""
    flags = _measurement_flags()
    window = None
    for name in names:
        *spellings, keywords = flags[name]
        if name in _WINDOW:
            window = window or group.add_mutually_exclusive_group()
            window.add_argument(*spellings, **keywords)
        else:
            group.add_argument(*spellings, **keywords)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "diagnose", help="is a measured throughput good? every ceiling, the binding one, a verdict",
        description="Judge a measured throughput (payload rate, as iperf reports it) against every ceiling "
                    "that applies: line rate, framing, TCP window, loss (Mathis), the host path of a profile "
                    "flow (PCI-X, PCIe, HyperTransport, memory ...) and the CPU.  Rates take units "
                    "('260 Mbit/s', '1 Gbps', '6.4 GB/s'), sizes too ('4 MiB', '100 MB'; MTU and MMRBC may be "
                    "plain byte counts), times '44.5 ms'.")
    add_measurement_arguments(p.add_argument_group("the measurement"), MEASUREMENT)
    add_measurement_arguments(p.add_argument_group("the network path"), NETWORK_PATH)
    add_measurement_arguments(p.add_argument_group("the host"), HOST)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(run=run_diagnose)


def _size(text, flag):
    """A size as pint or iperf3 write it ('4 MiB', '64K', '64KB'); a plain number is bytes."""
    from pinchpoint.physics import units

    if text is None:
        return None
    return units.parse_iperf3_size(text, key=flag)


def _fraction(text, flag):
    from pinchpoint.physics import units

    return None if text is None else units.parse_fraction(text, key=flag)


def _relocate(exc, origin_file):
    """Name the flag (or the iperf3 file's value) a DiagnoseInputs error comes from."""
    from pinchpoint.errors import InputError

    key = exc.key
    if key in FLAGS and exc.file is None:
        return InputError(exc.message, key=FLAGS[key])
    if key in FLAGS and exc.file is not None:
        return InputError(exc.message + f" (from the iperf3 file; override with {FLAGS[key]})", file=exc.file,
                          key=key)
    return exc


def gather(args: argparse.Namespace, profile=None) -> dict:
    """DiagnoseInputs keyword arguments from the flags (and the iperf3 file); ``profile``, when a
    command has loaded it already, instead of the ``--profile`` flag."""
    from pinchpoint.physics import units
    from pinchpoint.errors import InputError

    fields: dict = {}

    def a(name):  # other commands reuse gather() with a subset of these flags
        return getattr(args, name, None)

    if a("iperf3"):
        from pinchpoint.importers.iperf3 import load_iperf3, parse_iperf3
        from pinchpoint.cli.stdin import STDIN_NAME, is_stdin, read_stdin

        report = (parse_iperf3(read_stdin("--iperf3"), file=STDIN_NAME) if is_stdin(a("iperf3"))
                  else load_iperf3(a("iperf3")))
        fields.update(report.diagnose_fields(a("side")))
    elif a("measured") is None:
        raise InputError("give the measured rate (--measured '260 Mbit/s') or an iperf3 report (--iperf3 FILE)",
                         key="--measured")

    def put(name, value):
        if value is not None:
            fields[name] = value

    put("measured_bytes_per_s", units.parse(a("measured"), "bandwidth", key="--measured") if a("measured") else None)
    put("protocol", a("protocol"))
    put("side", a("side"))
    put("streams", a("streams"))
    put("line_bytes_per_s", units.parse(a("link"), "bandwidth", key="--link") if a("link") else None)
    put("medium", a("medium"))
    put("mtu_bytes", _size(a("mtu"), "--mtu"))
    put("mss_bytes", _size(a("mss"), "--mss"))
    if a("ipv6"):
        fields["ip_version"] = 6
    if a("no_timestamps"):
        fields["timestamps"] = False
    if a("vlan"):
        fields["vlan"] = True
    put("rtt_s", units.parse(a("rtt"), "time", key="--rtt") if a("rtt") else None)
    if a("window") or a("rcvbuf") or a("so_rcvbuf"):
        for k in ("window_bytes", "buffer_bytes", "buffer_requested"):
            fields.pop(k, None)
    put("window_bytes", _size(a("window"), "--window"))
    if a("rcvbuf"):
        fields["buffer_bytes"] = _size(a("rcvbuf"), "--rcvbuf")
    if a("so_rcvbuf"):
        fields["buffer_bytes"] = _size(a("so_rcvbuf"), "--so-rcvbuf")
        fields["buffer_requested"] = True
    put("adv_win_scale", a("adv_win_scale"))
    put("loss", _fraction(a("loss"), "--loss"))
    if a("retransmit_rate") is not None:
        fields["retransmit_rate"] = _fraction(a("retransmit_rate"), "--retransmit-rate")
        if a("loss") is None:
            fields.pop("loss", None)  # the user says what the figure is: not the file's event rate
    if a("os") == "host":
        from pinchpoint.diagnose.live import host_buffer_defaults

        defaults = host_buffer_defaults()
        if defaults is None:
            raise InputError("cannot read this host's net.ipv4.tcp_rmem (not Linux?): give --os linux",
                             key="--os")
        fields["buffer_defaults"] = defaults
    else:
        put("os", a("os"))
    put("mathis_c", a("mathis_c"))
    put("loss_model", a("loss_model"))
    put("clock_hz", units.parse(a("clock"), "frequency", key="--clock") if a("clock") else None)
    put("cores", a("cores"))
    put("mmrbc_bytes", _size(a("mmrbc"), "--mmrbc"))
    put("outstanding_reads", a("outstanding_reads"))
    put("read_latency_s", units.parse(a("read_latency"), "time", key="--read-latency") if a("read_latency") else None)
    if profile is not None:
        fields["profile"] = profile
    elif a("profile"):
        from pinchpoint.cli.common import load_profile_arg

        fields["profile"] = load_profile_arg(a("profile"))
    put("flow", a("flow"))
    return fields


def run_diagnose(args: argparse.Namespace) -> int:
    from pinchpoint.diagnose import DiagnoseInputs, diagnose
    from pinchpoint.errors import InputError
    from pinchpoint.cli.output import print_json
    from pinchpoint.cli.common import render_verdict

    fields = gather(args)
    # Flags given on the command line are the user's, not the file's: errors on them name the flag.
    flag_fields = {k for k, flag in FLAGS.items() if getattr(args, flag[2:].replace("-", "_"), None) is not None}
    flags = dict(FLAGS)
    if args.so_rcvbuf:
        flag_fields.add("buffer_bytes")
        flags["buffer_bytes"] = "--so-rcvbuf"
    try:
        verdict = diagnose(DiagnoseInputs(**fields))
    except InputError as exc:
        if exc.key in flag_fields:
            raise InputError(exc.message, key=flags[exc.key]) from None
        raise _relocate(exc, args.iperf3) from None
    if args.json:
        print_json(verdict.to_dict())
        return 0
    print(render_verdict(verdict))
    return 0
