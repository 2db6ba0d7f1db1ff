"""Many pages on one machine: the plain CLI (`--threads 2`), `retto --jobs 2`, and `retto batch` on a local Ray
with 2 actors × 1 thread, side by side on the same mixed pages, in alternating order within each round.

The pages (default 200) are made here from the pinned test images (tests/data) and the labelled pages
(tests/testset/pages): image files, multi-page PDFs made of them (each page at the image's own pixels) and broken
files (truncated PNG/JPEG, a PDF that is not one, an empty file), one row each.

Measured per run: wall time (process start to exit), pages per second, start-up (the same command on one small
image), and peak memory: the sum of PSS (/proc/PID/smaps_rollup; shared pages split between their processes) of
the command's whole process tree, sampled every 0.2 s (Ray's raylet, GCS and actors are children of the driver).
and CPU seconds (user + system) of that tree, from /proc/PID/stat sampled at the same time: on a machine
other work also loads, CPU seconds per page say what a core does, whatever share of the cores a run got.
Checked: every page's result (timings aside) is the same in the three.

    .venv/bin/python scripts/bench/scale.py --rounds 2 [--pages 200] [--json bench-scale.json]

`--files 500` instead makes a batch of 500 image files, each a pinned page scaled to a size of its own (60-125 %),
so that every input has a new shape (what grows onnxruntime's memory arenas); `--commands threads,jobs` runs
only some of the three.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA, PAGES = ROOT / "tests" / "data", ROOT / "tests" / "testset" / "pages"
RETTO = [sys.executable, "-m", "retto"]


def page_pool() -> list[Path]:
    images = sorted(p for p in DATA.iterdir() if p.suffix in (".png", ".jpg"))
    return images + sorted(p for p in PAGES.iterdir() if p.suffix in (".png", ".jpg"))


def image_pdf(images: list[Path], dpi: int = 200) -> bytes:
    from fpdf import FPDF
    from PIL import Image
    pdf = FPDF(unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_margin(0)
    for path in images:
        with Image.open(path) as im:
            im = im.convert("RGB")   # CMYK / palette / alpha pages as the pipeline reads them
            w, h = im.width * 72.0 / dpi, im.height * 72.0 / dpi
            pdf.add_page(format=(w, h))
            buf = io.BytesIO()
            im.save(buf, "PNG")
            pdf.image(buf, x=0, y=0, w=w, h=h)
    return bytes(pdf.output())


def make_inputs(folder: Path, pages: int) -> dict:
    """About half the pages as image files, 40 % in 9-page PDFs, 5 % broken files; returns the counts."""
    pool = page_pool()
    broken = max(1, pages // 20)
    in_pdfs = (pages * 2 // 5) // 9 * 9
    images = pages - broken - in_pdfs
    (folder / "img").mkdir(parents=True)
    (folder / "pdf").mkdir()
    (folder / "bad").mkdir()
    k = 0
    for i in range(images):
        src = pool[k % len(pool)]
        k += 1
        shutil.copy(src, folder / "img" / f"{i:03d}_{src.name}")
    for d in range(in_pdfs // 9):
        chunk = [pool[(k + j) % len(pool)] for j in range(9)]
        k += 9
        (folder / "pdf" / f"doc{d:02d}.pdf").write_bytes(image_pdf(chunk))
    good_png, good_jpg = (DATA / "baiona.png").read_bytes(), (DATA / "baiona_color.jpg").read_bytes()
    makers = [lambda: ("png", good_png[:500]), lambda: ("jpg", good_jpg[:900]),
              lambda: ("pdf", b"%PDF-1.7\n" + bytes(range(256)) * 4), lambda: ("png", b"")]
    for b in range(broken):
        ext, data = makers[b % len(makers)]()
        (folder / "bad" / f"broken{b:02d}.{ext}").write_bytes(data)
    return {"images": images, "pdf_pages": in_pdfs, "pdfs": in_pdfs // 9, "broken": broken}


def make_files(folder: Path, files: int) -> dict:
    """`files` image files, the pool's pages each scaled by its own factor (60-125 %): every input a new size."""
    from PIL import Image
    pool = page_pool()
    folder.mkdir(parents=True)
    for i in range(files):
        src = pool[i % len(pool)]
        scale = 0.6 + 0.65 * ((i * 37) % 100) / 100
        with Image.open(src) as im:
            im = im.convert("RGB")
            im = im.resize((max(32, round(im.width * scale)), max(32, round(im.height * scale))), Image.LANCZOS)
            im.save(folder / f"{i:03d}_{src.stem}.png")
    return {"images": files, "scaled": "60-125 %"}


# --------------------------------------------------------------------------------------------- measuring

TICKS = os.sysconf("SC_CLK_TCK")


