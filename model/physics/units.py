"""Units at the edges: parse "133 MHz", "64 bit", "6.4 GB/s", "4 MiB", "44.5 ms"; format results.

Inside pinchpoint every number is a plain float in SI base units (seconds, bytes, bytes per
second, hertz).  Only this module talks to pint, and only when a string has to be parsed or a
figure formatted.

pint's stock definitions make ``bit`` dimensionless and ``cycle`` an angle (2 pi rad), which
would let "133 Mbit/s" pass for a frequency and turn "3 cycle" into 18.85.  We therefore load a
patched copy of pint's own definition file in which ``bit`` is a unit of ``[information]``
(``byte = 8 bit`` follows) and ``cycle`` is a plain count, and add ``transfer`` (dimensionless,
so "400 MT/s" is a rate of 400e6 per second) and ``flop``.  The patched file lives in the
per-user cache folder (checked against the text on every start).  pint's own parse cache is
not used: it is a pickle, which runs code when loaded.

Building that registry costs about 0.4 s a process (importing pint and numpy, then parsing the
definitions), ten times the rest of a small ``ceilings``.  So the unit strings met in practice
("133 MHz", "6.4 GB/s", "64 KiB", ...) are looked up in units_table.json, a plain table of
(dimension, factor to the SI base unit) that tools/generate_units_table.py derives from this
very registry.  pint stays the authority: the table is used only while the
installed pint's patched definitions hash to the digest it was made from, a test re-derives
every entry and compares, and every other string (and every error) goes to pint as before.
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import re
import tokenize
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from pinchpoint.errors import UnitError, shown
from pinchpoint.paths import atomic_write, cache_dir

#: pint definition lines replaced in pint's default file (old line -> new line).
_PATCHES = {
    "bit = []": "bit = [information]",
    "turn = 2 * π * radian = _ = revolution = cycle = circle":
        "turn = 2 * π * radian = _ = revolution = circle",
}

#: Our own definitions, appended to pint's.
_EXTRA = """
cycle = 1 = cyc = cycles
transfer = 1 = _ = transfers
flop = [flop] = _ = flops
"""

#: The dimensions a profile value may be asked for, with an example for error messages.
DIMENSIONS = {
    "frequency": ("1 / [time]", "'133 MHz'"),
    "size": ("[information]", "'4 MiB' or '64 bit'"),
    "bandwidth": ("[information] / [time]", "'6.4 GB/s' or '10 Gbit/s'"),
    "time": ("[time]", "'44.5 ms'"),
    "flop_rate": ("[flop] / [time]", "'2.6 Gflop/s'"),
    "dimensionless": ("", "a plain number such as '2'"),
}

#: SI base unit of each dimension, as the float we keep inside.
BASE_UNITS = {
    "frequency": "Hz",
    "size": "B",
    "bandwidth": "B/s",
    "time": "s",
    "flop_rate": "flop/s",
    "dimensionless": "",
}

_TRANSFERS = re.compile(r"(?<![A-Za-z])([kMG]?)T/s\b")

#: What a quantity string may look like before pint sees it: one decimal number (at most 40
#: digits each side of the point, a 4-digit exponent) and unit names joined by "/" or "*".
#: pint evaluates what it is given: "9**9**9 Hz" spins a CPU for minutes and "1/0 MHz" divides
#: by zero, so operators, exponents, brackets and second numbers stop here.
_NUMBER = r"[+-]?(?:\d{1,40}(?:\.\d{0,40})?|\.\d{1,40})(?:[eE][+-]?\d{1,4})?"
_UNIT = r"[^\W\d]\w*"
_GRAMMAR = re.compile(rf"\s*{_NUMBER}\s*(?:{_UNIT}(?:\s*[/*]\s*{_UNIT})*)?\s*")
_MAX_TEXT = 200
_PLAIN_NUMBER_FOR_SIZES = r"(?:\d{1,40}(?:\.\d{0,40})?|\.\d{1,40})(?:[eE][+-]?\d{1,4})?"


def _patched_definitions(stock: Path) -> str:
    """pint's default_en.txt from the folder ``stock``, with our patches and extra lines."""
    text = (stock / "default_en.txt").read_text(encoding="utf-8")
    for old, new in _PATCHES.items():
        if old not in text:  # pint changed its file: better to fail loudly than mis-parse
            raise RuntimeError(f"pint's default_en.txt no longer contains {old!r}")
        text = text.replace(old, new)
    return text + _EXTRA


