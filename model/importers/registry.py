"""The importers as a registry: which formats pinchpoint reads, what each produces, where its code is.

A registry, as pyhf's modifiers (``pyhf.modifiers``, extended from outside in
``tests/test_custom_mods.py``): :data:`IMPORTERS` maps a format name to an :class:`Importer`, and
:func:`register_importer` adds one.  ``pinchpoint import FORMAT FILE... -o OUT`` offers every entry
whose ``cli`` is ``"signature"`` with the same arguments (files, ``-` for stdin, an output written
atomically), so a new signature format is one registration; kerncraft and nccl have their own
options (``cli = "custom"``), and iperf3 output feeds ``diagnose --iperf3`` (``cli = None``).

``convert`` is a callable or ``"module:function"`` (imported on first use, so that listing the
formats stays light).  A signature importer's function takes ``[(text, file name), ...]`` and
returns a :class:`~pinchpoint.inputs.signature.Signature`, raising
:class:`~pinchpoint.errors.InputError` naming the file and key.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

CLI_KINDS = ("signature", "custom", None)


@dataclass(frozen=True)
class Importer:
    """One format: its name, what it produces, the function that reads it, how the CLI offers it."""

    name: str
    produces: str  # "profile", "signature", "profile+signature" or "diagnose inputs"
    convert: Callable | str
    help: str
    file_help: str = ""
    cli: str | None = "signature"

    def converter(self) -> Callable:
        """The conversion function (imported now where given as "module:function")."""
        if callable(self.convert):
            return self.convert
        module, _, function = self.convert.partition(":")
        return getattr(importlib.import_module(module), function)


#: format name -> importer, in the order ``pinchpoint import --help`` lists them.
IMPORTERS: dict[str, Importer] = {}


def register_importer(name: str, convert: Callable | str, *, produces: str = "signature", help: str = "",
                      file_help: str = "", cli: str | None = "signature", replace: bool = False) -> Importer:
    """Register a format; with ``cli="signature"`` it becomes ``pinchpoint import NAME FILE... -o SIG.json``."""
    if not name or not isinstance(name, str) or name.startswith("-") or " " in name:
        raise ValueError(f"an importer needs a one-word name, got {name!r}")
    if name in IMPORTERS and not replace:
        raise ValueError(f"importer {name!r} is already registered (replace=True to override)")
    if cli not in CLI_KINDS:
        raise ValueError(f"importer {name!r}: cli must be one of {CLI_KINDS}, got {cli!r}")
    if cli == "signature" and produces != "signature":
        raise ValueError(f"importer {name!r}: the generic import command writes signatures only")
    entry = Importer(name, produces, convert, help or f"{name} -> signature", file_help or f"{name} files", cli)
    IMPORTERS[name] = entry
    return entry


register_importer("kerncraft", "pinchpoint.importers.kerncraft:to_profile_document", produces="profile+signature",
                  help="a kerncraft machine file (YAML) -> profile (+ signature)", cli="custom")
register_importer("likwid", "pinchpoint.importers.likwid:to_signature",
                  help="likwid-bench text output -> signature",
                  file_help="likwid-bench output files (text; '-': stdin)")
register_importer("fio", "pinchpoint.importers.fio:to_signature",
                  help="fio --output-format=json -> signature (IO-BENCH points)",
                  file_help="fio --output-format=json files ('-': stdin)")
register_importer("nccl", "pinchpoint.importers.nccl_topo:load_topology", produces="profile",
                  help="NCCL topology XML (NCCL_TOPO_DUMP_FILE) -> profile (+ NCCL's path bandwidths)", cli="custom")
register_importer("iperf3", "pinchpoint.importers.iperf3:parse_iperf3", produces="diagnose inputs",
                  help="iperf3 -J output -> the inputs of pinchpoint diagnose (--iperf3)", cli=None)
