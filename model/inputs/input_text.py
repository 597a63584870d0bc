"""Reading input files defensively: text that is not UTF-8, documents nested past any real
file's depth (issue 18).  Every refusal is the caller's LocatedError kind, naming the file."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

from pinchpoint.errors import LocatedError

#: Deepest nesting of tables and arrays a profile, workload, signature or tool report may have:
#: real files stay below 10; Python's parsers recurse and hit RecursionError near 1,000.
MAX_DEPTH = 64


#: Largest input file read: profiles, workloads and signatures are kilobytes; 20,000 workload
#: phases are 2 MB and take 2 s, so 64 MiB bounds the work a file can ask for.
MAX_BYTES = 64 * 2 ** 20


def read_text(path: str | Path, error: type[LocatedError], *, key: str | None = None) -> str:
    """The UTF-8 text of ``path``; an unreadable or non-UTF-8 file raises ``error``."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_BYTES:
            raise error(f"cannot read: {size:,} bytes, more than any real input ({MAX_BYTES:,} at most)",
                        file=str(path), key=key)
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("cannot read: no such file", file=str(path), key=key) from None
    except IsADirectoryError:
        raise error("cannot read: it is a folder, expected a file", file=str(path), key=key) from None
    except UnicodeDecodeError as exc:
        raise error(f"cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})", file=str(path),
                    key=key) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", file=str(path), key=key) from None


#: TOML texts at least this long are parsed with rtoml when it is installed (``pip install
#: 'pinchpoint[fast]'``): it is Rust and read a 15 MB, 98,304-link fat-tree profile in 1.0 s where
#: the standard library's pure-Python tomllib took 6.5-8 s, a 690 kB 5,000-link mesh in 0.05 s
#: against 0.34 s.  Hand-written files (a few kB) keep tomllib: it costs milliseconds there.
FAST_TOML_CHARS = 64 * 1024


def toml_loads(text: str) -> dict:
    """The TOML document in ``text``: rtoml for long texts where installed, else tomllib.

    Anything rtoml refuses is parsed again by tomllib, so a syntax error is always worded by
    tomllib (:class:`tomllib.TOMLDecodeError`), whichever parser ran first.
    """
    if len(text) >= FAST_TOML_CHARS:
        try:
            import rtoml
        except ImportError:
            pass
        else:
            try:
                return rtoml.loads(text)
            except Exception:  # noqa: BLE001 - tomllib says what is wrong, in its words
                pass
    return tomllib.loads(text)


def parse_bounded(parse, text: str, error: type[LocatedError], *, file: str | None = None,
                  max_depth: int = MAX_DEPTH):
    """``parse(text)``, refusing documents nested deeper than ``max_depth``.

    The parsers recurse (RecursionError on "[[[[...") and so do our walkers after them, so the
    depth of what parses is checked too, without recursion.
    """
    try:
        doc = parse(text)
    except RecursionError:
        raise error(f"nested deeper than {max_depth} levels", file=file) from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # the parser's own syntax errors: the caller words them
            raise
        # Python refuses integers of more than 4,300 digits
        raise error(f"holds a value that cannot be read ({str(exc)[:100]})", file=file) from None
    level, depth = ([doc] if isinstance(doc, (dict, list)) else []), 0
    while level:  # one level at a time, tables and arrays only (a 100,000-link file: 0.1 s)
        if depth > max_depth:
            raise error(f"nested deeper than {max_depth} levels", file=file)
        deeper = []
        for node in level:
            for value in (node.values() if isinstance(node, dict) else node):
                if isinstance(value, (dict, list)):
                    deeper.append(value)
        level, depth = deeper, depth + 1
    return doc


def finite_number(value) -> float | None:
    """``value`` as a float when it is a number (not a bool) with a finite float value, else
    None: a 400-digit JSON integer overflows float() and math.isfinite()."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None
