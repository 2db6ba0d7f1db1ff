"""`retto batch` on a real local Ray (Ray Data 2.60) and `retto --jobs`, against the plain CLI's output.

One local Ray for the whole module (started in pytest's temporary folder, shut down at the end, and checked to
leave no raylet / gcs_server process and nothing in ~/.ray or /tmp/ray); small inputs; the default (fastest)
model set. The plain CLI's JSON for the same inputs, run once, is the reference for every page.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pdf_fixtures import garbage_pdf, image_pdf, vector_text_pdf
from refkit import DATA, ROOT

from retto import cli, export
from retto.io.inputs import collect_inputs
from retto.scale.output import read_rows
from retto.scale.rows import SCHEMA

RETTO = [sys.executable, "-m", "retto"]
RAY_PROCESSES = ("raylet", "gcs_server")


def ray_pids() -> set:
    out = subprocess.run(["ps", "-eo", "pid=,comm="], capture_output=True, text=True, check=True).stdout
    return {int(line.split()[0]) for line in out.splitlines() if line.split()[1:2] and
            any(line.split()[1].startswith(name) for name in RAY_PROCESSES)}


def wait_gone(pids: set, seconds: float = 15.0) -> set:
    deadline = time.monotonic() + seconds
    left = pids & ray_pids()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = pids & ray_pids()
    return left


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """A local Ray in pytest's temporary folder; afterwards: no Ray process, nothing in ~/.ray or /tmp/ray."""
    from retto.scale.cluster import MAX_TEMP_DIR_CHARS, RayConnection
    home_ray, tmp_ray = Path.home() / ".ray", Path("/tmp/ray")
    existed = {p: p.exists() for p in (home_ray, tmp_ray)}
    before = ray_pids()
    # Not under pytest's basetemp: with pytest-xdist (.../popen-gw0/) it is longer than Ray's socket paths allow.
    temp = Path(tempfile.mkdtemp(prefix="retto-ray-")) / "ray"
    assert len(str(temp)) <= MAX_TEMP_DIR_CHARS, f"the temporary folder {temp} is too long for Ray's sockets"
    conn = RayConnection(None, str(temp), cpus=2)
    started = ray_pids() - before
    assert started, "a local Ray runs a raylet and a gcs_server"
    yield conn
    conn.close()
    assert not wait_gone(started), "Ray processes left behind after shutdown"
    for path, was in existed.items():
        assert path.exists() == was, f"the tests created {path}"
    assert any(temp.iterdir()), "Ray kept its session in the folder it was given"
    shutil.rmtree(temp.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Images, a 2-page PDF, a vector-text PDF, a truncated PNG and a PDF that is not one; nested folders."""
    root = tmp_path_factory.mktemp("batch_in")
    (root / "scans").mkdir()
    shutil.copy(DATA / "baiona.png", root / "scans" / "baiona.png")
    shutil.copy(DATA / "baiona_gray.png", root / "scans" / "gray.png")
    (root / "doc.pdf").write_bytes(image_pdf([DATA / "baiona.png", DATA / "baiona_color.jpg"]))
    (root / "vector.pdf").write_bytes(vector_text_pdf())
    (root / "broken.png").write_bytes((DATA / "baiona.png").read_bytes()[:400])
    (root / "not_really.pdf").write_bytes(garbage_pdf())
    return root


def strip_timings(record: dict) -> dict:
    record = {k: v for k, v in record.items() if k != "timings"}
    if "pages" in record:
        record["pages"] = [strip_timings(p) for p in record["pages"]]
    return record


def run_cli(args: list, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(RETTO + args, capture_output=True, text=True, cwd=ROOT, **kw)


@pytest.fixture(scope="module")
def cli_records(inputs) -> dict:
    """The plain CLI's records (no --jobs), by path: the reference for every batch and --jobs result."""
    out = run_cli(["--inputs", str(inputs), "--format", "jsonl", "--no-progress"])
    assert out.returncode == 1, out.stderr   # two inputs are broken
    return {r["path"]: r for r in map(json.loads, out.stdout.splitlines())}


def expected_pages(cli_records: dict) -> set:
    """(path, page) for every page the CLI read or failed; (path, None) for an input that failed whole."""
    keys = set()
    for path, rec in cli_records.items():
        if "error" in rec:
            keys.add((path, None))
        elif "pages" in rec:
            keys.update((path, p["page"]) for p in rec["pages"])
        else:
            keys.add((path, 1))
    return keys


def row_keys(table) -> Counter:
    return Counter(zip(table.column("path").to_pylist(), table.column("page").to_pylist()))


def test_batch_rows_are_the_cli_results(ray_cluster, inputs, cli_records, tmp_path):
    """One Parquet row per page, result/text identical to the CLI's, errors as rows; a file:// URI input is
    read like a local one; --export writes the CLI's hOCR; a second run skips everything."""
    out = tmp_path / "out"
    uri_input = (inputs / "scans" / "gray.png").as_uri()
    local = [str(p) for p in sorted(inputs.iterdir()) if p.name != "scans"] + [str(inputs / "scans" / "baiona.png")]
    code = cli.main(["batch", *local, uri_input, "--output", str(out), "--export", "hocr", "--no-progress"])
    assert code == 1   # the broken inputs are error rows
    table = read_rows(str(out))
    assert table.schema == SCHEMA
    keys = row_keys(table)
    assert all(n == 1 for n in keys.values())
    by_name = {Path(p).name: rec for p, rec in cli_records.items()}
    ocr_set = next(rec["model_set"] for rec in cli_records.values() if "model_set" in rec)
    expected = {(uri_input if Path(p).name == "gray.png" else p, page)
                for p, page in expected_pages(cli_records)}
    assert set(keys) == expected
    for row in table.to_pylist():
        ref = by_name[Path(row["path"]).name]
        got = json.loads(row["result"])
        if row["page"] is None:                       # the whole input failed
            assert got == {"error": ref["error"]} and row["error_code"] == ref["error"]["code"]
            continue
        page_ref = next(p for p in ref["pages"] if p["page"] == row["page"]) if "pages" in ref else \
            {k: v for k, v in ref.items() if k != "path"}
        assert strip_timings(got) == strip_timings(page_ref)
        assert row["text"] == "\n".join(line["text"] for line in page_ref["lines"])
        assert row["page_count"] == ref.get("page_count", 1) and row["error_code"] is None
        if page_ref.get("source") == "text":   # the vector PDF's own text layer: no model read it, nothing timed
            assert row["model_set"] == ocr_set
        else:
            assert row["model_set"] == page_ref["model_set"] and row["timings"]
    # The export is the CLI's own hOCR for that input (same text; its timings are not in hOCR).
    hocr = (out / "doc.pdf.hocr").read_text(encoding="utf-8")
    ref_doc = run_cli(["--inputs", str(inputs / "doc.pdf"), "--format", "hocr", "--no-progress"]).stdout
    assert hocr == ref_doc and "ocrx_word" in hocr
    parts = sorted((out / "rows").iterdir())

    # Again, as a user runs it: its own local Ray (no --ray), the output as a file:// URI. Nothing to do: every
    # input is unchanged (by path and content sha256). Its Ray processes and folder are gone when it exits.
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    before = ray_pids()
    again = run_cli(["batch", *local, uri_input, "--output", out.as_uri(), "--no-progress"], env=env)
    assert again.returncode == 0, again.stderr
    temp = again.stderr.split("on a local Ray in ")[1].split()[0]
    assert f", {len(local) + 1} inputs unchanged," in again.stderr
    assert sorted((out / "rows").iterdir()) == parts and read_rows(str(out)).num_rows == table.num_rows
    assert not Path(temp).exists() and not wait_gone(ray_pids() - before)


def map_workers() -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    return [int(line.split()[0]) for line in out.splitlines() if line.split()[1].startswith("ray::MapWorker")]


def part_count(out: Path) -> int:
    return len(list((out / "rows").glob("part-*")))


# Deadlines for events, generous enough for a loaded 2-core CI machine (a quiet one sees them within seconds):
# a test waits on what happens, never on the clock, and says what it waited for when it gives up.
EVENT_DEADLINE_S = 600.0


def wait_for(condition, proc, what: str, log: Path, seconds: float = EVENT_DEADLINE_S) -> None:
    t0 = time.monotonic()
    while not condition():
        waited = time.monotonic() - t0
        if proc.poll() is not None:
            raise AssertionError(f"the batch ended (exit {proc.returncode}) after {waited:.0f} s while waiting for "
                                 f"{what}; its stderr ends:\n{log.read_text(errors='replace')[-2000:]}")
        if waited > seconds:
            raise AssertionError(f"waited {waited:.0f} s for {what}; the batch's stderr ends:\n"
                                 f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)


def test_killed_run_resumes_with_every_page_once(ray_cluster, inputs, cli_records, tmp_path, capsys):
    """A batch (its own driver, on the shared cluster): one of its actors killed (SIGKILL) after its first part
    file, and the job goes on; then the driver itself killed; then the same command again: every page exactly
    once, the finished inputs not read again, and the folder readable as one dataset (part files of error rows
    only have typed columns)."""
    many = tmp_path / "in"
    shutil.copytree(inputs, many)
    for n in range(4):   # more work, so the kill lands half-way
        shutil.copy(DATA / "baiona.png", many / "scans" / f"copy{n}.png")
    out = tmp_path / "out"
    address = ray_cluster.ray.get_runtime_context().gcs_address
    log = tmp_path / "batch.stderr"
    with log.open("wb") as stderr:
        proc = subprocess.Popen(RETTO + ["batch", str(many), "--output", str(out), "--ray", address,
                                         "--rows-per-file", "1", "--no-progress"],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr)
    wait_for(lambda: part_count(out) >= 1, proc, "the first part file", log)
    wait_for(lambda: len(map_workers()) == 2, proc, "both map actors", log)
    os.kill(map_workers()[0], signal.SIGKILL)   # Ray restarts it and retries its task
    parts = part_count(out)
    wait_for(lambda: part_count(out) > parts, proc, "a part file after the actor was killed", log)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    first = read_rows(str(out))
    total_inputs = len(collect_inputs([many]))
    done_before = len(set(first.column("path").to_pylist()))
    assert 0 < done_before < total_inputs, "killed half-way"

    capsys.readouterr()
    cli.main(["batch", str(many), "--output", str(out), "--no-progress"])
    assert f", {done_before} inputs unchanged," in capsys.readouterr().err   # finished inputs are not redone
    table = read_rows(str(out))
    keys = row_keys(table)
    assert all(n == 1 for n in keys.values()), [k for k, n in keys.items() if n > 1]
    copies = {(str(many / "scans" / f"copy{n}.png"), 1) for n in range(4)}
    expected = {(str(many / Path(p).relative_to(inputs)), page) for p, page in expected_pages(cli_records)}
    assert set(keys) == expected | copies
    assert pq.read_table(out / "rows").num_rows == table.num_rows   # one dataset, no null-typed columns


def test_jobs_output_is_the_cli_output(inputs, cli_records):
    """`retto --jobs 2`: the same records, in the same (input) order, as one process."""
    out = run_cli(["--inputs", str(inputs), "--format", "jsonl", "--no-progress", "--jobs", "2"])
    assert out.returncode == 1, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["path"] for r in records] == list(cli_records)
    assert [strip_timings(r) for r in records] == [strip_timings(r) for r in cli_records.values()]
    # Byte for byte in a format without timings: what one process prints for these records.
    text = run_cli(["--inputs", str(inputs), "--format", "text", "--no-progress", "--jobs", "2"])
    assert text.stdout == "".join(export.render(r, "text") + "\n" for r in cli_records.values())
