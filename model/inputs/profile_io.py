"""Reading profile files: TOML parsing, ``extends``, bundled names, error locations, writing.

Profiles are TOML read with the standard library's tomllib (rtoml for long files where it is
installed: :func:`pinchpoint.inputs.input_text.toml_loads`): never evaluated.  A file named ``*.json``
holds the same document as JSON, the form a generated profile takes (a data-centre fabric
written by a script: tomllib, pure Python, reads a 100,000-link TOML file in 6.5-8 s, rtoml in
1 s, the C json module the same document in 0.4 s).  A profile may
say ``extends = "other-profile"`` (a bundled name or a path relative to it); the child's
tables are merged over the parent's, key by key.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from pinchpoint.errors import ProfileError, did_you_mean, shown
from pinchpoint.gc_pause import gc_paused
from pinchpoint.inputs.input_text import parse_bounded, read_text, toml_loads
from pinchpoint.paths import atomic_write, data_root, display_stem, is_file
from pinchpoint.inputs.profile import Profile, profile_from_document

MACHINES = "machines"


def machines_dir() -> Path:
    """The folder of the bundled machine profiles."""
    return data_root("profiles") / MACHINES


def bundled_profiles() -> dict[str, Path]:
    """Bundled profile names -> files, sorted by name."""
    return {p.stem: p for p in sorted(machines_dir().glob("*.toml"))}


def bundled_descriptions() -> dict[str, str]:
    """Bundled profile name -> its description (or "(extends PARENT)" for a variant without
    one), read from the files without building the profiles."""
    out = {}
    for name, path in bundled_profiles().items():
        doc = _read_file(path)
        out[name] = doc.get("description", "") or f"(extends {doc.get('extends', '?')})"
    return out


def is_dir(path: str | Path) -> bool:
    """``Path(path).is_dir()``, False for a name the system cannot look up."""
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def resolve(name_or_path: str | Path, *, relative_to: Path | None = None) -> Path:
    """A bundled name ("powermac-g5") or a path -> the file to read."""
    text = str(name_or_path)
    candidates = []
    if relative_to is not None and not Path(text).is_absolute():
        candidates.append(relative_to / text)
        if not text.endswith(".toml"):
            candidates.append(relative_to / f"{text}.toml")
    candidates.append(Path(text))
    for c in candidates:
        if is_file(c):
            return c
    bundled = bundled_profiles()
    if text in bundled:
        return bundled[text]
    if is_dir(text):
        raise ProfileError("is a folder: expected a profile file (.toml or .json) or a bundled name", file=text)
    if text.endswith(".toml") or "/" in text or Path(text).suffix:
        raise ProfileError("no such file", file=text)
    raise ProfileError(f"no bundled profile or file named {text!r}{did_you_mean(text, bundled)} "
                       f"(`pinchpoint profiles` lists them)", file=text)


#: Suffixes of profile files read as JSON; any other file is read as TOML.
JSON_SUFFIXES = (".json",)


def _read_file(path: Path) -> dict:
    """The document in one profile file (TOML, or JSON for ``*.json``), not yet merged."""
    if path.suffix.lower() not in JSON_SUFFIXES:
        return _read_toml(path)
    text = read_text(path, ProfileError)
    try:
        doc = parse_bounded(json.loads, text, ProfileError, file=str(path))
    except json.JSONDecodeError as exc:
        raise ProfileError(f"JSON syntax error: {exc.msg}", file=str(path), line=exc.lineno) from None
    if not isinstance(doc, dict):
        raise ProfileError(f"expected a JSON object at the top, got {shown(doc)}", file=str(path))
    return doc


def _read_toml(path: Path) -> dict:
    text = read_text(path, ProfileError)
    try:
        return parse_bounded(toml_loads, text, ProfileError, file=str(path))
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        msg = str(exc)
        m = re.search(r"\(at line (\d+)", msg)
        if m:
            line = int(m.group(1))
        raise ProfileError(f"TOML syntax error: {msg}", file=str(path), line=line) from None


def merge(parent: dict, child: dict) -> dict:
    """Deep-merge ``child`` over ``parent``: tables merge key by key, other values replace."""
    out = dict(parent)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def _parent_path(parent_name: str, child: Path, allow_outside: bool) -> Path:
    try:
        return _find_parent(parent_name, child, allow_outside)
    except (OSError, ValueError) as exc:  # a name too long for the file system, a NUL byte
        if isinstance(exc, ProfileError):
            raise
        raise ProfileError(f"{shown(parent_name)} is not a usable profile name or path", file=str(child),
                           key="extends") from None


def _find_parent(parent_name: str, child: Path, allow_outside: bool) -> Path:
    """Where ``extends = parent_name`` in ``child`` points: a bundled name, or a file inside the
    child's own folder (``allow_outside`` lifts that limit).

    ``extends`` used to read any readable file, ``/etc/passwd`` or ``../../x`` included, and
    echo its keys in error messages.
    """
    bundled = bundled_profiles()
    looks_like_path = ("/" in parent_name or "\\" in parent_name
                       or parent_name.endswith((".toml",) + JSON_SUFFIXES))
    if not looks_like_path:
        local = child.parent / f"{parent_name}.toml"
        if local.is_file() and (allow_outside or local.resolve().parent == child.parent):
            return local
        if parent_name in bundled:
            return bundled[parent_name]
    candidate = (child.parent / parent_name).resolve()
    if not allow_outside:
        try:
            candidate.relative_to(child.parent)
        except ValueError:
            raise ProfileError(f"{shown(parent_name)} is outside this profile's folder: 'extends' takes a "
                               "bundled profile name or a file beside the profile (or in a subfolder)",
                               file=str(child), key="extends") from None
    if candidate.is_file():
        return candidate
    raise ProfileError(f"cannot find the parent profile {shown(parent_name)} (a bundled name, or a "
                       "file beside this profile)", file=str(child), key="extends")


def read_document(path: Path, _chain: tuple[Path, ...] = (), *, allow_outside: bool = False) -> dict:
    """The merged document of a profile file, ``extends`` followed to the root.

    ``extends`` names a bundled profile or a file under the profile's own folder; pass
    ``allow_outside=True`` to follow paths anywhere (a caller that trusts the files).
    """
    path = path.resolve()
    if path in _chain:
        cycle = " -> ".join(p.name for p in _chain + (path,))
        raise ProfileError(f"'extends' forms a cycle: {cycle}", file=str(path), key="extends")
    doc = _read_file(path)
    parent_name = doc.get("extends")
    if parent_name is None:
        return doc
    if not isinstance(parent_name, str):
        raise ProfileError(f"expected a profile name or path, got {shown(parent_name)}", file=str(path),
                           key="extends")
    parent_path = _parent_path(parent_name, path, allow_outside)
    parent = read_document(parent_path, _chain + (path,), allow_outside=allow_outside)
    parent.pop("name", None)
    parent.pop("description", None)
    child = {k: v for k, v in doc.items() if k != "extends"}
    return merge(parent, child)


def key_line(path: Path, key: str | None) -> int | None:
    """Best-effort line number of a dotted key path in a TOML file (for error messages)."""
    if not key or path.suffix.lower() in JSON_SUFFIXES:
        return None
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    parts = re.sub(r"\[\d+\]", "", key).split(".")
    # Look for the deepest table header that prefixes the key, then the leaf key after it.
    for cut in range(len(parts) - 1, 0, -1):
        header = re.compile(r"^\s*\[+\s*" + r"\s*\.\s*".join(re.escape(p) for p in parts[:cut]) + r"\s*\]+")
        for i, line in enumerate(lines):
            if header.match(line):
                leaf = re.compile(r"^\s*" + re.escape(parts[cut]) + r"\s*=")
                for j in range(i + 1, len(lines)):
                    if lines[j].lstrip().startswith("["):
                        return i + 1
                    if leaf.match(lines[j]):
                        return j + 1
                return i + 1
    leaf = re.compile(r"^\s*" + re.escape(parts[0]) + r"\s*=")
    for i, line in enumerate(lines):
        if leaf.match(line):
            return i + 1
    return None


def load_profile(name_or_path: str | Path) -> Profile:
    """Load, merge and validate a profile by bundled name or path."""
    path = resolve(name_or_path)
    with gc_paused():  # millions of containers for a data-centre fabric, none in a cycle
        doc = read_document(path)
        try:
            return profile_from_document(doc, file=str(path), default_name=display_stem(path))
        except ProfileError as exc:
            if exc.line is None and exc.file == str(path):
                raise exc.located(line=key_line(path, exc.key)) from None
            raise


def dump_document(doc: dict[str, Any], path: str | Path) -> None:
    """Write a profile document as TOML, atomically."""
    import tomli_w

    with atomic_write(path, "wb", encoding=None) as out:
        tomli_w.dump(doc, out)
