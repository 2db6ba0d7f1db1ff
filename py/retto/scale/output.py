"""Where `retto batch` rows go: part files under OUT/rows/, each written whole (to a hidden temporary name, then
moved into place) and holding only inputs whose every row is in it. So an interrupted or killed run loses only
what was not yet written, never leaves half an input behind, and a re-run knows from the part files alone which
inputs are done (by path and content sha256).

Ray can write Parquet itself (and its beta CheckpointConfig resumes by an id column of the *input* dataset);
the rows are written here instead because the resume key includes the content's sha256, which only the actor
that read the input knows, and because an input's rows must land together for "every page exactly once".
"""
from __future__ import annotations

import json
import os
import time

import pyarrow as pa

from retto.scale.rows import SCHEMA

FORMATS = ("parquet", "jsonl")


class RowWriter:
    def __init__(self, out_uri: str, fmt: str):
        from pyarrow import fs as pafs
        if fmt not in FORMATS:
            raise ValueError(f"unknown row format {fmt!r}")
        self.fmt = fmt
        self.fs, base = pafs.FileSystem.from_uri(out_uri)
        self.dir = base.rstrip("/") + "/rows"
        self.fs.create_dir(self.dir, recursive=True)
        self.run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + f"-{os.getpid()}"
        self.parts = 0
        self._remove_leftovers()

    def _files(self, hidden: bool = False) -> list[str]:
        from pyarrow import fs as pafs
        infos = self.fs.get_file_info(pafs.FileSelector(self.dir, recursive=False))
        names = sorted(i.path for i in infos if i.type == pafs.FileType.File)
        return [n for n in names if n.rsplit("/", 1)[-1].startswith("._") == hidden and
                (hidden or n.endswith("." + self.fmt))]

    def _remove_leftovers(self) -> None:
        """Temporary files of a run that was killed while writing: never moved into place, so never counted."""
        for name in self._files(hidden=True):
            self.fs.delete_file(name)

    def done(self) -> dict[str, str]:
        """path -> content sha256 of every input already written (the newest part file wins)."""
        out = {}
        for name in self._files():
            for path, sha in self._keys(name):
                if sha is not None:
                    out[path] = sha
        return out

    def _keys(self, name: str):
        if self.fmt == "parquet":
            import pyarrow.parquet as pq
            with self.fs.open_input_file(name) as f:
                t = pq.read_table(f, columns=["path", "sha256"])
            return zip(t.column("path").to_pylist(), t.column("sha256").to_pylist())
        with self.fs.open_input_stream(name) as f:
            lines = f.read().decode("utf-8").splitlines()
        return ((r["path"], r["sha256"]) for r in map(json.loads, filter(None, lines)))

    def write(self, rows: list[dict]) -> str | None:
        """One part file of these rows (whole inputs only); returns its path (None: nothing to write)."""
        if not rows:
            return None
        self.parts += 1
        name = f"part-{self.run_id}-{self.parts:05d}.{self.fmt}"
        tmp, final = f"{self.dir}/._{name}", f"{self.dir}/{name}"
        with self.fs.open_output_stream(tmp) as f:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq
                pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), f)
            else:
                f.write("".join(json.dumps(_jsonable(r), ensure_ascii=False) + "\n" for r in rows).encode())
        self.fs.move(tmp, final)   # a rename on local disks; object stores have no half-written objects
        return final


def _jsonable(row: dict) -> dict:
    out = {k: row.get(k) for k in SCHEMA.names}
    if out["timings"] is not None:
        out["timings"] = dict(out["timings"])
    return out


def read_rows(out_uri: str, fmt: str = "parquet") -> pa.Table:
    """Every row written so far (for tests and users): one table of the fixed schema."""
    writer = RowWriter.__new__(RowWriter)
    from pyarrow import fs as pafs
    writer.fmt = fmt
    writer.fs, base = pafs.FileSystem.from_uri(out_uri)
    writer.dir = base.rstrip("/") + "/rows"
    tables = []
    for name in writer._files():
        if fmt == "parquet":
            import pyarrow.parquet as pq
            with writer.fs.open_input_file(name) as f:
                tables.append(pq.read_table(f, schema=SCHEMA))
        else:
            with writer.fs.open_input_stream(name) as f:
                recs = [json.loads(x) for x in f.read().decode("utf-8").splitlines() if x]
            for r in recs:
                r["timings"] = None if r["timings"] is None else list(r["timings"].items())
            tables.append(pa.Table.from_pylist(recs, schema=SCHEMA))
    return pa.concat_tables(tables) if tables else SCHEMA.empty_table()
