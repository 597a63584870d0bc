"""Read throughput-vs-clients series from CSV (an edge module: it reads files).

The format (``profiles/concurrency/*.csv``)::

    # free comment lines, the source first
    # unit: queries/s
    series,clients,throughput
    macosx-server-10.4,5,113

``series`` is optional (one series called after the file when absent); ``clients`` may be
written ``n`` or ``N`` and ``throughput`` ``x`` or ``X``; other columns are ignored.  A
``# unit: ...`` comment names the throughput unit for reports.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pinchpoint.errors import InputError, shown
from pinchpoint.inputs.input_text import read_text
from pinchpoint.paths import data_root, display_stem, is_file

_CLIENTS = ("clients", "n")
_THROUGHPUT = ("throughput", "x")


@dataclass(frozen=True, eq=False)
class Series:
    name: str
    clients: np.ndarray
    throughput: np.ndarray


@dataclass(frozen=True, eq=False)
class SeriesFile:
    path: str
    unit: str
    comments: tuple[str, ...]
    series: tuple[Series, ...] = field(default=())


def bundled_series() -> dict[str, Path]:
    """Bundled concurrency data files (stem -> path)."""
    folder = data_root("profiles") / "concurrency"
    return {p.stem: p for p in sorted(folder.glob("*.csv"))}


def resolve(name_or_path: str) -> Path:
    p = Path(name_or_path)
    if is_file(p):
        return p
    bundled = bundled_series()
    if name_or_path in bundled:
        return bundled[name_or_path]
    if p.suffix == ".csv" and p.name in {b.name for b in bundled.values()}:
        return bundled[p.stem]
    raise InputError(f"no such file (bundled series: {', '.join(bundled) or 'none'})", file=str(name_or_path))


def read_series(name_or_path: str) -> SeriesFile:
    """Read a CSV of throughput vs clients; errors name the file and line."""
    path = resolve(name_or_path)
    return parse_series(read_text(path, InputError), path)


def parse_series(text: str, path: str | Path = "<stdin>") -> SeriesFile:
    """Parse CSV text of throughput vs clients (``path`` names it in errors and is the default
    series name)."""
    path = Path(path)
    comments, rows = [], []
    for lineno, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            comments.append(s[1:].strip())
            continue
        rows.append((lineno, line))
    unit = next((c.split(":", 1)[1].strip() for c in comments if c.lower().startswith("unit:")), "1/s")
    if not rows:
        raise InputError("no header and no data (expected a header 'clients,throughput')", file=str(path))
    try:
        records = list(csv.reader([r[1] for r in rows]))
    except csv.Error as exc:  # a field over csv's 131,072-character limit, a NUL byte
        raise InputError(f"not readable as CSV ({shown(str(exc))})", file=str(path)) from None
    reader = iter(records)
    header = [h.strip().lower() for h in next(reader)]
    try:
        ci = next(header.index(h) for h in _CLIENTS if h in header)
        xi = next(header.index(h) for h in _THROUGHPUT if h in header)
    except StopIteration:
        raise InputError(f"the header {','.join(header)!r} needs columns 'clients' and 'throughput'",
                         file=str(path), line=rows[0][0]) from None
    si = header.index("series") if "series" in header else None
    data: dict[str, list[tuple[float, float]]] = {}
    for (lineno, _), rec in zip(rows[1:], reader):
        if len(rec) < len(header):
            raise InputError(f"expected {len(header)} columns, got {len(rec)}", file=str(path), line=lineno)
        try:
            n, x = float(rec[ci]), float(rec[xi])
        except ValueError:
            raise InputError(f"clients and throughput must be numbers, got {rec[ci]!r}, {rec[xi]!r}",
                             file=str(path), line=lineno) from None
        if not (math.isfinite(n) and math.isfinite(x)):
            raise InputError("clients and throughput must be finite", file=str(path), line=lineno)
        name = rec[si].strip() if si is not None else display_stem(path)
        data.setdefault(name, []).append((n, x))
    if not data:
        raise InputError("no data rows after the header", file=str(path))
    series = tuple(Series(k, np.array([a for a, _ in v]), np.array([b for _, b in v])) for k, v in data.items())
    return SeriesFile(str(path), unit, tuple(comments), series)
