"""Where pinchpoint keeps its files: the per-user cache and the bundled data.

Kept free of heavy imports; every command touches it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path


def cache_dir() -> Path:
    """The per-user cache folder (``$PINCHPOINT_CACHE``, else ``$XDG_CACHE_HOME/pinchpoint``,
    else ``~/.cache/pinchpoint``), created on first use."""
    env = os.environ.get("PINCHPOINT_CACHE")
    if env:
        path = Path(env)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "pinchpoint"
    path.mkdir(parents=True, exist_ok=True)
    return path


def is_file(path: str | os.PathLike) -> bool:
    """``Path(path).is_file()`` that answers False, not OSError, for a name the system cannot
    even look up (longer than NAME_MAX, a NUL byte): such a name is simply not a file here."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: str | os.PathLike) -> bool:
    """``Path(path).is_dir()``, False for a name the system cannot look up (see is_file)."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def exists(path: str | os.PathLike) -> bool:
    """``Path(path).exists()``, False for a name the system cannot look up (see is_file)."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def display_stem(path: str | os.PathLike) -> str:
    """The stem of ``path`` as text that can be printed, drawn and written as UTF-8: a file name
    that is not UTF-8 (bytes Python keeps as lone surrogates) gets U+FFFD for each bad byte,
    as ``ls`` shows "?" (matplotlib and UTF-8 encoders refuse the surrogates)."""
    stem = Path(path).stem
    return stem.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def data_root(name: str) -> Path:
    """The folder of a bundled data package (``profiles`` or ``kernels``).

    In an installed wheel they are the subpackages ``pinchpoint.profiles`` and
    ``pinchpoint.kernels`` (setup.cfg maps them); in a source checkout they sit beside model/.
    """
    here = Path(__file__).resolve().parent
    installed = here / name
    if installed.is_dir():
        return installed
    return here.parent / name


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def output_target(path: str | os.PathLike, *, key: str | None = None,
                  suffixes: tuple[str, ...] | None = None) -> Path:
    """Check that ``path`` can be written and return what a write will really touch (see
    :func:`_output_target`); a name the system refuses to look up (longer than 255 bytes, a
    NUL byte) is an :class:`~pinchpoint.errors.InputError` naming the flag, not an OSError."""
    from pinchpoint.errors import InputError, PinchpointError

    try:
        return _output_target(path, key=key, suffixes=suffixes)
    except (OSError, ValueError) as exc:
        if isinstance(exc, PinchpointError):
            raise
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"{_clip(str(path))!r} cannot be written: {reason}", key=key) from None


def _output_target(path: str | os.PathLike, *, key: str | None = None,
                   suffixes: tuple[str, ...] | None = None) -> Path:
    """Check that ``path`` can be written and return what a write will really touch.

    A symbolic link is followed to its target (writing replaces the target, not the link).
    Refused, each with an :class:`~pinchpoint.errors.InputError` that names the flag: a missing
    folder, a folder as the target, a target or folder we may not write, and (when
    ``suffixes`` is given) a file name that does not end in one of them; devices and pipes
    (``/dev/null``) need no suffix.  Nothing is created.
    """
    from pinchpoint.errors import InputError

    shown = _clip(str(path))
    if not str(path):
        raise InputError("expected a file name, got an empty one", key=key)
    real = Path(os.path.realpath(path))
    try:
        special = real.exists() and not real.is_file() and not real.is_dir()  # /dev/null, a pipe
    except OSError:
        special = False
    if suffixes is not None and not special and not str(path).lower().endswith(tuple(x.lower() for x in suffixes)):
        raise InputError(f"{shown!r}: the file name must end in {' or '.join(suffixes)}", key=key)
    if real.is_dir():
        raise InputError(f"{shown!r} is a folder, expected a file name", key=key)
    folder = real.parent
    if not folder.is_dir():
        raise InputError(f"{shown!r}: the folder {_clip(str(Path(path).parent))!r} does not exist", key=key)
    try:
        info = real.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise InputError(f"{shown!r} cannot be written: {exc.strerror}", key=key) from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        if not os.access(real, os.W_OK):  # a device or a pipe: written in place
            raise InputError(f"{shown!r} cannot be written: permission denied", key=key)
        return real
    if info is not None and not os.access(real, os.W_OK):
        raise InputError(f"{shown!r} cannot be written: permission denied", key=key)
    # The atomic write needs a new file beside the target: try one (root passes access()
    # checks that a read-only file system still refuses).
    probe = None
    # signals held: one inside mkstemp, after it made the file and before it returned the
    # name, left the probe behind
    with _signals_held():
        try:
            fd, probe = tempfile.mkstemp(prefix=f".{real.name[:50]}.", suffix=".probe", dir=folder)
            os.close(fd)
        except OSError as exc:
            raise InputError(f"{shown!r} cannot be written: the folder {_clip(str(folder))!r} refuses new "
                             f"files ({exc.strerror})", key=key) from None
        finally:
            if probe is not None:
                os.unlink(probe)
    return real


