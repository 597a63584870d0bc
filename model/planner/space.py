"""The candidates of a plan: fixed profiles and the product of option sets around a base profile.

An option changes a profile the way a user would edit its file: each ``ID.PARAM`` of its
``set`` is written into the merged profile document (at every link or component whose id
matches the glob), and the document is read again, so every check, every filled-in value
(a PCIe generation's lane rate and encoding) and every error is the profile reader's own.
"""

from __future__ import annotations

import fnmatch
import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pinchpoint.errors import InputError, LocatedError, ProfileError, shown
from pinchpoint.inputs.profile import Profile, profile_from_document
from pinchpoint.inputs.profile_io import read_document, resolve
from pinchpoint.inputs.requirements import Choice, PlanSpec


@dataclass(frozen=True)
class Candidate:
    """One machine to price: its profile, its price and what it was built from."""

    name: str
    profile: Profile
    price: float | None
    signature: str | None = None
    choices: tuple[str, ...] = ()        # "option=choice" for generated candidates


def _resolve(spec: PlanSpec, name: str, key: str) -> Path:
    try:
        return resolve(name, relative_to=spec.folder)
    except ProfileError as exc:
        raise InputError(f"{exc}", file=spec.file, key=key) from None


def _read_profile(spec: PlanSpec, name: str, key: str) -> tuple[Path, dict]:
    path = _resolve(spec, name, key)
    try:
        return path, read_document(path)
    except ProfileError as exc:
        raise InputError(f"candidate profile: {exc}", file=spec.file, key=key) from None


def _build(spec: PlanSpec, doc: Mapping, path: Path, key: str, name: str | None = None) -> Profile:
    try:
        return profile_from_document(doc, file=str(path), default_name=name or path.stem)
    except LocatedError as exc:
        raise InputError(f"the profile this makes is not valid: {exc}", file=spec.file, key=key) from None


def _matches(doc: Mapping, ident: str) -> list[tuple[str, str]]:
    """(group, id) of every link and component whose id matches the glob ``ident``."""
    out = []
    for group in ("links", "components"):
        table = doc.get(group)
        if isinstance(table, Mapping):
            out += [(group, k) for k in table if fnmatch.fnmatchcase(k, ident)]
    return out


def apply_choices(doc: Mapping, choices: tuple[Choice, ...], *, file: str | None = None) -> dict:
    """A copy of the merged profile document with every choice's ``set`` written in.

    Only the tables a choice touches are copied; a glob that matches no link or component of
    this profile is an error naming the choice's key.
    """
    out = dict(doc)
    copied: set[tuple[str, str]] = set()
    for choice in choices:
        for target, value in choice.set.items():
            ident, _, param = str(target).rpartition(".")
            hits = _matches(out, ident)
            if not hits:
                raise InputError(f"{shown(ident)} matches no link or component of profile "
                                 f"{shown(out.get('name', '?'))}", file=file, key=f"{choice.key}.set.{target}")
            for group, cid in hits:
                if (group, cid) not in copied:
                    out[group] = dict(out[group])
                    out[group][cid] = dict(out[group][cid])
                    copied.add((group, cid))
                out[group][cid][param] = {"value": value, "source": f"plan option {choice.key}"}
    return out


def fixed_candidates(spec: PlanSpec) -> Iterator[Candidate]:
    for c in spec.candidates:
        path, doc = _read_profile(spec, c.profile, f"{c.key}.profile")
        prof = _build(spec, doc, path, f"{c.key}.profile")
        yield Candidate(c.name or prof.name, prof, c.price, c.signature)


# long: one product over the option sets; each branch is one way a choice edits the base profile
def generated_candidates(spec: PlanSpec) -> Iterator[Candidate]:
    """Every combination of one choice per option set, in the order the file lists them."""
    space = spec.space
    if space is None:
        return
    docs: dict[str, tuple[Path, dict]] = {}

    def base(name: str, key: str) -> tuple[Path, dict]:
        if name not in docs:
            docs[name] = _read_profile(spec, name, key)
        return docs[name]

    base(space.profile, "base.profile")
    for combo in itertools.product(*(o.choices for o in space.options)):
        swaps = [c for c in combo if c.profile]
        if len(swaps) > 1:
            raise InputError(f"choices {', '.join(c.key for c in swaps)} each name a base profile: "
                             "at most one option set may swap the profile", file=spec.file, key=swaps[1].key)
        path, doc = base(swaps[0].profile, f"{swaps[0].key}.profile") if swaps else base(space.profile,
                                                                                          "base.profile")
        label = "/".join([space.name, *(c.name for c in combo)]) if combo else space.name
        where = "/".join(c.key for c in combo) or "base"
        prof = _build(spec, apply_choices(doc, combo, file=spec.file), path, where, label)
        price = None if space.price is None else space.price + sum(c.price for c in combo)
        if price is not None and not price > 0:
            raise InputError(f"candidate {label!r} comes to a price of {price:g}: prices must stay positive",
                             file=spec.file, key=where)
        yield Candidate(label, prof, price, space.signature,
                        tuple(f"{o.name}={c.name}" for o, c in zip(space.options, combo)))


def profile_candidates(profiles, spec: PlanSpec) -> Iterator[Candidate]:
    """Candidates given on the command line or in code: profile objects, names or paths."""
    for p in profiles:
        if isinstance(p, Candidate):
            yield p
        elif isinstance(p, Profile):
            yield Candidate(p.name, p, None)
        else:
            path, doc = _read_profile(spec, str(p), "candidates")
            prof = _build(spec, doc, path, "candidates")
            yield Candidate(prof.name, prof, None)


def all_candidates(spec: PlanSpec, extra=()) -> list[Candidate]:
    out = [*fixed_candidates(spec), *generated_candidates(spec), *profile_candidates(extra, spec)]
    if not out:
        raise InputError("no candidates: list [[candidates]], a [base] with [options], or profiles to compare",
                         file=spec.file, key="candidates")
    seen: dict[str, int] = {}
    named = []
    for c in out:  # the same profile twice gets a suffix, so rows stay distinguishable
        n = seen.get(c.name, 0)
        seen[c.name] = n + 1
        named.append(c if n == 0 else Candidate(f"{c.name}#{n + 1}", c.profile, c.price, c.signature, c.choices))
    return named
