"""scripts/bench/run.py lists every benchmark in scripts/bench/ (lib/ holds helpers, not benchmarks), each with a
description read from its own docstring or header comment."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "scripts" / "bench"


def test_list_names_every_benchmark_with_a_description():
    out = subprocess.run([sys.executable, str(BENCH / "run.py"), "list"], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    listed = {}
    for line in out.splitlines():
        name, kind, *desc = line.split(None, 2)
        listed[name] = (kind, desc[0].strip() if desc else "")
    files = {p.stem: p.suffix[1:] for p in BENCH.iterdir() if p.is_file() and p.name != "run.py"}
    assert set(listed) == set(files), f"listed {sorted(listed)} != files {sorted(files)}"
    for name, (kind, desc) in listed.items():
        assert kind == files[name], name
        assert desc, f"scripts/bench/{name}.{kind} has no docstring/header line"


def test_run_rejects_an_unknown_name():
    proc = subprocess.run([sys.executable, str(BENCH / "run.py"), "run", "no_such_bench"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "list" in proc.stderr
