"""Fingerprint the CLI's output in every format on tests/data, to show a refactor changed no byte of it.

    python scripts/build/check_cli_outputs.py record OUT.json [--python PY] [--repo DIR]
    python scripts/build/check_cli_outputs.py compare BEFORE.json AFTER.json

`record` runs `PY -m retto` from DIR (default: this checkout with .venv's python) once per format over tests/data
(or --data) with --output, and writes {format/file: sha256}. csv and xlsx run with tables on. JSON and JSONL are hashed with
their `timings` removed (wall-clock milliseconds differ run to run); every other format is hashed as written.
`compare` prints the files that differ and exits 1 if any do."""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORMATS = ["json", "jsonl", "text", "plain", "tsv", "md", "hocr", "alto", "pdf", "csv", "xlsx"]
TABLES_ON = '{"layout": {"regions": true, "tables": true}}'


def untimed(value):
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k != "timings"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def fingerprint(path: Path, fmt: str) -> str:
    data = path.read_bytes()
    if fmt == "json":
        data = json.dumps(untimed(json.loads(data)), sort_keys=True).encode()
    elif fmt == "jsonl":
        data = b"\n".join(json.dumps(untimed(json.loads(line)), sort_keys=True).encode()
                          for line in data.splitlines() if line.strip())
    return hashlib.sha256(data).hexdigest()


def record(out: Path, python: str, repo: Path, data: Path) -> None:
    prints = {}
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in FORMATS:
            target = Path(tmp) / fmt
            cmd = [python, "-m", "retto", "--inputs", str(data), "--format", fmt,
                   "--output", str(target), "--no-progress"]
            if fmt in ("csv", "xlsx"):
                cmd += ["--config", _config_file(tmp)]
            proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
            if proc.returncode not in (0, 1):   # 1: some input failed, as a record (kept in the fingerprint)
                sys.exit(f"{fmt}: exit {proc.returncode}\n{proc.stderr}")
            for f in sorted(p for p in target.rglob("*") if p.is_file()):
                prints[f"{fmt}/{f.relative_to(target)}"] = fingerprint(f, fmt)
            print(f"{fmt}: {sum(k.startswith(fmt + '/') for k in prints)} files", file=sys.stderr)
    out.write_text(json.dumps(prints, indent=1, sort_keys=True) + "\n")


def _config_file(tmp: str) -> str:
    # A settings file, which both the old CLI (a path only) and the new one (a path or inline JSON) read.
    path = Path(tmp) / "tables.json"
    path.write_text(TABLES_ON)
    return str(path)


def compare(before: Path, after: Path) -> int:
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    differ = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    for k in differ:
        print(f"differs: {k} ({a.get(k, 'missing')[:12]} -> {b.get(k, 'missing')[:12]})")
    print(f"{len(a)} files before, {len(b)} after, {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    r.add_argument("--repo", type=Path, default=ROOT)
    r.add_argument("--data", type=Path, help="the inputs (default: the repo's tests/data; name a folder holding only "
                                             "the pinned files when tests have written more beside them)")
    c = sub.add_parser("compare")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = p.parse_args()
    if args.command == "record":
        repo = args.repo.resolve()
        record(args.out, args.python, repo, (args.data or repo / "tests" / "data").resolve())
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