def _definitions_file() -> Path:
    import pint

    stock = Path(pint.__file__).parent
    text = _patched_definitions(stock)
    digest = hashlib.sha256((pint.__version__ + text).encode()).hexdigest()[:16]
    folder = cache_dir() / "units" / digest
    target = folder / "default_en.txt"
    # The file is rewritten whenever it is not exactly what we would write: whoever can write the
    # cache folder must not be able to redefine GB (the text is at hand, comparing is cheap).
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("constants_en.txt",):
            with atomic_write(folder / name) as out:
                out.write((stock / name).read_text(encoding="utf-8"))
        with atomic_write(target) as out:
            out.write(text)
    return target


@lru_cache(maxsize=1)
def registry():
    """The package's one pint UnitRegistry (built on first use)."""
    import pint

    # No cache_folder: pint caches its parsed definitions with pickle, and a pickle runs code
    # when loaded, so whoever could write the cache folder could run code as the user.  Parsing the definitions costs about 0.4 s a process instead.
    ureg = pint.UnitRegistry(str(_definitions_file()), cache_folder=None)
    ureg.formatter.default_format = "~P"
    return ureg


def _normalise(text: str) -> str:
    # "2.5 GT/s" would parse as gigatesla per second: spell transfers out.
    return _TRANSFERS.sub(lambda m: f"{m.group(1)}transfer/s", text.strip())


def quantity(text, *, file=None, key=None):
    """Parse a string (or number) into a pint Quantity; errors name the file and key."""
    import pint

    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise UnitError(f"expected a quantity such as '133 MHz', got {shown(text)}", file=file, key=key)
    if isinstance(text, (int, float)):
        try:
            number = float(text)
        except OverflowError:  # a 400-digit JSON integer
            number = math.inf
        if not math.isfinite(number):
            raise UnitError(f"{shown(text)} is not a finite number", file=file, key=key)
        return registry().Quantity(number, "")
    if len(text) > _MAX_TEXT or not _GRAMMAR.fullmatch(text):
        raise UnitError(f"{shown(text)} is not a quantity: expected one number and a unit such as "
                        "'133 MHz' or '6.4 GB/s' (no operators or exponents)", file=file, key=key)
    number = float(re.match(r"\s*(" + _NUMBER + ")", text).group(1))
    if not math.isfinite(number):
        raise UnitError(f"{shown(text)} is not finite: the number is beyond double precision",
                        file=file, key=key)
    ureg = registry()
    try:
        return ureg.Quantity(_normalise(text))
    except pint.errors.UndefinedUnitError as exc:
        names = ", ".join(repr(n) for n in exc.unit_names) if getattr(exc, "unit_names", None) else ""
        raise UnitError(f"{shown(text)} has an unknown unit {names}".rstrip(), file=file, key=key) from None
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, SyntaxError, ArithmeticError,
            tokenize.TokenError, AssertionError) as exc:  # TokenError on "((1", AssertionError on "1 GB/s -"
        raise UnitError(f"{shown(text)} is not a quantity ({shown(str(exc))})", file=file, key=key) from None


def parse(text, dimension: str, *, file=None, key=None) -> float:
    """Parse ``text`` as a ``dimension``; see :func:`_parse` (this wrapper adds a cache).

    Profiles repeat the same few strings ("64 bit", "133 MHz") many times, and pint's parser
    costs about 50 us a call, so successful parses are memoised by (text, dimension).
    """
    if isinstance(text, str):
        try:
            return _parse_cached(text, dimension)
        except UnitError as exc:
            raise UnitError(exc.message, file=file, key=key) from None
    return _parse(text, dimension, file=file, key=key)


@lru_cache(maxsize=4096)
def _parse_cached(text: str, dimension: str) -> float:
    return _parse(text, dimension)