def tree(root: int) -> list[int]:
    """`root` and all its descendants."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of one process so far (its own threads, not its children)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, ValueError, IndexError):
        return 0.0


def timed(cmd: list, stdout_path: Path | None = None) -> dict:
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.PIPE)
    peak, cpu = [0], {}

    def sample():
        while proc.poll() is None:
            pids = tree(proc.pid)
            peak[0] = max(peak[0], sum(pss_kb(p) for p in pids))
            for p in pids:   # cumulative per process: the last sample before it exits counts
                cpu[p] = max(cpu.get(p, 0.0), cpu_s(p))
            time.sleep(0.2)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    sampler.join()
    if stdout_path:
        out.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{err.decode()[-3000:]}")
    return {"wall_s": wall, "peak_mb": peak[0] / 1024, "cpu_s": sum(cpu.values())}


def commands(name: str, inputs: Path, work: Path) -> tuple[list, Path | None]:
    if name == "cli --threads 2":
        return RETTO + ["--inputs", str(inputs), "--format", "jsonl", "--no-progress", "--threads", "2"], work / "cli.jsonl"
    if name == "cli --jobs 2":
        return RETTO + ["--inputs", str(inputs), "--format", "jsonl", "--no-progress", "--jobs", "2"], work / "jobs.jsonl"
    shutil.rmtree(work / "ray_out", ignore_errors=True)   # a fresh output: nothing skipped
    return RETTO + ["batch", str(inputs), "--output", str(work / "ray_out"), "--actors", "2", "--threads", "1",
                    "--no-progress"], None


# --------------------------------------------------------------------------------------------- comparing

def strip(record: dict) -> dict:
    record = {k: v for k, v in record.items() if k != "timings"}
    if "pages" in record:
        record["pages"] = [strip(p) for p in record["pages"]]
    return record


def cli_pages(path: Path) -> dict:
    """(path, page) -> the page's record as `retto batch` stores it in `result` (timings aside)."""
    out = {}
    for rec in map(json.loads, path.read_text().splitlines()):
        rec = strip(rec)
        name = rec.pop("path")
        if "error" in rec:
            out[(name, None)] = rec
        elif "pages" in rec:
            out.update({(name, p["page"]): p for p in rec["pages"]})
        else:
            out[(name, 1)] = rec
    return out


def ray_pages(out_dir: Path) -> dict:
    sys.path.insert(0, str(ROOT / "py"))
    from retto.scale.output import read_rows
    rows = read_rows(str(out_dir)).to_pylist()
    return {(r["path"], r["page"]): strip(json.loads(r["result"])) for r in rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--first-round", type=int, default=0, help="rotate the order as if this many rounds ran before")
    ap.add_argument("--files", type=int, help="instead of the mix: this many image files, each of its own size")
    ap.add_argument("--commands", default="threads,jobs,ray", help="which of threads, jobs, ray to run")
    ap.add_argument("--json", help="also write the measurements here")
    args = ap.parse_args()
    every = {"threads": "cli --threads 2", "jobs": "cli --jobs 2", "ray": "ray 2 actors × 1 thread"}
    names = [every[c] for c in args.commands.split(",")]
    if args.files:
        args.pages = args.files
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        work = Path(tmp)
        inputs = work / "in"
        mix = make_files(inputs, args.files) if args.files else make_inputs(inputs, args.pages)
        one = work / "one"
        one.mkdir()
        shutil.copy(DATA / "baiona.png", one / "baiona.png")
        print(f"inputs: {mix} = {args.pages} pages (rows); {os.cpu_count()} cores", file=sys.stderr)
        runs = {n: [] for n in names}
        starts = {n: [] for n in names}
        for r in range(args.rounds):
            k = (r + args.first_round) % len(names)
            order = names[k:] + names[:k]   # a different one first in each round
            for name in order:
                cmd, out = commands(name, one, work / "startup")
                (work / "startup").mkdir(exist_ok=True)
                starts[name].append(timed(cmd, out)["wall_s"])
                cmd, out = commands(name, inputs, work)
                m = timed(cmd, out)
                m["pages_per_s"] = args.pages / m["wall_s"]
                runs[name].append(m)
                print(f"round {r + 1}: {name}: {m['wall_s']:.1f} s, {m['pages_per_s']:.2f} pages/s, "
                      f"{m['cpu_s']:.0f} CPU s, load {os.getloadavg()[0]:.1f}, "
                      f"peak {m['peak_mb']:.0f} MB; start-up {starts[name][-1]:.1f} s", file=sys.stderr)
        cli = [work / f for n, f in (("cli --threads 2", "cli.jsonl"), ("cli --jobs 2", "jobs.jsonl")) if n in names]
        ref = cli_pages(cli[0]) if cli else None   # Ray alone: nothing to compare with
        same_jobs = cli_pages(work / "jobs.jsonl") == ref if "cli --jobs 2" in names else None
        same_ray = ray_pages(work / "ray_out") == ref if every["ray"] in names and ref is not None else None
        table = ["| | wall s | pages/s | pages/s after start-up | CPU s per page | start-up s (1 small image) | "
                 "peak PSS MB |", "|---|---|---|---|---|---|---|"]
        summary = {}
        for name in names:
            wall = statistics.median(m["wall_s"] for m in runs[name])
            start = statistics.median(starts[name])
            peak = statistics.median(m["peak_mb"] for m in runs[name])
            cpu_page = statistics.median(m["cpu_s"] for m in runs[name]) / args.pages
            summary[name] = {"wall_s": wall, "pages_per_s": args.pages / wall, "startup_s": start,
                             "steady_pages_per_s": args.pages / max(wall - start, 1e-9), "peak_mb": peak,
                             "cpu_s_per_page": cpu_page,
                             "runs": runs[name], "startups": starts[name]}
            s = summary[name]
            table.append(f"| {name} | {wall:.1f} | {s['pages_per_s']:.2f} | {s['steady_pages_per_s']:.2f} | "
                         f"{cpu_page:.2f} | {start:.1f} | {peak:.0f} |")
        print(f"\n{args.pages} pages ({mix}), median of {args.rounds} round(s):\n" + "\n".join(table))
        print(f"identical per-page results to the CLI's (timings aside): --jobs 2 {same_jobs}, Ray {same_ray} "
              f"({len(ref or ())} pages/rows)")
        if args.json:
            Path(args.json).write_text(json.dumps({"pages": args.pages, "mix": mix, "rounds": args.rounds,
                                                   "results": summary, "identical_jobs": same_jobs,
                                                   "identical_ray": same_ray}, indent=1))
        return 0 if same_jobs is not False and same_ray is not False else 1


if __name__ == "__main__":
    raise SystemExit(main())
