"""The docs hold together: a short user-facing README, no issue-numbered headings in it, every relative link in
README.md and docs/ resolves to a file, and nothing tracked cites the old shared notes instead of docs/facts.md."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
MAX_README_LINES = 450
# [text](target) and ![alt](target); the target ends at whitespace or ')' (an optional "title" may follow).
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE_SPAN = re.compile(r"`[^`\n]*`")
FORBIDDEN = ("FACTS \u00a7", "FACTS.md")
# "../shared" is the project's notes outside the repository; web/src/shared/ is ours, and `../shared/x.js` from
# web/src/ui/ is an import of it. So an occurrence is flagged unless it names a path inside the repository that
# exists, resolved from the file's own folder.
SHARED = re.compile(r"(?:\.\./)+shared(?:/[\w.@-]+)*")
SELF = Path(__file__).resolve()


def doc_files() -> list[Path]:
    return [README] + sorted((ROOT / "docs").rglob("*.md"))


def links(text: str) -> list[str]:
    text = CODE_SPAN.sub("", FENCE.sub("", text))   # links inside code are examples, not links
    return LINK.findall(text) + REFERENCE.findall(text)


def is_relative(target: str) -> bool:
    return not (target.startswith("#") or re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"))


def tracked_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def test_readme_is_short():
    n = len(README.read_text(encoding="utf-8").splitlines())
    assert 0 < n <= MAX_README_LINES, f"README.md has {n} lines (at most {MAX_README_LINES})"


def test_readme_headings_name_no_issue():
    headings = [line for line in README.read_text(encoding="utf-8").splitlines() if re.match(r"^#{1,6}\s", line)]
    assert headings, "README.md has no headings"
    bad = [h for h in headings if re.search(r"issue\s*\d+", h, re.I)]
    assert not bad, f"README headings naming issues: {bad}"


def test_link_pattern_finds_links():
    found = links("[a](x.md) ![b](img/y.png \"t\") `[c](no.md)` [d](https://e.org) [f](#g)\n```\n[h](no2.md)\n```")
    assert found == ["x.md", "img/y.png", "https://e.org", "#g"]
    assert [t for t in found if is_relative(t)] == ["x.md", "img/y.png"]


def test_relative_links_resolve():
    checked, missing = 0, []
    for path in doc_files():
        for target in links(path.read_text(encoding="utf-8")):
            if not is_relative(target):
                continue
            file_part = unquote(target.split("#", 1)[0].split("?", 1)[0])
            if not file_part:
                continue
            checked += 1
            dest = (path.parent / file_part).resolve()
            if not dest.exists() or ROOT not in (dest, *dest.parents):
                missing.append(f"{path.relative_to(ROOT)}: {target}")
    assert checked >= 10, f"only {checked} relative links found: is the pattern broken?"
    assert not missing, "links to files that do not exist:\n" + "\n".join(missing)


def outside_shared(path: Path, text: str) -> list[str]:
    """Occurrences of ../shared that do not name an existing path inside the repository."""
    bad = []
    for m in SHARED.finditer(text):
        dest = (path.parent / m.group()).resolve()
        if not dest.exists() or ROOT not in (dest, *dest.parents):
            bad.append(m.group())
    return sorted(set(bad))


def test_shared_rule_tells_ours_from_theirs():
    ui = ROOT / "web" / "src" / "ui" / "app.js"
    assert outside_shared(ui, "import { h } from '../shared/dom.js';") == []
    assert outside_shared(README, "see ../shared/FACTS.md") == ["../shared/FACTS.md"]
    assert outside_shared(ROOT / "docs" / "x.md", "../../shared/DESIGN.md") == ["../../shared/DESIGN.md"]


def test_no_citation_of_the_shared_notes():
    flagged, scanned = [], 0
    for path in tracked_files():
        rel = path.relative_to(ROOT).as_posix()
        if "node_modules/" in rel or path.resolve() == SELF or not path.is_file():
            continue
        data = path.read_bytes()
        if b"\0" in data[:8192]:
            continue   # binary
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue   # not text
        scanned += 1
        hits = [s for s in FORBIDDEN if s in text] + outside_shared(path, text)
        if hits:
            flagged.append(f"{rel}: {', '.join(hits)}")
    assert scanned > 50, f"only {scanned} tracked text files scanned"
    assert not flagged, "cite docs/facts.md instead of:\n" + "\n".join(flagged)
