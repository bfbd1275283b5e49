"""The README is the front door and docs/ the manual: every relative link in
them resolves (a file, and a heading for an #anchor), the README stays short,
and the code cites docs/ or a seed by its title, never a document the
repository does not hold."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SOURCES = ("*.py", "*.html", "*.js", "*.css", "*.toml", "*.sh", "*.md")
SKIPPED = {".venv", ".git", "build", "node_modules", ".mypy_cache", ".pytest_cache"}


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _slugs(path: Path) -> set[str]:
    """Heading anchors as GitHub makes them (repeats get -1, -2, ...)."""
    slugs, seen, fenced = set(), {}, False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match:
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(2))
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            slugs.add(slug if n == 0 else f"{slug}-{n}")
    return slugs


def _links(text: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return LINK.findall(re.sub(r"`[^`\n]*`", "", text))


def test_every_relative_link_in_the_readme_and_docs_resolves():
    broken, checked = [], 0
    for source in _markdown_files():
        for target in _links(source.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            dest = (source.parent / path).resolve() if path else source
            if not dest.exists():
                broken.append(f"{source.relative_to(ROOT)}: no file {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _slugs(dest):
                broken.append(f"{source.relative_to(ROOT)}: no heading {target}")
    assert checked > 50
    assert broken == []


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200
    top = "\n".join(lines[:12])
    assert "./scripts/run" in top and "./scripts/test" in top


def test_the_code_cites_nothing_outside_the_repository():
    offenders = []
    for pattern in SOURCES:
        for path in ROOT.rglob(pattern):
            rel = path.relative_to(ROOT)
            if SKIPPED & set(rel.parts) or rel == Path("tests/test_docs.py"):
                continue
            text = path.read_text(errors="replace")
            if re.search(r"DESIGN\.md|\bContract [A-Z]\b", text):
                offenders.append(str(rel))
    assert offenders == []
