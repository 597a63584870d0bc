"""How wide the quotients of a program's integer divisions are, sampled under GDB.

A divider's throughput depends on its quotient's width on many cores (Agner Fog,
"Instruction tables": DIV r64 of 10-18 cycles on AMD Zen 4; the Zen 5 of
benchmarks/results ran 1.7 ns per division up to 33 quotient bits, 2.2 ns from 45 on), and a
64-bit hash reduced ``% m`` by a table of a few thousand buckets divides with 50-bit
quotients.  Callgrind counts divisions but not their operands, so the program is run once
more, natively, under GDB: a breakpoint on each division the profile saw executed (in the
program's own executable) reads the dividend and divisor of its first ``samples``
executions, then is disabled, so the rest runs at full speed (value profiling: Calder,
Feller and Eustace, "Value profiling", MICRO 1997).  The first executions stand for all of
them, the bias value profilers accept.

Only divisions by a register of 32 or 64 bits are read (a divisor in memory, rare in
optimised code, is not).  Without GDB, or where the system forbids tracing another process,
nothing is sampled and the trace states no quotient width (the model then prices divisions
as before).  GDB starts the program itself (``startup-with-shell off``): no shell reads the
arguments.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

#: executions read per division site
SAMPLES = 256

_REG64 = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
          *(f"r{i}" for i in range(8, 16)))
_REG32 = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp",
          *(f"r{i}d" for i in range(8, 16)))

#: Run inside GDB (its Python): reads the spec a file names, writes the samples to another.
_SCRIPT = r'''
import gdb, json, os
spec = json.load(open(os.environ["PP_QUOTIENT_SPEC"]))
for c in ("set pagination off", "set confirm off", "set startup-with-shell off",
          "set print inferior-events off"):
    gdb.execute(c)
gdb.execute("starti", to_string=True)
base = 0
if spec["relocated"]:
    want = os.path.realpath(spec["object"])
    for line in gdb.execute("info proc mappings", to_string=True).splitlines():
        f = line.split()
        if len(f) >= 5 and f[-1] == want and int(f[3], 16) == 0:
            base = int(f[0], 16)
            break
found = {}
class Site(gdb.Breakpoint):
    def __init__(self, addr, reg, wide):
        super().__init__("*%#x" % (base + addr), internal=True)
        self.key, self.reg, self.wide, self.signed = str(addr), reg[0], wide, reg[1]
    def stop(self):
        bits = 64 if self.wide else 32
        mask = (1 << bits) - 1
        lo = int(gdb.parse_and_eval("$rax")) & mask
        hi = int(gdb.parse_and_eval("$rdx")) & mask
        d = int(gdb.parse_and_eval("$" + self.reg)) & mask
        n = (hi << bits) | lo
        if self.signed:
            n = n - (1 << 2 * bits) if n >> (2 * bits - 1) else n
            d = d - (1 << bits) if d >> (bits - 1) else d
        if d:
            got = found.setdefault(self.key, [0, 0])
            got[0] += (abs(n) // abs(d)).bit_length()
            got[1] += 1
            if got[1] >= spec["samples"]:
                self.enabled = False
        return False
for addr, (reg, signed, wide) in spec["sites"].items():
    Site(int(addr), (reg, signed), wide)
gdb.execute("continue", to_string=True)
with open(spec["out"], "w") as fh:
    json.dump(found, fh)
'''


def division_operand(mnemonic: str, operands: str) -> tuple[str, bool, bool] | None:
    """(divisor register, signed, 64-bit) of a ``div``/``idiv`` by a 32- or 64-bit register
    (Intel syntax), None for any other form."""
    if mnemonic not in ("div", "idiv"):
        return None
    reg = operands.strip()
    if reg in _REG64:
        return reg, mnemonic == "idiv", True
    if reg in _REG32:
        return reg, mnemonic == "idiv", False
    return None


def _stop(proc: subprocess.Popen) -> None:
    """End GDB and the program it runs: SIGTERM first (GDB kills its inferior as it quits),
    then SIGKILL to the session's whole process group."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _relocated(path: str) -> bool:
    """True for a position-independent executable (ELF type ET_DYN), whose addresses in the
    profile are offsets from where it is loaded."""
    with open(path, "rb") as fh:
        head = fh.read(18)
    return len(head) == 18 and head[:4] == b"\x7fELF" and int.from_bytes(head[16:18], "little") == 3


def sample_quotients(program: list[str], sites: dict[int, tuple[str, bool, bool]],
                     workdir: Path, *, timeout: float | None, cwd=None,
                     samples: int = SAMPLES) -> dict[int, float]:
    """Address -> mean quotient width [bits] of the divisions at ``sites`` (addresses in the
    executable ``program[0]``, a real path, each its :func:`division_operand`), from one
    native run under GDB, its files in a folder made in ``workdir`` and removed.  Empty
    without GDB, when GDB cannot trace the program, or past ``timeout`` seconds."""
    gdb = shutil.which("gdb")
    exe = program[0] if program else None
    if not gdb or not exe or not sites:
        return {}
    with tempfile.TemporaryDirectory(prefix="quotients-", dir=workdir) as tmp:
        spec, out, script = Path(tmp, "spec.json"), Path(tmp, "out.json"), Path(tmp, "q.py")
        script.write_text(_SCRIPT)
        spec.write_text(json.dumps({"object": exe, "relocated": _relocated(exe),
                                    "samples": samples, "out": str(out),
                                    "sites": {str(a): list(s) for a, s in sites.items()}}))
        env = {**os.environ, "PP_QUOTIENT_SPEC": str(spec)}
        try:
            proc = subprocess.Popen([gdb, "-nx", "-batch", "-x", str(script), "--args", exe,
                                     *program[1:]], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
        except OSError:
            return {}
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _stop(proc)
            return {}
        except BaseException:  # an interrupted trace leaves no GDB and no program running
            _stop(proc)
            raise
        try:
            found = json.loads(out.read_text())
        except (OSError, ValueError):
            return {}
    return {int(a): total / n for a, (total, n) in found.items() if n > 0}
