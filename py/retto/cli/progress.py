"""What the terminal shows while a run goes on, and how Ctrl-C and SIGTERM stop it between results."""
from __future__ import annotations

import signal
import sys
from pathlib import Path

from retto.records import visible


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal; plain per-input lines otherwise), and a
    PDF's pages as they finish ("report.pdf — page 3 / 12")."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.tty = total, enabled, sys.stderr.isatty()

    def page(self, n: int, path: str, page: int, page_count: int, status: str, ms: float):
        if not self.enabled:
            return
        where = f"{visible(Path(path).name if self.tty else path)} \u2014 page {page} / {page_count}"
        if self.tty:
            sys.stderr.write(f"\r[{n}/{self.total}] {where[:60]} {status} {ms:.0f} ms\x1b[K")
        else:
            sys.stderr.write(f"[{n}/{self.total}] {where} {status} {ms:.0f} ms\n")
        sys.stderr.flush()

    def update(self, done: int, path: str, status: str, ms: float):
        if not self.enabled:
            return
        if self.tty:
            width = 24
            fill = int(width * done / max(self.total, 1))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} "
                             f"{visible(Path(path).name)[:30]:30} "
                             f"{status} {ms:.0f} ms\x1b[K")   # erase what a longer page line left
            if done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(f"[{done}/{self.total}] {visible(path)} {status} {ms:.0f} ms\n")
        sys.stderr.flush()


class InterruptGuard:
    """Ctrl-C (SIGINT) and SIGTERM raise KeyboardInterrupt, except inside `with guard:` (while a result is being
    written): there it is held until the block ends, so stopping never leaves half a record on stdout."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.depth, self.pending, self.stopped, self.previous = 0, False, False, {}
        self.signum = signal.SIGINT
        try:
            for signum in self.SIGNALS:
                self.previous[signum] = signal.signal(signum, self._on_sigint)
        except ValueError:   # main() called outside the main thread: Python's own handling stays
            pass

    def _on_sigint(self, signum, frame):
        if self.stopped:   # already stopping: a second Ctrl-C must not break the closing of the output
            return
        self.signum = signum
        if self.depth:
            self.pending = True
        else:
            self.stopped = True
            raise KeyboardInterrupt

    def __enter__(self):
        self.depth += 1

    def __exit__(self, *exc):
        self.depth -= 1
        if not self.depth and self.pending:
            self.pending, self.stopped = False, True
            raise KeyboardInterrupt

    def restore(self):
        for signum, previous in self.previous.items():
            signal.signal(signum, previous)
