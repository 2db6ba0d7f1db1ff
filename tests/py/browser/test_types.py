"""The shipped TypeScript declarations (web/types/, copied to dist/ beside retto-ocr.js) type-check a host's
usage under `tsc --strict`, and its deliberate misuses (`// @ts-expect-error` lines) are rejected: an expected
error that does not happen fails tsc too."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TSC = ROOT / "node_modules" / ".bin" / "tsc"
USAGE = ROOT / "tests" / "types" / "usage.ts"
FLAGS = ["--noEmit", "--strict", "--target", "es2022", "--lib", "es2022,dom", "--module", "esnext",
         "--moduleResolution", "bundler"]


def tsc(path):
    return subprocess.run([str(TSC), *FLAGS, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_usage_type_checks_strict():
    run = tsc(USAGE)
    assert run.returncode == 0, run.stdout + run.stderr


def test_each_misuse_is_an_error():
    # Without its marker, every misuse must be reported by tsc at that very line.
    source = USAGE.read_text()
    marked = [i for i, line in enumerate(source.splitlines()) if line.strip().startswith("// @ts-expect-error")]
    assert len(marked) >= 4
    bare = "\n".join(l.replace("// @ts-expect-error", "// (misuse)") if l.strip().startswith("// @ts-expect-error") else l
                     for l in source.splitlines())
    copy = USAGE.parent / "_usage_unmarked.ts"  # beside the original: same relative import
    copy.write_text(bare)
    try:
        run = tsc(copy)
    finally:
        copy.unlink()
    assert run.returncode != 0
    error_lines = {int(m) for m in re.findall(r"_usage_unmarked\.ts\((\d+),\d+\): error", run.stdout)}
    assert error_lines == {i + 2 for i in marked}, run.stdout  # the misuse is the line after its marker (1-based)


def test_every_error_code_the_python_package_gives_is_declared():
    """The browser passes retto.errors' codes through as they are, so the declared union must name each (the CLI's
    own output_failed aside)."""
    import retto.errors as errors
    codes = {v for k, v in vars(errors).items() if k.isupper() and isinstance(v, str) and re.fullmatch(r"[a-z_]+", v)}
    union = (ROOT / "web" / "types" / "retto.d.ts").read_text().split("export type RettoErrorCode =")[1].split(";")[0]
    declared = set(re.findall(r"'([a-z_]+)'", union))
    assert codes - {"output_failed"} <= declared, sorted(codes - declared)
