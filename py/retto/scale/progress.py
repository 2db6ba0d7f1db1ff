"""The batch's progress line on stderr: pages done out of the pages known so far.

A PDF's page count is known only once an actor has opened it, so until every input has been opened the total
counts each unopened input as one page and is shown with a "+" (it can only grow).
"""
from __future__ import annotations

import sys
import time


class BatchProgress:
    def __init__(self, inputs: int, enabled: bool, stream=None):
        self.stream = stream or sys.stderr
        self.inputs, self.enabled = inputs, enabled
        self.tty = self.stream.isatty()
        self.seen = self.skipped = self.pages = self.known_pages = self.failed = 0
        self.t0 = self.last = time.monotonic()

    def input_done(self, rows: list[dict], skipped: bool) -> None:
        self.seen += 1
        if skipped:
            self.skipped += 1
        else:
            self.pages += len(rows)
            self.known_pages += len(rows)
            self.failed += sum(r["error_code"] is not None for r in rows)
        self.show()

    def line(self) -> str:
        unopened = self.inputs - self.seen
        total = f"{self.known_pages + unopened}{'+' if unopened else ''}"
        secs = max(time.monotonic() - self.t0, 1e-9)
        return (f"retto batch: {self.pages}/{total} pages, {self.seen}/{self.inputs} inputs"
                f" ({self.skipped} unchanged, {self.failed} failed) {self.pages / secs:.2f} pages/s")

    def show(self, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K" + ("\n" if final else ""))
        elif final or now - self.last >= 2.0:
            self.stream.write(self.line() + "\n")
            self.last = now
        self.stream.flush()