def _parse(text, dimension: str, *, file=None, key=None) -> float:
    """Parse ``text`` as a ``dimension`` (a key of :data:`DIMENSIONS`) and return SI base units.

    Sizes and bandwidths come back in bytes and bytes per second ("64 bit" -> 8.0), frequencies
    in hertz, times in seconds.  A bare number is accepted only for ``dimensionless``.
    """
    if dimension not in DIMENSIONS:
        raise ValueError(f"unknown dimension {dimension!r}")
    if dimension == "size" and isinstance(text, str):
        typed = _iperf3_size(text)
        if typed is not None:
            return typed
    known = _from_table(text, dimension)
    if known is not None:
        return known
    return _parse_with_pint(text, dimension, file=file, key=key)


#: A size as iperf3's -w, -l and -M take it: a number and K, M, G or T in either case, for KiB,
#: MiB, GiB, TiB, optionally followed by "B" (iperf3's parser, ``unit_atof`` in src/iperf_util.c,
#: ESnet iperf3 3.x, multiplies by 1024 for 'K'/'k' and ignores what follows the letter).
_IPERF3_SIZE = re.compile(rf"\s*({_PLAIN_NUMBER_FOR_SIZES})\s*([kKmMgGtT])(B?)\s*")
_IPERF3_FACTORS = {"k": 2 ** 10, "m": 2 ** 20, "g": 2 ** 30, "t": 2 ** 40}


def _iperf3_size(text: str) -> float | None:
    """Bytes of a size written as iperf3 reads it ("64K", "64k", "64KB", "4M", "4MB": binary),
    else None.  "K" is no SI prefix, so "64 KB" is binary too; an SI size written as SI writes
    it, with a space ("100 MB"), keeps its decimal meaning, and so do "64 kB" and "64 KiB"."""
    match = _IPERF3_SIZE.fullmatch(text) if len(text) <= _MAX_TEXT else None
    if match is None:
        return None
    number, letter, byte = match.groups()
    if byte and letter != "K" and (letter == "k" or " " in text.strip()):
        return None  # "64 kB", "64kB", "100 MB": SI, for pint
    value = float(number) * _IPERF3_FACTORS[letter.lower()]
    return value if math.isfinite(value) else None


def _parse_with_pint(text, dimension: str, *, file=None, key=None) -> float:
    """:func:`_parse` done by pint alone (the table's reference: tests compare the two)."""
    expected, example = DIMENSIONS[dimension]
    q = quantity(text, file=file, key=key)
    ureg = registry()
    want = ureg.Quantity(1, BASE_UNITS[dimension] or "")
    if q.dimensionality != want.dimensionality:
        if dimension != "dimensionless" and q.dimensionless:
            raise UnitError(f"{text!r} has no unit: expected a {dimension} such as {example}",
                            file=file, key=key)
        raise UnitError(f"{text!r} is not a {dimension} (expected a {dimension} such as {example})",
                        file=file, key=key)
    try:
        si = float(q.to(want.units).magnitude) if dimension != "dimensionless" else float(q.to("").magnitude)
    except (OverflowError, ZeroDivisionError):
        si = math.inf
    if not math.isfinite(si):
        raise UnitError(f"{shown(text)} is not a finite {dimension}", file=file, key=key)
    return si


# --- the table of unit strings pint has already parsed -------------------------------------------

#: A number as Python (and so pint's tokenizer) writes it: no leading zeros.  Other spellings
#: the grammar allows ("007 Hz") go to pint.
_PLAIN_NUMBER = r"[+-]?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER_AND_UNIT = re.compile(rf"\s*({_PLAIN_NUMBER})\s*(.*?)\s*")
_INTEGER = re.compile(r"[+-]?\d+")


def definitions_digest() -> str | None:
    """sha256 of the installed pint's definitions as we patch them (pint itself is not imported)."""
    spec = importlib.util.find_spec("pint")
    if spec is None or spec.origin is None:
        return None
    try:
        text = _patched_definitions(Path(spec.origin).parent)
    except (OSError, RuntimeError):  # no file, or pint changed it: registry() will say so
        return None
    return hashlib.sha256(text.encode()).hexdigest()


#: The generated table (tools/generate_units_table.py).
TABLE_FILE = Path(__file__).with_name("units_table.json")


