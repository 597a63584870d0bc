"""``pinchpoint detect`` and ``pinchpoint import kerncraft|likwid|fio``: describe real machines
from what they reveal and from the tools people already run."""

from __future__ import annotations

import argparse

from pinchpoint.cli.output import output_path


def add_parser(sub) -> None:
    p = sub.add_parser(
        "detect", help="a profile of this machine from hwloc (lstopo) and /sys, with flags",
        description="Detect this machine: CPU, caches, clocks, memory, PCIe links, NICs and disks "
                    "from hwloc's XML (lstopo) when available, else /sys and /proc.  Values the "
                    "machine does not reveal are listed as unknown, never invented.  Prints flags "
                    "(a downgraded PCIe link, a throttled CPU, MTU 1500 on 10 GbE).")
    output_path(p, "-o", "--output", suffixes=(".toml",), metavar="PROFILE.toml", help="write the profile here (atomically)")
    p.add_argument("--name", help="profile name (default: the host name)")
    p.add_argument("--measure", action="store_true",
                   help="also run the quick STREAM and MAPS kernels (pinchpoint measure --quick), write "
                        "PROFILE.signature.json beside the profile (./detected.signature.json without -o) "
                        "and give the profile a measured memory link")
    p.add_argument("--signature", metavar="SIG.json",
                   help="take the measured memory bandwidth from this signature (STREAM or MAPS points)")
    p.add_argument("--json", action="store_true", help="print facts, flags and the profile as JSON")
    p.add_argument("--sysfs-root", metavar="DIR",
                   help="read DIR/sys and DIR/proc instead of the live system (recorded trees); "
                        "lstopo is then not run")
    p.add_argument("--hwloc-xml", metavar="FILE", help="use this `lstopo --of xml` output ('-': stdin)")
    p.add_argument("--no-hwloc", action="store_true", help="do not run lstopo; read /sys and /proc only")
    p.add_argument("--nvidia-smi-q", metavar="FILE", help="use this `nvidia-smi -q` output (GPUs)")
    p.add_argument("--nvidia-smi-topo", metavar="FILE", help="use this `nvidia-smi topo -m` output (NVLink)")
    p.set_defaults(run=run_detect)

    imp = sub.add_parser("import", help="import kerncraft machine files, likwid-bench and fio output",
                         description="Turn other tools' files into pinchpoint profiles and signatures.")
    isub = imp.add_subparsers(dest="format", metavar="FORMAT")
    isub.required = True
    from pinchpoint.importers.registry import IMPORTERS

    custom = {"kerncraft": _add_import_kerncraft, "nccl": _add_import_nccl}
    for entry in IMPORTERS.values():  # the registry's order
        if entry.cli == "custom" and entry.name in custom:
            custom[entry.name](isub)
        elif entry.cli == "signature":
            g = isub.add_parser(entry.name, help=entry.help)
            g.add_argument("file", metavar="FILE", nargs="+", help=entry.file_help)
            output_path(g, "-o", "--output", suffixes=(".json",), required=True, metavar="SIG.json",
                        help="write the signature here (atomically)")
            g.set_defaults(run=run_import_signature)


def _add_import_kerncraft(isub) -> None:
    k = isub.add_parser("kerncraft", help="a kerncraft machine file (YAML) -> profile (+ signature)")
    k.add_argument("file", metavar="FILE", help="kerncraft machine file (YAML; '-': stdin)")
    output_path(k, "-o", "--output", suffixes=(".toml",), required=True, metavar="PROFILE.toml",
                help="write the profile here (atomically)")
    output_path(k, "--signature", suffixes=(".json",), metavar="SIG.json",
                help="also write its likwid-bench measurements as a signature")
    k.set_defaults(run=run_import_kerncraft)


def _add_import_nccl(isub) -> None:
    n = isub.add_parser("nccl", help="NCCL topology XML (NCCL_TOPO_DUMP_FILE) -> profile (+ NCCL's path bandwidths)")
    n.add_argument("file", metavar="FILE", help="NCCL topology XML file ('-': stdin)")
    output_path(n, "-o", "--output", suffixes=(".toml",), required=True, metavar="PROFILE.toml",
                help="write the profile here (atomically)")
    n.add_argument("--compare", action="store_true",
                   help="print NCCL's path bandwidth beside pinchpoint's for every flow")
    n.add_argument("--nvidia-smi-topo", metavar="FILE",
                   help="merge NVLink from this `nvidia-smi topo -m` output (GPU i: the file's i-th GPU in "
                        "PCI bus order); static topology files such as AWS's have no <nvlink>")
    n.set_defaults(run=run_import_nccl)


