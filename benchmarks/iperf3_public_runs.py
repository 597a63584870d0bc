"""Read public iperf3 runs and judge each: how many are read, refused (and why), and the verdicts.

Usage::

    python3 benchmarks/iperf3_public_runs.py PATH [PATH ...]

Each PATH is an iperf3 report (JSON from -J, or the plain text iperf3 prints) or a folder searched
for *.json, *.txt and *.res files (the CloudPilot project's results folder on GitHub holds iperf3
3.6 and 3.9 runs between cloud regions as .res files).  Nothing is downloaded: fetch the files
first.  A run whose client says it is Linux (``start.system_info``) and set no buffer (-w) is judged
with Linux's default buffers (``--os linux``).  Prints counts and the time per file; exits 1 when a file raised anything but a one-line
InputError (a crash), else 0.
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

from pinchpoint.diagnose import DiagnoseInputs, diagnose
from pinchpoint.errors import PinchpointError
from pinchpoint.importers.iperf3 import load_iperf3


def files(paths):
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*") if q.suffix in (".json", ".txt", ".res") and q.is_file())
        else:
            yield p


def judge(path):
    """('read' | 'refused' | 'crash', detail) for one file."""
    try:
        r = load_iperf3(path)
    except PinchpointError as exc:
        return "refused", "import: " + str(exc).split(": ", 2)[-1][:70]
    except Exception as exc:  # noqa: BLE001 - counted, and the exit code says so
        return "crash", f"import: {type(exc).__name__}: {exc}"
    kind = f"{r.protocol}-{'text' if r.text else 'json'}" + ("-n" if r.bytes_mode else "") + (
        f"-P{r.streams}" if r.streams > 1 else "") + ("-R" if r.reverse else "")
    fields = r.diagnose_fields()
    if (r.system_info or "").startswith("Linux") and not r.requested_buffer_bytes:
        fields["os"] = "linux"  # a Linux client: its default buffers bound the window
    try:
        v = diagnose(DiagnoseInputs(**fields))
    except PinchpointError as exc:
        return "read", f"{kind}; verdict refused: {str(exc).split(': ', 2)[-1][:60]}"
    except Exception as exc:  # noqa: BLE001
        return "crash", f"diagnose: {type(exc).__name__}: {exc}"
    return "read", f"{kind}; {v.verdict}; binding {v.binding.kind}; loss figure {v.inputs['loss_rate_used']}"


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    outcomes, details = collections.Counter(), collections.Counter()
    crashes = []
    t0 = time.perf_counter()
    n = 0
    for path in files(argv):
        n += 1
        outcome, detail = judge(path)
        outcomes[outcome] += 1
        details[(outcome, detail)] += 1
        if outcome == "crash":
            crashes.append(f"{path}: {detail}")
    dt = time.perf_counter() - t0
    print(f"{n} files in {dt:.2f} s ({1e3 * dt / max(n, 1):.2f} ms each): " +
          ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    for (outcome, detail), count in details.most_common():
        print(f"{count:6d}  {outcome:8s} {detail}")
    for line in crashes[:20]:
        print("CRASH", line)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
