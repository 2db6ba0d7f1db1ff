#!/usr/bin/env python3
"""The one entry point to the benchmarks in scripts/bench/ (not tests; run them on purpose, they take minutes).

  python3 scripts/bench/run.py list                  every benchmark and the first line of its docstring/header
  python3 scripts/bench/run.py run NAME [args ...]   run scripts/bench/NAME.py (.venv's python) or NAME.mjs (node)

A run writes into bench-results/<UTC date>/ (gitignored): its stdout and stderr as NAME.txt (headed by the command,
the UTC time and the machine load from /proc/loadavg, since this machine is shared), and, when the benchmark has a
--json option (or names its JSON option in a `bench-results: --out` line), its JSON as NAME.json, unless the
arguments already say where. A second run of the same day gets NAME.2.txt, NAME.3.txt, ... The folder is also in
the environment as RETTO_BENCH_OUT. Shared helpers live in scripts/bench/lib/ and are not listed.
"""
from __future__ import annotations

import ast
import datetime as dt
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KINDS = (".py", ".mjs")
PREFIX = "Benchmark (not a test): "


def benchmarks() -> dict[str, Path]:
    """name -> file, for every .py/.mjs directly in scripts/bench/ but this runner."""
    return {p.stem: p for p in sorted(HERE.iterdir())
            if p.is_file() and p.suffix in KINDS and p.resolve() != Path(__file__).resolve()}


def describe(path: Path) -> str:
    """The first line of a Python file's docstring, or of a .mjs file's header comment (after any #! line)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        doc = ast.get_docstring(ast.parse(text)) or ""
        first = doc.strip().splitlines()[0] if doc.strip() else ""
    else:
        first = ""
        for line in text.splitlines():
            if line.startswith("#!"):
                continue
            if line.startswith("//"):
                first = line.lstrip("/").strip()
            break
    return first.removeprefix(PREFIX).strip()


def output_flag(path: Path) -> str | None:
    """The option a benchmark writes its JSON results to: a `bench-results: --flag` line, else --json if it has one."""
    text = path.read_text(encoding="utf-8")
    m = re.search(r"bench-results:\s*(--[\w-]+)", text)
    if m:
        return m.group(1)
    if re.search(r"""(add_argument\(|opt\()\s*["']--json["']""", text):
        return "--json"
    return None


def out_dir(now: dt.datetime) -> Path:
    d = Path(os.environ.get("RETTO_BENCH_RESULTS", ROOT / "bench-results")) / now.strftime("%Y-%m-%d")
    d.mkdir(parents=True, exist_ok=True)
    return d


def free_name(d: Path, name: str) -> str:
    """NAME, or NAME.2, NAME.3 ... when an earlier run of the day already wrote NAME.txt."""
    stem, n = name, 1
    while (d / f"{stem}.txt").exists():
        n += 1
        stem = f"{name}.{n}"
    return stem


def command(path: Path) -> list[str]:
    if path.suffix == ".py":
        venv = ROOT / ".venv" / "bin" / "python"
        return [str(venv if venv.exists() else sys.executable), str(path)]
    return ["node", str(path)]


def run(name: str, args: list[str]) -> int:
    benches = benchmarks()
    if name not in benches:
        name = name.removeprefix("bench_")
    if name not in benches:
        print(f"no benchmark {name!r}; `python3 scripts/bench/run.py list` names them", file=sys.stderr)
        return 2
    path = benches[name]
    now = dt.datetime.now(dt.timezone.utc)
    d = out_dir(now)
    stem = free_name(d, name)
    flag = output_flag(path)
    if flag and flag not in args:
        args = [*args, flag, str(d / f"{stem}.json")]
    cmd = command(path) + args
    env = dict(os.environ, RETTO_BENCH_OUT=str(d), RETTO_BENCH_NAME=stem)
    try:
        load = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        load = ["?"] * 3
    log = d / f"{stem}.txt"
    print(f"== {name}: results in {log}" + (f" and {stem}.json" if flag else ""), file=sys.stderr)
    with log.open("w", encoding="utf-8") as out:
        out.write(f"# {' '.join(cmd)}\n# {now.isoformat(timespec='seconds')}  load average {' '.join(load)}\n")
        out.flush()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert proc.stdout is not None
        for chunk in iter(lambda: proc.stdout.readline(), b""):
            sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
            out.write(chunk.decode("utf-8", "replace"))
            out.flush()
        code = proc.wait()
        out.write(f"# exit {code}\n")
    return code


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "list":
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `run.py list | head` ends quietly
        benches = benchmarks()
        width = max(len(n) for n in benches)
        for name, path in benches.items():
            print(f"{name:<{width}}  {path.suffix[1:]:<3}  {describe(path)}")
        return 0
    if argv[0] == "run" and len(argv) >= 2:
        return run(argv[1], argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