def _read_text(path: str, flag: str) -> str:
    from pinchpoint.errors import InputError
    from pinchpoint.cli.stdin import is_stdin, read_stdin
    from pinchpoint.inputs.input_text import read_text

    if is_stdin(path):
        return read_stdin(flag)
    return read_text(path, InputError, key=flag)


def _display_name(path: str) -> str:
    from pinchpoint.cli.stdin import STDIN_NAME, is_stdin

    return STDIN_NAME if is_stdin(path) else path


def _check_folder(path: str, flag: str) -> None:
    from pathlib import Path

    from pinchpoint.errors import InputError

    parent = Path(path).parent
    if str(parent) and not parent.is_dir():
        raise InputError(f"the folder {parent} does not exist", file=path, key=flag)


def _run_lstopo() -> str | None:
    """`lstopo --of xml -` of this machine, or None where hwloc is missing or fails."""
    import shutil
    import subprocess

    exe = shutil.which("lstopo") or shutil.which("lstopo-no-graphics")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, "--of", "xml", "-"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 and out.stdout.strip() else None


def _run_nvidia_smi(*args: str) -> str | None:
    """`nvidia-smi ARGS` of this machine, or None where it is missing or fails."""
    import shutil
    import subprocess

    exe = shutil.which("nvidia-smi")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 and out.stdout.strip() else None


def _check_detect_args(args: argparse.Namespace) -> None:
    from pathlib import Path

    from pinchpoint.errors import InputError

    if args.output:
        _check_folder(args.output, "-o")
    if args.measure and args.signature:
        raise InputError("give --measure or --signature, not both", key="--signature")
    if args.measure and (args.sysfs_root or args.hwloc_xml):
        which = "the tree under --sysfs-root" if args.sysfs_root else "the one --hwloc-xml describes"
        raise InputError(f"--measure measures the machine it runs on, not {which} "
                         "(use --signature with a signature of that machine)", key="--measure")
    root = Path(args.sysfs_root or "/")
    if args.sysfs_root and not (root / "sys").is_dir() and not (root / "proc").is_dir():
        raise InputError("expected a folder holding sys/ and/or proc/", file=args.sysfs_root,
                         key="--sysfs-root")


def _gather_facts(args: argparse.Namespace):
    """(facts, the name of what they were read from) for detect's arguments."""
    from pathlib import Path

    from pinchpoint.measure import detect

    xml_text, xml_file = None, None
    if args.hwloc_xml:
        xml_text, xml_file = _read_text(args.hwloc_xml, "--hwloc-xml"), _display_name(args.hwloc_xml)
    elif not args.sysfs_root and not args.no_hwloc:
        xml_text, xml_file = _run_lstopo(), "lstopo --of xml -"
    # A file describes its own machine: with --hwloc-xml, /sys is read only when --sysfs-root
    # names a recorded tree (of the same machine), never the live one; nor is nvidia-smi run.
    root = Path(args.sysfs_root or "/")
    live = None if args.hwloc_xml and not args.sysfs_root else root
    smi_q = _read_text(args.nvidia_smi_q, "--nvidia-smi-q") if args.nvidia_smi_q else None
    smi_topo = _read_text(args.nvidia_smi_topo, "--nvidia-smi-topo") if args.nvidia_smi_topo else None
    q_file, topo_file = args.nvidia_smi_q, args.nvidia_smi_topo
    if not args.sysfs_root and not args.hwloc_xml:  # the live machine: ask nvidia-smi
        if smi_q is None:
            smi_q, q_file = _run_nvidia_smi("-q"), "nvidia-smi -q"
        if smi_topo is None:
            smi_topo, topo_file = _run_nvidia_smi("topo", "-m"), "nvidia-smi topo -m"
    facts = detect.detect(live, xml_text, hwloc_file=xml_file, nvidia_smi_q=smi_q, nvidia_topo=smi_topo,
                          nvidia_files=(q_file, topo_file))
    if args.hwloc_xml:
        return facts, xml_file
    return facts, f"{args.sysfs_root} (--sysfs-root)" if args.sysfs_root else (xml_file or "/sys")