@contextmanager
def _signals_held():
    """SIGTERM and SIGINT held back (delivered on leaving) while a temporary file is created,
    renamed or removed: a signal inside ``mkstemp`` or the clean-up left a ``.tmp`` behind.

    Held at Python's level: their handlers are swapped for one that notes them, and the noted
    ones are raised again under the restored handlers.  A thread mask would not do: the
    kernel hands a process's signal to any thread that does not block it (a progress bar's
    monitor, a test runner's), and Python runs the handler in the main thread all the same.
    Outside the main thread, where handlers cannot be set, Python never interrupts this code."""
    import signal
    import threading

    kinds = (signal.SIGTERM, signal.SIGINT)
    old = {k: signal.getsignal(k) for k in kinds}
    if threading.current_thread() is not threading.main_thread() or None in old.values():
        yield  # a handler not set from Python (None) could not be put back
        return
    noted: list[int] = []
    for k in kinds:
        signal.signal(k, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        for k in kinds:
            signal.signal(k, old[k])
        for k in noted:
            signal.raise_signal(k)


@contextmanager
def _in_place(real: Path, mode: str, enc, shown: str, key):
    """A device or a pipe, written where it is; a failed write names ``key``."""
    from pinchpoint.errors import InputError

    try:
        with open(real, mode, encoding=enc) as handle:
            yield handle
    except OSError as exc:
        raise InputError(f"{shown!r}: writing failed: {exc.strerror or exc}", key=key) from None


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8", *,
                 key: str | None = None, suffixes: tuple[str, ...] | None = None):
    """Write a file so that readers see the old content or the complete new one, never a part.

    The data goes to a temporary file in the target's folder, is flushed to disk, takes the
    mode (and, where allowed, the owner) of the file it replaces, or the umask's default for a
    new one, and is then renamed over the target.  On any exception (KeyboardInterrupt
    included) the temporary file is removed and the target is left as it was.

    Atomic replacement is for regular files only: a symbolic link is followed and its target
    replaced; a device (``/dev/null``, ``/dev/full``) or a pipe is written in place, since
    renaming over it would replace the device node itself.  A folder, a missing
    folder and a target we may not write are refused with an InputError naming ``key`` (the
    command-line flag), and so is a write that fails (a full disk, ``/dev/full``).
    """
    from pinchpoint.errors import InputError

    real = output_target(path, key=key, suffixes=suffixes)
    enc = None if "b" in mode else encoding
    shown = _clip(str(path))
    if real.exists() and not real.is_file():
        with _in_place(real, mode, enc, shown, key) as handle:
            yield handle
        return
    try:
        old = real.stat()
    except FileNotFoundError:
        old = None
    tmp = None
    try:
        try:
            with _signals_held():
                fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:50]}.", suffix=".tmp", dir=real.parent)
        except OSError as exc:
            raise InputError(f"{shown!r} cannot be written: {exc.strerror}", key=key) from None
        with os.fdopen(fd, mode, encoding=enc) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if old is None:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)  # as open() would create it, not mkstemp's 0600
        else:
            os.chmod(tmp, stat.S_IMODE(old.st_mode))
            try:
                os.chown(tmp, old.st_uid, old.st_gid)
            except OSError:
                pass  # only root may give a file away; the mode is kept either way
        os.replace(tmp, real)
    except BaseException as exc:
        with _signals_held():
            try:
                if tmp is not None:
                    os.unlink(tmp)
            except FileNotFoundError:
                pass
        if isinstance(exc, OSError):
            raise InputError(f"{shown!r}: writing failed: {exc.strerror or exc}", key=key) from None
        raise
