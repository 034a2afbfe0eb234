"""A progress line for sweeps, on stderr, without dependencies.

On a terminal (or in Jupyter, whose stderr understands carriage returns)
the line is redrawn in place; elsewhere (a log file, CI) one line is
printed per finished run.

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(total=2, stream=out, inplace=False)
    >>> p.skip(1)             # one run came from the cache
    >>> p.start("tl2 t=2")
    >>> p.finish(ok=True)
    >>> p.close()
    >>> print(out.getvalue().splitlines()[-1])
    [####################] 2/2 (1 cached) done
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

BAR_WIDTH = 20


def _clock(seconds: float) -> str:
    """Seconds as h:mm:ss or m:ss."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Counts runs done (run, cached, failed) out of total and draws a bar."""

    def __init__(self, total: int, *, enabled: bool = True,
                 stream: Optional[TextIO] = None, inplace: Optional[bool] = None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        if inplace is None:
            inplace = self._stream_is_tty() or "ipykernel" in sys.modules
        self.inplace = inplace
        self.done = 0
        self.cached = 0
        self.failed = 0
        self._ran = 0
        self._run_time = 0.0
        self._started: Optional[float] = None
        self._label = ""
        self._width = 0

    def _stream_is_tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def skip(self, count: int) -> None:
        """count runs were found in the cache."""
        self.done += count
        self.cached += count
        self._draw("")

    def start(self, label: str) -> None:
        """A run described by label starts."""
        self._label = label
        self._started = time.monotonic()
        if self.inplace:
            self._draw(label)

    def finish(self, *, ok: bool) -> None:
        """The run started last has ended."""
        if self._started is not None:
            self._run_time += time.monotonic() - self._started
            self._ran += 1
        self.done += 1
        if not ok:
            self.failed += 1
        note = self._label + ("" if ok else "  FAILED")
        if self.inplace:
            self._draw(note)
        else:
            self._print_line(self._status(note))

    def close(self) -> None:
        """Draw the final state and end the line."""
        if not self.enabled:
            return
        text = self._status("done")
        if self.inplace:
            self._redraw(text)
            self.stream.write("\n")
        else:
            self._print_line(text)
        self.stream.flush()

    def _status(self, note: str) -> str:
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        parts = [f"[{bar}] {self.done}/{self.total}"]
        extra = []
        if self.cached:
            extra.append(f"{self.cached} cached")
        if self.failed:
            extra.append(f"{self.failed} failed")
        if extra:
            parts.append(f"({', '.join(extra)})")
        remaining = self.total - self.done
        if self._ran and remaining and note != "done":
            parts.append(f"eta {_clock(remaining * self._run_time / self._ran)}")
        if note:
            parts.append(note)
        return " ".join(parts)

    def _draw(self, note: str) -> None:
        if self.enabled and self.inplace:
            self._redraw(self._status(note))

    def _redraw(self, text: str) -> None:
        pad = max(self._width - len(text), 0)
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def _print_line(self, text: str) -> None:
        if self.enabled:
            self.stream.write(text + "\n")
            self.stream.flush()