@lru_cache(maxsize=1)
def _table() -> dict[str, list]:
    """unit string -> [dimension, factor], or {} when the table is not for the installed pint."""
    import json

    try:
        document = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
    except OSError:  # not installed with the package: slower, still right
        return {}
    # Another pint (or other patches) may define a unit differently: then pint answers everything.
    return document["units"] if definitions_digest() == document["pint_definitions_sha256"] else {}


def _from_table(text, dimension: str) -> float | None:
    """The SI value of ``text`` from the table (units_table.json), or None to ask pint.

    Mirrors pint's arithmetic exactly: pint reads "5" as the int 5 and "5.0" as a float, builds
    the quantity as number * 1 unit (/ 1 unit: a true division, so a float), and converts by one
    multiplication with its factor; the result is the same float.  Anything unusual (an unknown
    unit, another dimension, an overflow) is left to pint, which also words every error.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float)):
        try:
            number = float(text)
        except OverflowError:
            return None
        return number if dimension == "dimensionless" and math.isfinite(number) else None
    if not isinstance(text, str) or len(text) > _MAX_TEXT or not _GRAMMAR.fullmatch(text):
        return None
    match = _NUMBER_AND_UNIT.fullmatch(_normalise(text))
    if match is None:
        return None
    number, unit = match.groups()
    entry = _table().get(unit)
    if entry is None or entry[0] != dimension:
        return None
    magnitude = int(number) if _INTEGER.fullmatch(number) else float(number)
    if "/" in unit:
        magnitude = magnitude / 1
    value = float(magnitude * entry[1])
    return value if math.isfinite(value) else None


def table_entry(unit: str) -> tuple[str, float] | None:
    """(dimension, factor to the SI base unit) of ``unit`` as pint reads it, or None.

    What tools/generate_units_table.py writes into units_table.json and what the tests compare
    it with.  None for strings pint rejects and for other dimensions.
    """
    try:
        q = quantity(f"1 {unit}")
    except UnitError:
        return None
    ureg = registry()
    for dimension, base in BASE_UNITS.items():
        if q.dimensionality == ureg.Quantity(1, base).dimensionality:
            return dimension, q.to(base).magnitude
    return None


# --- formatting -------------------------------------------------------------------------------
#
# The policy (README, "Units"): network rates in bit/s; memory, bus and host-path rates in B/s,
# both with decimal prefixes (1 GB/s = 1e9 B/s); sizes of caches, working sets, windows and
# buffers with binary prefixes (32 KiB = 32768 B); flop rates in Gflop/s or Tflop/s.  A reader
# may ask for every rate in bits or in bytes (``pinchpoint --units``): :func:`rate_units`.

_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = ((2.0 ** 40, "Ti"), (2.0 ** 30, "Gi"), (2.0 ** 20, "Mi"), (2.0 ** 10, "Ki"))

#: Every rate in "bits" or "bytes" whatever its convention; None: by the convention.
_RATE_UNITS: ContextVar[str | None] = ContextVar("pinchpoint_rate_units", default=None)
RATE_UNIT_CHOICES = ("bits", "bytes")


@contextmanager
def rate_units(choice: str | None) -> Iterator[None]:
    """Within the block every rate is formatted in bit/s (``"bits"``) or B/s (``"bytes"``);
    None keeps the convention (network in bit/s, the rest in B/s)."""
    if choice not in (None, *RATE_UNIT_CHOICES):
        raise ValueError(f"rate units must be one of {RATE_UNIT_CHOICES}, got {choice!r}")
    token = _RATE_UNITS.set(choice)
    try:
        yield
    finally:
        _RATE_UNITS.reset(token)


def chosen_rate_units() -> str | None:
    """"bits", "bytes", or None (each rate by its convention)."""
    return _RATE_UNITS.get()


def _scaled(value: float) -> tuple[float, str]:
    # Decimal prefixes only: output never mixes GB with GiB.  (pint's to_compact would pick
    # the same prefixes but costs the registry import on paths that only print.)
    for factor, prefix in _PREFIXES:
        if abs(value) >= factor:
            return value / factor, prefix
    return value, ""


def format_rate(bytes_per_s: float, convention: str = "network", digits: int = 4) -> str:
    """Format a rate: network figures in bit/s ("8.533 Gbit/s"), memory, bus and host-path figures
    in B/s ("6.4 GB/s"), unless :func:`rate_units` chose one for all."""
    choice = _RATE_UNITS.get()
    bits = choice == "bits" if choice is not None else convention == "network"
    if bits:
        v, p = _scaled(bytes_per_s * 8.0)
        return f"{v:.{digits}g} {p}bit/s"
    v, p = _scaled(bytes_per_s)
    return f"{v:.{digits}g} {p}B/s"


def format_size(size_bytes: float, digits: int = 4) -> str:
    """A size with a binary prefix: "32 KiB" (32768 B), "22.83 MiB", "4 KiB".  Under 1 MiB a
    size that is no whole number of half-KiB (an MTU of 1500 B, a window of 87380 B) is shown in
    bytes, as it was written."""
    if abs(size_bytes) < 2.0 ** 20 and size_bytes % 512:
        return f"{size_bytes:.{max(digits, 7)}g} B"
    for factor, prefix in _BINARY:
        if abs(size_bytes) >= factor:
            return f"{size_bytes / factor:.{digits}g} {prefix}B"
    return f"{size_bytes:.{digits}g} B"


def format_flop_rate(flop_per_s: float, digits: int = 4) -> str:
    """A flop rate in Tflop/s from 1e12 up, else Gflop/s ("19.51 Gflop/s", "0.2897 Gflop/s")."""
    if abs(flop_per_s) >= 1e12:
        return f"{flop_per_s / 1e12:.{digits}g} Tflop/s"
    return f"{flop_per_s / 1e9:.{digits}g} Gflop/s"


def format_quantity(value: float, dimension: str, digits: int = 4) -> str:
    """Format an SI float of a known dimension by the policy above: "133.3 MHz", "4 KiB",
    "6.4 GB/s", "19.51 Gflop/s", "44.5 ms"."""
    if dimension == "size":
        return format_size(value, digits)
    if dimension == "flop_rate":
        return format_flop_rate(value, digits)
    if dimension == "bandwidth":
        return format_rate(value, "memory", digits)
    if dimension == "time":
        for factor, prefix in ((1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")):
            if abs(value) >= factor:
                return f"{value / factor:.{digits}g} {prefix}s"
        return f"{value:.{digits}g} s"
    if dimension == "dimensionless":
        return f"{value:.{digits}g}"
    unit = {"frequency": "Hz"}[dimension]
    v, p = _scaled(value)
    return f"{v:.{digits}g} {p}{unit}"


# --- what people type for a fraction or an iperf3-style size ------------------------------------

_FRACTION = re.compile(rf"\s*({_NUMBER})\s*(%?)\s*")

def parse_fraction(text, *, file=None, key=None) -> float:
    """A fraction as people write it: "1%" -> 0.01, "0.5 %" -> 0.005, "1e-3" -> 0.001.

    Returns a finite float; anything else is a :class:`UnitError` naming ``key``.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    elif isinstance(text, str) and len(text) <= _MAX_TEXT and _FRACTION.fullmatch(text):
        m = _FRACTION.fullmatch(text)
        value = float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    else:
        raise UnitError(f"{shown(text)} is not a fraction: write '1%', '0.01' or '1e-3'", file=file, key=key)
    if not math.isfinite(value):
        raise UnitError(f"{shown(text)} is not a finite fraction", file=file, key=key)
    return value


def parse_iperf3_size(text, *, file=None, key=None) -> float:
    """A size as iperf3 takes it (``-w 64K``, ``-l 128KB``) or as pint does ("64 KiB", "100 MB") [B]:
    :func:`parse` of a size (see :func:`_iperf3_size` for iperf3's suffixes), and a plain number
    is a byte count."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return parse(text, "dimensionless", file=file, key=key)
    if isinstance(text, str) and len(text) <= _MAX_TEXT and re.fullmatch(rf"\s*{_NUMBER}\s*", text):
        value = float(text)
        if not math.isfinite(value):
            raise UnitError(f"{shown(text)} is not a finite size", file=file, key=key)
        return value
    return parse(text, "size", file=file, key=key)
