"""What the repository says about itself: citations of the rules name sections that exist,
and nothing points at a file the repository does not have."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"
#: Files outside the repository that its text once pointed at (spelt in pieces, so that this
#: file does not cite them itself).
ABSENT = ("RULES" + ".md", "PERFORMANCE" + ".md", "/work/" + "shared")
TEXT = {".py", ".md", ".js", ".json", ".html", ".css", ".toml", ".cfg", ".txt", ".yml"}
SKIP = {".git", ".venv", "node_modules", "__pycache__", "test-artifacts", "arena-results"}


@functools.cache
def repository_text() -> list[tuple[Path, str]]:
    """Every text file of the repository with its text (tools' and caches' folders left out)."""
    found = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [
            d
            for d in subfolders
            if d not in SKIP and (d == ".ci" or not d.startswith(".")) and "egg-info" not in d
        ]
        for name in files:
            path = Path(folder) / name
            if path.suffix in TEXT or name in ("Makefile", "run"):
                found.append((path, path.read_text(errors="replace")))
    return found


def test_nothing_points_at_a_file_the_repository_does_not_have() -> None:
    for path, text in repository_text():
        for name in ABSENT:
            assert name not in text, f"{path.relative_to(ROOT)} cites {name}"


def _numbers(cited: str) -> set[str]:
    found: set[str] = set()
    for low, high in re.findall(r"(\d+)(?:-(\d+))?", cited):
        found.update(str(n) for n in range(int(low), int(high or low) + 1))
    return found


def test_every_citation_of_the_rules_names_a_section_that_exists() -> None:
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", RULES.read_text(), re.MULTILINE))
    assert {str(n) for n in range(1, 13)} <= sections
    citations = 0
    for path, text in repository_text():
        for cited in re.findall(r"docs/rules\.md,? sections? ([\d.]+(?:(?:-|, | and )\d+)*)", text):
            citations += 1
            missing = _numbers(cited) - sections
            assert not missing, f"{path.relative_to(ROOT)} cites docs/rules.md section {cited}"
    assert citations >= 10
