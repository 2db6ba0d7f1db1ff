"""`retto --inputs` with PDFs: a batch goes on past bad PDFs, each document gets its own output file."""
from __future__ import annotations

import json
import subprocess
import sys

import pdf_fixtures as F
from refkit import ROOT


def run_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "retto", "--models", "ppocr-v4", "--threads", "2", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def make_batch(folder, image_paths):
    (folder / "sub").mkdir(parents=True)
    (folder / "doc.pdf").write_bytes(F.image_pdf([image_paths["baiona"], image_paths["baiona_gray"]]))
    (folder / "enc.pdf").write_bytes(F.encrypted_pdf())
    (folder / "broken.pdf").write_bytes(F.garbage_pdf())
    (folder / "sub" / "empty.pdf").write_bytes(F.zero_page_pdf())
    (folder / "sub" / "b.png").write_bytes(image_paths["baiona"].read_bytes())
    (folder / "notes.txt").write_text("not an input")


def test_batch_goes_on_past_bad_pdfs_with_their_codes(tmp_path, image_paths):
    src = tmp_path / "in"
    make_batch(src, image_paths)
    proc = run_cli("--inputs", str(src), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    records = {r["path"].removeprefix(str(src) + "/"): r for r in json.loads(proc.stdout)}
    assert sorted(records) == ["broken.pdf", "doc.pdf", "enc.pdf", "sub/b.png", "sub/empty.pdf"]
    assert records["enc.pdf"]["error"]["code"] == "pdf_encrypted"
    assert records["broken.pdf"]["error"]["code"] == "pdf_invalid"
    assert records["sub/empty.pdf"]["error"]["code"] == "pdf_empty"
    doc = records["doc.pdf"]
    assert (doc["kind"], doc["page_count"], [p["page"] for p in doc["pages"]]) == ("pdf", 2, [1, 2])
    assert all(p["dpi"] == 200 and p["lines"] for p in doc["pages"])
    # page 1 is baiona.png at 1:1, so it reads as the PNG does in the same batch
    assert [ln["text"] for ln in doc["pages"][0]["lines"]] == [ln["text"] for ln in records["sub/b.png"]["lines"]]
    assert "doc.pdf \u2014 page 2 / 2" in proc.stderr and "3 of 5 inputs failed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_one_output_file_per_document_in_every_format(tmp_path, image_paths):
    src, out = tmp_path / "in", tmp_path / "out"
    make_batch(src, image_paths)
    for fmt, ext in (("pdf", "pdf"), ("hocr", "hocr"), ("text", "txt")):
        proc = run_cli("--images", str(src), "--format", fmt, "--output", str(out / fmt), "--no-progress")
        assert proc.returncode == 1, proc.stderr
        written = sorted(str(p.relative_to(out / fmt)) for p in (out / fmt).rglob("*") if p.is_file())
        if fmt == "text":   # errors are written as text too
            assert written == sorted(f"{n}.txt" for n in ("broken.pdf", "doc.pdf", "enc.pdf", "sub/b.png",
                                                           "sub/empty.pdf"))
        else:               # no document for an input without a result
            assert written == [f"doc.pdf.{ext}", f"sub/b.png.{ext}"]
    pdf = (out / "pdf" / "doc.pdf.pdf").read_bytes()
    pages = subprocess.run(["pdftotext", "-raw", "-", "-"], input=pdf, capture_output=True,
                           check=True).stdout.decode().split("\f")
    hocr = (out / "hocr" / "doc.pdf.hocr").read_text()
    assert hocr.count('class="ocr_page"') == 2
    text = (out / "text" / "doc.pdf.txt").read_text()
    assert text.count("\f") == 1 and "Basusarri" in pages[0] and "Basusarri" in pages[1]


def test_max_pages_and_dpi_flags(tmp_path):
    three = tmp_path / "three.pdf"
    three.write_bytes(F.blank_pdf(3))
    proc = run_cli("--inputs", str(three), "--max-pages", "2", "--format", "jsonl", "--no-progress")
    record = json.loads(proc.stdout)
    assert proc.returncode == 1 and record["error"]["code"] == "pdf_too_many_pages"
    assert "--max-pages" in record["error"]["message"]
    proc = run_cli("--inputs", str(three), "--dpi", "72", "--format", "jsonl", "--no-progress")
    record = json.loads(proc.stdout)
    assert proc.returncode == 0, proc.stderr
    assert [(p["dpi"], p["image"]["width"], p["lines"]) for p in record["pages"]] == [(72, 200, [])] * 3


def test_a_page_that_cannot_be_rendered_fails_alone(tmp_path):
    """With global.max_pixels at 100: the 10 pt page fits at 75 DPI, 10 x 10 pixels (at 76 it would round to 11;
    a warning says so), the 2000 pt page does not
    fit even at 1 DPI: that page is an error record, the document and the exit code say so."""
    doc = tmp_path / "sizes.pdf"
    doc.write_bytes(F.blank_pdf(sizes=[(10, 10), (2000, 2000)]))
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"global": {"max_pixels": 100}}))
    proc = run_cli("--inputs", str(doc), "--config", str(settings), "--format", "jsonl")
    assert proc.returncode == 1, proc.stderr
    record = json.loads(proc.stdout)
    first, second = record["pages"]
    assert (first["page"], first["dpi"], first["image"]) == (1, 75, {"width": 10, "height": 10})
    assert second == {"page": 2, "error": second["error"]} and second["error"]["code"] == "image_too_large"
    assert len(record["warnings"]) == 1 and record["warnings"][0].startswith("page 1: ")
    assert "1 of 1 inputs failed" in proc.stderr and "1 page failed" not in proc.stderr
