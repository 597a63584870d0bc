"""Code cites what a reader of the repository can open: the published source (authors, title,
year, table) or our own docs/ pages.  Not "formulas.md", "seed 004", "issue 13" or a path outside
the repository, which only the people who wrote it had.  And every "docs/formulas.md section N"
names a section that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("model", "kernels", "benchmarks", "tools")
SUFFIXES = {".py", ".c", ".h", ".md", ".txt", ".toml", ".cfg", ".sh"}

#: A reference a reader cannot follow.  Line breaks and comment marks may split one ("issue\n# 19").
OUTSIDE = re.compile(
    r"(?<!docs/)\bformulas\.md"  # our old notes file, not in the repository (docs/formulas.md is)
    r"|\bseeds?[\s#*]*\d{3}\b|\bseeds?/|\bseed['\u2019]s\b"  # the documents the project grew from
    r"|\bthe seeds?\b(?! (?:for|of|value|given|number))"
    r"|\bissues?[\s#*]*#?\d+\b"  # the tracker's numbers
    r"|\.\./shared|/work/shared|shared/(?:reference|recorded|seeds)|reference/formulas|recorded/README",
    re.I)

#: Files other branches own and are rewriting now, with the references they still hold (the lead
#: prunes this at merge; a file leaves the list once it is clean).
ALLOWED: set[str] = set()


def files() -> list[Path]:
    return sorted(p for d in SCANNED for p in (ROOT / d).rglob("*")
                  if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts)


def outside_references(text: str) -> list[tuple[int, str]]:
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in OUTSIDE.finditer(text)]


@pytest.mark.parametrize("text, found", [
    ("see formulas.md section 4", True), ("see docs/formulas.md section 4", False),
    ("(seed 004, table 3)", True), ("seeds/004_x.txt", True), ("our choice, not the seed's", True),
    ("issue 13", True), ("(issue\n    # 19)", True), ("Issue #7", True),
    ("/work/shared/recorded/README.md", True),
    ("random seed 0", False), ("--seed 3", False), ("the seed of the generator", False),
    ("an issue with 3 flows", False),
])
def test_the_pattern(text, found):
    assert bool(outside_references(text)) is found


def test_no_references_to_documents_outside_the_repository():
    found = []
    for path in files():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ALLOWED:
            continue
        for line, what in outside_references(path.read_text(encoding="utf-8", errors="replace")):
            found.append(f"{rel}:{line}: {what!r}")
    assert not found, "\n".join(found)


def test_allowed_files_still_need_it():
    """The allowlist only shrinks: a listed file that is clean must leave it."""
    clean = [rel for rel in sorted(ALLOWED)
             if not outside_references((ROOT / rel).read_text(encoding="utf-8", errors="replace"))]
    assert clean == []


SECTION = re.compile(r"docs/(formulas|derivations)\.md,? section (\d+)")


def test_cited_sections_exist():
    heads = {name: {int(n) for n in re.findall(r"^## (\d+)\.", (ROOT / "docs" / f"{name}.md").read_text(
        encoding="utf-8"), re.M)} for name in ("formulas", "derivations")}
    assert heads["formulas"] >= set(range(1, 11)) and heads["derivations"]
    missing = []
    for path in files() + [ROOT / "README.md"]:
        for name, number in SECTION.findall(path.read_text(encoding="utf-8", errors="replace")):
            if int(number) not in heads[name]:
                missing.append(f"{path.relative_to(ROOT)}: docs/{name}.md section {number}")
    assert not missing, "\n".join(missing)


def test_every_formula_section_names_a_published_source():
    text = (ROOT / "docs" / "formulas.md").read_text(encoding="utf-8")
    sections = re.split(r"^## \d+\. ", text, flags=re.M)[1:]
    without = [s.splitlines()[0] for s in sections[:9] if "Sources:" not in s]
    assert without == []
