"""Where pinchpoint keeps its files: the per-user cache and the bundled data.

Kept free of heavy imports; every command touches it.
"""

from __future__ import annotations

import os
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


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8"):
    """Write a file so that readers see the old content or the complete new one, never a part.

    The data goes to a temporary file in the same folder, is flushed to disk, and then renamed
    over the target.  On any exception (KeyboardInterrupt included) the temporary file is
    removed and the target is left as it was.
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