def _measured_memory(args: argparse.Namespace):
    """(rate, source, signature path) from --signature or --measure; Nones without either."""
    from pathlib import Path

    from pinchpoint.cli.common import show_progress
    from pinchpoint.cli.output import warn
    from pinchpoint.inputs.signature import dump_signature, load_signature
    from pinchpoint.measure import detect
    from pinchpoint.measure.noise import noise_summary, noisy_points

    if not (args.signature or args.measure):
        return None, None, None
    if args.signature:
        sig, sig_path = load_signature(args.signature), args.signature
    else:
        from pinchpoint.measure.session import measure  # only with --measure: it brings the kernel runner

        sig = measure("quick", ("stream", "maps"), progress=show_progress())
        sig_path = (str(Path(args.output).with_suffix("")) + ".signature.json") if args.output \
            else "detected.signature.json"
        dump_signature(sig, sig_path)
    rate, source = detect.memory_rate_from_signature(sig, file=sig_path)
    noisy = noise_summary(noisy_points(sig))
    if noisy:
        warn(noisy)
    return rate, source, sig_path


def run_detect(args: argparse.Namespace) -> int:
    import datetime as _dt

    from pinchpoint.cli.output import print_json
    from pinchpoint.inputs.profile import profile_from_document
    from pinchpoint.inputs.profile_io import dump_document
    from pinchpoint.measure import detect

    _check_detect_args(args)
    facts, input_name = _gather_facts(args)
    rate, source, sig_path = _measured_memory(args)
    doc = detect.facts_to_profile_document(facts, name=args.name, memory_rate=rate, memory_source=source,
                                           created=_dt.date.today().isoformat())
    # never write what cannot load; a refusal names what the values came from, not the output
    profile_from_document(doc, file=input_name)
    found = detect.flags(facts)
    if args.output:
        dump_document(doc, args.output)
    if args.json:
        print_json({"facts": facts.to_dict(), "flags": [f.to_dict() for f in found],
                    "not_checked": detect.unchecked(facts), "profile": doc,
                    "written": args.output, "signature": sig_path})
        return 0
    _print_detected(facts, doc, found, args, sig_path)
    return 0


def _print_detected(facts, doc, found, args: argparse.Namespace, sig_path: str | None) -> None:
    from pinchpoint.measure import detect

    print(_summary(facts, doc))
    if found:
        print()
        for fl in found:
            print(f"FLAG {fl.kind}: {fl.message}")
    blind = detect.unchecked(facts)
    if not found:
        print("\nno flags: " + ("nothing that could be checked runs below what it could" if blind
                                else "nothing detected runs below what it could"))
    if blind:
        print("not checked (unknown on this machine): " + "; ".join(blind))
    if sig_path and args.measure:
        print(f"\nwrote {sig_path}")
    if args.output:
        print(f"\nwrote {args.output}  (`pinchpoint ceilings {args.output}`)")


def _summary(facts, doc) -> str:
    from pinchpoint.inputs.doc_values import bytes_text
    from pinchpoint.measure.detect_pcie import link_text
    from pinchpoint.physics.units import format_quantity, format_rate

    def q(v, dim):
        return "unknown" if v is None else format_quantity(v, dim)

    lines = [f"CPU      {facts.cpu_model or 'unknown'}: {facts.sockets or '?'} socket(s), "
             f"{facts.cores or '?'} cores, {facts.threads or '?'} threads",
             f"clock    nominal {q(facts.nominal_clock, 'frequency')}, now {q(facts.current_clock, 'frequency')}, "
             f"governor {facts.governor or 'unknown'}",
             "caches   " + (", ".join(f"L{c.level}{'d' if c.type == 'data' else 'i' if c.type == 'instruction' else ''}"
                                      f" {bytes_text(c.size_bytes)}"
                                      + (f" ({c.instances} x, {c.cpu_kind})" if c.cpu_kind else "")
                                      for c in facts.caches) or "unknown"),
             f"memory   {q(facts.memory_bytes, 'size')}"]
    for n in facts.nics:
        speed = format_rate(n.speed_bytes_per_s, 'network') if n.speed_bytes_per_s else 'speed unknown'
        lines.append(f"nic      {n.name}: {speed}, "
                     f"MTU {n.mtu or 'unknown'}, PCI {n.pci_address or 'unknown'}")
    for d in facts.pci:
        if d.current_speed or d.current_width or d.link_bytes_per_s:
            link = (f"{link_text(d.current_speed, d.current_width)} (max {link_text(d.max_speed, d.max_width)})"
                    if d.current_speed or d.current_width else
                    f"{format_rate(d.link_bytes_per_s, 'memory')} (hwloc)")
            lines.append(f"pcie     {d.address} class {d.class_code or '?'}: {link}")
    for d in facts.disks:
        lines.append(f"disk     {d.name}: {q(d.size_bytes, 'size')}")
    n_links = len(doc.get("links", {}))
    lines.append(f"profile  {len(doc['components'])} components, {n_links} links with known capacity, "
                 f"flows: {', '.join(doc.get('flows', {})) or 'none (no link capacity is known)'}")
    return "\n".join(lines)


