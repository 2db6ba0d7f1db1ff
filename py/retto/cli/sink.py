"""Where the CLI's results go: one file per input under --output, else stdout."""
from __future__ import annotations

import sys
from pathlib import Path

from retto import export
from retto.cli.args import SINGLE_DOCUMENT_FORMATS, TABLE_FILE_FORMATS
from retto.cli.progress import InterruptGuard
from retto.io.image import display_path
from retto.io.outputs import output_path


class Sink:
    """Where results go: one file per input under --output, else stdout. On stdout, --format json is one array
    streamed a record at a time (not collected until the end), so whatever finished is already out when a run
    is interrupted, and close() makes it valid JSON."""

    def __init__(self, fmt: str, out_dir: Path | None, guard: InterruptGuard):
        self.fmt, self.out_dir, self.guard, self.taken = fmt, out_dir, guard, set()
        self.array = out_dir is None and fmt == "json"
        self.count, self.closed = 0, False
        if out_dir is None and hasattr(sys.stdout, "reconfigure"):
            # JSON is UTF-8 by definition, whatever the locale; text never ends a batch over one character.
            if fmt in ("json", "jsonl"):
                sys.stdout.reconfigure(encoding="utf-8")
            else:
                sys.stdout.reconfigure(errors="backslashreplace")

    def put(self, name: str, rel: Path, record: dict, page_images=None) -> str | None:
        """Write one result; returns why it could not be written (None: written). page_images: a callable giving
        the pages' pictures, called only for the searchable PDF."""
        if self.fmt in SINGLE_DOCUMENT_FORMATS and not export.has_result(record):
            return None   # no document to write; the error is reported on stderr like any other
        if self.fmt in TABLE_FILE_FORMATS:
            return self._put_tables(name, rel, record)
        if self.fmt == "pdf":
            data = export.searchable_pdf(record, page_images())
        else:
            text = export.render(record, self.fmt, name)
            data = None
        if self.out_dir is None:
            if data is not None:
                with self.guard:
                    sys.stdout.flush()
                    sys.stdout.buffer.write(data)
                    sys.stdout.buffer.flush()
                return None
            if self.array:
                text = ("[\n" if self.count == 0 else ",\n") + "\n".join("  " + ln for ln in text.splitlines())
            else:
                text += "\n"
            with self.guard:
                self._write(text)
                self.count += 1
            return None
        target = output_path(self.out_dir, rel, export.EXTENSIONS[self.fmt], self.taken)
        try:
            with self.guard:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data if data is not None else (text + "\n").encode("utf-8"))
        except FileExistsError:   # from mkdir: a file stands where the mirrored folder should be
            return f"cannot create the folder {display_path(target.parent)}: a file of that name is in the way"
        except OSError as exc:
            return f"cannot write {display_path(target)}: {exc.strerror or exc}"
        return None

    def _put_tables(self, name: str, rel: Path, record: dict) -> str | None:
        """csv: x.png.table-1.csv per table (a PDF's: x.pdf.p2.table-1.csv); xlsx: x.png.xlsx. An input without
        tables is said on stderr and writes nothing (not a failure: its text was read)."""
        found = export.record_tables(record)
        if not found:
            if "error" not in record:
                print(export.visible(f"retto: {name}: no table found, no {self.fmt} written"), file=sys.stderr)
            return None
        if self.fmt == "xlsx":
            files = [(f"{rel.name}.xlsx", export.tables_xlsx(record))]
        else:
            counts, files = {}, []
            for page_no, table in found:
                counts[page_no] = counts.get(page_no, 0) + 1
                page = f"p{page_no}." if "pages" in record else ""
                files.append((f"{rel.name}.{page}table-{counts[page_no]}.csv",
                              export.table_csv(table).encode("utf-8")))
        for file_name, data in files:
            problem = self._write_file(rel.parent / file_name, data)
            if problem:
                return problem
        return None

    def _write_file(self, rel: Path, data: bytes) -> str | None:
        target = self.out_dir / rel
        n = 2
        while target in self.taken:   # x.png and x.png given twice (two folders mirror to one name)
            target = self.out_dir / rel.parent / f"{n}.{rel.name}"
            n += 1
        self.taken.add(target)
        try:
            with self.guard:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
        except FileExistsError:
            return f"cannot create the folder {display_path(target.parent)}: a file of that name is in the way"
        except OSError as exc:
            return f"cannot write {display_path(target)}: {exc.strerror or exc}"
        return None

    def close(self):
        if self.array and not self.closed:
            with self.guard:
                self._write("\n]\n" if self.count else "[]\n")
                self.closed = True

    def _write(self, text: str):
        with self.guard:
            sys.stdout.write(text)
            sys.stdout.flush()
