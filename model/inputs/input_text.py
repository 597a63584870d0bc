"""Reading input files defensively: one size cap for files and standard input, read in chunks
(a signal handler runs between two of them), text that is not UTF-8, documents nested past any
real file's depth, numbers that are not finite, JSON objects that name a key twice.  Every
refusal is the caller's LocatedError kind, naming the file."""

from __future__ import annotations

import functools
import json
import math
import tomllib
from pathlib import Path
from typing import BinaryIO

from pinchpoint.errors import LocatedError, shown
from pinchpoint.inputs.document import Reader

#: Deepest nesting of tables and arrays a profile, workload, signature or tool report may have:
#: real files stay below 10; Python's parsers recurse and hit RecursionError near 1,000.
MAX_DEPTH = 64


#: Largest input file read: profiles, workloads and signatures are kilobytes; 20,000 workload
#: phases are 2 MB and take 2 s, so 64 MiB bounds the work a file can ask for.
MAX_BYTES = 64 * 2 ** 20


#: Bytes read at a time: small enough that SIGTERM or Ctrl-C (whose Python handlers run between
#: two reads) stops a read of /dev/zero at once, large enough to cost nothing on a real file.
CHUNK_BYTES = 1 << 20


def read_capped(stream: BinaryIO, error: type[LocatedError], *, file: str | None, key: str | None = None,
                limit: int | None = None) -> str:
    """The UTF-8 text of an open binary ``stream`` (a file, a pipe, standard input), read in
    chunks and refused past ``limit`` bytes (:data:`MAX_BYTES`) without reading further."""
    limit = MAX_BYTES if limit is None else limit
    chunks, total = [], 0
    while True:
        chunk = stream.read(min(CHUNK_BYTES, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise error(f"cannot read: more than {limit:,} bytes, more than any real input", file=file, key=key)
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"cannot read: not UTF-8 text ({exc.reason} at byte {exc.start})", file=file,
                    key=key) from None


def read_text(path: str | Path, error: type[LocatedError], *, key: str | None = None) -> str:
    """The UTF-8 text of ``path``; an unreadable, non-UTF-8 or oversized file raises ``error``.

    The cap holds for what is read, not what ``stat`` says: ``/dev/zero`` or a FIFO has size 0.
    """
    try:
        with open(path, "rb") as stream:
            return read_capped(stream, error, file=str(path), key=key)
    except FileNotFoundError:
        raise error("cannot read: no such file", file=str(path), key=key) from None
    except IsADirectoryError:
        raise error("cannot read: it is a folder, expected a file", file=str(path), key=key) from None
    except LocatedError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(f"cannot read: {reason}", file=str(path), key=key) from None


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


class DuplicateKey(ValueError):
    """A JSON object names one key twice (Python's json keeps the last value silently)."""


def _unique_pairs(pairs: list, repeatable: frozenset = frozenset()) -> dict:
    table = dict(pairs)
    if len(table) != len(pairs):
        seen = set()
        for name, _ in pairs:
            if name in seen and name not in repeatable:
                raise DuplicateKey(name)
            seen.add(name)
    return table


def json_loads(text: str, *, repeatable: frozenset = frozenset()):
    """``json.loads`` that refuses a key given twice in one object, as TOML does, except the
    keys in ``repeatable``: a format that writes them once per item (iperf3 writes its socket
    buffer sizes once per stream into one object), of which the last is kept."""
    if not repeatable:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    return json.loads(text, object_pairs_hook=lambda pairs: _unique_pairs(pairs, repeatable))


def parse_bounded(parse, text: str, error: type[LocatedError], *, file: str | None = None,
                  max_depth: int = MAX_DEPTH, repeatable_keys: frozenset = frozenset()):
    """``parse(text)``, refusing documents nested deeper than ``max_depth``, numbers that are not
    finite (:meth:`Reader.check_tree`) and, for JSON, a key given twice in one object.

    ``json.loads`` is replaced by :func:`json_loads` here, so that every JSON reader refuses
    duplicate keys (except ``repeatable_keys``, which the format itself repeats).  The parsers
    recurse (RecursionError on "[[[[...") and so do our walkers after them, so the depth of what
    parses is checked too, without recursion.
    """
    if parse is json.loads:
        parse = functools.partial(json_loads, repeatable=frozenset(repeatable_keys))
    try:
        doc = parse(text)
    except RecursionError:
        raise error(f"nested deeper than {max_depth} levels", file=file) from None
    except DuplicateKey as exc:
        raise error(f"the key {shown(exc.args[0])} appears twice in one object (refused: which one is "
                    "meant is unclear)", file=file) from None
    except ValueError as exc:
        if type(exc) is not ValueError:  # the parser's own syntax errors: the caller words them
            raise
        # Python refuses integers of more than 4,300 digits
        raise error(f"holds a value that cannot be read ({str(exc)[:100]})", file=file) from None
    Reader(file, error).check_tree(doc, max_depth=max_depth)
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
