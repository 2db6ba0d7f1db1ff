"""Rows arrive from the actors in blocks; an input is handed on only once all its rows are there, and once.

A retried Ray task (after an actor was killed) can send an input's rows again: they are recognised by
(path, sha256, page) and dropped, so no page is counted or written twice.
"""
from __future__ import annotations


class Assembler:
    def __init__(self):
        self.partial: dict[tuple, dict] = {}   # (path, sha256) -> {page: row}
        self.finished: set[tuple] = set()
        self.duplicates = 0

    def feed(self, rows: list[dict]):
        """Yield (rows of one finished input, skipped?) as inputs complete."""
        for row in rows:
            key = (row["path"], row["sha256"])
            if key in self.finished:
                self.duplicates += 1
                continue
            if row["skipped"] or row["page"] is None:   # one row stands for the whole input
                self.finished.add(key)
                self.partial.pop(key, None)
                yield [row], row["skipped"]
                continue
            pages = self.partial.setdefault(key, {})
            if row["page"] in pages:
                self.duplicates += 1
                continue
            pages[row["page"]] = row
            if len(pages) == row["page_count"]:
                self.finished.add(key)
                del self.partial[key]
                yield [pages[p] for p in sorted(pages)], False
