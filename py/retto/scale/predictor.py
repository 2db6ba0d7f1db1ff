"""The Ray Data predictor: a callable class, one per actor, holding one Session (models loaded once per actor).

It takes a batch of input items (`retto.scale.inputs`) and returns their page rows as an Arrow table of the fixed
schema (`retto.scale.rows`). Nothing raises out of it for bad input: a file that cannot be read, a broken PDF or a
page that fails is an error row and the batch goes on (one raised error would fail the whole Ray job, and
dropping errored blocks would drop good pages with the bad one). It does not import Ray: it is plain Python, run
the same way by the tests.
"""
from __future__ import annotations

import hashlib
import logging

from retto.errors import RettoError
from retto.scale import rows as rows_mod
from retto.scale.inputs import read_input

log = logging.getLogger("retto")


class PagePredictor:
    def __init__(self, models: str | None = None, models_dir: str | None = None, threads: int = 1,
                 device: str = "cpu", config: dict | None = None, max_file_bytes: int | None = None,
                 exports: tuple = (), out_uri: str | None = None):
        from retto.native.ort_worker import OrtWorker
        worker = OrtWorker(models=models, models_dir=models_dir, threads=threads, device=device)
        self.session = worker.session(config)
        self.model_set = worker.model_set.name
        self.max_file_bytes, self.exports, self.out_uri = max_file_bytes, tuple(exports), out_uri

    def __call__(self, batch):
        out = []
        for item in batch.to_pylist():
            out.extend(self.one(item))
        return rows_mod.table(out)

    def one(self, item: dict) -> list[dict]:
        from retto.native.read import ocr_data
        path = item["path"]
        try:
            data = read_input(item, self.max_file_bytes)
        except RettoError as err:
            return rows_mod.rows_of(path, None, err.to_dict(), self.model_set)
        sha = hashlib.sha256(data).hexdigest()
        if item.get("done_sha") == sha:   # its rows are already in the output: nothing to do
            return [rows_mod.skipped_row(path, sha)]
        record = ocr_data(self.session, data)
        if self.exports:
            self.export(item, {"path": path, **record}, data)
        return rows_mod.rows_of(path, sha, record, self.model_set)

    def export(self, item: dict, record: dict, data: bytes) -> None:
        """The per-document files asked for (`--export pdf,hocr,md`), beside the rows, named as the CLI's
        --output names them (a/x.pdf -> a/x.pdf.hocr). A failure is logged; the rows still count."""
        from pyarrow import fs as pafs

        from retto import export
        from retto.native.read import page_images_of
        if not export.has_result(record):
            return
        filesystem, base = pafs.FileSystem.from_uri(self.out_uri)
        for fmt in self.exports:
            target = f"{base.rstrip('/')}/{item['rel']}.{export.EXTENSIONS[fmt]}"
            try:
                if fmt == "pdf":
                    body = export.searchable_pdf(record, page_images_of(record, data, self.session.config)())
                else:
                    body = (export.render(record, fmt, record["path"]) + "\n").encode("utf-8")
                filesystem.create_dir(target.rsplit("/", 1)[0], recursive=True)
                with filesystem.open_output_stream(target) as f:
                    f.write(body)
            except Exception as exc:   # one export lost, said; the OCR rows are not
                log.warning("output_failed: %s: cannot write its %s: %s", record["path"], fmt, exc)