def _write_signature(sig, path: str) -> None:
    from pinchpoint.inputs.signature import dump_signature

    dump_signature(sig, path)


def run_import_kerncraft(args: argparse.Namespace) -> int:
    import sys

    from pinchpoint.importers import kerncraft
    from pinchpoint.inputs.profile import profile_from_document
    from pinchpoint.inputs.profile_io import dump_document

    _check_folder(args.output, "-o")
    if args.signature:
        _check_folder(args.signature, "--signature")
    text = _read_text(args.file, "FILE")
    source = _display_name(args.file)
    notes: list[str] = []
    machine = kerncraft.load_machine(text, file=source, notes=notes)
    doc = kerncraft.to_profile_document(machine, file=source)
    profile_from_document(doc, file=args.output)
    sig = kerncraft.to_signature(machine, file=source, notes=notes) if args.signature else None
    for flag in dict.fromkeys(kerncraft.benchmark_flags(machine, file=source) + notes):
        print(f"warning: {source}: {flag}", file=sys.stderr)
    dump_document(doc, args.output)
    print(f"wrote {args.output}: {doc['description']}")
    if sig is not None:
        _write_signature(sig, args.signature)
        n = sum(len(k.points) for k in sig.kernels.values())
        print(f"wrote {args.signature}: {n} likwid-bench points")
    return 0


def run_import_nccl(args: argparse.Namespace) -> int:
    from pinchpoint.cli.output import warn
    from pinchpoint.importers import nccl_topo
    from pinchpoint.inputs.profile import profile_from_document
    from pinchpoint.inputs.profile_io import dump_document
    from pinchpoint.physics.units import format_rate

    _check_folder(args.output, "-o")
    text = _read_text(args.file, "FILE")
    source = _display_name(args.file)
    topo = {}
    if args.nvidia_smi_topo:
        topo = {"nvidia_topo": _read_text(args.nvidia_smi_topo, "--nvidia-smi-topo"),
                "nvidia_topo_file": _display_name(args.nvidia_smi_topo)}
    notes: list[str] = []
    doc = nccl_topo.load_topology(text, file=source, notes=notes, **topo)
    profile_from_document(doc, file=source)  # an error names the XML it came from
    for note in notes + [nccl_topo.missing_nvlink(doc) or ""]:
        if note:
            warn(f"{source}: {note}")
    dump_document(doc, args.output)
    print(f"wrote {args.output}: {doc['description']}, {len(doc.get('flows', {}))} flows")
    if args.compare:
        rows = nccl_topo.compare_with_nccl(text, file=source, **topo)
        width = max(len(r["flow"]) for r in rows) if rows else 4
        print(f"\n{'flow':<{width}}  {'NCCL path':>11}  {'path raw':>11}  {'path eff':>11}  {'max-flow':>11}")
        for r in rows:
            print(f"{r['flow']:<{width}}  " + "  ".join(
                f"{format_rate(r[k], 'memory'):>11}" for k in ("nccl_bytes_per_s", "path_raw_bytes_per_s",
                                                                "path_effective_bytes_per_s",
                                                                "maxflow_effective_bytes_per_s")))
    return 0


def run_import_signature(args: argparse.Namespace) -> int:
    """Files of a registered signature format (likwid-bench text, fio JSON ...) -> one signature file."""
    from pinchpoint.importers.registry import IMPORTERS

    convert = IMPORTERS[args.format].converter()
    _check_folder(args.output, "-o")
    texts = [(_read_text(f, "FILE"), _display_name(f)) for f in args.file]
    sig = convert(texts)
    _write_signature(sig, args.output)
    n = sum(len(k.points) for k in sig.kernels.values())
    print(f"wrote {args.output}: {n} points")
    return 0
